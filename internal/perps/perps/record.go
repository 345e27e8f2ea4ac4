package perps

import (
	"encoding/json"
	"errors"
)

// The journal record of a Command is binary, like book.Command's: a version
// byte, then the non-zero fields as (tag, value) in increasing tag order.
// Strings and byte strings are a uvarint length and the bytes, unsigned
// numbers uvarints, signed ones zig-zag varints, flags a bare tag, nested
// values a length-prefixed record of their own, lists a count and the
// elements. Pointer fields are written whenever set (an empty price is not
// an absent one).
//
// Journals written before this format hold encoding/json records, which
// always start with '{': DecodeCommand still reads them, so an existing data
// directory replays to the same state.

// recordV1 is the first byte of a version-1 binary record.
const recordV1 = 0x01

var errRecord = errors.New("perps: malformed command record")

// Command tags.
const (
	tKind = iota + 1
	tAccount
	tReplay
	tOrders
	tModifies
	tOIDs
	tCOIDs
	tIID
	tInstrument
	tProxy
	tAmount
	tPrice
	tFlight
	tMode
	tRetryAfter
	tOn
)

// Encode is the journal payload of c.
func (c *Command) Encode() []byte {
	return c.AppendEncode(make([]byte, 0, 64+len(c.Replay)+48*len(c.Orders)))
}

// AppendEncode appends the journal payload of c to dst.
func (c *Command) AppendEncode(dst []byte) []byte {
	w := wbuf(dst)
	w = append(w, recordV1)
	w.str(tKind, c.Kind)
	w.str(tAccount, c.Account)
	w.bytes(tReplay, c.Replay)
	if len(c.Orders) > 0 {
		w.list(tOrders, len(c.Orders))
		for i := range c.Orders {
			at := w.begin()
			c.Orders[i].encode(&w)
			w.end(at)
		}
	}
	if len(c.Modifies) > 0 {
		w.list(tModifies, len(c.Modifies))
		for i := range c.Modifies {
			at := w.begin()
			c.Modifies[i].encode(&w)
			w.end(at)
		}
	}
	if len(c.OIDs) > 0 {
		w.list(tOIDs, len(c.OIDs))
		for _, id := range c.OIDs {
			w.uv(id)
		}
	}
	if len(c.COIDs) > 0 {
		w.list(tCOIDs, len(c.COIDs))
		for _, s := range c.COIDs {
			w.raw(s)
		}
	}
	w.uint(tIID, uint64(c.IID))
	if c.Instrument != nil {
		w.tag(tInstrument)
		at := w.begin()
		c.Instrument.encode(&w)
		w.end(at)
	}
	if c.Proxy != nil {
		w.tag(tProxy)
		at := w.begin()
		c.Proxy.encode(&w)
		w.end(at)
	}
	w.str(tAmount, c.Amount)
	w.str(tPrice, c.Price)
	if c.Flight != nil {
		w.tag(tFlight)
		at := w.begin()
		c.Flight.encode(&w)
		w.end(at)
	}
	w.str(tMode, c.Mode)
	w.int(tRetryAfter, c.RetryAfter)
	w.flag(tOn, c.On)
	c.encodeLeverages(&w)
	w.int(tDeadline, c.Deadline)
	w.int(tDailyLimit, c.DailyLimit)
	w.int(tWindow, c.Window)
	w.int(tIndexWindow, c.IndexWindow)
	c.encodeMoney(&w)      // tags 64–69
	w.int(tSigTS, c.SigTS) // tag 80: tags must increase
	return w
}

// DecodeCommand parses a journal payload: a binary record, or a legacy
// encoding/json one.
func DecodeCommand(b []byte) (*Command, error) { return decodeCommand(b, nil) }

