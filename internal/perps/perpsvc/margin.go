package perpsvc

import (
	"errors"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
	"pmx/internal/perps/risk"
)

// marginArgs is updateMargin's args: the instrument and the signed delta.
type marginArgs struct {
	IID *uint32 `json:"iid"`
	Amt *string `json:"amt"`
}

// UpdateMargin verifies a signed updateMargin op (PATCH /v1/trade/margin,
// docs/perps-margin.md "Isolated margin"), refuses an amt that is not a
// decimal string (plain 400) before sequencing, charges one action and
// submits one journaled KMargin command. The command carries the signature's
// timestamp (the machine checks the margin window at its own time) and the
// replay key, so a resent identical request answers signature_already_used,
// across a restart too. The answer is nil when the adjustment was applied.
func (s *Service) UpdateMargin(req *perpsauth.Request) *Error {
	if req.Exp != nil { // perps.md §3: exp is for order work only
		return E(CodeInvalidRequest, "exp: not allowed on updateMargin")
	}
	now := s.now()
	v, err := s.ver.VerifyOp(req, perps.KMargin, now, s.resolve)
	if err != nil {
		return AsError(err)
	}
	fail := func(e *Error) *Error {
		s.ver.Replay().Remove(v.Replay) // not executed: the identical request may be resent
		return e
	}
	var args marginArgs
	if err := v.Op.DecodeArgs(&args); err != nil {
		return fail(AsError(err))
	}
	if args.IID == nil || args.Amt == nil {
		return fail(E(CodeInvalidRequest, "args: iid and amt are required"))
	}
	if req.Ts > 1<<62 {
		return fail(E(CodeRefused, risk.ErrMarginTimestamp.Error()))
	}
	if _, err := perps.ParseMarginDelta(*args.Amt); errors.Is(err, perps.ErrMarginAmountSyntax) {
		return fail(E(CodeInvalidRequest, err.Error()))
	}
	c := &perps.Command{Kind: perps.KMargin, Account: v.Account.Hex(), IID: *args.IID, Amount: *args.Amt, SigTS: int64(req.Ts)}
	rk := v.Replay.Bytes()
	c.Replay = rk[:]
	if ok, wait := s.acts.Take(c.Account, 1, now); !ok {
		return fail(&Error{Code: CodeActionRateLimited, RetryAfter: max(wait, 1)})
	}
	ev, err := s.Submit(c)
	if err != nil {
		s.ver.Replay().Remove(v.Replay)
		s.log.Error("perps engine", "err", err)
		return unavailable()
	}
	if ev.Err != "" {
		return E(CodeRefused, ev.Err)
	}
	return nil
}
