package perps

import (
	"bytes"
	"testing"
)

func (f *flight) modify(acct string, r ...ModifyReq) []ItemResult {
	f.t.Helper()
	return f.do(Command{Kind: KModify, Account: acct, Modifies: r}).Items
}

func (f *flight) tick(ts int64) Event {
	f.t.Helper()
	f.ts = ts
	return f.do(Command{Kind: KTick})
}

func (f *flight) inBook(oid uint64) bool {
	o := f.m.orders[oid]
	return o.Due == 0 && !o.Terminal
}

// TestAwaitingRiskChecks: the contract's first cancel-table row and the risk
// step itself (Flight.RiskMs).
func TestAwaitingRiskChecks(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		run  func(f *flight)
	}{
		{"cancel while awaiting risk checks removes it at once", Config{RiskDelayMs: 10}, func(f *flight) {
			oid := f.place(acA, true, "100", "1")
			if r := f.cancel(acA, oid); r.Status != "ok" || r.OID != oid {
				f.t.Fatalf("cancel: %+v", r)
			}
			if f.status(oid) != StCancelled || f.m.NextDue() != 0 {
				f.t.Fatalf("status %q, next due %d", f.status(oid), f.m.NextDue())
			}
			f.tick(1010)
			if _, _, ok := f.m.inst[1].book.BestBid(); ok {
				f.t.Error("the cancelled order entered the book")
			}
			if r := f.cancel(acA, oid); r.Error != "order_already_terminal" {
				f.t.Errorf("second cancel: %+v", r)
			}
		}},
		{"cancel while awaiting risk checks, account liquidating: order_in_flight", Config{RiskDelayMs: 10}, func(f *flight) {
			oid := f.place(acA, true, "100", "1")
			f.do(Command{Kind: KLiquidating, Account: acA, On: true})
			if r := f.cancel(acA, oid); r.Error != "order_in_flight" {
				f.t.Fatalf("cancel: %+v", r)
			}
			f.tick(1010)
			// The flag blocks new orders (perps.md §10): the risk step refuses it.
			if f.inBook(oid) || f.status(oid) != "account_liquidating" {
				f.t.Errorf("after the risk step of a flagged account: %+v", f.m.orders[oid])
			}
		}},
		{"modify while awaiting risk checks: order_in_flight", Config{RiskDelayMs: 10}, func(f *flight) {
			oid := f.place(acA, true, "100", "1")
			if r := f.modify(acA, ModifyReq{OID: oid, P: "99", Qty: "1"}); r[0].Error != "order_in_flight" {
				f.t.Errorf("modify: %+v", r)
			}
		}},
		{"risk step passes: the order enters the book at ts+delay, not before", Config{RiskDelayMs: 10}, func(f *flight) {
			oid := f.place(acA, true, "100", "1")
			if f.status(oid) != StOpen || f.inBook(oid) {
				f.t.Fatalf("placed: %+v", f.m.orders[oid])
			}
			f.tick(1009)
			if f.inBook(oid) {
				f.t.Fatal("entered before its risk step")
			}
			if ev := f.tick(1010); !f.inBook(oid) || len(ev.BBOs) != 1 {
				f.t.Errorf("after the risk step: %+v, bbos %v", f.m.orders[oid], ev.BBOs)
			}
		}},
		{"risk step fails: margin used meanwhile ends the order insufficient_margin", Config{RiskDelayMs: 10}, func(f *flight) {
			// 100,000 pUSD at 20x: 2,000,000 notional; each order is 1,500,000.
			first := f.place(acA, true, "100", "15000")
			second := f.place(acA, true, "100", "15000")
			ev := f.tick(1010)
			if !f.inBook(first) || f.status(second) != StInsufficientMargin {
				f.t.Errorf("statuses %q %q", f.status(first), f.status(second))
			}
			if len(ev.Orders) != 2 {
				f.t.Errorf("order updates of the risk step: %v", ev.Orders)
			}
		}},
		{"orders awaiting risk checks reserve no margin", Config{RiskDelayMs: 10}, func(f *flight) {
			f.place(acA, true, "100", "15000")
			if used, _ := f.m.usedMargin(f.m.accts[acA]); used != 0 {
				f.t.Errorf("used margin %d", used)
			}
		}},
		{"risk step, then accept in flight: the cancel is held", Config{RiskDelayMs: 10, AcceptDelayMs: 20}, func(f *flight) {
			oid := f.place(acA, true, "100", "1")
			f.tick(1015) // risk step done at 1010; accept due at 1030
			if r := f.cancel(acA, oid); r.Status != StatusHeld || r.Due != 1030 {
				f.t.Fatalf("cancel during accept: %+v", r)
			}
			f.tick(1030)
			if f.m.HeldOutcome(oid) != "ok" || f.status(oid) != StCancelled {
				f.t.Errorf("held outcome %q status %q", f.m.HeldOutcome(oid), f.status(oid))
			}
		}},
		{"a late tick runs the risk step and the accept it was due to start", Config{RiskDelayMs: 10, AcceptDelayMs: 20}, func(f *flight) {
			oid := f.place(acA, true, "100", "1")
			f.tick(1030)
			if !f.inBook(oid) {
				f.t.Errorf("not in the book at 1030: %+v", f.m.orders[oid])
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(newFlight(t, c.cfg)) })
	}
}

