package perpshttp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestProxyLifecycle(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	owner := newKey(t, 1)
	var reg struct{ Registered bool }
	if e.get("/v1/info/registered?address="+owner.hex, &reg); reg.Registered {
		t.Fatal("registered before createProxy")
	}
	a := e.trader(1, "1000")
	if e.get("/v1/info/registered?address=0x"+strings.ToUpper(owner.hex[2:]), &reg); !reg.Registered {
		t.Error("registration lookup is case-sensitive")
	}
	if e.get("/v1/info/registered?address="+owner.hex, &reg); !reg.Registered {
		t.Fatal("not registered after createProxy")
	}
	if code, _ := e.get("/v1/info/registered?address=nope", nil); code != 400 {
		t.Errorf("bad address %d", code)
	}
	if len(a.secret) != 40 {
		t.Errorf("secret %q", a.secret)
	}
	var cr struct {
		Address string
		Keys    []struct {
			Proxy  string
			Label  string
			Expiry int64
		}
	}
	if code, body := a.read("/v1/account/credentials", &cr); code != 200 || !strings.EqualFold(cr.Address, owner.hex) ||
		len(cr.Keys) != 1 || !strings.EqualFold(cr.Keys[0].Proxy, a.proxy.hex) || cr.Keys[0].Label != "test" ||
		cr.Keys[0].Expiry != e.ms.Load()+7*86400000 {
		t.Fatalf("credentials %d %s", code, body)
	}
	// Alternative header names.
	alt := map[string]string{"POLYMARKET-PROXY": a.proxy.hex, "POLYMARKET-SECRET": a.secret}
	if code, _ := e.do("GET", e.api.URL+"/v1/account/balances", nil, alt, nil); code != 200 {
		t.Errorf("POLYMARKET headers %d", code)
	}
	for name, h := range map[string]map[string]string{
		"none":         nil,
		"wrong secret": {"SVC-PROXY": a.proxy.hex, "SVC-SECRET": otherLast(a.secret)},
		"unknown":      {"SVC-PROXY": owner.hex, "SVC-SECRET": a.secret},
	} {
		if code, body := e.do("GET", e.api.URL+"/v1/account/balances", nil, h, nil); code != 401 || !strings.Contains(body, `"unauthorized"`) {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	// The same proxy cannot be registered twice while active.
	if code, body := a.createProxy(e.now()+1000, ""); code != 422 {
		t.Errorf("duplicate proxy %d %s", code, body)
	}
	// A createProxy signed by someone other than owner is refused.
	bad := &trader{e: e, owner: newKey(t, 9), proxy: newKey(t, 10)}
	bad.owner.hex = owner.hex // claims to be owner, signs with key 9
	if code, body := bad.createProxy(e.now()+1000, ""); code != 400 || !strings.Contains(body, "invalid signature") {
		t.Errorf("forged createProxy %d %s", code, body)
	}
	// Delete: owner-signed; afterwards the credential stops working.
	code, body := a.signed("DELETE", "/v1/account/proxy", a.owner,
		`{"type":"deleteProxy","args":{"proxy":"`+a.proxy.hex+`"}}`, []any{"deleteProxy", []any{a.proxy.hex}}, "")
	if code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("deleteProxy %d %s", code, body)
	}
	if code, _ := a.read("/v1/account/balances", nil); code != 401 {
		t.Errorf("deleted proxy still reads: %d", code)
	}
	code, body = a.placeRaw("", ord{iid: 1, buy: true, p: "1", qty: "1"})
	if code != 400 || !strings.Contains(body, "account not found for proxy") || body[0] != '[' {
		t.Errorf("deleted proxy trades: %d %s", code, body)
	}
	// Deleting again: 422.
	code, _ = a.signed("DELETE", "/v1/account/proxy", a.owner,
		`{"type":"deleteProxy","args":{"proxy":"`+a.proxy.hex+`"}}`, []any{"deleteProxy", []any{a.proxy.hex}}, "")
	if code != 422 {
		t.Errorf("second delete %d", code)
	}
}

func TestProxyExpiry(t *testing.T) {
	e := newEnv(t, Options{})
	e.instrument()
	a := &trader{e: e, owner: newKey(t, 1), proxy: newKey(t, 101)}
	code, body := a.createProxy(e.now()+60_000, "")
	if code != 200 {
		t.Fatal(code, body)
	}
	var r struct{ Secret string }
	json.Unmarshal([]byte(body), &r)
	a.secret = r.Secret
	if code, _ := a.read("/v1/account/balances", nil); code != 200 {
		t.Fatalf("fresh proxy %d", code)
	}
	e.advance(61 * time.Second)
	if code, _ := a.read("/v1/account/balances", nil); code != 401 {
		t.Errorf("expired proxy reads: %d", code)
	}
	if code, body := a.placeRaw("", ord{iid: 1, buy: true, p: "1", qty: "1"}); !strings.Contains(body, "account not found for proxy") {
		t.Errorf("expired proxy trades: %d %s", code, body)
	}
	// An expired proxy may be registered again.
	if code, body := a.createProxy(e.now()+60_000, ""); code != 200 {
		t.Errorf("re-register after expiry %d %s", code, body)
	}
	// An expiry in the past is refused.
	b := &trader{e: e, owner: newKey(t, 2), proxy: newKey(t, 102)}
	if code, _ := b.createProxy(e.now()-1, ""); code != 400 {
		t.Errorf("past expiry %d", code)
	}
}

// otherLast is secret with its last character changed (never to itself:
// a fixed replacement equals the original one time in the alphabet's size).
func otherLast(secret string) string {
	last := "x"
	if strings.HasSuffix(secret, "x") {
		last = "y"
	}
	return secret[:len(secret)-1] + last
}
