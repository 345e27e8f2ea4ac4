package perps

import (
	"bytes"
	"fmt"
	"testing"
)

func cmd(c Command) []byte { return c.Encode() }

func sp(s string) *string { return &s }

// script is a small session touching every command kind.
func script() [][]byte {
	a, b := "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	out := [][]byte{
		cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20, MinNotional: "1"}}),
		cmd(Command{Kind: KDeposit, Account: a, Amount: "100000"}),
		cmd(Command{Kind: KDeposit, Account: b, Amount: "100000"}),
		cmd(Command{Kind: KIndex, IID: 1, Price: "100"}),
		cmd(Command{Kind: KCreateProxy, Account: a, Proxy: &Proxy{Addr: "0x01", ExpiryMs: 1 << 50}}),
	}
	for i := 0; i < 40; i++ {
		who := a
		if i%3 == 0 {
			who = b
		}
		out = append(out, cmd(Command{Kind: KCreateOrders, Account: who, Orders: []OrderReq{
			{IID: 1, Buy: i%2 == 0, P: sp(fmt.Sprint(95 + i%10)), Qty: fmt.Sprint(1 + i%4), C: fmt.Sprintf("%032x", i+1)},
		}}))
		if i%7 == 0 {
			out = append(out, cmd(Command{Kind: KCancel, Account: who, OIDs: []uint64{uint64(i)}}))
		}
		if i%5 == 0 {
			out = append(out, cmd(Command{Kind: KModify, Account: who, Modifies: []ModifyReq{{OID: uint64(i), P: "90", Qty: "5"}}}))
		}
		switch i { // exchange-wide state changes (modes.go)
		case 10:
			out = append(out, cmd(Command{Kind: KLiquidating, Account: a, On: true}))
		case 15:
			out = append(out, cmd(Command{Kind: KLeverage, Account: b, Leverages: []LeverageReq{{IID: 1, Lev: 5, Cross: true}, {IID: 1, Lev: 4}}}))
		case 18, 36:
			out = append(out, cmd(Command{Kind: KFundingSample}), cmd(Command{Kind: KFunding}),
				cmd(Command{Kind: KInsurance, Amount: "5"}), cmd(Command{Kind: KLiqSweep}))
		case 20:
			out = append(out, cmd(Command{Kind: KMode, Mode: ModePostOnly, RetryAfter: 5}))
		case 23:
			out = append(out, cmd(Command{Kind: KMode, Mode: ModeNormal}), cmd(Command{Kind: KLiquidating, Account: a}))
		case 30:
			out = append(out, cmd(Command{Kind: KConfig, Flight: &Flight{TakerMs: 1, ModifyMs: 1}}))
		case 12, 26: // money out (withdraw.go): pending across snapshots
			out = append(out, cmd(Command{Kind: KWithdraw, Account: b, Amount: "50", Fee: "1", To: a, Required: 2,
				Replay: []byte{byte(i)}}),
				cmd(Command{Kind: KDeposit, Account: a, Amount: "7", Required: 3}),
				cmd(Command{Kind: KTransfer, Account: a, To: b, Amount: "3.5", Label: "x", Replay: []byte{byte(i + 1)}}),
				cmd(Command{Kind: KBlock}))
		case 33:
			out = append(out, cmd(Command{Kind: KWithdrawStatus, WID: 2, Status: WFailed}), cmd(Command{Kind: KBlock}))
		case 27, 35: // isolated allocation (isolated.go): taken, then partly released
			amt := map[int]string{27: "20", 35: "-5"}[i]
			out = append(out, cmd(Command{Kind: KMargin, Account: a, IID: 1, Amount: amt, SigTS: 1, Replay: []byte{byte(i), 'm'}}))
		}
	}
	return append(out, cmd(Command{Kind: KCancelAll, Account: a}), []byte("garbage"))
}

// Applying the same commands gives the same state; a snapshot restores it
// exactly; the state after restore plus the tail equals a straight replay.
func TestDeterminismAndSnapshot(t *testing.T) {
	for _, cfg := range []Config{{}, {AcceptDelayMs: 3, TakerDelayMs: 2}, {TakerDelayMs: 4, NoHeldCancels: true},
		{RiskDelayMs: 2, AcceptDelayMs: 1, ModifyDelayMs: 3}} {
		t.Run(fmt.Sprintf("risk%d_accept%d_taker%d_modify%d", cfg.RiskDelayMs, cfg.AcceptDelayMs, cfg.TakerDelayMs, cfg.ModifyDelayMs),
			func(t *testing.T) { determinism(t, cfg) })
	}
}

func determinism(t *testing.T, cfg Config) {
	s := script()
	run := func(cmds [][]byte, m *Machine) *Machine {
		for i, c := range cmds {
			m.Apply(uint64(i+1), int64(1000+i), c, nil)
		}
		return m
	}
	m1, m2 := run(s, New(cfg)), run(s, New(cfg))
	if m1.Hash() != m2.Hash() {
		t.Fatal("same commands, different states")
	}
	half := run(s[:len(s)/2], New(cfg))
	var buf bytes.Buffer
	if err := half.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := New(cfg)
	if err := r.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if r.Hash() != half.Hash() {
		t.Fatal("restore differs from snapshot source")
	}
	for i, c := range s[len(s)/2:] {
		r.Apply(uint64(len(s)/2+i+1), int64(1000+len(s)/2+i), c, nil)
	}
	if r.Hash() != m1.Hash() {
		t.Fatal("snapshot + tail differs from full replay")
	}
	if len(m1.accts[m1.proxies["0x01"].Account].Fills) == 0 {
		t.Error("script produced no fills: the test would not exercise positions")
	}
}

