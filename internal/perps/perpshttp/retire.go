package perpshttp

import "net/http"

// adminCloseOnly: {instrument_id} puts the instrument in close-only.
func (s *Server) adminCloseOnly(w http.ResponseWriter, r *http.Request) {
	s.adminRetire(w, r, s.svc.CloseOnly)
}

// adminSettle: {instrument_id} settles a close-only instrument.
func (s *Server) adminSettle(w http.ResponseWriter, r *http.Request) {
	s.adminRetire(w, r, s.svc.Settle)
}

func (s *Server) adminRetire(w http.ResponseWriter, r *http.Request, do func(uint32) error) {
	var b struct {
		IID uint32 `json:"instrument_id"`
	}
	if !decodeStrict(w, r, &b) {
		return
	}
	if err := do(b.IID); err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]any{"status": "ok", "instrument_id": b.IID})
}
