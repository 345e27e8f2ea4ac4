package perpsvc

import (
	"errors"
	"time"

	"pmx/internal/perps/perps"
)

// optionsFlight is the Flight the service's options ask for.
func (o *Options) optionsFlight() perps.Flight {
	return perps.Flight{AcceptMs: o.AcceptDelay.Milliseconds(), TakerMs: o.TakerDelay.Milliseconds(),
		RiskMs: o.RiskDelay.Milliseconds(), ModifyMs: o.ModifyDelay.Milliseconds(), COIDWaitMs: o.COIDWait.Milliseconds(),
		NoHeldCancels: o.NoHeldCancels}
}

// applyFlight runs after recovery: the journal replayed with the windows in
// force when each command was applied; from now on the options' windows
// hold, journaled (so the next replay switches at this point too). It
// reports whether the pump is needed: a window is open or a step is pending.
func (s *Service) applyFlight() (pump bool, err error) {
	want := s.opt.optionsFlight()
	var have perps.Flight
	var due int64
	if err := s.View(func(m *perps.Machine) { have, due = m.Flight(), m.NextDue() }); err != nil {
		return false, err
	}
	if have != want {
		ev, err := s.Submit(&perps.Command{Kind: perps.KConfig, Flight: &want})
		if err != nil {
			return false, err
		}
		if ev.Err != "" {
			return false, errors.New("perpsvc: in-flight windows: " + ev.Err)
		}
		s.log.Info("perps in-flight windows", "was", have, "now", want)
	}
	return want.AcceptMs > 0 || want.TakerMs > 0 || want.RiskMs > 0 || want.ModifyMs > 0 || want.COIDWaitMs > 0 || due > 0, nil
}

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }

// MaxRetryAfter bounds a trading mode's retry_after_seconds (docs/perps.md:
// 1..86400).
const MaxRetryAfter = 86400

// SetMode sets the exchange-wide trading mode (normal, cancel_only,
// post_only). retryAfter nil takes the default; a given value must be
// 1..MaxRetryAfter.
func (s *Service) SetMode(mode string, retryAfter *int64) error {
	if mode == "" {
		return E(CodeInvalidRequest, "mode is required")
	}
	var r int64
	if retryAfter != nil {
		if r = *retryAfter; r < 1 || r > MaxRetryAfter {
			return E(CodeInvalidOperatorInput, "retry_after_seconds must be 1..86400")
		}
	}
	return s.operator(&perps.Command{Kind: perps.KMode, Mode: mode, RetryAfter: r}, nil)
}

// Mode is the trading mode in force ("normal", "cancel_only", "post_only")
// and its retry hint in seconds.
func (s *Service) Mode() (string, int64, error) {
	var mode string
	var retry int64
	err := s.View(func(m *perps.Machine) { mode, retry = m.Mode() })
	if err != nil {
		return "", 0, unavailableNoRetry()
	}
	if mode == perps.ModeNormal {
		mode = "normal"
	}
	return mode, retry, nil
}

// operator submits an operator command; ok (if set) reads its event.
func (s *Service) operator(c *perps.Command, ok func(perps.Event)) error {
	ev, err := s.Submit(c)
	if err != nil {
		s.log.Error("perps engine", "err", err)
		return unavailableNoRetry()
	}
	if ev.Err != "" {
		return E(CodeRejected, ev.Err)
	}
	if ok != nil {
		ok(ev)
	}
	return nil
}

func unavailableNoRetry() *Error { return E(CodeUnavailable, "") }
