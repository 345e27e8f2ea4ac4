package perpshttp

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/chain"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth/testsigner"
	"pmx/internal/perps/perpsvc"
)

// moneyEnv is an env whose chain moves only when a test mines a block.
func moneyEnv(t *testing.T) *env {
	return newEnv(t, Options{Money: perpsvc.MoneyOptions{ManualChain: true}})
}

var tokenBytes, _ = hex.DecodeString(strings.TrimPrefix(perpsvc.CollateralToken, "0x"))

// withdrawBody is a Withdraw signed by tr's owner with the independent test
// signer: raw amount in base units, ts in seconds.
func (tr *trader) withdrawBody(raw uint64, to tKey) string {
	e := tr.e
	salt, ts := e.salt.Add(1), e.now()/1000
	sig := tr.owner.sign(testsigner.WithdrawDigest(tr.owner.addr, tokenBytes, raw, to.addr, salt, ts))
	return fmt.Sprintf(`{"op":{"type":"withdraw","args":{"account":%q,"token":%q,"amount":"%d","to":%q}},"sig":%q,"salt":%d,"ts":%d}`,
		tr.owner.hex, perpsvc.CollateralToken, raw, to.hex, sig, salt, ts)
}

type moneyAns struct {
	Status     string
	WithdrawID uint64 `json:"withdraw_id"`
	TransferID uint64 `json:"transfer_id"`
	Error      string
}

func (tr *trader) post(path, body string) (int, moneyAns) {
	tr.e.t.Helper()
	code, b := tr.e.do("POST", tr.e.api.URL+path, []byte(body), nil, nil)
	var a moneyAns
	if err := json.Unmarshal([]byte(b), &a); err != nil {
		tr.e.t.Fatalf("%s: %d %s", path, code, b)
	}
	return code, a
}

type wdRow struct {
	ID        uint64 `json:"withdraw_id"`
	Asset     string
	Amount    string
	To        string
	Fee       string
	Status    string
	Hash      string
	Conf      int64 `json:"confirmations"`
	Required  int64 `json:"required_confirmations"`
	Created   int64 `json:"created_timestamp"`
	Confirmed int64 `json:"confirmed_timestamp"`
}

func (tr *trader) withdrawals(query string) ([]wdRow, bool) {
	tr.e.t.Helper()
	var p struct {
		Data []wdRow
		More bool
	}
	if code, b := tr.read("/v1/account/withdrawals"+query, &p); code != 200 {
		tr.e.t.Fatalf("withdrawals%s: %d %s", query, code, b)
	}
	return p.Data, p.More
}

func (tr *trader) balance() string {
	tr.e.t.Helper()
	var bs []struct{ Balance string }
	if code, b := tr.read("/v1/account/balances", &bs); code != 200 || len(bs) != 1 {
		tr.e.t.Fatalf("balances: %d %s", code, b)
	}
	return bs[0].Balance
}

