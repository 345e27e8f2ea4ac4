package perps

import "testing"

// TestFundingLongsPayShortsWhenMarkAboveIndex: bids above the index put the
// premium and the mark above it; the settlement charges the long, credits
// the short, each account's charge rows add up to its balance change, and
// the dust goes to the insurance fund (docs/perps-risk.md "Funding").
func TestFundingLongsPayShortsWhenMarkAboveIndex(t *testing.T) {
	const long, short, maker = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb", "0x00000000000000000000000000000000000000cc"
	m := New(Config{})
	ts := int64(1000)
	do := func(c Command) Event {
		t.Helper()
		ts++
		ev := m.Apply(uint64(ts), ts, cmd(c), nil)[0]
		if ev.Err != "" {
			t.Fatalf("%s: %s", c.Kind, ev.Err)
		}
		for _, a := range ev.Acks {
			if a.Status != "ok" {
				t.Fatalf("%s: %+v", c.Kind, a)
			}
		}
		return ev
	}
	do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	for _, a := range []string{long, short, maker} {
		do(Command{Kind: KDeposit, Account: a, Amount: "100000"})
	}
	do(Command{Kind: KIndex, IID: 1, Price: "60000"})
	do(Command{Kind: KCreateOrders, Account: short, Orders: []OrderReq{{IID: 1, P: sp("60000"), Qty: "0.5"}}})
	do(Command{Kind: KCreateOrders, Account: long, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("60000"), Qty: "0.5"}}})
	do(Command{Kind: KCreateOrders, Account: maker, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("60120"), Qty: "0.1"},
		{IID: 1, P: sp("60200"), Qty: "0.1"}}})
	for range 3 {
		do(Command{Kind: KFundingSample})
	}
	if mk := m.mark(m.inst[1]); mk != 601200 {
		t.Fatalf("mark %d ticks, want 601200 (60,120 > index 60,000)", mk)
	}
	before := map[string]int64{long: m.accts[long].Balance, short: m.accts[short].Balance}
	do(Command{Kind: KFunding})
	want := map[string]string{long: "-5.63625", short: "5.63625"} // 0.5 · 60,120 · 0.01875 %
	for addr, w := range want {
		rows, more := m.FundingOf(addr, 0, 0, 1<<62, 100)
		if len(rows) != 1 || more || rows[0].Funding != w || rows[0].FundingRate != "0.0001875" || rows[0].FundingAsset != Asset {
			t.Fatalf("%s rows %+v", addr, rows)
		}
		if d := m.accts[addr].Balance - before[addr]; FormatMicro(d) != w {
			t.Errorf("%s balance change %s, rows say %s", addr, FormatMicro(d), w)
		}
	}
	if m.Insurance() != 0 {
		t.Errorf("insurance %d: exact charges leave no dust", m.Insurance())
	}
	if r, _ := m.FundingRatesOf(1, 0, 1<<62, 100); len(r) != 1 || r[0].FundingRate != "0.0001875" {
		t.Errorf("rates %+v", r)
	}
	// The window starts over: the next settlement without samples pays the
	// interest leg alone (0.01 % / 8).
	do(Command{Kind: KFunding})
	if r, _ := m.FundingRatesOf(1, 0, 1<<62, 100); len(r) != 2 || r[0].FundingRate != "0.0000125" {
		t.Errorf("rates %+v", r)
	}
}

// TestFundingChargesAtMost100PerRequestWithMore: 101 settlements give 100
// rows, newest first, and more; the oldest is on the next page.
func TestFundingChargesAtMost100PerRequestWithMore(t *testing.T) {
	const a, b = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	m := New(Config{})
	ts := int64(0)
	do := func(c Command) {
		ts += 1000
		if ev := m.Apply(uint64(ts), ts, cmd(c), nil)[0]; ev.Err != "" {
			t.Fatalf("%s: %s", c.Kind, ev.Err)
		}
	}
	do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	do(Command{Kind: KDeposit, Account: a, Amount: "100000"})
	do(Command{Kind: KDeposit, Account: b, Amount: "100000"})
	do(Command{Kind: KIndex, IID: 1, Price: "100"})
	do(Command{Kind: KCreateOrders, Account: b, Orders: []OrderReq{{IID: 1, P: sp("100"), Qty: "1"}}})
	do(Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}})
	for range 101 {
		do(Command{Kind: KFunding})
	}
	rows, more := m.FundingOf(a, 0, 0, 1<<62, 100)
	if len(rows) != 100 || !more || rows[0].Timestamp <= rows[99].Timestamp {
		t.Fatalf("%d rows, more %v", len(rows), more)
	}
	older, more := m.FundingOf(a, 0, 0, rows[99].Timestamp-1, 100)
	if len(older) != 1 || more || older[0].ID != 1 {
		t.Fatalf("next page %+v more %v", older, more)
	}
}
