package perpsvc

import (
	"slices"
	"sync"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// MaxBatch bounds the items of one batch request.
const MaxBatch = 100

// orderBufs are createOrders requests' decoded rows and commands' order
// lists, reused once the command is journaled.
var orderBufs = sync.Pool{New: func() any { return new(orderBuf) }}

type orderBuf struct {
	rows   []perpsauth.OrderArg
	ptrs   []string // what rows' pointer fields point to
	orders []perps.OrderReq
	cmd    perps.Command // the batch's command (free once Submit returns)
	replay [32]byte      // cmd.Replay's bytes
}

// command is b.cmd set to a createOrders command for account with replay
// key rk.
func (b *orderBuf) command(account string, rk perpsauth.ReplayKey) *perps.Command {
	b.replay = rk.Bytes()
	b.cmd = perps.Command{Kind: perps.KCreateOrders, Account: account, Replay: b.replay[:]}
	return &b.cmd
}

// put returns the buffers (cleared: they hold the request's strings) to
// the pool; oversized ones (a refused batch beyond MaxBatch) are dropped.
func (b *orderBuf) put(rows []perpsauth.OrderArg, ptrs []string) {
	c := &b.cmd
	if cap(rows) > MaxBatch || cap(c.Orders) > MaxBatch || cap(ptrs) > 3*MaxBatch {
		return
	}
	clear(rows[:cap(rows)])
	clear(ptrs[:cap(ptrs)])
	clear(c.Orders)
	b.rows, b.ptrs, b.orders = rows[:0], ptrs[:0], c.Orders[:0]
	b.cmd = perps.Command{}
	orderBufs.Put(b)
}

// TradeResult is the outcome of one signed trading op: Err when the request
// was refused whole, else Acks (createOrders) or Items (modify, cancel; every
// held step resolved); cancelAll answers with neither.
type TradeResult struct {
	Acks  []perps.Ack
	Items []perps.ItemResult
	Err   *Error
}

// Trade verifies a signed trading op (signature, age, exp, proxy, replay),
// charges action weight and submits one journaled command whose event
// carries the per-item results.
func (s *Service) Trade(opType string, req *perpsauth.Request) TradeResult {
	v, err := s.ver.VerifyOp(req, opType, s.now(), s.resolve)
	if err != nil {
		return TradeResult{Err: AsError(err)}
	}
	var c *perps.Command
	var bufs *orderBuf // createOrders: the command and its rows, reused
	if opType == perps.KCreateOrders {
		bufs = orderBufs.Get().(*orderBuf)
		c = bufs.command(v.Account.Hex(), v.Replay)
	} else {
		c = &perps.Command{Kind: opType, Account: v.Account.Hex()}
		rk := v.Replay.Bytes()
		c.Replay = rk[:]
	}
	fail := func(e *Error) TradeResult {
		s.ver.Replay().Remove(v.Replay) // not executed: the identical request may be resent
		return TradeResult{Err: e}
	}
	actions, n := 0, 0
	switch opType {
	case perps.KCreateOrders:
		rows, ptrs, err := v.Op.AppendOrderArgsPtrs(bufs.rows, bufs.ptrs)
		v.Op.ReleaseRows()         // decoded: the spans are free
		defer bufs.put(rows, ptrs) // c is applied (or refused) by then
		if err != nil {
			return fail(AsError(err))
		}
		if len(rows) == 0 {
			return fail(E(CodeNoOrders, ""))
		}
		c.Orders = slices.Grow(bufs.orders[:0], len(rows))[:len(rows)]
		for i, a := range rows {
			o := perps.OrderReq{IID: a.IID, Buy: a.Buy, P: a.P, Qty: a.Qty, TIF: a.TIF, PO: a.PO, RO: a.RO, TR: a.TR,
				TrP: a.TrP, TrKind: a.TrKind, TrMarket: a.TrMarket, TrSlip: a.TrSlip, TrParent: a.TrParent, Grp: v.Op.Grp}
			if a.C != nil {
				o.C = *a.C
				if o.C == "" {
					o.C = "-" // present but empty: refused as an invalid id by the machine
				}
			}
			c.Orders[i] = o
		}
		actions, n = len(rows), len(rows)
	case perps.KModify, perps.KModifyCOID:
		if err := v.Op.DecodeArgs(&c.Modifies); err != nil {
			return fail(AsError(err))
		}
		if len(c.Modifies) == 0 {
			return fail(E(CodeNoOrders, ""))
		}
		actions, n = len(c.Modifies), len(c.Modifies)
	case perps.KCancel:
		if err := v.Op.DecodeArgs(&c.OIDs); err != nil || len(c.OIDs) == 0 {
			return fail(E(CodeInvalidRequest, "args must be a non-empty array of order ids"))
		}
		n = len(c.OIDs)
	case perps.KCancelCOID:
		if err := v.Op.DecodeArgs(&c.COIDs); err != nil || len(c.COIDs) == 0 {
			return fail(E(CodeInvalidRequest, "args must be a non-empty array of client order ids"))
		}
		n = len(c.COIDs)
	case perps.KCancelAll:
		var a struct {
			IID *uint32 `json:"iid"`
		}
		if err := v.Op.DecodeArgs(&a); err != nil {
			return fail(AsError(err))
		}
		if a.IID != nil {
			c.IID = *a.IID
		}
	default:
		return fail(E(CodeInvalidRequest, "op.type not allowed here"))
	}
	if n > MaxBatch {
		return fail(E(CodeTooManyItems, ""))
	}
	if s.opt.QueueWait != nil {
		s.opt.QueueWait()
	}
	if s.now().UnixMilli() >= v.DeadlineMs { // deadline passed before sequencing: not executed (and not charged)
		return fail(E(CodeCommandExpired, ""))
	}
	if ok, wait := s.acts.Take(c.Account, actions, s.now()); !ok {
		return fail(&Error{Code: CodeActionRateLimited, RetryAfter: max(wait, 1)})
	}
	ev, err := s.Submit(c)
	if err != nil {
		s.ver.Replay().Remove(v.Replay)
		s.log.Error("perps engine", "err", err)
		return TradeResult{Err: unavailable()}
	}
	switch {
	case ev.Err != "":
		return TradeResult{Err: refusal(ev)}
	case opType == perps.KCreateOrders:
		return TradeResult{Acks: ev.Acks}
	case opType == perps.KCancelAll:
		return TradeResult{}
	}
	if !s.resolveHeld(ev.Items) {
		return TradeResult{Err: unavailable()}
	}
	return TradeResult{Items: ev.Items}
}

// refusal is the catalogue error of a command the machine refused whole.
func refusal(ev perps.Event) *Error {
	switch ev.Err {
	case perps.ErrCancelOnlyMode:
		return &Error{Code: CodeCancelOnly, RetryAfter: seconds(ev.RetryAfter)}
	case perps.ErrPostOnlyMode:
		return &Error{Code: CodePostOnly, RetryAfter: seconds(ev.RetryAfter)}
	}
	return E(CodeRefused, ev.Err)
}
