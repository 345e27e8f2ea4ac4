package book_test

import (
	"fmt"
	"strings"
	"testing"

	"pmx/internal/exchange/book"
)

// fmtEvents renders events compactly for table tests.
func fmtEvents(evs []book.Event) string {
	var parts []string
	side := func(s book.Side) string { return [...]string{"B", "S"}[s] }
	for _, e := range evs {
		var s string
		switch e.Kind {
		case book.EvAccepted:
			s = fmt.Sprintf("acc #%d %s %d x%d", e.OID, side(e.Side), e.Price, e.Qty)
		case book.EvRejected:
			s = fmt.Sprintf("rej #%d %v", e.OID, e.Reason)
		case book.EvTrade:
			s = fmt.Sprintf("trade #%d<-#%d %d x%d", e.OID, e.Maker, e.Price, e.Qty)
			if e.Match != book.MatchNormal {
				s += [...]string{"", " mint", " merge"}[e.Match]
			}
		case book.EvCancelled:
			s = fmt.Sprintf("cxl #%d %d x%d %v", e.OID, e.Price, e.Qty, e.Reason)
		case book.EvExpired:
			s = fmt.Sprintf("exp #%d x%d %v", e.OID, e.Qty, e.Reason)
		case book.EvModified:
			s = fmt.Sprintf("mod #%d %d x%d", e.OID, e.Price, e.Qty)
		case book.EvLevel:
			s = fmt.Sprintf("lvl %s%d=%d", side(e.Side), e.Price, e.Qty)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// cmd builders (owner defaults to the OID, so no self-trades unless asked).
func add(oid uint64, s book.Side, p, q int64) book.Command {
	return book.Command{Op: book.OpAdd, OID: oid, Owner: oid, Side: s, Price: p, Qty: q}
}
func with(c book.Command, f func(*book.Command)) book.Command { f(&c); return c }
func cxl(oid uint64) book.Command                             { return book.Command{Op: book.OpCancel, OID: oid} }
func mod(oid uint64, p, q int64) book.Command {
	return book.Command{Op: book.OpModify, OID: oid, Price: p, Qty: q}
}
func tif(t book.TIF) func(*book.Command)     { return func(c *book.Command) { c.TIF = t } }
func flags(f book.Flags) func(*book.Command) { return func(c *book.Command) { c.Flags |= f } }
func owner(o uint64) func(*book.Command)     { return func(c *book.Command) { c.Owner = o } }
func no() func(*book.Command)                { return func(c *book.Command) { c.Outcome = book.OutcomeNo } }
func ioc(c book.Command) book.Command        { return with(c, tif(book.IOC)) }

type fixedLimit int64

func (f fixedLimit) ReduceOnlyLimit(uint64, book.Side, book.Outcome) int64 { return int64(f) }

func TestSemantics(t *testing.T) {
	B, S := book.Buy, book.Sell
	cases := []struct {
		name  string
		cfg   book.Config
		setup []book.Command
		cmd   book.Command
		want  string
	}{
		{"rest", book.Config{}, nil, add(1, B, 40, 5), "acc #1 B 40 x5; lvl B40=5"},
		{"fifo within level", book.Config{}, []book.Command{add(1, B, 40, 2), add(2, B, 40, 2)}, add(3, S, 40, 3),
			"acc #3 S 40 x3; trade #3<-#1 40 x2; lvl B40=2; trade #3<-#2 40 x1; lvl B40=1"},
		{"price priority", book.Config{}, []book.Command{add(1, S, 45, 1), add(2, S, 44, 1)}, add(3, B, 50, 3),
			"acc #3 B 50 x3; trade #3<-#2 44 x1; lvl S44=0; trade #3<-#1 45 x1; lvl S45=0; lvl B50=1"},
		{"ioc partial", book.Config{}, []book.Command{add(1, S, 45, 1)}, ioc(add(2, B, 46, 3)),
			"acc #2 B 46 x3; trade #2<-#1 45 x1; lvl S45=0; exp #2 x2 ioc_expired"},
		{"ioc no liquidity", book.Config{}, nil, ioc(add(2, B, 46, 3)), "acc #2 B 46 x3; exp #2 x3 ioc_expired"},
		{"fok short", book.Config{}, []book.Command{add(1, S, 45, 1), add(2, S, 47, 5)}, with(add(3, B, 46, 2), tif(book.FOK)),
			"rej #3 fok_unfilled"},
		{"fok fills", book.Config{}, []book.Command{add(1, S, 45, 1), add(2, S, 46, 5)}, with(add(3, B, 46, 2), tif(book.FOK)),
			"acc #3 B 46 x2; trade #3<-#1 45 x1; lvl S45=0; trade #3<-#2 46 x1; lvl S46=4"},
		{"post-only crosses", book.Config{}, []book.Command{add(1, S, 45, 1)}, with(add(2, B, 45, 1), flags(book.PostOnly)),
			"rej #2 post_only_rejected"},
		{"post-only rests", book.Config{}, []book.Command{add(1, S, 45, 1)}, with(add(2, B, 44, 1), flags(book.PostOnly)),
			"acc #2 B 44 x1; lvl B44=1"},
		{"post-only ioc", book.Config{}, nil, with(ioc(add(2, B, 44, 1)), flags(book.PostOnly)), "rej #2 bad_tif"},
		{"market sweeps", book.Config{}, []book.Command{add(1, S, 45, 1), add(2, S, 98, 1)}, with(ioc(add(3, B, 0, 5)), flags(book.Market)),
			"acc #3 B 0 x5; trade #3<-#1 45 x1; lvl S45=0; trade #3<-#2 98 x1; lvl S98=0; exp #3 x3 ioc_expired"},
		{"market gtc", book.Config{}, nil, with(add(3, B, 0, 5), flags(book.Market)), "rej #3 bad_tif"},
		{"price off grid", book.Config{}, nil, add(1, B, 100, 1), "rej #1 bad_price"},
		{"zero qty", book.Config{}, nil, add(1, B, 10, 0), "rej #1 bad_quantity"},
		{"huge qty", book.Config{}, nil, add(1, B, 10, book.MaxQty+1), "rej #1 bad_quantity"},
		{"modify huge qty", book.Config{}, []book.Command{add(1, B, 10, 3)}, mod(1, 10, book.MaxQty+1), "rej #1 bad_quantity"},
		{"duplicate", book.Config{}, []book.Command{add(1, B, 10, 1)}, add(1, S, 20, 1), "rej #1 duplicate_order"},
		{"no outcome on plain book", book.Config{}, nil, with(add(1, B, 10, 1), no()), "rej #1 bad_outcome"},
		{"cancel", book.Config{}, []book.Command{add(1, B, 10, 3), add(2, B, 10, 1)}, cxl(1), "cxl #1 10 x3 cancelled; lvl B10=1"},
		{"cancel unknown", book.Config{}, nil, cxl(1), "rej #1 order_not_found"},
		{"cancel filled", book.Config{}, []book.Command{add(1, B, 10, 1), add(2, S, 10, 1)}, cxl(1), "rej #1 order_not_found"},
		{"modify down keeps place", book.Config{}, []book.Command{add(1, B, 10, 3), add(2, B, 10, 1), mod(1, 10, 2)}, add(3, S, 10, 1),
			"acc #3 S 10 x1; trade #3<-#1 10 x1; lvl B10=2"},
		{"modify up loses place", book.Config{}, []book.Command{add(1, B, 10, 3), add(2, B, 10, 1), mod(1, 10, 4)}, add(3, S, 10, 1),
			"acc #3 S 10 x1; trade #3<-#2 10 x1; lvl B10=4"},
		{"modify price loses place", book.Config{}, []book.Command{add(1, B, 10, 3), add(2, B, 11, 1), mod(1, 11, 3)}, add(3, S, 11, 1),
			"acc #3 S 11 x1; trade #3<-#2 11 x1; lvl B11=3"},
		{"modify events", book.Config{}, []book.Command{add(1, B, 10, 3), add(2, B, 10, 1)}, mod(1, 12, 5),
			"mod #1 12 x5; lvl B10=1; lvl B12=5"},
		{"modify not above filled", book.Config{}, []book.Command{add(1, B, 10, 3), ioc(add(2, S, 10, 2))}, mod(1, 10, 2),
			"rej #1 modify_quantity_not_above_filled"},
		{"modify partially filled", book.Config{}, []book.Command{add(1, B, 10, 3), ioc(add(2, S, 10, 2))}, mod(1, 10, 5),
			"mod #1 10 x5; lvl B10=3"},
		{"modify no-op", book.Config{}, []book.Command{add(1, B, 10, 3)}, mod(1, 10, 3), "rej #1 modify_no_op"},
		{"modify would cross", book.Config{}, []book.Command{add(1, B, 10, 3), add(2, S, 12, 1)}, mod(1, 12, 3), "rej #1 modify_would_cross"},
		{"stp cancel maker", book.Config{STP: book.STPCancelMaker}, []book.Command{with(add(1, S, 10, 1), owner(7)), add(2, S, 10, 1)},
			with(add(3, B, 10, 2), owner(7)),
			"acc #3 B 10 x2; cxl #1 10 x1 stp_cancelled; lvl S10=1; trade #3<-#2 10 x1; lvl S10=0; lvl B10=1"},
		{"stp cancel taker", book.Config{STP: book.STPCancelTaker}, []book.Command{add(2, S, 9, 1), with(add(1, S, 10, 1), owner(7))},
			with(add(3, B, 10, 2), owner(7)),
			"acc #3 B 10 x2; trade #3<-#2 9 x1; lvl S9=0; exp #3 x1 stp_cancelled"},
		{"stp none", book.Config{STP: book.STPNone}, []book.Command{with(add(1, S, 10, 1), owner(7))}, with(add(3, B, 10, 2), owner(7)),
			"acc #3 B 10 x2; trade #3<-#1 10 x1; lvl S10=0; lvl B10=1"},
		{"fok stp cancel taker", book.Config{STP: book.STPCancelTaker}, []book.Command{with(add(1, S, 10, 1), owner(7)), add(2, S, 10, 5)},
			with(with(add(3, B, 10, 2), owner(7)), tif(book.FOK)), "rej #3 fok_unfilled"},
		{"reduce-only capped", book.Config{ReduceOnly: fixedLimit(2)}, []book.Command{add(1, S, 10, 5)}, with(ioc(add(3, B, 10, 4)), flags(book.ReduceOnly)),
			"acc #3 B 10 x2; trade #3<-#1 10 x2; lvl S10=3"},
		{"reduce-only refused", book.Config{ReduceOnly: fixedLimit(0)}, nil, with(add(3, B, 10, 4), flags(book.ReduceOnly)), "rej #3 reduce_only_invalid"},
		{"reduce-only no hook", book.Config{}, nil, with(add(3, B, 10, 4), flags(book.ReduceOnly)), "rej #3 reduce_only_invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Ticks = 100
			for _, ob := range []book.OrderBook{book.New(tc.cfg), book.NewReference(tc.cfg)} {
				var ev []book.Event
				for i := range tc.setup {
					ev = ob.Apply(&tc.setup[i], ev[:0])
					if len(ev) > 0 && ev[0].Kind == book.EvRejected {
						t.Fatalf("%T setup %d rejected: %s", ob, i, fmtEvents(ev))
					}
				}
				if got := fmtEvents(ob.Apply(&tc.cmd, nil)); got != tc.want {
					t.Errorf("%T\n got  %s\n want %s", ob, got, tc.want)
				}
			}
		})
	}
}

// TestComplementary shows the outcome-token market in one book: NO orders
// live in the YES book as the opposite side at 1-q, so a NO buy meets a YES
// buy (mint), a NO sell meets a YES sell (merge), and NO meets NO normally.
func TestComplementary(t *testing.T) {
	cfg := book.Config{Ticks: 100, Complement: true} // tick 0.01: 1.0 = 100 ticks
	B, S := book.Buy, book.Sell
	steps := []struct {
		cmd  book.Command
		want string
	}{
		// YES buy 10 @0.40 rests as a bid at 40.
		{add(1, B, 40, 10), "acc #1 B 40 x10; lvl B40=10"},
		// NO buy 4 @0.60 is a YES-book sell at 40: both buy, so a pair is minted
		// (0.40 + 0.60 = 1.00 of collateral for one YES and one NO).
		{with(add(2, B, 60, 4), no()), "acc #2 S 40 x4; trade #2<-#1 40 x4 mint; lvl B40=6"},
		// YES sell 5 @0.70 rests as an ask at 70.
		{add(3, S, 70, 5), "acc #3 S 70 x5; lvl S70=5"},
		// NO sell 2 @0.30 is a YES-book buy at 70: both sell, so a pair is merged.
		{with(add(4, S, 30, 2), no()), "acc #4 B 70 x2; trade #4<-#3 70 x2 merge; lvl S70=3"},
		// NO buy 3 @0.55 rests: a YES-book ask at 45.
		{with(add(5, B, 55, 3), no()), "acc #5 S 45 x3; lvl S45=3"},
		// NO sell 1 @0.55 meets the NO buy: NO shares change hands.
		{with(add(6, S, 55, 1), no()), "acc #6 B 45 x1; trade #6<-#5 45 x1; lvl S45=2"},
		// Modify of a NO order takes the price in NO terms: 0.58 -> YES ask 42.
		{mod(5, 58, 2), "mod #5 42 x2; lvl S45=0; lvl S42=1"}, // 1 of the new total 2 had filled
		// A NO price of 1.00 or 0 is off the grid.
		{with(add(7, B, 100, 1), no()), "rej #7 bad_price"},
	}
	real, ref := book.New(cfg), book.NewReference(cfg)
	for i, st := range steps {
		for _, ob := range []book.OrderBook{real, ref} {
			if got := fmtEvents(ob.Apply(&st.cmd, nil)); got != st.want {
				t.Fatalf("step %d %T\n got  %s\n want %s", i, ob, got, st.want)
			}
		}
	}
	// The NO book is the YES book mirrored: NO bids are YES asks at 1-p.
	asks := real.Depth(book.Sell, 10, nil)
	if len(asks) != 2 || asks[0].Price != 42 || asks[1].Price != 70 {
		t.Fatalf("YES asks %+v", asks)
	}
	if noBestBid := cfg.Ticks - asks[0].Price; noBestBid != 58 {
		t.Fatalf("NO best bid %d", noBestBid)
	}
	if book.Hash(real) != book.Hash(ref) {
		t.Fatal("hash mismatch")
	}
}