// decodeCommand is DecodeCommand with the orders of a binary record in
// orders' backing array when it is large enough (Apply's scratch: a
// command's orders are not kept past its Apply).
func decodeCommand(b []byte, orders []OrderReq) (*Command, error) {
	if len(b) > 0 && b[0] == '{' {
		var c Command
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, err
		}
		return &c, nil
	}
	if len(b) == 0 || b[0] != recordV1 {
		return nil, errRecord
	}
	c := &Command{}
	r := rbuf{b: b[1:]}
	for tag := range r.tags() {
		switch tag {
		case tKind:
			c.Kind = r.known(KCreateOrders, KCancel, KModify, KCancelCOID, KModifyCOID, KCancelAll, KTick, KDeposit,
				KIndex, KCreateProxy, KDeleteProxy, KCreateInstrument, KConfig, KMode, KLiquidating,
				KWithdraw, KBlock, KWithdrawStatus, KTransfer)
		case tAccount:
			c.Account = r.str()
		case tReplay:
			c.Replay = r.byteStr()
		case tOrders:
			if n := r.count(1); n <= cap(orders) {
				c.Orders = orders[:n]
				clear(c.Orders)
			} else {
				c.Orders = make([]OrderReq, n)
			}
			d := orderDecoder{src: string(r.b), ps: make([]string, len(c.Orders))}
			for i := range c.Orders {
				sub := r.record()
				d.after = len(r.b)
				c.Orders[i].decode(&sub, &d, i)
			}
		case tModifies:
			c.Modifies = make([]ModifyReq, r.count(1))
			for i := range c.Modifies {
				sub := r.record()
				c.Modifies[i].decode(&sub)
			}
		case tOIDs:
			c.OIDs = make([]uint64, r.count(1))
			for i := range c.OIDs {
				c.OIDs[i] = r.uv()
			}
		case tCOIDs:
			c.COIDs = make([]string, r.count(1))
			for i := range c.COIDs {
				c.COIDs[i] = r.str()
			}
		case tIID:
			c.IID = r.u32()
		case tInstrument:
			c.Instrument = &InstrumentSpec{}
			sub := r.record()
			c.Instrument.decode(&sub)
		case tProxy:
			c.Proxy = &Proxy{}
			sub := r.record()
			c.Proxy.decode(&sub)
		case tAmount:
			c.Amount = r.str()
		case tPrice:
			c.Price = r.str()
		case tFlight:
			c.Flight = &Flight{}
			sub := r.record()
			c.Flight.decode(&sub)
		case tMode:
			c.Mode = r.str()
		case tRetryAfter:
			c.RetryAfter = r.v()
		case tOn:
			c.On = true
		case tLeverages:
			c.decodeLeverages(&r)
		case tDeadline:
			c.Deadline = r.v()
		case tDailyLimit:
			c.DailyLimit = r.v()
		case tWindow:
			c.Window = r.v()
		case tIndexWindow:
			c.IndexWindow = r.v()
		case tSigTS:
			c.SigTS = r.v()
		default:
			if !c.decodeMoney(tag, &r) {
				r.fail()
			}
		}
	}
	if r.bad {
		return nil, errRecord
	}
	return c, nil
}

func (o *OrderReq) encode(w *wbuf) {
	w.uint(1, uint64(o.IID))
	w.flag(2, o.Buy)
	w.strp(3, o.P)
	w.str(4, o.Qty)
	w.strp(5, o.TIF)
	w.flag(6, o.PO)
	w.flag(7, o.RO)
	w.str(8, o.C)
	w.flag(9, o.TR)
	w.str(10, o.TrP)
	w.str(11, o.TrKind)
	w.flag(12, o.TrMarket)
	w.str(13, o.Grp)
	w.uint(14, o.TrSlip)
	w.uint(15, o.TrParent)
}

// orderDecoder lets the orders of one record share allocations: the price
// and quantity strings are substrings of one copy of the record's rest
// (src), and the prices' pointers point into ps. Both are only parsed by
// the machine, never kept, so the copy lives as long as the command. The
// strings an order keeps (its client id, the TP/SL fields) are copied on
// their own, so a kept order does not hold its whole request.
type orderDecoder struct {
	src   string
	after int // bytes of the outer record after the order being decoded
	ps    []string
}

// str is the next string of r, a substring of src (r reads a record
// inside src, followed there by after bytes).
func (d *orderDecoder) str(r *rbuf) string {
	b := r.take()
	end := len(d.src) - d.after - len(r.b)
	return d.src[end-len(b) : end]
}

// The time in force as pointers to constants (never written through:
// the machine only reads OrderReq.TIF).
var tifGTC, tifIOC, tifFOK = "gtc", "ioc", "fok"

func knownTIF(s string) *string {
	switch s {
	case tifGTC:
		return &tifGTC
	case tifIOC:
		return &tifIOC
	case tifFOK:
		return &tifFOK
	}
	p := new(string) // (not &s: s would then be on the heap for the constants too)
	*p = s
	return p
}

