package perpshttp

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/chain"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

func micro(t *testing.T, s string) int64 {
	t.Helper()
	v, err := amount.Parse(s)
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	return int64(v)
}

// TestMoneyIsConservedAcrossDepositsTradesWithdrawalsAndTransfers: after a
// random mix of deposits, trades, funding (premium samples and settlements),
// withdrawals (some ended removed or failed by the operator, some confirmed
// by blocks) and transfers across many accounts, the accounts' value
// (balance + unrealized pnl, all at the same mark) sums to deposits −
// pending and confirmed withdrawals − trading fees + funding received + the
// referrer's fee shares (the insurance fund takes the rest), to the micro
// unit. Everything is read
// back through the API.
func TestMoneyIsConservedAcrossDepositsTradesWithdrawalsAndTransfers(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { conservationRun(t, seed) })
	}
}

func conservationRun(t *testing.T, seed uint64) {
	// One-minute blocks: withdrawals stay pending long enough for the operator to end some.
	e := newEnv(t, Options{Money: perpsvc.MoneyOptions{Chain: chain.Params{BlockTime: 60_000}}})
	e.instrument() // BTC-USD: price 0.1, qty 0.0001: every notional is a whole micro amount
	rng := rand.New(rand.NewPCG(seed, 7))
	const n = 8
	trs := make([]*trader, n)
	for i := range trs {
		trs[i] = e.trader(byte(i+1), fmt.Sprint(1000+rng.IntN(9000)))
	}
	// Three accounts were referred by the first: 20 % of their fees goes
	// to it (paid out of the venue's fee, so it comes back into the sum).
	var inv inviteAns
	if code, b := trs[0].hdrPost("/v1/account/invite", `{}`, &inv); code != 200 {
		t.Fatalf("invite: %d %s", code, b)
	}
	for _, c := range trs[1:4] {
		if code, b := c.hdrPost("/v1/account/referral", `{"code":"`+inv.Code+`"}`, nil); code != 200 {
			t.Fatalf("referral: %d %s", code, b)
		}
	}
	dest := newKey(t, 99)
	e.adminPost("/admin/perps/index", `{"instrument_id":1,"price":"1000"}`) // trades around it: a premium
	submit := func(k string) {
		if _, err := e.srv.submit(&perps.Command{Kind: k}); err != nil {
			t.Fatal(err)
		}
	}
	var wids []uint64
	for step := 0; step < 160; step++ {
		e.advance(time.Duration(rng.IntN(3000)) * time.Millisecond)
		a, b := trs[rng.IntN(n)], trs[rng.IntN(n)]
		if rng.IntN(6) == 0 { // funding, as the service's driver submits it
			submit(perps.KFundingSample)
			if rng.IntN(3) == 0 {
				submit(perps.KFunding)
			}
		}
		switch r := rng.IntN(10); {
		case r < 4 && a != b: // a trade at a random price
			p := fmt.Sprintf("%d.%d", 900+rng.IntN(200), rng.IntN(10))
			q := fmt.Sprintf("0.%04d", 1+rng.IntN(5000))
			if a.place(ord{iid: 1, buy: false, p: p, qty: q})[0].Status == "ok" {
				b.place(ord{iid: 1, buy: true, p: p, qty: q, tif: "ioc"})
			}
		case r < 5:
			e.adminPost("/admin/perps/deposits", fmt.Sprintf(`{"address":%q,"amount":"%d.%06d"}`, a.owner.hex, rng.IntN(500), rng.IntN(1e6)))
		case r < 7:
			if code, ans := a.post("/v1/account/withdraw", a.withdrawBody(uint64(1+rng.IntN(800_000_000)), dest)); code == 200 {
				wids = append(wids, ans.WithdrawID)
			}
		case r < 9 && a != b:
			a.transfer(a.owner, a.owner.hex, b.owner.hex, fmt.Sprintf("%d.%06d", rng.IntN(300), 1+rng.IntN(999999)), `,"label":"r"`)
		case r == 9:
			if len(wids) > 0 && rng.IntN(2) == 0 {
				st := []string{"removed", "failed"}[rng.IntN(2)]
				e.do("POST", e.admin.URL+"/admin/perps/withdrawals", []byte(fmt.Sprintf(`{"withdraw_id":%d,"status":%q}`, wids[rng.IntN(len(wids))], st)), nil, nil)
			} else {
				e.mine(1)
			}
		}
	}
	var value, deposits, withdrawn, fees, funding, charges int64
	statuses := map[string]int{}
	for _, tr := range trs {
		var p struct {
			Margin struct {
				TotalAccountValue string `json:"total_account_value"`
			}
		}
		if code, b := tr.read("/v1/account/portfolio", &p); code != 200 {
			t.Fatalf("portfolio: %d %s", code, b)
		}
		value += micro(t, p.Margin.TotalAccountValue)
		ds, more := tr.deposits("")
		for _, d := range ds {
			deposits += micro(t, d.Amount)
		}
		ws, more2 := tr.withdrawals("")
		for _, w := range ws {
			statuses[w.Status]++
			if w.Status == "pending" || w.Status == "confirmed" {
				withdrawn += micro(t, w.Amount)
			}
		}
		var fills struct {
			Data []struct{ Fee string }
			More bool
		}
		if code, b := tr.read("/v1/account/fills", &fills); code != 200 {
			t.Fatalf("fills: %d %s", code, b)
		}
		var fp fundingPage
		if code, b := tr.read("/v1/account/funding", &fp); code != 200 {
			t.Fatalf("funding: %d %s", code, b)
		}
		for _, f := range fp.Data {
			funding += micro(t, f.Funding)
			charges++
		}
		if more || more2 || fills.More || fp.More {
			t.Fatal("more than one page: lower the step count")
		}
		for _, f := range fills.Data {
			fees += micro(t, f.Fee)
		}
	}
	var ref struct {
		Earned string `json:"fee_share_earned"`
	}
	if code, b := trs[0].read("/v1/account/referral", &ref); code != 200 {
		t.Fatalf("referral: %d %s", code, b)
	}
	shares := micro(t, ref.Earned)
	if value != deposits-withdrawn-fees+funding+shares {
		t.Fatalf("Σ account value %d ≠ deposits %d − withdrawals %d − fees %d + funding %d + fee shares %d (= %d)", value, deposits,
			withdrawn, fees, funding, shares, deposits-withdrawn-fees+funding+shares)
	}
	if fees == 0 || withdrawn == 0 || len(statuses) < 3 || charges == 0 || shares == 0 {
		t.Fatalf("the mix did not exercise everything: fees %d withdrawn %d statuses %v funding charges %d fee shares %d", fees, withdrawn,
			statuses, charges, shares)
	}
	t.Logf("value %d = deposits %d − withdrawn %d − fees %d + funding %d + fee shares %d (%d charges); withdrawal statuses %v", value,
		deposits, withdrawn, fees, funding, shares, charges, statuses)
}
