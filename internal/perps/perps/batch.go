package perps

import "pmx/internal/exchange/fixed"

// batchScratch holds what the orders of one createOrders share while it
// runs (docs/perf/placement.md, sixth pass). None of it is state: it is set
// at the start of the batch and dropped at its end, so no query, snapshot or
// replay sees it.
type batchScratch struct {
	acct *Account // the batch's account (acctOf)
	// the last quantity parsed, for the batch's orders of equal quantity
	qtyIID uint32
	qtyS   string
	qty    fixed.Qty
	qtyErr error
	qtySet bool
	// the last quantity formatted for an order row (qtyString)
	fmtIID  uint32
	fmtLots int64
	fmtS    string
	slab    []Order // the batch's IOC and FOK orders, one allocation (newOrder)
	slabCap int
}

// begin readies the scratch for a batch of account a.
func (b *batchScratch) begin(a *Account, orders []OrderReq) {
	b.acct = a
	b.slabCap = 0
	for i := range orders {
		if t := orders[i].TIF; t != nil && (*t == "ioc" || *t == "fok") {
			b.slabCap++
		}
	}
}

// end drops the batch's scratch (the slab's orders live on in the order
// store: it is never reused).
func (b *batchScratch) end() { *b = batchScratch{} }

// acctOf is m.accts[addr], without the map lookup for the batch's account.
func (m *Machine) acctOf(addr string) *Account {
	if a := m.bs.acct; a != nil && a.Addr == addr {
		return a
	}
	return m.accts[addr]
}

// parseQty is g.ParseQty(s) for an order of instrument iid, parsed once for
// a run of equal quantities in a batch (the grid of an instrument does not
// change within a command).
func (m *Machine) parseQty(g fixed.Instrument, iid uint32, s string) (fixed.Qty, error) {
	b := &m.bs
	if b.acct != nil && b.qtySet && b.qtyIID == iid && b.qtyS == s {
		return b.qty, b.qtyErr
	}
	q, err := g.ParseQty(s)
	if b.acct != nil {
		b.qtyIID, b.qtyS, b.qty, b.qtyErr, b.qtySet = iid, s, q, err, true
	}
	return q, err
}

// newOrder returns a zero order to fill in. The IOC and FOK orders of a
// batch come from one slab: they never rest, so they end within the command
// (or after an in-flight delay) and leave the history together; a slab lives
// as long as its last order is kept, at most a history's length.
func (m *Machine) newOrder(tif string) *Order {
	b := &m.bs
	if tif == "ioc" || tif == "fok" {
		if b.slab == nil && b.slabCap > 1 {
			b.slab = make([]Order, 0, b.slabCap)
		}
		if len(b.slab) < cap(b.slab) {
			b.slab = b.slab[:len(b.slab)+1]
			return &b.slab[len(b.slab)-1]
		}
	}
	return new(Order)
}
