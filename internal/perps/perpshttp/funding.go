package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Funding history (perps.md §5): GET /v1/account/funding, the account's
// charges, and GET /v1/info/funding, an instrument's settled rates. Both
// answer {data, more}, newest first, at most 100 rows, within start ≤ ts ≤
// end (ms; end defaults to now; both inclusive, as the official client pages
// them). The window is named start_timestamp / end_timestamp (the notes and
// the client) or start / end (the contract); both are read.

func (s *Server) fundingRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/info/funding", func(w http.ResponseWriter, r *http.Request) {
		if s.chargeIP(w, r, 10, false) {
			s.fundingRates(w, r)
		}
	})
	mux.HandleFunc("GET /v1/account/funding", func(w http.ResponseWriter, r *http.Request) {
		if !s.chargeIP(w, r, 10, false) {
			return
		}
		acct, ok := s.headerAuth(r)
		if !ok {
			writeCatalogued(w, perpsvc.E(perpsvc.CodeUnauthorized, ""), false)
			return
		}
		s.fundingCharges(w, r, acct)
	})
}

// fundingWindow is [start, end) from either spelling of the parameters.
func (s *Server) fundingWindow(w http.ResponseWriter, r *http.Request) (int64, int64, bool) {
	now := s.now().UnixMilli()
	start, end, ok := queryWindow(w, r, now)
	if !ok {
		return 0, 0, false
	}
	if start, ok = queryMs(w, r, "start", start); !ok {
		return 0, 0, false
	}
	end, ok = queryMs(w, r, "end", end)
	return start, end, ok
}

func (s *Server) fundingCharges(w http.ResponseWriter, r *http.Request, acct string) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	start, end, ok := s.fundingWindow(w, r)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.FundingData]) {
		p.Data, p.More = m.FundingOf(acct, iid, start, end, 100)
		return p
	})
}

func (s *Server) fundingRates(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, true)
	if !ok {
		return
	}
	start, end, ok := s.fundingWindow(w, r)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.RateData]) {
		p.Data, p.More = m.FundingRatesOf(iid, start, end, 100)
		return p
	})
}