func (o *OrderReq) decode(r *rbuf, d *orderDecoder, i int) {
	// tags' loop written out: the iterator's calls cost a third of a
	// batch's decode.
	last := byte(0)
	for len(r.b) > 0 && !r.bad {
		tag := r.b[0]
		r.b = r.b[1:]
		if tag <= last {
			r.fail()
			return
		}
		last = tag
		switch tag {
		case 1:
			o.IID = r.u32()
		case 2:
			o.Buy = true
		case 3:
			d.ps[i] = d.str(r)
			o.P = &d.ps[i]
		case 4:
			o.Qty = d.str(r)
		case 5:
			o.TIF = knownTIF(d.str(r))
		case 6:
			o.PO = true
		case 7:
			o.RO = true
		case 8:
			o.C = r.str()
		case 9:
			o.TR = true
		case 10:
			o.TrP = r.str()
		case 11:
			o.TrKind = r.str()
		case 12:
			o.TrMarket = true
		case 13:
			o.Grp = r.str()
		case 14:
			o.TrSlip = r.uv()
		case 15:
			o.TrParent = r.uv()
		default:
			r.fail()
		}
	}
}

func (m *ModifyReq) encode(w *wbuf) {
	w.uint(1, m.OID)
	w.str(2, m.COID)
	w.str(3, m.P)
	w.str(4, m.Qty)
}

func (m *ModifyReq) decode(r *rbuf) {
	for tag := range r.tags() {
		switch tag {
		case 1:
			m.OID = r.uv()
		case 2:
			m.COID = r.str()
		case 3:
			m.P = r.str()
		case 4:
			m.Qty = r.str()
		default:
			r.fail()
		}
	}
}

func (s *InstrumentSpec) encode(w *wbuf) {
	w.str(1, s.Symbol)
	w.str(2, s.Base)
	w.str(3, s.Category)
	w.uint(4, uint64(s.PriceDecimals))
	w.uint(5, uint64(s.QtyDecimals))
	w.int(6, s.MaxLeverage)
	w.str(7, s.MinNotional)
	w.str(8, s.MaxPrice)
}

func (s *InstrumentSpec) decode(r *rbuf) {
	for tag := range r.tags() {
		switch tag {
		case 1:
			s.Symbol = r.str()
		case 2:
			s.Base = r.str()
		case 3:
			s.Category = r.str()
		case 4:
			s.PriceDecimals = r.u8()
		case 5:
			s.QtyDecimals = r.u8()
		case 6:
			s.MaxLeverage = r.v()
		case 7:
			s.MinNotional = r.str()
		case 8:
			s.MaxPrice = r.str()
		default:
			r.fail()
		}
	}
}

func (p *Proxy) encode(w *wbuf) {
	w.str(1, p.Addr)
	w.str(2, p.Account)
	if p.Hash != ([32]byte{}) {
		w.bytes(3, p.Hash[:])
	}
	w.int(4, p.ExpiryMs)
	w.str(5, p.Label)
	w.flag(6, p.Deleted)
}

func (p *Proxy) decode(r *rbuf) {
	for tag := range r.tags() {
		switch tag {
		case 1:
			p.Addr = r.str()
		case 2:
			p.Account = r.str()
		case 3:
			if h := r.byteStr(); len(h) == 32 {
				p.Hash = [32]byte(h)
			} else {
				r.fail()
			}
		case 4:
			p.ExpiryMs = r.v()
		case 5:
			p.Label = r.str()
		case 6:
			p.Deleted = true
		default:
			r.fail()
		}
	}
}

func (f *Flight) encode(w *wbuf) {
	w.int(1, f.AcceptMs)
	w.int(2, f.TakerMs)
	w.int(3, f.RiskMs)
	w.int(4, f.ModifyMs)
	w.int(5, f.COIDWaitMs)
	w.flag(6, f.NoHeldCancels)
}

func (f *Flight) decode(r *rbuf) {
	for tag := range r.tags() {
		switch tag {
		case 1:
			f.AcceptMs = r.v()
		case 2:
			f.TakerMs = r.v()
		case 3:
			f.RiskMs = r.v()
		case 4:
			f.ModifyMs = r.v()
		case 5:
			f.COIDWaitMs = r.v()
		case 6:
			f.NoHeldCancels = true
		default:
			r.fail()
		}
	}
}
