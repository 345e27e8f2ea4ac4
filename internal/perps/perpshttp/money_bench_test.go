package perpshttp

import (
	"fmt"
	"testing"
)

// BenchmarkMoneyHTTP: one money request at a time from one client through
// the real listener, engine and journal (fsync per command group): an
// operator deposit, a signed internal transfer, a signed withdrawal, and a
// 100-row page of GET /v1/account/internal-transfers; the reference in the
// same run is GET /v1/info/registered of a registered address (the same
// listener, IP budget and engine view, no journal, no signature).
// docs/PERFORMANCE.md "Perps money".
func BenchmarkMoneyHTTP(b *testing.B) {
	e := newEnv(b, Options{IPBudget: 1 << 30, ActionBudget: 1 << 30})
	a, c := e.trader(1, "100000000"), e.trader(2, "1")
	for range 100 {
		if code, ans := a.transfer(a.owner, a.owner.hex, c.owner.hex, "0.000001", `,"label":"page"`); code != 200 {
			b.Fatalf("transfer: %d %+v", code, ans)
		}
	}
	dest := newKey(b, 77)
	run := func(name string, req func(i int) (int, string)) {
		b.Run(name, func(b *testing.B) {
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				if code, body := req(i); code != 200 {
					b.Fatalf("%s: %d %s", name, code, body)
				}
			}
		})
	}
	run("registered", func(int) (int, string) { return e.get("/v1/info/registered?address="+a.owner.hex, nil) })
	run("deposit", func(int) (int, string) {
		return e.do("POST", e.admin.URL+"/admin/perps/deposits",
			[]byte(fmt.Sprintf(`{"address":%q,"amount":"1"}`, c.owner.hex)), nil, nil)
	})
	run("transfer", func(int) (int, string) {
		code, ans := a.transfer(a.owner, a.owner.hex, c.owner.hex, "0.000001", `,"label":"bench"`)
		return code, ans.Status
	})
	run("withdraw", func(int) (int, string) {
		code, ans := a.post("/v1/account/withdraw", a.withdrawBody(2_000_000, dest))
		return code, ans.Status
	})
	run("transfers-page", func(int) (int, string) { return c.read("/v1/account/internal-transfers", nil) })
}
