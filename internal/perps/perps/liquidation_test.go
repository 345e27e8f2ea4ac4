package perps

import "testing"

// TestSweepFlagsAccountsBelowMaintenanceAndCancelsTheirOrders: the worked
// example of docs/perps-risk.md "Margin" (4,000 collateral, 10×, long 0.5 at
// 60,000, fee-free): at mark 53,000 equity 500 < MM 662.5, so the sweep
// flags the account and cancels its resting orders; the flag blocks new
// orders; at 57,000 (margin call) it stays flagged; back at 60,000 (equity
// ≥ IM) the flag clears.
func TestSweepFlagsAccountsBelowMaintenanceAndCancelsTheirOrders(t *testing.T) {
	const long, short = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	m := New(Config{})
	m.cfg.MakerPPM, m.cfg.TakerPPM = 0, 0 // fee-free, so the equity is the worked example's
	ts := int64(1000)
	do := func(c Command) Event {
		t.Helper()
		ts++
		ev := m.Apply(uint64(ts), ts, cmd(c), nil)[0]
		if ev.Err != "" {
			t.Fatalf("%s: %s", c.Kind, ev.Err)
		}
		return ev
	}
	do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	do(Command{Kind: KDeposit, Account: long, Amount: "4000"})
	do(Command{Kind: KDeposit, Account: short, Amount: "100000"})
	do(Command{Kind: KIndex, IID: 1, Price: "60000"})
	do(Command{Kind: KLeverage, Account: long, Leverages: []LeverageReq{{IID: 1, Lev: 10, Cross: true}}})
	do(Command{Kind: KCreateOrders, Account: short, Orders: []OrderReq{{IID: 1, P: sp("60000"), Qty: "0.5"}}})
	do(Command{Kind: KCreateOrders, Account: long, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("60000"), Qty: "0.5"}}})
	rest := do(Command{Kind: KCreateOrders, Account: long, Orders: []OrderReq{{IID: 1, P: sp("70000"), Qty: "0.1", RO: true}}}).Acks[0]
	if m.accts[long].Balance != 4000_000000 || m.accts[long].Positions[1].Size != 500 {
		t.Fatalf("setup: balance %d position %+v", m.accts[long].Balance, m.accts[long].Positions[1])
	}
	for _, c := range []struct {
		index   string
		flagged bool
	}{
		{"59000", false}, {"53500", false}, {"53000", true}, {"57000", true}, {"60000", false},
	} {
		do(Command{Kind: KIndex, IID: 1, Price: c.index})
		if !m.SweepDue() {
			t.Fatal("an index change leaves no sweep due")
		}
		do(Command{Kind: KLiqSweep})
		if got := m.accts[long].Liquidating; got != c.flagged {
			t.Fatalf("mark %s: flagged %v, want %v", c.index, got, c.flagged)
		}
		if m.accts[short].Liquidating {
			t.Fatalf("mark %s: the short is flagged", c.index)
		}
		if c.index == "53000" {
			if o := m.orders[rest.OID]; o.Status != StCancelled {
				t.Fatalf("resting order after the flag: %+v", o)
			}
			ack := do(Command{Kind: KCreateOrders, Account: long, Orders: []OrderReq{{IID: 1, P: sp("53000"), Qty: "0.1", RO: true}}}).Acks[0]
			if ack.Error != "account_liquidating" {
				t.Fatalf("order while flagged: %+v", ack)
			}
		}
	}
}

// TestInsuranceTopUp: the operator's amount adds to the fund; a bad amount
// is refused.
func TestInsuranceTopUp(t *testing.T) {
	m := New(Config{})
	for i, c := range []struct {
		amt, err string
		fund     int64
	}{{"10000", "", 10000_000000}, {"0.5", "", 10000_500000}, {"0", "invalid amount", 10000_500000}, {"-1", "invalid amount", 10000_500000}} {
		ev := m.Apply(uint64(i+1), 1, cmd(Command{Kind: KInsurance, Amount: c.amt}), nil)[0]
		if ev.Err != c.err || m.Insurance() != c.fund {
			t.Errorf("%s: err %q fund %d", c.amt, ev.Err, m.Insurance())
		}
	}
}
