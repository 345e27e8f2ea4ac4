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

// resolveHeld replaces every held-cancel or pending-modify item by its final
// outcome: it waits until the step is due, makes sure it completed (a KTick)
// and reads the result. It reports false if the engine stopped meanwhile.
func (s *Server) resolveHeld(items []perps.ItemResult) bool {
	for i := range items {
		it := &items[i]
		if it.Status != perps.StatusHeld {
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
