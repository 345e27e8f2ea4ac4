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
		"POST /admin/clob/deposits":    a.handle(a.money(clobengine.OpDeposit, false)),
		"POST /admin/clob/withdrawals": a.handle(a.money(clobengine.OpWithdraw, false)),
		"POST /admin/clob/split":       a.handle(a.money(clobengine.OpSplit, true)),
		"POST /admin/clob/merge":       a.handle(a.money(clobengine.OpMerge, true)),
		"POST /admin/clob/nonce":       a.handle(a.nonce),
		"POST /admin/clob/mode":        a.handle(a.mode),
		"POST /admin/clob/addresses":   a.handle(a.address),
		"POST /admin/clob/tier":        a.handle(a.tier),
		"POST /admin/clob/sync":        a.handle(a.sync),
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

func (a *admin) sync(*adminReq) (*clobengine.Command, error) {
	return nil, a.svc.SyncMarkets(bgContext())
}

var _ = strconv.Itoa

func bgContext() context.Context { return context.Background() }
