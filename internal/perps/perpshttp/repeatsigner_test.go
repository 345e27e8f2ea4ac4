package perpshttp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRepeatSignerRecoveredEveryTime: on a kept-alive connection every
// signed request's signer is recovered (no per-connection key shortcut:
// libsecp256k1 recovery beat it, docs/signing.md), and a proxy revoked on another connection
// is refused on the connection that used it a moment ago.
func TestRepeatSignerRecoveredEveryTime(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "1000000")
	for i := range 5 {
		a.placeOK(ord{iid: 1, buy: true, p: fmt.Sprint(90 + i), qty: "1"})
	}
	if n := e.srv.Recovered(); n < 5 {
		t.Fatalf("%d signers recovered: want every signer recovered", n)
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
	recovered := e.srv.Recovered()
	code, body := a.placeRaw("", ord{iid: 1, buy: true, p: "1", qty: "1"})
	if code != 400 || !strings.Contains(body, "account not found for proxy") {
		t.Fatalf("revoked proxy on its own connection: %d %s", code, body)
	}
	if e.srv.Recovered() != recovered+1 {
		t.Fatal("the refused request was not recovered: the test did not test it")
	}
}

// TestRepeatSignerOverWebSocket: the same for signed posts on a socket: each
// is recovered and acked.
func TestRepeatSignerOverWebSocket(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := e.trader(1, "1000000")
	w := e.dial(t)
	w.auth(a)
	before := e.srv.Recovered()
	for i := range 4 {
		o := ord{iid: 1, buy: true, p: fmt.Sprint(90 + i), qty: "1"}
		res := w.signedPost(a, `{"type":"createOrders","args":[`+o.keyed()+`]}`, []any{"createOrders", []any{o.compact()}})
		if !strings.HasPrefix(string(res), `[{"status":"ok"`) {
			t.Fatalf("post %d: %s", i, res)
		}
	}
	if n := e.srv.Recovered(); n-before != 4 {
		t.Fatalf("%d → %d signers recovered: want 4 recoveries", before, n)
	}
}
