package clobhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobsvc"
)

// AdminRoutes are the operator's chain stand-ins and switches on the admin
// listener, each a journaled command (docs/clob.md "Operator").
func AdminRoutes(svc *clobsvc.Service) map[string]http.Handler {
	a := &admin{svc: svc}
	return map[string]http.Handler{
		"POST /admin/clob/deposits":          a.handle(a.money(clobengine.OpDeposit, false)),
		"POST /admin/clob/withdrawals":       a.handle(a.money(clobengine.OpWithdraw, false)),
		"POST /admin/clob/split":             a.handle(a.money(clobengine.OpSplit, true)),
		"POST /admin/clob/merge":             a.handle(a.money(clobengine.OpMerge, true)),
		"POST /admin/clob/nonce":             a.handle(a.nonce),
		"POST /admin/clob/mode":              a.handle(a.mode),
		"POST /admin/clob/addresses":         a.handle(a.address),
		"POST /admin/clob/tier":              a.handle(a.tier),
		"POST /admin/clob/sync":              a.handle(a.sync),
		"POST /admin/clob/resolve":           a.handle(a.resolve),
		"POST /admin/clob/redeem":            a.handle(a.redeem),
		"POST /admin/clob/tick-size":         a.handle(a.tickSize),
		"GET /admin/clob/mode":               http.HandlerFunc(a.getMode),
		"GET /admin/clob/accounts/{address}": http.HandlerFunc(a.account),
	}
}

type admin struct{ svc *clobsvc.Service }

type adminReq struct {
	Address     string `json:"address"`
	Amount      string `json:"amount"`
	ConditionID string `json:"condition_id"`
	Mode        string `json:"mode"`
	Retry       int64  `json:"retry_after_seconds"`
	Status      string `json:"status"`
	Tier        *int   `json:"tier"`
	Signer      string `json:"signer"`
	// Payouts (resolve): USDC per share of each outcome, decimal strings or numbers.
	Payouts []json.RawMessage `json:"payouts"`
	// TickSize (tick-size): "0.1", "0.01", "0.001" or "0.0001", string or number.
	TickSize json.RawMessage `json:"tick_size"`
}

