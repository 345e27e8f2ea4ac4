package book_test

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"pmx/internal/exchange/book"
)

// machine drives the real book and the reference with rapid-chosen
// commands on a tiny grid, where crossing, self-trades and level reuse are
// frequent, and checks the invariants after every action.
type machine struct {
	cfg  book.Config
	real *book.Book
	ref  *book.Reference
	aud  *auditor
	oid  uint64
	seq  uint64
}

func (m *machine) apply(t *rapid.T, c book.Command) {
	m.seq++
	c.Seq, c.Time = m.seq, int64(m.seq)
	e1 := m.real.Apply(&c, nil)
	e2 := m.ref.Apply(&c, nil)
	if !reflect.DeepEqual(e1, e2) {
		t.Fatalf("%+v\n book %s\n ref  %s", c, fmtEvents(e1), fmtEvents(e2))
	}
	if err := m.aud.apply(&c, e1); err != nil {
		t.Fatalf("%+v: %v\n events %s", c, err, fmtEvents(e1))
	}
}

func (m *machine) price(t *rapid.T) int64 { return rapid.Int64Range(1, m.cfg.Ticks-1).Draw(t, "price") }

func (m *machine) Add(t *rapid.T) {
	m.oid++
	c := book.Command{Op: book.OpAdd, OID: m.oid, Price: m.price(t),
		Side:  book.Side(rapid.IntRange(0, 1).Draw(t, "side")),
		Qty:   rapid.Int64Range(1, 6).Draw(t, "qty"),
		Owner: rapid.Uint64Range(1, 3).Draw(t, "owner"),
		TIF:   book.TIF(rapid.IntRange(0, 2).Draw(t, "tif")),
	}
	switch rapid.IntRange(0, 5).Draw(t, "flag") {
	case 0:
		c.Flags = book.PostOnly
	case 1:
		c.Flags = book.Market
	case 2:
		c.Flags = book.ReduceOnly
	}
	if m.cfg.Complement && rapid.Bool().Draw(t, "no") {
		c.Outcome = book.OutcomeNo
	}
	m.apply(t, c)
}

func (m *machine) Cancel(t *rapid.T) {
	m.apply(t, book.Command{Op: book.OpCancel, OID: rapid.Uint64Range(1, m.oid+1).Draw(t, "oid")})
}

func (m *machine) Modify(t *rapid.T) {
	m.apply(t, book.Command{Op: book.OpModify, OID: rapid.Uint64Range(1, m.oid+1).Draw(t, "oid"),
		Price: m.price(t), Qty: rapid.Int64Range(1, 8).Draw(t, "qty")})
}

func (m *machine) Check(t *rapid.T) {
	if err := m.aud.check(m.real); err != nil {
		t.Fatal(err)
	}
	for _, s := range []book.Side{book.Buy, book.Sell} {
		if d1, d2 := m.real.Depth(s, 100, nil), m.ref.Depth(s, 100, nil); !reflect.DeepEqual(d1, d2) {
			t.Fatalf("L2 side %d: book %+v ref %+v", s, d1, d2)
		}
	}
	if book.Hash(m.real) != book.Hash(m.ref) {
		t.Fatal("state hashes differ")
	}
}

func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := book.Config{
			Ticks:      rapid.Int64Range(2, 12).Draw(t, "ticks"),
			Complement: rapid.Bool().Draw(t, "complement"),
			STP:        book.STPMode(rapid.IntRange(0, 2).Draw(t, "stp")),
			ReduceOnly: limiter{},
		}
		m := &machine{cfg: cfg, real: book.New(cfg), ref: book.NewReference(cfg), aud: newAuditor()}
		t.Repeat(rapid.StateMachineActions(m))
	})
}
