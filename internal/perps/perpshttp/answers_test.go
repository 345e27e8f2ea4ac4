package perpshttp

import (
	"strings"
	"testing"
)

// TestWSSubscribeWithChannelsInsideOpIsAnError: a sub/unsub frame whose
// channels are not a top-level "chs" list (here nested in an "op", as a
// post would carry them) is answered with an error naming the expected
// shape, not an empty success.
func TestWSSubscribeWithChannelsInsideOpIsAnError(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	w := e.dial(t)
	for _, body := range []string{`"op":{"chs":["trades::1"]}`, `"op":{"chs":["trades::1"]},"chs":["trades::1"]`, `"channels":["trades::1"]`} {
		for _, req := range []string{"sub", "unsub"} {
			d := string(w.call(req, body))
			if !strings.Contains(d, `"status":"err"`) || !strings.Contains(d, "invalid_request") || !strings.Contains(d, `"chs\"`) {
				t.Errorf("%s %s: %s", req, body, d)
			}
		}
	}
	if d := string(w.call("sub", `"chs":["trades::1"]`)); d != `[{"status":"ok"}]` {
		t.Errorf("well-formed sub after errors: %s", d)
	}
}

// TestBookOfAnUnknownInstrumentIsNotFound: the book of an instrument that
// was never listed is 404 instrument_not_found, not an empty book.
func TestBookOfAnUnknownInstrumentIsNotFound(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	if code, body := e.get("/v1/info/book?instrument_id=99", nil); code != 404 || strings.TrimSpace(body) != `{"status":"err","error":"instrument_not_found"}` {
		t.Errorf("unknown instrument: %d %s", code, body)
	}
	if code, body := e.get("/v1/info/book?instrument_id=1", nil); code != 200 || !strings.Contains(body, `"instrument_id":1`) {
		t.Errorf("listed instrument: %d %s", code, body)
	}
}
