package perps

import "testing"

// TestCancelTableLiquidatingScope walks the contract's in-flight cancel rows
// for each liquidation scope. "Account liquidating" is the order's scope
// being flagged (risk.CheckScope's rule): the cross flag covers every
// market; an isolated position's flag covers its own market only, so an
// account whose only position is isolated and flagged answers
// order_in_flight there and cancels normally elsewhere.
func TestCancelTableLiquidatingScope(t *testing.T) {
	rows := []struct {
		name string
		fl   Flight
		free string // the answer when the order's scope is not flagged
	}{
		{"awaiting risk checks", Flight{RiskMs: 10}, "ok"},
		{"accept in flight, held cancels enabled", Flight{AcceptMs: 10}, StatusHeld},
		{"accept in flight, held cancels disabled", Flight{AcceptMs: 10, NoHeldCancels: true}, "order_in_flight"},
	}
	scopes := []struct {
		name string
		flag Command
		iid  uint32 // the in-flight order's instrument
		want string // "": the row's free answer
	}{
		{"no flag", Command{}, 1, ""},
		{"cross flag, same market", Command{Kind: KLiquidating, Account: acA, On: true}, 1, "order_in_flight"},
		{"cross flag, other market", Command{Kind: KLiquidating, Account: acA, On: true}, 2, "order_in_flight"},
		{"isolated flag, its market", Command{Kind: KLiquidating, Account: acA, IID: 1, On: true}, 1, "order_in_flight"},
		{"isolated flag, other market", Command{Kind: KLiquidating, Account: acA, IID: 1, On: true}, 2, ""},
		{"isolated flag cleared", Command{Kind: KLiquidating, Account: acA, IID: 1}, 1, ""},
	}
	for _, r := range rows {
		for _, s := range scopes {
			t.Run(r.name+"/"+s.name, func(t *testing.T) {
				f := isoLongFlight(t)
				if ev := f.do(Command{Kind: KConfig, Flight: &r.fl}); ev.Err != "" {
					t.Fatal(ev.Err)
				}
				ev := f.do(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: s.iid, Buy: true, P: sp("90"), Qty: "0.1", PO: true}}})
				if len(ev.Acks) != 1 || ev.Acks[0].Status != "ok" {
					t.Fatalf("place: %+v", ev.Acks)
				}
				oid := ev.Acks[0].OID
				if s.flag.Kind != "" {
					if ev := f.do(s.flag); ev.Err != "" {
						t.Fatal(ev.Err)
					}
				}
				want := s.want
				if want == "" {
					want = r.free
				}
				got := f.cancel(acA, oid)
				ans := got.Error
				if got.Status != "err" {
					ans = got.Status
				}
				if ans != want {
					t.Errorf("cancel: %+v, want %s", got, want)
				}
			})
		}
	}
}

// isoLongFlight: a holds an isolated long of 1 in instrument 1 (bought
// from b at 100), instrument 2 exists, no in-flight windows yet.
func isoLongFlight(t *testing.T) *flight {
	f := newFlight(t, Config{})
	f.do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "ETH-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	for _, iid := range []uint32{1, 2} {
		f.do(Command{Kind: KIndex, IID: iid, Price: "100"})
	}
	f.place(acB, false, "100", "1")
	f.place(acA, true, "100", "1")
	if ev := f.do(Command{Kind: KMargin, Account: acA, IID: 1, Amount: "1", SigTS: f.ts}); ev.Err != "" {
		t.Fatalf("margin: %s", ev.Err)
	}
	if p := f.m.accts[acA].Positions[1]; p == nil || !p.Iso || p.Size == 0 {
		t.Fatalf("no isolated position: %+v", p)
	}
	return f
}