func (e *env) mine(n int) {
	e.t.Helper()
	for range n {
		ch := e.srv.Service().Chain()
		e.ms.Store(ch.Time(ch.Height(e.ms.Load()) + 1)) // the clock at the next block
		if err := e.srv.Service().Tick(); err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestWithdrawPendingThenConfirmedOnTheSimulatedChain(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "100")
	dest := newKey(t, 77)
	code, ans := a.post("/v1/account/withdraw", a.withdrawBody(40_000_000, dest))
	if code != 200 || ans.Status != "ok" || ans.WithdrawID != 1 {
		t.Fatalf("withdraw: %d %+v", code, ans)
	}
	if b := a.balance(); b != "60" {
		t.Fatalf("balance after withdraw %s, want 60 (the amount is debited; the fee is withheld from it)", b)
	}
	rows, more := a.withdrawals("")
	if len(rows) != 1 || more {
		t.Fatalf("rows %+v more %v", rows, more)
	}
	w := rows[0]
	if w.Status != "pending" || w.Hash != "0x" || w.Conf != 0 || w.Required != 3 || w.Amount != "40" || w.Fee != "1" ||
		w.Asset != "pUSD" || w.To != dest.hex || w.Created != int64(e.now()) || w.Confirmed != 0 {
		t.Fatalf("pending row %+v", w)
	}
	for i := int64(1); i <= 3; i++ {
		e.mine(1)
		w = first(a.withdrawals(""))
		if w.Conf != i || len(w.Hash) != 66 {
			t.Fatalf("after block %d: %+v", i, w)
		}
		if want := map[bool]string{true: "confirmed", false: "pending"}[i == 3]; w.Status != want {
			t.Fatalf("after block %d: status %s", i, w.Status)
		}
	}
	if w.Confirmed != int64(e.now()) {
		t.Fatalf("confirmed_timestamp %d want %d", w.Confirmed, e.now())
	}
	e.mine(1) // a confirmed withdrawal stays as it is
	if w2 := first(a.withdrawals("")); w2 != w {
		t.Fatalf("changed after confirmation: %+v", w2)
	}
	// Refunds are impossible once confirmed.
	if code, b := e.do("POST", e.admin.URL+"/admin/perps/withdrawals", []byte(`{"withdraw_id":1,"status":"failed"}`), nil, nil); code != 422 {
		t.Fatalf("failing a confirmed withdrawal: %d %s", code, b)
	}
}

func first(rows []wdRow, _ bool) wdRow {
	if len(rows) == 0 {
		return wdRow{}
	}
	return rows[0]
}

func TestWithdrawBeyondWithdrawableIsInsufficientBalanceWithID(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "100")
	code, ans := a.post("/v1/account/withdraw", a.withdrawBody(100_000_001, newKey(t, 77)))
	if code != 422 || ans.Status != "err" || ans.Error != "insufficient_balance" || ans.WithdrawID == 0 {
		t.Fatalf("over-withdraw: %d %+v", code, ans)
	}
	if b := a.balance(); b != "100" {
		t.Fatalf("balance %s", b)
	}
	// An open order's margin is not withdrawable.
	e.instrument()
	a.placeOK(ord{iid: 1, buy: true, p: "1000", qty: "1"}) // 1000 notional at 20x: 50 margin
	if code, ans := a.post("/v1/account/withdraw", a.withdrawBody(60_000_000, newKey(t, 77))); code != 422 || ans.Error != "insufficient_balance" {
		t.Fatalf("withdraw of margined collateral: %d %+v", code, ans)
	}
	// The portfolio's withdrawable (risk.Withdrawable) is exactly what may go:
	// a micro more is refused, that much is accepted.
	var pf struct{ Withdrawable string }
	a.read("/v1/account/portfolio", &pf)
	free, err := amount.Parse(pf.Withdrawable)
	if err != nil || free <= 1_000_000 || free > 50_000_000 {
		t.Fatalf("withdrawable %q beside a 50 margin", pf.Withdrawable)
	}
	if code, ans := a.post("/v1/account/withdraw", a.withdrawBody(uint64(free)+1, newKey(t, 77))); code != 422 || ans.Error != "insufficient_balance" {
		t.Fatalf("withdraw of a micro more than withdrawable: %d %+v", code, ans)
	}
	if code, ans := a.post("/v1/account/withdraw", a.withdrawBody(uint64(free), newKey(t, 77))); code != 200 {
		t.Fatalf("withdraw of the free part: %d %+v", code, ans)
	}
	// Not above the fee.
	if code, ans := a.post("/v1/account/withdraw", a.withdrawBody(1_000_000, newKey(t, 77))); code != 422 || ans.Error != "amount_below_fee" {
		t.Fatalf("withdraw of the fee: %d %+v", code, ans)
	}
	if rows, _ := a.withdrawals(""); len(rows) != 1 {
		t.Fatalf("refused withdrawals listed: %+v", rows)
	}
}

