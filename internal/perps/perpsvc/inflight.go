package perpsvc

import (
	"time"

	"pmx/internal/perps/perps"
)

// In-flight orders (perps/inflight.go) need two things from the service: due
// steps must complete without waiting for unrelated traffic (pump), and the
// HTTP/WebSocket answer to a held cancel or a pending modify is its final
// outcome (resolveHeld).

// inflightPoll is how often the pump and held-cancel waiters look at the
// clock; small against the delays (milliseconds), cheap (one View).
const inflightPoll = time.Millisecond

// pump submits a KTick whenever an in-flight step is due. It runs only when
// a window is open or a step was pending at start.
func (s *Service) pump(stop <-chan struct{}) {
	t := time.NewTicker(inflightPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		var due int64
		if s.View(func(m *perps.Machine) { due = m.NextDue() }) != nil {
			return
		}
		if due > 0 && due <= s.now().UnixMilli() {
			if _, err := s.Submit(&perps.Command{Kind: perps.KTick}); err != nil {
				return
			}
		}
	}
}

// awaitStep reads the outcome of a held step due at due: it waits until
// then, submits a KTick so the step has completed and reads the outcome.
// early also polls before due: a cancel-by-coid ends as soon as its create
// is applied. It reports false if the engine stopped meanwhile.
func (s *Service) awaitStep(due int64, early bool, read func(*perps.Machine) (perps.ItemResult, bool)) (perps.ItemResult, bool) {
	var out perps.ItemResult
	ok := false
	get := func() bool { return s.View(func(m *perps.Machine) { out, ok = read(m) }) == nil }
	for s.now().UnixMilli() < due {
		if early && (!get() || ok) {
			return out, ok
		}
		select {
		case <-s.stop:
			return out, false
		case <-time.After(inflightPoll):
		}
	}
	if _, err := s.Submit(&perps.Command{Kind: perps.KTick}); err != nil || !get() {
		return out, false
	}
	return out, ok
}

// resolveHeld replaces every held-cancel, pending-modify or waiting
// cancel-by-coid item by its final outcome. It reports false if the engine
// stopped meanwhile.
func (s *Service) resolveHeld(items []perps.ItemResult) bool {
	for i := 0; i < len(items); i++ {
		it := &items[i]
		if it.Status != perps.StatusHeld {
			continue
		}
		var read func(*perps.Machine) (perps.ItemResult, bool)
		switch held := *it; {
		case held.CC != 0: // a cancel-by-coid waiting for its create
			read = func(m *perps.Machine) (perps.ItemResult, bool) { return m.COIDCancelOutcome(held.CC) }
		case held.Mod != 0: // a pending modify
			read = func(m *perps.Machine) (perps.ItemResult, bool) { return m.ModifyOutcome(held.Mod) }
		default: // a held cancel
			read = func(m *perps.Machine) (perps.ItemResult, bool) {
				out := m.HeldOutcome(held.OID)
				r := perps.ItemResult{Status: "ok", OID: held.OID, COID: held.COID}
				if out != "ok" {
					r.Status, r.Error = "err", out
				}
				return r, out != ""
			}
		}
		out, ok := s.awaitStep(it.Due, it.CC != 0, read)
		if !ok {
			return false
		}
		*it = out
		if it.Status == perps.StatusHeld {
			i-- // a cancel-by-coid that became a held cancel of the new order: resolved next
		}
	}
	return true
}