// TestCancelTableConditions: the accept-in-flight rows' conditions (held
// cancels enabled, not cancel-only mode, account not liquidating).
func TestCancelTableConditions(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		setup []Command
		want  string
	}{
		{"held cancels enabled, normal mode, not liquidating: held", Config{AcceptDelayMs: 20}, nil, StatusHeld},
		{"held cancels disabled", Config{AcceptDelayMs: 20, NoHeldCancels: true}, nil, "order_in_flight"},
		{"cancel-only mode", Config{AcceptDelayMs: 20}, []Command{{Kind: KMode, Mode: ModeCancelOnly}}, "order_in_flight"},
		{"account liquidating", Config{AcceptDelayMs: 20}, []Command{{Kind: KLiquidating, Account: acA, On: true}}, "order_in_flight"},
		{"liquidation flag cleared", Config{AcceptDelayMs: 20},
			[]Command{{Kind: KLiquidating, Account: acA, On: true}, {Kind: KLiquidating, Account: acA}}, StatusHeld},
		{"post-only mode does not block held cancels", Config{AcceptDelayMs: 20}, []Command{{Kind: KMode, Mode: ModePostOnly}}, StatusHeld},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFlight(t, c.cfg)
			ev := f.do(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1", PO: true}}})
			oid := ev.Acks[0].OID
			for _, s := range c.setup {
				if ev := f.do(s); ev.Err != "" {
					t.Fatalf("%s: %s", s.Kind, ev.Err)
				}
			}
			r := f.cancel(acA, oid)
			got := r.Error
			if r.Status == StatusHeld {
				got = StatusHeld
			}
			if got != c.want {
				t.Errorf("cancel: %+v, want %s", r, c.want)
			}
			f.tick(1020) // the accept completes either way; the order is never lost
			if o := f.m.orders[oid]; o.Due != 0 || (c.want == StatusHeld) != (o.Status == StCancelled) {
				t.Errorf("after the accept: %+v", o)
			}
		})
	}
}

