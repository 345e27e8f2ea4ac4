package perps

import "testing"

// TestSweepLiquidatesAccountsBelowMaintenanceAndCancelsTheirOrders: the
// worked example of docs/perps-risk.md "Margin" (4,000 collateral, 10×, long
// 0.5 at 60,000, fee-free): at marks 59,000 and 53,500 nothing happens; at
// 53,000 equity 500 < MM 662.5, so the sweep flags the account, cancels its
// resting orders and liquidates it in the same command: the book is empty
// and so is the insurance fund, so the long is deleveraged against the
// only short at its bankruptcy price (52,000), and the flag clears with the
// position gone.
func TestSweepLiquidatesAccountsBelowMaintenanceAndCancelsTheirOrders(t *testing.T) {
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
	for _, index := range []string{"59000", "53500"} {
		do(Command{Kind: KIndex, IID: 1, Price: index})
		if ev := do(Command{Kind: KLiqSweep}); len(ev.Fills) != 0 || len(ev.Orders) != 0 || m.accts[long].Liquidating {
			t.Fatalf("mark %s: sweep acted: %+v", index, ev)
		}
	}
	do(Command{Kind: KIndex, IID: 1, Price: "53000"})
	if !m.SweepDue() {
		t.Fatal("an index change leaves no sweep due")
	}
	ev := do(Command{Kind: KLiqSweep})
	if o := m.orders[rest.OID]; o.Status != StCancelled {
		t.Fatalf("resting order of the liquidated account: %+v", o)
	}
	if len(ev.Fills) != 2 || !ev.Fills[0].Fill.Liq || !ev.Fills[0].Fill.ADL || ev.Fills[1].Fill.Liq || !ev.Fills[1].Fill.ADL ||
		ev.Fills[0].Fill.P != "52000" || ev.Fills[1].Account != short {
		t.Fatalf("deleveraging fills: %+v", ev.Fills)
	}
	if a := m.accts[long]; a.Liquidating || hasPosition(a) || a.Balance != 0 {
		t.Fatalf("after liquidation: flagged %v balance %d positions %+v", a.Liquidating, a.Balance, a.Positions)
	}
	if b := m.accts[short]; b.Balance != 104000_000000 || hasPosition(b) {
		t.Fatalf("the short after deleveraging: balance %d positions %+v", b.Balance, b.Positions)
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
