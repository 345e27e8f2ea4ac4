package perpsvc

import (
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// LeverageResult is the outcome of updateLeverage / updateLeverages: Err
// when the request was refused whole, else one result per item.
type LeverageResult struct {
	Items []perps.LeverageResult
	Err   *Error
}

// UpdateLeverage verifies a signed updateLeverage or updateLeverages op,
// refuses zero leverage and repeated instruments before sequencing (plain
// 400s), charges one action per instrument and submits one journaled
// KLeverage command.
func (s *Service) UpdateLeverage(opType string, req *perpsauth.Request) LeverageResult {
	if req.Exp != nil { // perps.md §3: exp is for order work only
		return LeverageResult{Err: E(CodeInvalidRequest, "exp: not allowed on "+opType)}
	}
	v, err := s.ver.VerifyOp(req, opType, s.now(), s.resolve)
	if err != nil {
		return LeverageResult{Err: AsError(err)}
	}
	fail := func(e *Error) LeverageResult {
		s.ver.Replay().Remove(v.Replay) // not executed: the identical request may be resent
		return LeverageResult{Err: e}
	}
	c := &perps.Command{Kind: perps.KLeverage, Account: v.Account.Hex()}
	rk := v.Replay.Bytes()
	c.Replay = rk[:]
	switch opType {
	case "updateLeverage":
		var one perps.LeverageReq
		if err := v.Op.DecodeArgs(&one); err != nil {
			return fail(AsError(err))
		}
		c.Leverages = []perps.LeverageReq{one}
	case "updateLeverages":
		if err := v.Op.DecodeArgs(&c.Leverages); err != nil {
			return fail(AsError(err))
		}
		if len(c.Leverages) == 0 {
			return fail(E(CodeInvalidRequest, "args must hold 1 to 100 instruments"))
		}
		if len(c.Leverages) > MaxBatch {
			return fail(E(CodeTooManyItems, ""))
		}
	default:
		return fail(E(CodeInvalidRequest, "op.type not allowed here"))
	}
	seen := make(map[uint32]bool, len(c.Leverages))
	for _, l := range c.Leverages {
		if l.Lev <= 0 {
			return fail(E(CodeInvalidRequest, "leverage must be positive"))
		}
		if seen[l.IID] {
			return fail(E(CodeInvalidRequest, "instrument ids must be unique"))
		}
		seen[l.IID] = true
	}
	if ok, wait := s.acts.Take(c.Account, len(c.Leverages), s.now()); !ok {
		return fail(&Error{Code: CodeActionRateLimited, RetryAfter: max(wait, 1)})
	}
	ev, err := s.Submit(c)
	if err != nil {
		s.ver.Replay().Remove(v.Replay)
		s.log.Error("perps engine", "err", err)
		return LeverageResult{Err: unavailable()}
	}
	if ev.Err != "" {
		return LeverageResult{Err: E(CodeRefused, ev.Err)}
	}
	return LeverageResult{Items: ev.Leverage}
}
