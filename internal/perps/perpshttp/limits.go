package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perpsvc"
	"pmx/internal/ratelimit"
)

// clientIP keys budgets the way every pmx listener does (peer address, IPv6 by /64).
func clientIP(r *http.Request) string { return ratelimit.ClientIP(r) }

// chargeIP charges request weight against the caller's IP budget (perps.md
// §7: 1,000 per minute); false means a 429 was written.
func (s *Server) chargeIP(w http.ResponseWriter, r *http.Request, weight int, batch bool) bool {
	ok, wait := s.ip.Take(clientIP(r), weight, s.now())
	if ok {
		return true
	}
	s.writeError(w, &perpsvc.Error{Code: perpsvc.CodeIPRateLimited, RetryAfter: max(wait, 1)}, batch)
	return false
}
