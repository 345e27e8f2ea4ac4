package perps

import (
	"reflect"
	"testing"
)

// TestApplyDecodedDoesWhatApplyDoes: a live order batch applied from the
// producer's decoded command (ApplyDecoded) leaves the same state and
// events as the same record applied by replay (Apply), for the order kinds
// a batch holds.
func TestApplyDecodedDoesWhatApplyDoes(t *testing.T) {
	setup := []Command{
		{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}},
		{Kind: KDeposit, Account: acA, Amount: "100000"},
		{Kind: KDeposit, Account: acB, Amount: "100000"},
		{Kind: KCreateOrders, Account: acB, Orders: []OrderReq{{IID: 1, P: sp("1000"), Qty: "0.5"}}},
	}
	batches := [][]OrderReq{
		{{IID: 1, Buy: true, P: sp("1000"), Qty: "0.2", TIF: sp("ioc"), C: "0000000000000000000000000000000a"},
			{IID: 1, Buy: true, P: sp("990.0"), Qty: "0.1", C: "0000000000000000000000000000000b"},
			{IID: 1, Buy: true, P: sp("980"), Qty: "0.1", TIF: sp("fok")},
			{IID: 1, Buy: false, P: sp("2000"), Qty: "0.1", PO: true},
			{IID: 1, Buy: true, Qty: "0.1", TIF: sp("ioc"), RO: true},
			{IID: 9, Buy: true, P: sp("1"), Qty: "1"}},
		{{IID: 1, Buy: true, P: sp("1000"), Qty: "0.1", Grp: "order"},
			{IID: 1, Qty: "0", RO: true, TR: true, TrP: "900", TrKind: "sl", TrMarket: true, Grp: "order"}},
	}
	run := func(decoded bool) ([]Event, [32]byte) {
		m := New(Config{})
		ts := int64(1000)
		for _, c := range setup {
			ts++
			m.Apply(0, ts, c.Encode(), nil)
		}
		var evs []Event
		for _, orders := range batches {
			ts++
			c := &Command{Kind: KCreateOrders, Account: acA, Replay: []byte("replay-key"), Orders: orders}
			rec := c.Encode()
			if decoded {
				evs = m.ApplyDecoded(0, ts, rec, c, evs)
			} else {
				evs = m.Apply(0, ts, rec, evs)
			}
		}
		return evs, m.Hash()
	}
	ev1, h1 := run(false)
	ev2, h2 := run(true)
	if h1 != h2 {
		t.Error("state hash differs")
	}
	if !reflect.DeepEqual(ev1, ev2) {
		t.Errorf("events differ:\n%+v\n%+v", ev1, ev2)
	}
	if len(ev1) != 2 || len(ev1[0].Acks) != 6 || ev1[0].Acks[0].Status != "ok" || len(ev1[0].Fills) == 0 ||
		len(ev1[1].Acks) != 2 || ev1[1].Acks[1].Status != "ok" {
		t.Fatalf("events: %+v", ev1)
	}
}
