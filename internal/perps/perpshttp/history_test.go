package perpshttp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type seriesPage struct {
	Data [][2]json.RawMessage
	More bool
}

func (tr *trader) series(path string) (int, seriesPage, string) {
	var p seriesPage
	code, b := tr.read(path, &p)
	return code, p, b
}

// TestEquityAndPnLHistoryRoutes: GET /v1/account/equity answers the account's
// equity samples as [ts, "equity"] (the last per bucket), GET
// /v1/account/pnl the realized pnl (fees included) per bucket, stamped with
// the bucket's start; both need the proxy headers, an interval of their enum
// and start_timestamp, and refuse a cursor; across a restart the samples stay.
func TestEquityAndPnLHistoryRoutes(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a, b := e.trader(1, "1000"), e.trader(2, "1000")
	e.advance(time.Minute)
	b.placeOK(ord{iid: 1, buy: false, p: "100", qty: "1"})
	a.placeOK(ord{iid: 1, buy: true, p: "100", qty: "1", tif: "ioc"}) // a pays 0.04 taker fee
	q := "?interval=1h&start_timestamp=0"
	code, eq, body := a.series("/v1/account/equity" + q)
	if code != 200 || eq.More || len(eq.Data) != 1 || string(eq.Data[0][1]) != `"999.96"` {
		t.Fatalf("equity: %d %s", code, body)
	}
	if ts := string(eq.Data[0][0]); ts != jsonInt(t0+60_000) {
		t.Fatalf("the sample is stamped with its own time: %s", body)
	}
	code, pnl, body := a.series("/v1/account/pnl" + q)
	hour := t0 / 3600_000 * 3600_000
	if code != 200 || len(pnl.Data) != 1 || string(pnl.Data[0][1]) != `"-0.04"` || string(pnl.Data[0][0]) != jsonInt(hour) {
		t.Fatalf("pnl: %d %s", code, body)
	}
	if _, p, body := a.series("/v1/account/pnl" + q + "&end_timestamp=" + jsonInt(hour-1)); len(p.Data) != 0 {
		t.Fatalf("a window before the bucket: %s", body)
	}
	for path, want := range map[string]string{
		"/v1/account/equity?start_timestamp=0":                      "missing field `interval`",
		"/v1/account/equity?interval=2h&start_timestamp=0":          "unknown variant `2h`",
		"/v1/account/pnl?interval=1m&start_timestamp=0":             "unknown variant `1m`",
		"/v1/account/pnl?interval=1h":                               "missing field `start_timestamp`",
		"/v1/account/pnl?interval=1h&start_timestamp=x":             "start_timestamp",
		"/v1/account/equity?interval=1h&start_timestamp=0&cursor=1": "invalid cursor",
	} {
		code, _, body := a.series(path)
		if code != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want 400 %q", path, code, body, want)
		}
	}
	if code, _ := e.get("/v1/account/pnl"+q, nil); code != 401 {
		t.Errorf("without headers: %d", code)
	}
	e.restart()
	if code, p, body := a.series("/v1/account/equity?interval=1m&start_timestamp=0"); code != 200 || len(p.Data) != 2 {
		// 1-minute buckets: the deposit's sample, then the fill's.
		t.Fatalf("after restart: %d %s", code, body)
	}
}

func jsonInt(v int64) string { b, _ := json.Marshal(v); return string(b) }
