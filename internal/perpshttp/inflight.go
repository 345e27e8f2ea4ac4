package perpshttp

import (
	"time"

	"pmx/internal/perps"
)

// In-flight orders (perps/inflight.go) need two things from the server: due
// steps must complete without waiting for unrelated traffic (pump), and the
// HTTP/WebSocket answer to a held cancel or a pending modify is its final
// outcome (resolveHeld).

// inflightPoll is how often the pump and held-cancel waiters look at the
// clock; small against the delays (milliseconds), cheap (one View).
const inflightPoll = time.Millisecond

// pump submits a KTick whenever an in-flight step is due. It runs only when
// a window is open or a step was pending at start.
func (s *Server) pump(stop <-chan struct{}) {
	t := time.NewTicker(inflightPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		var due int64
		if s.view(func(m *perps.Machine) { due = m.NextDue() }) != nil {
			return
		}
		if due > 0 && due <= s.now().UnixMilli() {
			if _, err := s.submit(&perps.Command{Kind: perps.KTick}); err != nil {
				return
			}
		}
	}
}

// awaitCOIDCancel waits for the outcome of a cancel-by-coid waiting for its
// order's create: it ends as soon as the create is applied, or at due (a
// KTick then ends it order_unknown).
func (s *Server) awaitCOIDCancel(id uint64, due int64) (perps.ItemResult, bool) {
	for {
		var out perps.ItemResult
		ok := false
		if s.view(func(m *perps.Machine) { out, ok = m.COIDCancelOutcome(id) }) != nil {
			return out, false
		}
		if ok {
			return out, true
		}
		if s.now().UnixMilli() >= due {
			if _, err := s.submit(&perps.Command{Kind: perps.KTick}); err != nil {
				return out, false
			}
			continue
		}
		select {
		case <-s.stop:
			return out, false
		case <-time.After(inflightPoll):
		}
	}
}

// resolveHeld replaces every held-cancel or pending-modify item by its final
// outcome: it waits until the step is due, makes sure it completed (a KTick)
// and reads the result. It reports false if the engine stopped meanwhile.
func (s *Server) resolveHeld(items []perps.ItemResult) bool {
	for i := 0; i < len(items); i++ {
		it := &items[i]
		if it.Status != perps.StatusHeld {
			continue
		}
		if it.CC != 0 { // a cancel-by-coid waiting for its create
			out, ok := s.awaitCOIDCancel(it.CC, it.Due)
			if !ok {
				return false
			}
			*it = out
			i-- // a held cancel of the new order is resolved next
			continue
		}
		for s.now().UnixMilli() < it.Due {
			select {
			case <-s.stop:
				return false
			case <-time.After(inflightPoll):
			}
		}
		if _, err := s.submit(&perps.Command{Kind: perps.KTick}); err != nil {
			return false
		}
		if it.Mod != 0 { // a pending modify
			var out perps.ItemResult
			ok := false
			if s.view(func(m *perps.Machine) { out, ok = m.ModifyOutcome(it.Mod) }) != nil || !ok {
				return false
			}
			*it = out
			continue
		}
		var out string
		if s.view(func(m *perps.Machine) { out = m.HeldOutcome(it.OID) }) != nil || out == "" {
			return false
		}
		it.Status, it.Due = "ok", 0
		if out != "ok" {
			it.Status, it.Error = "err", out
		}
	}
	return true
}
