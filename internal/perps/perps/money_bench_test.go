package perps

import (
	"fmt"
	"testing"
)

// Money benchmarks (docs/PERFORMANCE.md "Perps money"): one command straight
// through Apply (no journal), on an exchange of 1,000 accounts each holding
// a position, so withdrawable runs the risk engine over a real account; the
// reference in the same run is BenchmarkApplyPlaceCancel (a resting order
// placed and cancelled).

// moneyBenchMachine has 1,000 funded accounts, each long or short 1 BTC.
func moneyBenchMachine(b *testing.B) (*Machine, func(Command) Event, []string) {
	m := New(Config{})
	ts := int64(1_790_000_000_000)
	apply := func(c Command) Event { ts++; return m.Apply(0, ts, c.Encode(), nil)[0] }
	apply(Command{Kind: KCreateInstrument, Instrument: &InstrumentSpec{Symbol: "BTC-USD", Category: "crypto", PriceDecimals: 1, QtyDecimals: 3, MaxLeverage: 20}})
	apply(Command{Kind: KIndex, IID: 1, Price: "100"})
	accts := make([]string, 1000)
	for i := range accts {
		accts[i] = fmt.Sprintf("0x%040x", i+1)
		apply(Command{Kind: KDeposit, Account: accts[i], Amount: "1000000"})
	}
	for i := 0; i < len(accts); i += 2 {
		apply(Command{Kind: KCreateOrders, Account: accts[i], Orders: []OrderReq{{IID: 1, P: sp("100"), Qty: "1"}}})
		if e := apply(Command{Kind: KCreateOrders, Account: accts[i+1], Orders: []OrderReq{{IID: 1, Buy: true, P: sp("100"), Qty: "1", TIF: sp("ioc")}}}); len(e.Fills) == 0 {
			b.Fatal("no fill")
		}
	}
	return m, apply, accts
}

func BenchmarkApplyMoney(b *testing.B) {
	for _, kind := range []string{KDeposit, KTransfer, KWithdraw} {
		b.Run(kind, func(b *testing.B) {
			_, apply, accts := moneyBenchMachine(b)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				a, to := accts[i%len(accts)], accts[(i+1)%len(accts)]
				i++
				c := Command{Kind: kind, Account: a, Amount: "1", Replay: []byte(fmt.Sprint(i))}
				switch kind {
				case KTransfer:
					c.To, c.Label = to, "bench"
				case KWithdraw:
					c.To, c.Fee, c.Required, c.Amount = to, "0.5", 3, "1"
				}
				if e := apply(c); e.Err != "" {
					b.Fatalf("%s: %s", kind, e.Err)
				}
			}
		})
	}
}

// BenchmarkHistoryPage: one 100-row page of an account's transfers with
// 100,000 transfers among 1,000 accounts, from the per-account index
// (TransfersOf) and, as the reference, by the scan of every transfer it
// replaces; and one 1,000-point equity page (1-minute buckets, a day).
func BenchmarkHistoryPage(b *testing.B) {
	m, apply, accts := moneyBenchMachine(b)
	for i := 0; i < 100_000; i++ {
		apply(Command{Kind: KTransfer, Account: accts[i%1000], To: accts[(i*7+1)%1000], Amount: "0.000001", Label: "x"})
	}
	acct := accts[500]
	b.Run("transfers/index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if p, _ := m.TransfersOf(acct, "", 0, MaxMs, 100); len(p) != 100 {
				b.Fatal(len(p))
			}
		}
	})
	b.Run("transfers/scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := make([]TransferWire, 0, 100)
			for i := len(m.mo.trs) - 1; i >= 0 && len(out) < 100; i-- {
				t := m.mo.trs[i]
				if t.From == acct || t.To == acct {
					out = append(out, TransferWire{ID: t.ID, Asset: Asset, Amount: FormatMicro(t.Amount), Created: t.Created, Label: t.Label})
				}
			}
			if len(out) != 100 {
				b.Fatal(len(out))
			}
		}
	})
	// A day of 1-minute equity samples for one account.
	a := m.accts[acct]
	for i := int64(0); i < 1440; i++ {
		a.hist().EqMin = put(a.Hist.EqMin, minuteMs, eqMinKeep, 1_790_000_000_000+i*minuteMs, i, false)
	}
	b.Run("equity/1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if p, _ := m.EquityHistory(acct, minuteMs, 0, MaxMs, HistoryPage); len(p) != HistoryPage {
				b.Fatal(len(p))
			}
		}
	})
}
