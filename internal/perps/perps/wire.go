package perps

import "pmx/internal/exchange/fixed"

// Wire shapes (perps.md §5). Decimals are strings, ids and timestamps
// integers; optional fields are omitted, never null.

// OrderWire is the short-named order (WS `orders`, modify results).
type OrderWire struct {
	OID     uint64 `json:"oid"`
	IID     uint32 `json:"iid"`
	Buy     bool   `json:"buy"`
	P       string `json:"p"`
	Qty     string `json:"qty"`
	TIF     string `json:"tif"`
	PO      bool   `json:"po"`
	RO      bool   `json:"ro"`
	Status  string `json:"status"`
	Rest    string `json:"rest"`
	Fill    string `json:"fill"`
	CTS     int64  `json:"cts"`
	UTS     int64  `json:"uts"`
	COID    string `json:"coid,omitempty"`
	Account string `json:"-"`
	TPSL    bool   `json:"-"` // a TP/SL leg: also pushed on tpsl (tpsl.go)
}

// OrderData is the long-named order of the REST queries.
type OrderData struct {
	OrderID  uint64    `json:"order_id"`
	IID      uint32    `json:"instrument_id"`
	Buy      bool      `json:"buy"`
	Price    string    `json:"price"`
	Quantity string    `json:"quantity"`
	TIF      string    `json:"tif"`
	PostOnly bool      `json:"post_only"`
	RO       bool      `json:"ro"`
	Status   string    `json:"status"`
	Resting  string    `json:"resting_quantity"`
	Filled   string    `json:"filled_quantity"`
	Created  int64     `json:"created_timestamp"`
	Updated  int64     `json:"updated_timestamp"`
	COID     string    `json:"client_order_id,omitempty"`
	TPSL     *TPSLData `json:"tpsl,omitempty"` // TP/SL legs only (tpsl.go)
}

// FillWire is the short-named fill (WS `fills`).
type FillWire struct {
	TID   uint64 `json:"tid"`
	OID   uint64 `json:"oid"`
	IID   uint32 `json:"iid"`
	Side  string `json:"side"`
	P     string `json:"p"`
	Qty   string `json:"qty"`
	Taker bool   `json:"taker"`
	Fee   string `json:"fee"`
	FEA   string `json:"fea"`
	PSZ   string `json:"psz"`
	PEP   string `json:"pep"`
	PnL   string `json:"pnl"`
	Liq   bool   `json:"liq"`
	ADL   bool   `json:"adl"`
	TS    int64  `json:"ts"`
}

// TradeData is the long-named account fill (GET /v1/account/fills).
type TradeData struct {
	TradeID     uint64 `json:"trade_id"`
	OrderID     uint64 `json:"order_id"`
	IID         uint32 `json:"instrument_id"`
	Side        string `json:"side"`
	Price       string `json:"price"`
	Quantity    string `json:"quantity"`
	Taker       bool   `json:"taker"`
	Fee         string `json:"fee"`
	FeeAsset    string `json:"fee_asset"`
	PrevSize    string `json:"previous_size"`
	PrevEntry   string `json:"previous_entry_price"`
	PnL         string `json:"pnl"`
	Liquidation bool   `json:"liquidation"`
	ADL         bool   `json:"adl"`
	Timestamp   int64  `json:"timestamp"`
	Hash        string `json:"hash"`
}

// Asset is the collateral asset name.
const Asset = "pUSD"

func side(buy bool) string {
	if buy {
		return "long"
	}
	return "short"
}

func (m *Machine) orderWire(o *Order) OrderWire {
	var w OrderWire
	m.putOrderWire(&w, o)
	return w
}

// putOrderWire sets every field of *w to o's row (an event's row is written
// in place: no copy of a whole row into the event's array).
func (m *Machine) putOrderWire(w *OrderWire, o *Order) {
	in := m.inst[o.IID]
	g := in.grid()
	p := "0"
	if o.Ticks > 0 {
		p = m.priceString(g, o.IID, o.Ticks)
	}
	rest := int64(0)
	if !o.Terminal {
		rest = o.Lots - o.Filled
	}
	w.OID, w.IID, w.Buy, w.P, w.Qty, w.TIF = o.OID, o.IID, o.Buy, p, m.qtyString(g, o.IID, o.Lots), o.TIF
	w.PO, w.RO, w.Status, w.Rest, w.Fill = o.PostOnly, o.Reduce, o.Status, m.qtyString(g, o.IID, rest), m.qtyString(g, o.IID, o.Filled)
	w.CTS, w.UTS, w.COID, w.Account, w.TPSL = o.Created, o.Updated, o.COID, o.Account, o.TPSL != nil
}