// TestModifyAlreadyPending: Flight.ModifyMs makes a modify pending; a second
// one of the same order in the window is modify_already_pending; the other
// rules apply when the modify applies.
func TestModifyAlreadyPending(t *testing.T) {
	cfg := Config{ModifyDelayMs: 10}
	t.Run("second modify in the window", func(t *testing.T) {
		f := newFlight(t, cfg)
		oid := f.place(acA, true, "100", "1")
		r := f.modify(acA, ModifyReq{OID: oid, P: "99", Qty: "2"})
		if r[0].Status != StatusHeld || r[0].Due != 1010 || r[0].Mod == 0 {
			t.Fatalf("first modify: %+v", r)
		}
		if r2 := f.modify(acA, ModifyReq{OID: oid, P: "98", Qty: "2"}); r2[0].Error != "modify_already_pending" {
			t.Errorf("second modify: %+v", r2)
		}
		if _, ok := f.m.ModifyOutcome(r[0].Mod); ok || f.m.orders[oid].Ticks != 1000 {
			t.Fatal("applied before its window ended")
		}
		f.tick(1010)
		out, ok := f.m.ModifyOutcome(r[0].Mod)
		if !ok || out.Status != "ok" || out.Order == nil || out.Order.P != "99" || f.m.orders[oid].Ticks != 990 {
			t.Errorf("outcome %+v %v", out, ok)
		}
		if r3 := f.modify(acA, ModifyReq{OID: oid, P: "98", Qty: "2"}); r3[0].Status != StatusHeld {
			t.Errorf("modify after the window: %+v", r3)
		}
	})
	t.Run("same order twice in one batch: duplicate_order_in_batch", func(t *testing.T) {
		f := newFlight(t, cfg)
		oid := f.place(acA, true, "100", "1")
		r := f.modify(acA, ModifyReq{OID: oid, P: "99", Qty: "1"}, ModifyReq{OID: oid, P: "98", Qty: "1"})
		if r[0].Status != StatusHeld || r[1].Error != "duplicate_order_in_batch" {
			t.Errorf("%+v", r)
		}
	})
	t.Run("rules at apply time", func(t *testing.T) {
		cases := []struct {
			name  string
			req   ModifyReq
			after func(f *flight, oid uint64) // inside the window
			want  string
		}{
			{"order cancelled meanwhile", ModifyReq{P: "99", Qty: "1"},
				func(f *flight, oid uint64) { f.cancel(acA, oid) }, "order_not_in_orderbook"},
			{"an ask arrived that the new price would cross", ModifyReq{P: "102", Qty: "1"},
				func(f *flight, _ uint64) { f.place(acB, false, "101", "1") }, "modify_would_cross"},
			{"no-op", ModifyReq{P: "100", Qty: "1"}, func(*flight, uint64) {}, "modify_no_op"},
			{"cancel-only mode set meanwhile", ModifyReq{P: "99", Qty: "1"},
				func(f *flight, _ uint64) { f.do(Command{Kind: KMode, Mode: ModeCancelOnly}) }, ErrCancelOnlyMode},
			{"unparsable price: refused at once", ModifyReq{P: "x", Qty: "1"}, nil, "invalid_command"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f := newFlight(t, cfg)
				oid := f.place(acA, true, "100", "1")
				c.req.OID = oid
				r := f.modify(acA, c.req)[0]
				if c.after == nil {
					if r.Error != c.want {
						t.Errorf("%+v, want %s", r, c.want)
					}
					return
				}
				c.after(f, oid)
				f.tick(1010)
				if out, ok := f.m.ModifyOutcome(r.Mod); !ok || out.Error != c.want || out.OID != oid {
					t.Errorf("outcome %+v %v, want %s", out, ok, c.want)
				}
				if f.m.orders[oid].ModPend != 0 {
					t.Error("the order still has a pending modify")
				}
			})
		}
	})
	t.Run("pending modify survives a snapshot", func(t *testing.T) {
		f := newFlight(t, cfg)
		oid := f.place(acA, true, "100", "1")
		r := f.modify(acA, ModifyReq{OID: oid, P: "99", Qty: "1"})
		var buf bytes.Buffer
		f.m.Snapshot(&buf)
		m := New(Config{})
		if err := m.Restore(&buf); err != nil || m.Hash() != f.m.Hash() || m.NextDue() != 1010 || m.Flight().ModifyMs != 10 {
			t.Fatalf("restore: %v", err)
		}
		f.m = m
		f.tick(1010)
		if out, ok := m.ModifyOutcome(r[0].Mod); !ok || out.Status != "ok" {
			t.Errorf("outcome after restore: %+v", out)
		}
	})
}

