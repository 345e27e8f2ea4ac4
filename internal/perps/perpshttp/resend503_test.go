package perpshttp

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"pmx/internal/perps/perpsvc"
)

// transferBody is an internalTransfer signed by key, kept so the identical
// request can be sent again.
func (tr *trader) transferBody(key tKey, to, amt, label string) string {
	e := tr.e
	salt, ts := e.salt.Add(1), e.now()
	keyed := fmt.Sprintf(`{"type":"internalTransfer","args":{"account":%q,"token":%q,"amount":%q,"to":%q}}`,
		tr.owner.hex, perpsvc.CollateralToken, amt, to)
	compact := []any{"internalTransfer", []any{tr.owner.hex, perpsvc.CollateralToken, amt, to}}
	sig := key.sign(tOpDigest(compact, salt, ts))
	return fmt.Sprintf(`{"op":%s,"sig":%q,"salt":%d,"ts":%d,"label":%q}`, keyed, sig, salt, ts, label)
}

// TestSignedMoneyRefusedWith503IsResentWithExactlyOneEffect: a withdrawal
// and an internal transfer that reach the server while its journal is closed
// (shutting down) are answered 503 with Retry-After and executed nowhere; the
// client resends exactly those signed requests once the server is back and
// each executes once; further resends answer the same id and move nothing.
func TestSignedMoneyRefusedWith503IsResentWithExactlyOneEffect(t *testing.T) {
	e := moneyEnv(t)
	a, b := e.trader(1, "100"), e.trader(2, "")
	wd := a.withdrawBody(10_000_000, newKey(t, 77))
	tf := a.transferBody(a.owner, b.owner.hex, "20", "resent")
	routes := []struct{ path, body, idKey string }{
		{"/v1/account/withdraw", wd, "withdraw_id"},
		{"/v1/account/internal-transfer", tf, "transfer_id"},
	}
	e.srv.Close() // the journal is closed under a live listener
	for _, r := range routes {
		for range 2 { // refused, and refused again: never "signature already used"
			res, err := http.Post(e.api.URL+r.path, "application/json", bytes.NewReader([]byte(r.body)))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
				t.Fatalf("%s with the journal closed: %d Retry-After %q", r.path, res.StatusCode, res.Header.Get("Retry-After"))
			}
		}
	}
	e.restart()
	if bal := a.balance(); bal != "100" {
		t.Fatalf("a refused request moved money: %s", bal)
	}
	for i := range 3 {
		for _, r := range routes {
			code, ans := a.post(r.path, r.body)
			id := ans.WithdrawID + ans.TransferID
			if code != 200 || ans.Status != "ok" || id != 1 {
				t.Fatalf("%s, send %d after the 503: %d %+v", r.path, i+1, code, ans)
			}
		}
		if i == 1 {
			e.restart() // and across a restart
		}
	}
	if bal := a.balance(); bal != "70" {
		t.Fatalf("balance %s, want 100 − 10 − 20 once", bal)
	}
	if ws, _ := a.withdrawals(""); len(ws) != 1 {
		t.Fatalf("withdrawals %+v", ws)
	}
	if ts, _ := b.transfers(""); len(ts) != 1 || ts[0].Amount != "20" {
		t.Fatalf("transfers %+v", ts)
	}
}