// qtyString is g.FormatQty(lots) for instrument iid: a zero (an order's
// usual rest or fill) is not formatted, and within a batch the last string
// is reused for an equal quantity (batch.go).
func (m *Machine) qtyString(g fixed.Instrument, iid uint32, lots int64) string {
	if lots == 0 {
		return "0"
	}
	b := &m.bs
	if b.acct != nil && b.fmtS != "" && b.fmtIID == iid && b.fmtLots == lots {
		return b.fmtS
	}
	s := g.FormatQty(fixedQty(lots))
	if b.acct != nil {
		b.fmtIID, b.fmtLots, b.fmtS = iid, lots, s
	}
	return s
}

// priceString is g.FormatPrice(ticks) for instrument iid, without
// formatting when the price string of the order being placed (m.reqP, from
// its record) is plain (plainPrice: the formatted form of its value) and
// that value is ticks on iid; place sets reqIID and reqTicks then. Each
// placed order's event row then shares the record's string instead of a
// new one; any other row is formatted.
func (m *Machine) priceString(g fixed.Instrument, iid uint32, ticks int64) string {
	if m.reqP != "" && ticks == m.reqTicks && iid == m.reqIID {
		return m.reqP
	}
	return g.FormatPrice(fixedPrice(ticks))
}

// OrderData renders o in the long REST form.
func (m *Machine) orderData(o *Order) OrderData {
	w := m.orderWire(o)
	return OrderData{OrderID: w.OID, IID: w.IID, Buy: w.Buy, Price: w.P, Quantity: w.Qty, TIF: w.TIF,
		PostOnly: w.PO, RO: w.RO, Status: w.Status, Resting: w.Rest, Filled: w.Fill, Created: w.CTS,
		Updated: w.UTS, COID: w.COID, TPSL: m.tpslData(o)}
}

func (m *Machine) fillWire(f *Fill) FillWire {
	in := m.inst[f.IID]
	g := in.grid()
	pep := "0"
	if f.PrevSize != 0 {
		pep = ratio(f.PrevCost, abs(f.PrevSize), in.PriceDecimals)
	}
	psz := g.FormatQty(fixedQty(abs(f.PrevSize)))
	if f.PrevSize < 0 {
		psz = "-" + psz
	}
	return FillWire{TID: f.TID, OID: f.OID, IID: f.IID, Side: side(f.Buy), P: g.FormatPrice(fixedPrice(f.Ticks)),
		Qty: g.FormatQty(fixedQty(f.Lots)), Taker: f.Taker, Fee: FormatMicro(f.Fee), FEA: Asset, PSZ: psz,
		PEP: pep, PnL: FormatMicro(f.PnL), Liq: f.Liq, ADL: f.ADL, TS: f.TS}
}

func (m *Machine) tradeData(f *Fill) TradeData {
	w := m.fillWire(f)
	return TradeData{TradeID: w.TID, OrderID: w.OID, IID: w.IID, Side: w.Side, Price: w.P, Quantity: w.Qty,
		Taker: w.Taker, Fee: w.Fee, FeeAsset: w.FEA, PrevSize: w.PSZ, PrevEntry: w.PEP, PnL: w.PnL,
		Liquidation: w.Liq, ADL: w.ADL, Timestamp: w.TS, Hash: "0x"}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// plainPrice is g.ParsePrice(s) for the usual client price, one in the form
// FormatPrice gives (no leading zero but the one before a point, no trailing
// zero after one) that ParsePrice accepts without a doubt: a nonzero first
// digit or "0." before a nonzero last one, at most g's decimals after the
// point, at most fixed.MaxSigFigs significant figures unless integral, and
// value·10^decimals below 10^18. ok is false for any other string, which
// place then hands to ParsePrice (its answer, error or not, stands). One
// pass over s instead of ParsePrice's two; a plain string is exactly its
// value's formatted form, so the order's row can share it (priceString).
func plainPrice(g fixed.Instrument, s string) (ticks int64, ok bool) {
	dec := int(g.PriceDecimals)
	if s == "" || dec > fixed.MaxDecimals || len(s) > 19 {
		return 0, false
	}
	var v int64
	intDigits, fracDigits, sig := 0, 0, 0
	point := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if point || intDigits == 0 {
				return 0, false
			}
			point = true
		case c >= '0' && c <= '9':
			if point {
				fracDigits++
			} else {
				intDigits++
			}
			if sig > 0 || c != '0' {
				sig++
			}
			v = v*10 + int64(c-'0') // at most 19 digits below: bounded by the checks after the loop
		default:
			return 0, false
		}
	}
	last := s[len(s)-1]
	switch {
	case s[0] == '0' && (len(s) == 1 || s[1] != '.'): // a leading zero, or zero itself
		return 0, false
	case point && (last == '0' || last == '.'): // a trailing zero or point
		return 0, false
	case fracDigits > dec || intDigits+dec > 18:
		return 0, false
	case point && sig > fixed.MaxSigFigs:
		return 0, false
	}
	for range dec - fracDigits {
		v *= 10
	}
	return v, true
}