// Positions: open, add, reduce, flip, with exact realized pnl.
func TestPositionAccounting(t *testing.T) {
	m := New(Config{})
	m.cfg.MakerPPM, m.cfg.TakerPPM = 0, 0 // no fees: pnl only
	a, b := "0xa", "0xb"
	m.Apply(1, 0, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "X-USD", Category: "index", PriceDecimals: 2, QtyDecimals: 2, MaxLeverage: 10}}), nil)
	m.Apply(2, 0, cmd(Command{Kind: KDeposit, Account: a, Amount: "1000000"}), nil)
	m.Apply(3, 0, cmd(Command{Kind: KDeposit, Account: b, Amount: "1000000"}), nil)
	trade := func(buyer, seller, p, q string) {
		m.Apply(4, 0, cmd(Command{Kind: KCreateOrders, Account: seller, Orders: []OrderReq{{IID: 1, P: sp(p), Qty: q}}}), nil)
		m.Apply(5, 0, cmd(Command{Kind: KCreateOrders, Account: buyer, Orders: []OrderReq{{IID: 1, Buy: true, P: sp(p), Qty: q, TIF: sp("ioc")}}}), nil)
	}
	trade(a, b, "10", "2") // a long 2 @10
	trade(a, b, "13", "1") // a long 3 @11
	trade(b, a, "12", "1") // a sells 1 @12: +1
	trade(b, a, "8", "4")  // a sells 2 @8 (-6) and goes short 2 @8
	pa := m.accts[a].Positions[1]
	if pa.Size != -200 || pa.Cost != 800*200 || pa.Realized != -5_000000 {
		t.Fatalf("a position %+v", pa)
	}
	if m.accts[a].Balance != 1000000_000000-5_000000 || m.accts[b].Balance != 1000000_000000+5_000000 {
		t.Errorf("balances a %d b %d", m.accts[a].Balance, m.accts[b].Balance)
	}
	if m.inst[1].OpenInterest != 200 {
		t.Errorf("open interest %d", m.inst[1].OpenInterest)
	}
}

func TestFormatMicro(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 1: "0.000001", -1: "-0.000001", 1_500000: "1.5", -12_000000: "-12", 100: "0.0001"} {
		if got := FormatMicro(v); got != want {
			t.Errorf("%d: %q want %q", v, got, want)
		}
	}
	if r := ratio(1100*300, 300, 2); r != "11" {
		t.Errorf("ratio %q", r)
	}
	if r := ratio(1, 3, 0); r != "0.33333333" {
		t.Errorf("ratio %q", r)
	}
}

func FuzzParseMicro(f *testing.F) {
	for _, s := range []string{"0", "1", "1.5", "0.000001", "1.0000001", "", ".", "-1", "1e5", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseMicro(s)
		if !ok {
			return
		}
		if v < 0 {
			t.Fatalf("%q -> %d", s, v)
		}
		back, ok2 := ParseMicro(FormatMicro(v))
		if !ok2 || back != v {
			t.Fatalf("%q -> %d -> %q -> %d", s, v, FormatMicro(v), back)
		}
	})
}

// FuzzApply: no command crashes the machine, and a snapshot round trip
// preserves whatever state results.
func FuzzApply(f *testing.F) {
	for _, c := range script() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c []byte) {
		m := New(Config{})
		for i, s := range script()[:5] {
			m.Apply(uint64(i+1), 1, s, nil)
		}
		m.Apply(9, 2, c, nil)
		var buf bytes.Buffer
		m.Snapshot(&buf)
		r := New(Config{})
		if err := r.Restore(&buf); err != nil {
			t.Fatal(err)
		}
		if r.Hash() != m.Hash() {
			t.Fatal("snapshot round trip changed the state")
		}
	})
}

// TestTradingCommandsNeedAnAccount: a trading command naming an account the
// machine does not hold is refused whole with the contract's text, before
// any item is looked at.
func TestTradingCommandsNeedAnAccount(t *testing.T) {
	f := newFlight(t, Config{})
	oid := f.place(acA, true, "100", "1")
	const nobody = "0x00000000000000000000000000000000000000cc"
	for _, c := range []Command{
		{Kind: KCreateOrders, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}},
		{Kind: KModify, Modifies: []ModifyReq{{OID: oid, P: "99", Qty: "1"}}},
		{Kind: KModifyCOID, Modifies: []ModifyReq{{COID: "0x01", P: "99", Qty: "1"}}},
		{Kind: KCancel, OIDs: []uint64{oid}},
		{Kind: KCancelCOID, COIDs: []string{"0x01"}},
		{Kind: KCancelAll},
	} {
		c.Account = nobody
		if ev := f.do(c); ev.Err != "account not found for proxy" || len(ev.Items) != 0 || len(ev.Acks) != 0 {
			t.Errorf("%s: %+v", c.Kind, ev)
		}
	}
	if f.status(oid) != "open" {
		t.Errorf("order of another account: %s", f.status(oid))
	}
}
