//go:build perpsaudit

package perps

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	"pmx/internal/exchange/book"
	"pmx/internal/exchange/fixed"
	"pmx/internal/perps/risk"
)

// The invariant audit (go test -tags perpsaudit, run by scripts/test.sh):
// after every Apply the machine checks that its books, orders and balances
// agree, and panics naming the first difference. It is a test-time check:
// it walks every order and account on every command.

// auditState shadows each account's balance from the credits the machine
// books (deposits, and each fill's pnl minus fee).
type auditState struct {
	bal map[string]int64
}

func (m *Machine) auditCredit(a *Account, v int64) {
	if m.aud.bal == nil {
		m.aud.bal = map[string]int64{}
	}
	m.aud.bal[a.Addr] += v
}

// auditRestored takes the restored balances as the new starting point.
func (m *Machine) auditRestored() {
	m.aud.bal = map[string]int64{}
	for addr, a := range m.accts {
		m.aud.bal[addr] = a.Balance
	}
}

func (m *Machine) audit() {
	if err := m.check(); err != nil {
		panic("perps audit: " + err.Error())
	}
}

func (m *Machine) check() error {
	resting := map[uint32]int{}
	addrs := make([]string, 0, len(m.accts))
	for addr := range m.accts {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	oi := map[uint32]int64{}
	for _, addr := range addrs {
		a := m.accts[addr]
		if a.Balance != m.aud.bal[addr] {
			return fmt.Errorf("%s: balance %d, credits add up to %d", addr, a.Balance, m.aud.bal[addr])
		}
		if _, ok := m.usedMargin(a); !ok {
			return fmt.Errorf("%s: used margin overflows", addr)
		}
		for oid := range a.Open {
			o := m.orders[oid]
			switch {
			case o == nil:
				return fmt.Errorf("%s: open order %d unknown", addr, oid)
			case o.Terminal || o.Account != addr:
				return fmt.Errorf("%s: open order %d is %s of %s", addr, oid, o.Status, o.Account)
			case o.Filled < 0 || o.Filled >= o.Lots:
				return fmt.Errorf("order %d: filled %d of %d but open", oid, o.Filled, o.Lots)
			}
			in := m.inst[o.IID]
			info, inBook := in.book.Order(oid)
			if inBook != (o.Due == 0) {
				return fmt.Errorf("order %d: in book %v, due %d", oid, inBook, o.Due)
			}
			if inBook {
				resting[o.IID]++
				if info.Orig-info.Filled != o.Lots-o.Filled || info.Price != o.Ticks || (info.Side == 0) != o.Buy {
					return fmt.Errorf("order %d: book has %+v, machine %d/%d at %d", oid, info, o.Filled, o.Lots, o.Ticks)
				}
			}
		}
		for coid, oid := range a.COIDs {
			if o := m.orders[oid]; o == nil || !a.Open[oid] || o.COID != coid {
				return fmt.Errorf("%s: coid %s names order %d, not an open order with that coid", addr, coid, oid)
			}
		}
		for iid, p := range a.Positions {
			if p.Cost < 0 || (p.Size == 0) != (p.Cost == 0) {
				return fmt.Errorf("%s: position %d size %d cost %d", addr, iid, p.Size, p.Cost)
			}
			oi[iid] += max(p.Size, 0)
		}
	}
	for iid, p := range m.fundPos { // the insurance fund's positions (liqexec.go)
		oi[iid] += max(p.Size, 0)
	}
	for oid, o := range m.orders {
		if !o.Terminal && o.TPSL == nil && !m.accts[o.Account].Open[oid] {
			return fmt.Errorf("order %d is %s but not in its account's open orders", oid, o.Status)
		}
	}
	for id, in := range m.inst {
		if in.book.Len() != resting[id] {
			return fmt.Errorf("instrument %d: %d orders in the book, %d resting open orders", id, in.book.Len(), resting[id])
		}
		if in.OpenInterest != oi[id] {
			return fmt.Errorf("instrument %d: open interest %d, long sizes add up to %d", id, in.OpenInterest, oi[id])
		}
	}
	return nil
}

// auditView checks a risk view reused within a batch (riskview.go) against
// one built afresh.
func (m *Machine) auditView(ra *risk.Account, mk risk.Markets, a *Account, extra uint32) {
	fa, fm := m.riskView(a, extra)
	same := ra.ID == fa.ID && ra.Collateral == fa.Collateral && ra.Liquidating == fa.Liquidating &&
		slices.Equal(ra.Positions, fa.Positions) && slices.Equal(ra.Orders, fa.Orders) &&
		slices.Equal(ra.Settings, fa.Settings) && len(mk) == len(fm)
	for iid, mt := range fm {
		if got := mk[iid]; got == nil || *got != *mt {
			same = false
		}
	}
	if !same {
		panic(fmt.Sprintf("perps audit: reused risk view %+v differs from %+v", *ra, fa))
	}
}

// auditDecoded checks that a live command's decoded form (ApplyDecoded) is
// what replay will decode from its record.
func (m *Machine) auditDecoded(cmd []byte, c *Command) {
	d, err := decodeCommand(cmd, nil)
	if err != nil || !reflect.DeepEqual(d, c) {
		panic(fmt.Sprintf("perps audit: record decodes to %+v (%v), applied %+v", d, err, c))
	}
}

// auditUncrossed checks that the book, asked, does with a quick IOC what
// expireUncrossed does without it (quickioc.go): the at-fill check passes,
// and the order is accepted and expires whole, touching no level. The book
// is left as it was: an IOC that does not cross changes nothing in it.
func (m *Machine) auditUncrossed(in *Instrument, o *Order, ts int64) {
	if st := m.atFill(in, o, o.Ticks); st != "" || in.Settled || (in.CloseOnly && !o.Reduce) || o.Filled != 0 {
		panic(fmt.Sprintf("perps audit: quick IOC %d would end %q before the book", o.OID, st))
	}
	bc := m.uncrossedCommand(in, o, ts)
	evs := in.book.Apply(&bc, nil)
	if len(evs) != 2 || evs[0].Kind != book.EvAccepted || evs[0].Qty != o.Lots ||
		evs[1].Kind != book.EvExpired || evs[1].Reason != book.ReasonIOC || evs[1].Qty != o.Lots {
		panic(fmt.Sprintf("perps audit: quick IOC %d: the book answers %+v", o.OID, evs))
	}
}

// uncrossedCommand is the book command enter would send for o.
func (m *Machine) uncrossedCommand(in *Instrument, o *Order, ts int64) book.Command {
	bc := book.Command{Op: book.OpAdd, Time: ts * 1e6, Book: in.ID, OID: o.OID, Owner: m.acctOf(o.Account).ID,
		Price: o.Ticks, Qty: o.Lots, TIF: book.IOC}
	if !o.Buy {
		bc.Side = book.Sell
	}
	return bc
}

// auditPlainPrice checks a price plainPrice took against ParsePrice and
// FormatPrice: the same value, no error, and s its formatted form.
func auditPlainPrice(g fixed.Instrument, s string, ticks int64) {
	if p, err := g.ParsePrice(s); err != nil || int64(p) != ticks || g.FormatPrice(p) != s {
		panic(fmt.Sprintf("perps audit: plain price %q = %d ticks; ParsePrice %d, %v; formatted %q", s, ticks, p, err, g.FormatPrice(p)))
	}
}