// handle decodes the body strictly and writes the command's result.
func (a *admin) handle(f func(*adminReq) (*clobengine.Command, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req adminReq
		d := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
		d.DisallowUnknownFields()
		if r.ContentLength != 0 {
			if err := d.Decode(&req); err != nil {
				fail(w, clob.ErrInvalidPayload)
				return
			}
		}
		c, err := f(&req)
		if err != nil {
			WriteError(w, nil, err, clob.ErrInvalidPayload)
			return
		}
		if c == nil {
			writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
			return
		}
		res, err := a.svc.Submit(c)
		if err == nil && res.Err != nil {
			err = res.Err
		}
		if err != nil {
			WriteError(w, nil, err, 0)
			return
		}
		out := map[string]any{"ok": true}
		if res.Canceled != nil {
			out["canceled"] = res.Canceled
		}
		if c.Op == clobengine.OpTier {
			_ = a.svc.RecomputeTiers()
		}
		for _, st := range res.Sets {
			if st.Op == clobengine.OpRedeem {
				out["shares"], out["paid"] = amount.Micro(st.Amount).String(), amount.Micro(st.Paid).String()
			}
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func addrArg(s string) (string, error) {
	s = lower(s)
	if !validAddr(s) {
		return "", clob.E(clob.ErrInvalidPayload)
	}
	return s, nil
}

func (a *admin) money(op string, set bool) func(*adminReq) (*clobengine.Command, error) {
	return func(q *adminReq) (*clobengine.Command, error) {
		addr, err := addrArg(q.Address)
		if err != nil {
			return nil, err
		}
		amt, err := amount.Parse(q.Amount)
		if err != nil || amt <= 0 {
			return nil, clob.E(clob.ErrInvalidPayload)
		}
		c := &clobengine.Command{Op: op, Addr: addr, Amount: int64(amt)}
		if q.Signer != "" {
			if op != clobengine.OpDeposit {
				return nil, clob.E(clob.ErrInvalidPayload)
			}
			if c.Signer, err = addrArg(q.Signer); err != nil {
				return nil, err
			}
		}
		if set {
			if c.Cond = lower(q.ConditionID); !validCond(c.Cond) {
				return nil, clob.E(clob.ErrInvalidMarket)
			}
		}
		return c, nil
	}
}

func (a *admin) nonce(q *adminReq) (*clobengine.Command, error) {
	addr, err := addrArg(q.Address)
	return &clobengine.Command{Op: clobengine.OpNonce, Addr: addr}, err
}

func (a *admin) mode(q *adminReq) (*clobengine.Command, error) {
	return &clobengine.Command{Op: clobengine.OpMode, Mode: q.Mode, Retry: q.Retry}, nil
}

func (a *admin) address(q *adminReq) (*clobengine.Command, error) {
	addr, err := addrArg(q.Address)
	return &clobengine.Command{Op: clobengine.OpAddress, Addr: addr, Status: q.Status}, err
}

func (a *admin) tier(q *adminReq) (*clobengine.Command, error) {
	addr, err := addrArg(q.Address)
	if err != nil || q.Tier == nil {
		return nil, clob.E(clob.ErrInvalidPayload)
	}
	return &clobengine.Command{Op: clobengine.OpTier, Addr: addr, Tier: *q.Tier}, nil
}

// resolve settles a market: POST /admin/clob/resolve {condition_id, payouts}.
func (a *admin) resolve(q *adminReq) (*clobengine.Command, error) {
	c := &clobengine.Command{Op: clobengine.OpResolve, Cond: lower(q.ConditionID)}
	if !validCond(c.Cond) {
		return nil, clob.E(clob.ErrInvalidMarket)
	}
	for _, raw := range q.Payouts {
		var p amount.Micro
		if err := p.UnmarshalJSON(raw); err != nil {
			return nil, clob.E(clob.ErrInvalidPayouts)
		}
		c.Payouts = append(c.Payouts, int64(p))
	}
	return c, nil
}

// redeem is the stand-in for redeemPositions: POST /admin/clob/redeem
// {address, condition_id}.
func (a *admin) redeem(q *adminReq) (*clobengine.Command, error) {
	addr, err := addrArg(q.Address)
	if err != nil {
		return nil, err
	}
	c := &clobengine.Command{Op: clobengine.OpRedeem, Addr: addr, Cond: lower(q.ConditionID)}
	if !validCond(c.Cond) {
		return nil, clob.E(clob.ErrInvalidMarket)
	}
	return c, nil
}

// tickSize changes a market's tick size: POST /admin/clob/tick-size
// {condition_id, tick_size} (docs/clob.md "Tick size changes").
func (a *admin) tickSize(q *adminReq) (*clobengine.Command, error) {
	c := &clobengine.Command{Op: clobengine.OpTickSize, Cond: lower(q.ConditionID)}
	if !validCond(c.Cond) {
		return nil, clob.E(clob.ErrInvalidMarket)
	}
	var tick amount.Micro
	if len(q.TickSize) == 0 || tick.UnmarshalJSON(q.TickSize) != nil {
		return nil, clob.E(clob.ErrInvalidTickSize)
	}
	n, err := clob.TicksOf(tick)
	if err != nil {
		return nil, clob.E(clob.ErrInvalidTickSize)
	}
	c.Ticks = n
	return c, nil
}

func (a *admin) sync(*adminReq) (*clobengine.Command, error) {
	return nil, a.svc.SyncMarkets(context.Background())
}

// adminMode is GET /admin/clob/mode.
func (a *admin) getMode(w http.ResponseWriter, _ *http.Request) {
	var mode string
	var retry int64
	if err := a.svc.View(func(m *clobengine.Machine) { mode, retry = m.Mode() }); err != nil {
		WriteError(w, nil, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"mode": mode, "retry_after_seconds": retry})
}

// account is GET /admin/clob/accounts/{address}: balances (base units),
// status, nonce and open orders of an address.
func (a *admin) account(w http.ResponseWriter, r *http.Request) {
	addr, err := addrArg(r.PathValue("address"))
	if err != nil {
		WriteError(w, nil, err, 0)
		return
	}
	var out map[string]any
	if err := a.svc.View(func(m *clobengine.Machine) {
		toks := map[string]string{}
		for _, mk := range m.Markets() {
			for _, t := range mk.Tokens {
				if b := m.Balance(addr, t.ID); b != 0 {
					toks[t.ID] = strconv.FormatInt(b, 10)
				}
			}
		}
		var open []string
		for _, o := range m.OpenOrders(addr, "", "", "") {
			open = append(open, o.Hash)
		}
		out = map[string]any{"address": addr, "collateral": strconv.FormatInt(m.Balance(addr, ""), 10), "tokens": toks,
			"status": m.AddressStatus(addr), "nonce": m.Nonce(addr), "open_orders": open}
	}); err != nil {
		WriteError(w, nil, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
