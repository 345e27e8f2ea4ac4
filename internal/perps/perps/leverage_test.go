package perps

import (
	"testing"
)

// The updateLeverage table of the contract, in its order, through the
// machine: each row is one command applied to a fresh exchange after setup.
func TestUpdateLeverageRules(t *testing.T) {
	const a = "0x00000000000000000000000000000000000000aa"
	const b = "0x00000000000000000000000000000000000000bb"
	setup := func(extra ...Command) *Machine {
		m := New(Config{})
		cs := append([]Command{
			{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}},
			{Kind: KDeposit, Account: a, Amount: "100000"},
			{Kind: KDeposit, Account: b, Amount: "100000"},
			{Kind: KIndex, IID: 1, Price: "100"},
		}, extra...)
		for i, c := range cs {
			if ev := m.Apply(uint64(i+1), 1000, cmd(c), nil)[0]; ev.Err != "" {
				t.Fatalf("setup %s: %s", c.Kind, ev.Err)
			}
		}
		return m
	}
	rest := Command{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("99"), Qty: "1"}}}
	trade := []Command{
		{Kind: KCreateOrders, Account: b, Orders: []OrderReq{{IID: 1, P: sp("100"), Qty: "1"}}},
		{Kind: KCreateOrders, Account: a, Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1"}}},
	}
	for _, tc := range []struct {
		name  string
		setup []Command
		req   LeverageReq
		want  string // "" ok
	}{
		{"instrument_not_found", nil, LeverageReq{IID: 7, Lev: 5}, "instrument_not_found"},
		{"invalid_leverage above max", nil, LeverageReq{IID: 1, Lev: 21}, "invalid_leverage"},
		{"max leverage ok", nil, LeverageReq{IID: 1, Lev: 20, Cross: true}, ""},
		{"position_exists on mode switch", trade, LeverageReq{IID: 1, Lev: 10, Cross: true}, "position_exists"},
		{"leverage change with a position", trade, LeverageReq{IID: 1, Lev: 10}, ""},
		{"open_orders_exist on mode switch", []Command{rest}, LeverageReq{IID: 1, Lev: 20, Cross: true}, "open_orders_exist"},
		{"open_orders_exist counts orders awaiting risk checks",
			[]Command{{Kind: KConfig, Flight: &Flight{RiskMs: 50}}, rest}, LeverageReq{IID: 1, Lev: 20, Cross: true}, "open_orders_exist"},
		{"zero leverage refused", nil, LeverageReq{IID: 1, Lev: 0}, "leverage must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := setup(tc.setup...)
			ev := m.Apply(99, 1000, cmd(Command{Kind: KLeverage, Account: a, Leverages: []LeverageReq{tc.req}}), nil)[0]
			if ev.Err != "" || len(ev.Leverage) != 1 {
				t.Fatalf("event %+v", ev)
			}
			r := ev.Leverage[0]
			if r.Error != tc.want || (tc.want == "") != (r.Status == "ok") || r.IID != tc.req.IID {
				t.Fatalf("got %+v, want error %q", r, tc.want)
			}
			cfg := m.ConfigOf(a, 1)[0]
			if tc.want == "" && (cfg.Leverage != tc.req.Lev || cfg.Cross != tc.req.Cross) {
				t.Fatalf("config %+v after %+v", cfg, tc.req)
			}
			if tc.want != "" && (cfg.Leverage != 20 || cfg.Cross) {
				t.Fatalf("refused update changed the config: %+v", cfg)
			}
		})
	}
}