func TestWithdrawRefusesBadRequests(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "100")
	b := newEnv(t, Options{Money: perpsvc.MoneyOptions{ManualChain: true}}).trader(2, "")
	good := a.withdrawBody(10_000_000, newKey(t, 77))
	for name, body := range map[string]string{
		"signed by another key": strings.Replace(b.withdrawBody(10_000_000, newKey(t, 77)), b.owner.hex, a.owner.hex, 1),
		"wrong token":           strings.Replace(good, perpsvc.CollateralToken, "0x0000000000000000000000000000000000000001", 1),
		"ms timestamp":          strings.Replace(good, fmt.Sprintf(`"ts":%d`, e.now()/1000), fmt.Sprintf(`"ts":%d`, e.now()), 1),
		"not json":              `{"op":`,
	} {
		code, body := e.do("POST", e.api.URL+"/v1/account/withdraw", []byte(body), nil, nil)
		if code != 400 {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	// The zero address as destination.
	if code, body := e.do("POST", e.api.URL+"/v1/account/withdraw", []byte(a.withdrawBody(10_000_000, tKey{addr: make([]byte, 20), hex: "0x0000000000000000000000000000000000000000"})), nil, nil); code != 400 {
		t.Errorf("zero to: %d %s", code, body)
	}
	if bal := a.balance(); bal != "100" {
		t.Fatalf("balance %s", bal)
	}
}

func TestWithdrawResentIdenticalRequestNeverExecutesTwice(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "100")
	body := a.withdrawBody(30_000_000, newKey(t, 77))
	_, first := a.post("/v1/account/withdraw", body)
	code, again := a.post("/v1/account/withdraw", body)
	if code != 200 || again != first {
		t.Fatalf("resend: %d %+v, first %+v", code, again, first)
	}
	refused := a.withdrawBody(500_000_000, newKey(t, 77))
	_, r1 := a.post("/v1/account/withdraw", refused)
	e.restart() // the journal replays; the outcome and the replay key survive
	code, again = a.post("/v1/account/withdraw", body)
	if code != 200 || again != first {
		t.Fatalf("resend after restart: %d %+v, first %+v", code, again, first)
	}
	if code, r2 := a.post("/v1/account/withdraw", refused); code != 422 || r2 != r1 {
		t.Fatalf("refused resend after restart: %d %+v want %+v", code, r2, r1)
	}
	if b := a.balance(); b != "70" {
		t.Fatalf("balance %s, want 70 (one withdrawal)", b)
	}
	if rows, _ := a.withdrawals(""); len(rows) != 1 {
		t.Fatalf("withdrawals %+v", rows)
	}
}

func TestAdminWithdrawalRemovedOrFailedRefunds(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "100")
	a.post("/v1/account/withdraw", a.withdrawBody(30_000_000, newKey(t, 77)))
	a.post("/v1/account/withdraw", a.withdrawBody(20_000_000, newKey(t, 77)))
	e.mine(1)
	e.adminPost("/admin/perps/withdrawals", `{"withdraw_id":1,"status":"removed"}`)
	e.adminPost("/admin/perps/withdrawals", `{"withdraw_id":2,"status":"failed"}`)
	if b := a.balance(); b != "100" {
		t.Fatalf("balance %s after refunds", b)
	}
	rows, _ := a.withdrawals("")
	if len(rows) != 2 || rows[0].Status != "failed" || rows[1].Status != "removed" {
		t.Fatalf("rows %+v", rows)
	}
	for body, want := range map[string]int{
		`{"withdraw_id":1,"status":"failed"}`:    422, // no longer pending
		`{"withdraw_id":9,"status":"failed"}`:    422, // unknown
		`{"withdraw_id":1,"status":"confirmed"}`: 422, // only the chain confirms
		`{"withdraw_id":1}`:                      422,
		`{"withdraw_id":"x","status":"failed"}`:  400,
	} {
		if code, b := e.do("POST", e.admin.URL+"/admin/perps/withdrawals", []byte(body), nil, nil); code != want {
			t.Errorf("%s: %d %s, want %d", body, code, b, want)
		}
	}
	e.mine(5) // nothing pending: nothing changes
	if b := a.balance(); b != "100" {
		t.Fatalf("balance %s", b)
	}
}