// TestTradingModes: cancel-only and post-only (KMode).
func TestTradingModes(t *testing.T) {
	po := func(p string) OrderReq { return OrderReq{IID: 1, Buy: true, P: sp(p), Qty: "1", PO: true} }
	plain := func(p string) OrderReq { return OrderReq{IID: 1, Buy: true, P: sp(p), Qty: "1"} }
	cases := []struct {
		name     string
		mode     Command
		orders   []OrderReq
		wantErr  string
		wantAcks []string // status or error per ack
		retry    int64
	}{
		{"normal", Command{Kind: KMode, Mode: "normal"}, []OrderReq{plain("100")}, "", []string{"ok"}, 0},
		{"cancel-only refuses every new order", Command{Kind: KMode, Mode: ModeCancelOnly, RetryAfter: 30},
			[]OrderReq{po("100"), plain("99")}, ErrCancelOnlyMode, nil, 30},
		{"post-only: a post-only order is accepted", Command{Kind: KMode, Mode: ModePostOnly}, []OrderReq{po("100")}, "", []string{"ok"}, 0},
		{"post-only: a request with no post-only order is refused whole", Command{Kind: KMode, Mode: ModePostOnly},
			[]OrderReq{plain("100"), plain("99")}, ErrPostOnlyMode, nil, DefaultRetryAfter},
		{"post-only: a mixed batch refuses its other orders one by one", Command{Kind: KMode, Mode: ModePostOnly, RetryAfter: 7},
			[]OrderReq{plain("100"), po("99")}, "", []string{ErrPostOnlyMode, "ok"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFlight(t, Config{})
			resting := f.place(acA, true, "90", "1")
			if ev := f.do(c.mode); ev.Err != "" {
				t.Fatal(ev.Err)
			}
			ev := f.do(Command{Kind: KCreateOrders, Account: acA, Orders: c.orders})
			if ev.Err != c.wantErr || ev.RetryAfter != c.retry || len(ev.Acks) != len(c.wantAcks) {
				t.Fatalf("event %+v", ev)
			}
			for i, a := range ev.Acks {
				if got := a.Status + a.Error; got != c.wantAcks[i] && a.Error != c.wantAcks[i] {
					t.Errorf("ack %d: %+v, want %s", i, a, c.wantAcks[i])
				}
			}
			if r := f.cancel(acA, resting); r.Status != "ok" {
				t.Errorf("cancels keep working: %+v", r)
			}
		})
	}
	t.Run("cancel-only refuses modifies; back to normal", func(t *testing.T) {
		f := newFlight(t, Config{})
		oid := f.place(acA, true, "90", "1")
		f.do(Command{Kind: KMode, Mode: ModeCancelOnly})
		if r := f.modify(acA, ModifyReq{OID: oid, P: "91", Qty: "1"}); r[0].Error != ErrCancelOnlyMode {
			t.Errorf("modify: %+v", r)
		}
		if mode, retry := f.m.Mode(); mode != ModeCancelOnly || retry != DefaultRetryAfter {
			t.Errorf("Mode() = %q %d", mode, retry)
		}
		f.do(Command{Kind: KMode, Mode: ModeNormal})
		f.place(acA, true, "91", "1")
	})
	t.Run("invalid commands", func(t *testing.T) {
		f := newFlight(t, Config{})
		for _, c := range []Command{{Kind: KMode, Mode: "halt"}, {Kind: KMode, Mode: ModePostOnly, RetryAfter: -1},
			{Kind: KConfig}, {Kind: KConfig, Flight: &Flight{AcceptMs: -1}}, {Kind: KConfig, Flight: &Flight{RiskMs: MaxDelayMs + 1}},
			{Kind: KLiquidating, Account: "0x0000000000000000000000000000000000000001", On: true}} {
			if ev := f.do(c); ev.Err == "" {
				t.Errorf("%+v accepted", c)
			}
		}
		if mode, _ := f.m.Mode(); mode != ModeNormal || f.m.Flight() != (Flight{}) {
			t.Error("a refused command changed the state")
		}
	})
}

// TestConfigCommandReplay: the windows are state, so a journal replays with
// the windows that were in force whatever the replaying machine's Config.
func TestConfigCommandReplay(t *testing.T) {
	log := [][]byte{
		cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}),
		cmd(Command{Kind: KDeposit, Account: acA, Amount: "100000"}),
		cmd(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}}),
		cmd(Command{Kind: KConfig, Flight: &Flight{AcceptMs: 20}}),
		cmd(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("99"), Qty: "1"}}}),
		cmd(Command{Kind: KCancel, Account: acA, OIDs: []uint64{2}}), // held: the accept is in flight
	}
	run := func(m *Machine) *Machine {
		for i, c := range log {
			m.Apply(uint64(i+1), 1000+int64(i), c, nil)
		}
		return m
	}
	ref := run(New(Config{}))
	if o := ref.orders[2]; o.Due != 1024 || !o.Held {
		t.Fatalf("the journaled window was not in force: %+v", o)
	}
	for _, cfg := range []Config{{AcceptDelayMs: 500}, {RiskDelayMs: 7, ModifyDelayMs: 3, NoHeldCancels: true}} {
		// A machine whose own Config differs replays to the same state once
		// its initial windows are the journal's (the server starts every
		// machine with zero windows and journals its flags as KConfig).
		m := New(cfg)
		m.fl = Flight{}
		if run(m).Hash() != ref.Hash() {
			t.Errorf("replay under %+v differs", cfg)
		}
	}
}
