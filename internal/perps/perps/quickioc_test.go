package perps

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestQuickIOCMatchesTheBook: IOCs that cannot cross skip the book
// (quickioc.go); a machine taking that path and one sending every IOC
// through the book, fed the same random commands (resting orders on both
// sides from three accounts, IOCs at prices on both sides of the spread,
// reduce-only and FOK orders, client ids, cancels, an index with its price
// band, a minimum notional, a taker delay), give the same events and the
// same state hash after every command.
func TestQuickIOCMatchesTheBook(t *testing.T) {
	const acC = "0x00000000000000000000000000000000000000cc"
	accts := []string{acA, acB, acC}
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			cfg := Config{}
			if seed%3 == 2 {
				cfg.TakerDelayMs = 2
			}
			quick, full := New(cfg), New(cfg)
			full.noQuick = true
			rng := rand.New(rand.NewPCG(seed, 15))
			ts := int64(1000)
			step := func(c Command) {
				ts += int64(rng.IntN(3))
				rec := c.Encode()
				e1 := quick.Apply(0, ts, rec, nil)
				e2 := full.Apply(0, ts, rec, nil)
				if !reflect.DeepEqual(e1, e2) {
					t.Fatalf("%+v: events differ\nquick: %+v\nfull:  %+v", c, e1, e2)
				}
				if quick.Hash() != full.Hash() {
					t.Fatalf("%+v: state hash differs", c)
				}
			}
			step(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
			step(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "ETH-USD", Category: "crypto", PriceDecimals: 2, QtyDecimals: 2, MaxLeverage: 10, MinNotional: "500"}})
			for _, a := range accts {
				step(Command{Kind: KDeposit, Account: a, Amount: "10000000"})
			}
			price := func() *string { // around 1000, on both sides of the book's spread
				return sp(fmt.Sprintf("%d.%d", 990+rng.IntN(21), rng.IntN(10)))
			}
			var oids []uint64
			for range 400 {
				switch k := rng.IntN(20); {
				case k == 0:
					step(Command{Kind: KIndex, IID: uint32(1 + rng.IntN(2)), Price: fmt.Sprint(995 + rng.IntN(11))})
				case k == 1 && len(oids) > 0:
					step(Command{Kind: KCancel, Account: accts[rng.IntN(3)], OIDs: []uint64{oids[rng.IntN(len(oids))]}})
				case k == 2:
					step(Command{Kind: KTick})
				default:
					c := Command{Kind: KCreateOrders, Account: accts[rng.IntN(3)]}
					for range 1 + rng.IntN(5) {
						r := OrderReq{IID: uint32(1 + rng.IntN(2)), Buy: rng.IntN(2) == 0, P: price(), Qty: fmt.Sprintf("0.%d", 1+rng.IntN(9))}
						switch rng.IntN(8) {
						case 0, 1: // rests
						case 2:
							r.TIF, r.RO = sp("ioc"), true
						case 3:
							r.TIF = sp("fok")
						case 4:
							r.TIF, r.P = sp("ioc"), nil // market
						default:
							r.TIF = sp("ioc")
						}
						if rng.IntN(4) == 0 {
							r.C = fmt.Sprintf("%032x", rng.Uint64()|1)
						}
						c.Orders = append(c.Orders, r)
					}
					step(c)
					for oid := range quick.accts[c.Account].Open {
						oids = append(oids, oid)
					}
				}
			}
			if quick.quickIOCs < 50 || full.quickIOCs != 0 {
				t.Fatalf("quick IOCs: %d (full path: %d)", quick.quickIOCs, full.quickIOCs)
			}
			t.Logf("quick IOCs: %d", quick.quickIOCs)
		})
	}
}

// TestBatchQuantityParsedPerInstrument: a batch parses a run of equal
// quantity strings once (batch.go parseQty), per instrument: "0.125" is a
// quantity on a 3-decimal instrument and not on a 2-decimal one, in either
// order within one batch; likewise the rows' quantity strings (qtyString).
func TestBatchQuantityParsedPerInstrument(t *testing.T) {
	m := New(Config{})
	ts := int64(1000)
	do := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
	do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	do(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "ETH-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 2, MaxLeverage: 20}})
	do(Command{Kind: KDeposit, Account: acA, Amount: "1000000"})
	ioc := func(iid uint32) OrderReq {
		return OrderReq{IID: iid, Buy: true, P: sp("100"), Qty: "0.125", TIF: sp("ioc")}
	}
	for _, iids := range [][]uint32{{1, 2, 1}, {2, 1, 2}} {
		var orders []OrderReq
		for _, iid := range iids {
			orders = append(orders, ioc(iid))
		}
		acks := do(Command{Kind: KCreateOrders, Account: acA, Orders: orders}).Acks
		for i, iid := range iids {
			want := "ok"
			if iid == 2 {
				want = "err"
			}
			if acks[i].Status != want {
				t.Errorf("batch %v, order %d: %+v, want %s", iids, i, acks[i], want)
			}
		}
	}
	// equal lots on both grids: each row shows its own instrument's quantity
	ev := do(Command{Kind: KCreateOrders, Account: acA, Orders: []OrderReq{
		{IID: 1, Buy: true, P: sp("100"), Qty: "0.125", TIF: sp("ioc")},
		{IID: 2, Buy: true, P: sp("100"), Qty: "1.25", TIF: sp("ioc")},
		{IID: 1, Buy: true, P: sp("100"), Qty: "0.125", TIF: sp("ioc")}}})
	var got []string
	for _, w := range ev.Orders {
		got = append(got, w.Qty)
	}
	if want := []string{"0.125", "1.25", "0.125"}; !reflect.DeepEqual(got, want) {
		t.Errorf("row quantities %v, want %v", got, want)
	}
}

// TestOrderRowWrittenInPlaceSetsEveryField: an event's order row is written
// over whatever its slot held (flush, putOrderWire), so every field of
// OrderWire must be set: a slot full of other values ends equal to a row
// built from zero.
func TestOrderRowWrittenInPlaceSetsEveryField(t *testing.T) {
	m := New(Config{})
	m.Apply(0, 1, cmd(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}}), nil)
	o := &Order{OID: 7, IID: 1, Account: acA, Ticks: 1000, Lots: 5, TIF: "gtc", Status: StOpen, Created: 3, Updated: 4}
	var dirty OrderWire
	v := reflect.ValueOf(&dirty).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int64:
			f.SetInt(-1)
		case reflect.Uint64, reflect.Uint32:
			f.SetUint(99)
		default:
			t.Fatalf("field %s: kind %s not covered", v.Type().Field(i).Name, f.Kind())
		}
	}
	m.putOrderWire(&dirty, o)
	if want := m.orderWire(o); dirty != want {
		t.Errorf("row written over a used slot: %+v, want %+v", dirty, want)
	}
}