func TestWithdrawalsQueryFiltersAndPages(t *testing.T) {
	// 1000 s blocks: the 102 withdrawals of the next 102 s wait for one block.
	e := newEnv(t, Options{Money: perpsvc.MoneyOptions{Chain: chain.Params{BlockTime: 1_000_000}}})
	a := e.trader(1, "1000")
	for range 102 {
		e.advance(time.Second)
		if code, ans := a.post("/v1/account/withdraw", a.withdrawBody(2_000_000, newKey(t, 77))); code != 200 {
			t.Fatalf("%d %+v", code, ans)
		}
	}
	rows, more := a.withdrawals("")
	if len(rows) != 100 || !more || rows[0].ID != 102 || rows[99].ID != 3 {
		t.Fatalf("page: %d rows, more %v, ids %d..%d", len(rows), more, rows[0].ID, rows[len(rows)-1].ID)
	}
	e.mine(1)
	e.adminPost("/admin/perps/withdrawals", `{"withdraw_id":5,"status":"failed"}`)
	if rows, more := a.withdrawals("?status=failed"); len(rows) != 1 || more || rows[0].ID != 5 {
		t.Fatalf("status filter %+v", rows)
	}
	if rows, _ := a.withdrawals("?withdrawal_status=failed"); len(rows) != 1 {
		t.Fatalf("withdrawal_status filter %+v", rows)
	}
	w7 := first(a.withdrawals(fmt.Sprintf("?start=%d&end=%d", t0+7000, t0+7000)))
	if w7.ID != 7 {
		t.Fatalf("window: %+v", w7)
	}
	if rows, _ := a.withdrawals("?hash=" + w7.Hash); len(rows) != 1 || rows[0].ID != 7 {
		t.Fatalf("hash filter %+v", rows)
	}
	if rows, _ := a.withdrawals(fmt.Sprintf("?end=%d", t0+2000)); len(rows) != 2 {
		t.Fatalf("end filter %d rows", len(rows))
	}
	if rows, _ := e.trader(2, "").withdrawals(""); len(rows) != 0 {
		t.Fatalf("another account sees %+v", rows)
	}
	for _, q := range []string{"?status=done", "?start=x", "?end=-1"} {
		if code, b := a.read("/v1/account/withdrawals"+q, nil); code != 400 || !strings.Contains(b, "invalid query parameters") {
			t.Errorf("%s: %d %s", q, code, b)
		}
	}
	if code, _ := e.get("/v1/account/withdrawals", nil); code != 401 {
		t.Fatalf("unauthenticated: %d", code)
	}
}

func TestAssetsPublishTheWithdrawalFee(t *testing.T) {
	e := newEnv(t, Options{Money: perpsvc.MoneyOptions{ManualChain: true, WithdrawFee: "2.5"}})
	var as []struct {
		WithdrawalFee string `json:"withdrawal_fee"`
	}
	if code, b := e.get("/v1/info/assets", &as); code != 200 || len(as) != 1 || as[0].WithdrawalFee != "2.5" {
		t.Fatalf("%d %s", code, b)
	}
}

// TestLegacyBlockItemsMoveOnTheChainAfterRestart: a data dir written before
// internal/chain (a deposit and a withdrawal whose records carry no block
// time, one legacy `block` record) reopens with them where they were, the
// service puts them on the chain, and blocks confirm them from there.
func TestLegacyBlockItemsMoveOnTheChainAfterRestart(t *testing.T) {
	e := moneyEnv(t)
	a := e.trader(1, "")
	for _, c := range []*perps.Command{
		{Kind: perps.KDeposit, Account: a.owner.hex, Amount: "100", Required: 3},
		{Kind: perps.KWithdraw, Account: a.owner.hex, Amount: "40", Fee: "1", To: newKey(t, 77).hex, Required: 3},
		{Kind: perps.KBlock},
	} {
		if ev, err := e.srv.submit(c); err != nil || ev.Err != "" {
			t.Fatalf("%s: %v %s", c.Kind, err, ev.Err)
		}
	}
	e.advance(time.Minute) // legacy items do not follow the chain's height
	e.restart()
	w, d := first(a.withdrawals("")), rows0(a.deposits(""))
	if w.Conf != 1 || w.Status != "pending" || d.Conf != 1 || d.Status != "pending" {
		t.Fatalf("after restart: %+v %+v", w, d)
	}
	e.mine(1)
	if w, d = first(a.withdrawals("")), rows0(a.deposits("")); w.Conf != 2 || d.Conf != 2 {
		t.Fatalf("one block later: %+v %+v", w, d)
	}
	e.mine(1)
	w, d = first(a.withdrawals("")), rows0(a.deposits(""))
	if w.Status != "confirmed" || d.Status != "confirmed" || w.Confirmed != int64(e.now()) || d.Confirmed != int64(e.now()) {
		t.Fatalf("two blocks later: %+v %+v", w, d)
	}
}
