package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Account history series: GET /v1/account/equity and /v1/account/pnl (the
// machine's samples, perps/history.go; docs/perps.md "equity and pnl history").

// pnlIntervals are the pnl route's buckets (the official client's
// PerpsPnlInterval); equity takes every kline interval.
var pnlIntervals = map[string]int64{"1h": 3600e3, "4h": 4 * 3600e3, "1d": 86400e3, "1w": 7 * 86400e3}

func (s *Server) historyRoutes(mux *http.ServeMux) {
	s.privRoute(mux, "GET /v1/account/equity", 10, func(w http.ResponseWriter, r *http.Request, acct string) {
		s.series(w, r, acct, perpsvc.Intervals, "`1m`, `5m`, `15m`, `30m`, `1h`, `4h`, `6h`, `12h`, `1d`, `1w`",
			(*perps.Machine).EquityHistory)
	})
	s.privRoute(mux, "GET /v1/account/pnl", 10, func(w http.ResponseWriter, r *http.Request, acct string) {
		s.series(w, r, acct, pnlIntervals, "`1h`, `4h`, `1d`, `1w`", (*perps.Machine).PnLHistory)
	})
}

// series parses interval (required, one of ivs), start_timestamp (required)
// and end_timestamp (default now), and answers {data: [[ts, "v"]], more}.
func (s *Server) series(w http.ResponseWriter, r *http.Request, acct string, ivs map[string]int64, names string,
	q func(m *perps.Machine, addr string, iv, start, end int64, limit int) ([]perps.HistPoint, bool)) {
	v := r.URL.Query()
	if v.Has("cursor") {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "invalid cursor"), false)
		return
	}
	name := v.Get("interval")
	iv, ok := ivs[name]
	if !ok {
		detail := "missing field `interval`"
		if v.Has("interval") {
			detail = "interval: unknown variant `" + name + "`, expected one of " + names
		}
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, detail), false)
		return
	}
	if v.Get("start_timestamp") == "" {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "missing field `start_timestamp`"), false)
		return
	}
	start, end, ok := queryWindow(w, r, s.now().UnixMilli())
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.HistPoint]) {
		p.Data, p.More = q(m, acct, iv, start, end, perps.HistoryPage)
		return p
	})
}
