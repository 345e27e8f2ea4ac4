package perpshttp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRepeatSignerVerifiedByKnownKey: on a kept-alive connection a repeat
// signer is checked against its known key instead of being recovered
// (perpsauth.Hint), with the same answers: orders are placed, and a revoked
// proxy is refused even though its key is known on the connection.
func TestRepeatSignerVerifiedByKnownKey(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "1000000")
	for i := range 5 {
		a.placeOK(ord{iid: 1, buy: true, p: fmt.Sprint(90 + i), qty: "1"})
	}
	if st := e.srv.SignerStats(); st[1] < 3 {
		t.Fatalf("signer stats %v: the connection's repeat signer was recovered every time", st)
	}
	// Revoke on another connection, so this one keeps the proxy's key.
	salt, ts := e.salt.Add(1), e.now()
	sig := a.owner.sign(tOpDigest([]any{"deleteProxy", []any{a.proxy.hex}}, salt, ts))
	req, _ := http.NewRequest("DELETE", e.api.URL+"/v1/account/proxy", strings.NewReader(fmt.Sprintf(
		`{"op":{"type":"deleteProxy","args":{"proxy":%q}},"sig":%q,"salt":%d,"ts":%d}`, a.proxy.hex, sig, salt, ts)))
	other := &http.Client{Transport: &http.Transport{}}
	res, err := other.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("deleteProxy: %v %v", res, err)
	}
	res.Body.Close()
	known := e.srv.SignerStats()[1]
	code, body := a.placeRaw("", ord{iid: 1, buy: true, p: "1", qty: "1"})
	if code != 400 || !strings.Contains(body, "account not found for proxy") {
		t.Fatalf("revoked proxy with a known key: %d %s", code, body)
	}
	if e.srv.SignerStats()[1] != known+1 {
		t.Fatal("the refused request did not go through the known key: the test did not test it")
	}
}

// TestRepeatSignerOverWebSocket: the same shortcut for signed posts on a
// socket, with the same acks.
func TestRepeatSignerOverWebSocket(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "1000000")
	w := e.dial(t)
	w.auth(a)
	before := e.srv.SignerStats()
	for i := range 4 {
		o := ord{iid: 1, buy: true, p: fmt.Sprint(90 + i), qty: "1"}
		res := w.signedPost(a, `{"type":"createOrders","args":[`+o.keyed()+`]}`, []any{"createOrders", []any{o.compact()}})
		if !strings.HasPrefix(string(res), `[{"status":"ok"`) {
			t.Fatalf("post %d: %s", i, res)
		}
	}
	if st := e.srv.SignerStats(); st[1]-before[1] < 2 {
		t.Fatalf("signer stats %v → %v: no known-key verification on the socket", before, st)
	}
}
