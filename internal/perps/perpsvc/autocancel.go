package perpsvc

import (
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// AutoCancelResult is the outcome of autoCancel: the deadline in force, or
// Err.
type AutoCancelResult struct {
	Deadline int64
	Err      *Error
}

// autoCancelWeight is autoCancel's action weight (perps.md §7).
const autoCancelWeight = 10

// AutoCancel verifies a signed autoCancel op {time} and submits it: 0
// disarms; a time in the past is a plain 400 before sequencing; the
// machine answers auto_cancel_deadline_too_soon and
// auto_cancel_daily_limit_reached (422).
func (s *Service) AutoCancel(req *perpsauth.Request) AutoCancelResult {
	if req.Exp != nil { // perps.md §3: exp is for order work only
		return AutoCancelResult{Err: E(CodeInvalidRequest, "exp: not allowed on autoCancel")}
	}
	v, err := s.ver.VerifyOp(req, perps.KAutoCancel, s.now(), s.resolve)
	if err != nil {
		return AutoCancelResult{Err: AsError(err)}
	}
	fail := func(e *Error) AutoCancelResult {
		s.ver.Replay().Remove(v.Replay)
		return AutoCancelResult{Err: e}
	}
	var args struct {
		Time *int64 `json:"time"`
	}
	if err := v.Op.DecodeArgs(&args); err != nil {
		return fail(AsError(err))
	}
	if args.Time == nil {
		return fail(E(CodeInvalidRequest, "args: missing field `time`"))
	}
	if *args.Time != 0 && *args.Time < s.now().UnixMilli() {
		return fail(E(CodeInvalidRequest, "time: the deadline is in the past"))
	}
	c := &perps.Command{Kind: perps.KAutoCancel, Account: v.Account.Hex(), Deadline: *args.Time,
		DailyLimit: int64(s.opt.AutoCancelDaily)}
	rk := v.Replay.Bytes()
	c.Replay = rk[:]
	if ok, wait := s.acts.Take(c.Account, autoCancelWeight, s.now()); !ok {
		return fail(&Error{Code: CodeActionRateLimited, RetryAfter: max(wait, 1)})
	}
	ev, err := s.Submit(c)
	if err != nil {
		s.ver.Replay().Remove(v.Replay)
		s.log.Error("perps engine", "err", err)
		return AutoCancelResult{Err: unavailable()}
	}
	if ev.Err != "" {
		return AutoCancelResult{Err: E(CodeRejected, ev.Err)}
	}
	return AutoCancelResult{Deadline: ev.Deadline}
}

// fireAutoCancelsIfDue submits the trigger once the earliest armed deadline
// has passed (the funding driver's poll calls it).
func (s *Service) fireAutoCancelsIfDue() {
	var next int64
	if err := s.View(func(m *perps.Machine) { next = m.NextAutoCancel() }); err != nil || next == 0 || next > s.now().UnixMilli() {
		return
	}
	if _, err := s.Submit(&perps.Command{Kind: perps.KAutoCancelFire}); err != nil {
		s.log.Error("perps auto-cancel", "err", err)
	}
}
