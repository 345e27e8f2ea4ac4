package perpshttp

import (
	"fmt"
	"testing"
	"time"
)

// TestRegisteredNegativeIsNeverStaleAfterRegistration: GET
// /v1/info/registered may cache a negative answer (up to 10 s), but an
// account registered by a deposit, a proxy or an incoming transfer is
// answered registered at once, and stays so (registration is permanent).
func TestRegisteredNegativeIsNeverStaleAfterRegistration(t *testing.T) {
	e := newEnv(t, Options{})
	reg := func(addr string) bool {
		t.Helper()
		var r struct{ Registered *bool }
		if code, b := e.get("/v1/info/registered?address="+addr, &r); code != 200 || r.Registered == nil {
			t.Fatalf("registered %s: %d %s", addr, code, b)
		}
		return *r.Registered
	}
	dep, prox := newKey(t, 30), newKey(t, 31)
	for _, a := range []string{dep.hex, prox.hex} {
		if reg(a) || reg(a) { // the second is the cached negative
			t.Fatalf("%s registered before anything", a)
		}
	}
	e.adminPost("/admin/perps/deposits", fmt.Sprintf(`{"address":%q,"amount":"5"}`, dep.hex))
	if !reg(dep.hex) {
		t.Fatal("a deposit's account is not seen at once")
	}
	tr := &trader{e: e, owner: prox, proxy: newKey(t, 131)}
	if code, b := tr.createProxy(e.now()+86400000, ""); code != 200 {
		t.Fatalf("createProxy: %d %s", code, b)
	}
	if !reg(prox.hex) {
		t.Fatal("a createProxy's account is not seen at once")
	}
	e.advance(time.Minute)
	if !reg(dep.hex) || !reg(prox.hex) {
		t.Fatal("registration is permanent")
	}
}
