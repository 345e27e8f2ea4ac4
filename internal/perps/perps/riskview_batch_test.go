package perps

import (
	"slices"
	"testing"
)

// TestBatchRiskCheckSeesEarlierOrdersOfTheBatch: the orders of one
// createOrders share a risk view only while the earlier orders leave the
// account as it was (riskview.go keepView). An order that rests or fills
// changes what the next one may use, so a batch must end exactly as the
// same orders sent one command each.
func TestBatchRiskCheckSeesEarlierOrdersOfTheBatch(t *testing.T) {
	gtc, ioc := sp("gtc"), sp("ioc")
	for _, tc := range []struct {
		name  string
		maker []OrderReq // acB's orders first (nil: none)
		batch []OrderReq // acA's
		want  []string   // acA's ack status or error per order
	}{
		{"a resting order's margin counts for the next",
			nil,
			[]OrderReq{{IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: gtc}, {IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: gtc}},
			[]string{"ok", "insufficient_margin"}},
		{"a filled order's position counts for the next",
			[]OrderReq{{IID: 1, P: sp("1000"), Qty: "0.6", TIF: gtc}},
			[]OrderReq{{IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: ioc}, {IID: 1, Buy: true, P: sp("999"), Qty: "0.6", TIF: gtc}},
			[]string{"ok", "insufficient_margin"}},
		{"unfilled IOCs leave the margin free",
			nil,
			[]OrderReq{{IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: ioc}, {IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: ioc},
				{IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: gtc}, {IID: 1, Buy: true, P: sp("1000"), Qty: "0.6", TIF: ioc}},
			[]string{"ok", "ok", "ok", "insufficient_margin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(oneCommand bool) []string {
				m := New(Config{})
				ts := int64(1000)
				do := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
				do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 10}})
				do(Command{Kind: KDeposit, Account: acA, Amount: "100"})
				do(Command{Kind: KDeposit, Account: acB, Amount: "100"})
				if tc.maker != nil {
					do(Command{Kind: KCreateOrders, Account: acB, Orders: tc.maker})
				}
				var got []string
				add := func(ev Event) {
					if ev.Err != "" {
						t.Fatal(ev.Err)
					}
					for _, a := range ev.Acks {
						if a.Status != "ok" {
							a.Status = a.Error
						}
						got = append(got, a.Status)
					}
				}
				if oneCommand {
					add(do(Command{Kind: KCreateOrders, Account: acA, Orders: slices.Clone(tc.batch)}))
				} else {
					for _, r := range tc.batch {
						add(do(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{r}}))
					}
				}
				return got
			}
			for _, oneCommand := range []bool{false, true} {
				got := run(oneCommand)
				if !slices.Equal(got, tc.want) {
					t.Errorf("one command %v: %v, want %v", oneCommand, got, tc.want)
				}
			}
		})
	}
}
