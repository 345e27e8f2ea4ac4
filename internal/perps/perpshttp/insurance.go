package perpshttp

import "net/http"

// adminInsurance: {amount} (pUSD decimal string) tops up the insurance
// fund; the answer carries the fund's balance after it.
func (s *Server) adminInsurance(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Amount string `json:"amount"`
	}
	if !decodeStrict(w, r, &b) {
		return
	}
	fund, err := s.svc.TopUpInsurance(b.Amount)
	if err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]any{"status": "ok", "insurance": fund})
}
