package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Invites and referrals: POST /v1/account/invite, GET/POST
// /v1/account/referral, GET /v1/info/invite (perps/referral.go).

func (s *Server) referralRoutes(mux *http.ServeMux) {
	s.privRoute(mux, "POST /v1/account/invite", 1, func(w http.ResponseWriter, r *http.Request, acct string) {
		var b struct{}
		if r.ContentLength != 0 && !decodeStrict(w, r, &b) { // {} (no properties); an empty body is {}
			return
		}
		inv, err := s.svc.Invite(acct)
		if err != nil {
			s.writeError(w, err, false)
			return
		}
		writeJSON(w, 200, inv)
	})
	s.privRoute(mux, "GET /v1/account/referral", 1, func(w http.ResponseWriter, r *http.Request, acct string) {
		now := s.now().UnixMilli()
		viewJSON(s, w, func(m *perps.Machine) perps.ReferralWire { return m.ReferralOf(acct, now) })
	})
	s.privRoute(mux, "POST /v1/account/referral", 1, func(w http.ResponseWriter, r *http.Request, acct string) {
		var b struct {
			Code string `json:"code"`
		}
		if !decodeStrict(w, r, &b) {
			return
		}
		if err := s.svc.BindReferral(acct, b.Code); err != nil {
			s.writeError(w, err, false)
			return
		}
		writeJSON(w, 200, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/info/invite", func(w http.ResponseWriter, r *http.Request) {
		if !s.chargeIP(w, r, 1, false) {
			return
		}
		q := r.URL.Query()
		code := q.Get("code")
		if code == "" {
			writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "missing field `code`"), false)
			return
		}
		addr := ""
		if q.Has("address") {
			a, ok := parseAddr(w, q.Get("address"))
			if !ok {
				return
			}
			addr = a
		}
		viewJSON(s, w, func(m *perps.Machine) inviteCheck {
			if why := m.InviteValid(code, addr); why != "" {
				return inviteCheck{Error: why}
			}
			return inviteCheck{Valid: true}
		})
	})
}

type inviteCheck struct {
	Valid bool   `json:"valid"`
	Error string `json:"error,omitempty"`
}
