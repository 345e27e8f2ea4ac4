package perpshttp

import (
	"net/http"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Money routes: withdrawals, internal transfers and their histories
// (perpsvc/withdraw.go; docs/perps.md "stand-ins for the chain").

func (s *Server) moneyRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/account/withdraw", s.withdraw)
	mux.HandleFunc("POST /v1/account/internal-transfer", s.internalTransfer)
	s.privRoute(mux, "GET /v1/account/withdrawals", 10, s.withdrawals)
	s.privRoute(mux, "GET /v1/account/internal-transfers", 10, s.transfers)
	s.privRoute(mux, "GET /v1/account/deposits", 10, s.deposits)
	s.historyRoutes(mux)
	s.referralRoutes(mux)
	mux.HandleFunc("GET /v1/info/portfolio", func(w http.ResponseWriter, r *http.Request) {
		if !s.chargeIP(w, r, 5, false) {
			return
		}
		a, ok := parseAddr(w, r.URL.Query().Get("address"))
		if !ok {
			return
		}
		now := s.now().UnixMilli()
		viewJSON(s, w, func(m *perps.Machine) perps.PublicPortfolio { return m.PublicPortfolioOf(a, now) })
	})
}

// privRoute registers a header-authenticated read of a fixed request weight.
func (s *Server) privRoute(mux *http.ServeMux, pattern string, weight int, h func(w http.ResponseWriter, r *http.Request, acct string)) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if !s.chargeIP(w, r, weight, false) {
			return
		}
		acct, ok := s.headerAuth(r)
		if !ok {
			writeCatalogued(w, perpsvc.E(perpsvc.CodeUnauthorized, ""), false)
			return
		}
		h(w, r, acct)
	})
}

// writeMoney answers a withdrawal or transfer: 200 {status ok, <idKey>}, or
// 422 {status err, <idKey>, error} when the machine refused it.
func (s *Server) writeMoney(w http.ResponseWriter, idKey string, res perpsvc.MoneyResult, err error) {
	if e := perpsvc.AsError(err); err != nil && e.Code == perpsvc.CodeMoneyRefused {
		writeJSON(w, e.Status(), map[string]any{"status": "err", idKey: res.ID, "error": res.Refusal})
		return
	}
	if err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]any{"status": "ok", idKey: res.ID})
}

func (s *Server) withdraw(w http.ResponseWriter, r *http.Request) {
	req, ok := s.signedRequest(w, r)
	if !ok {
		return
	}
	res, err := s.svc.Withdraw(req)
	s.writeMoney(w, "withdraw_id", res, err)
}

func (s *Server) internalTransfer(w http.ResponseWriter, r *http.Request) {
	req, ok := s.signedRequest(w, r)
	if !ok {
		return
	}
	res, err := s.svc.Transfer(req)
	s.writeMoney(w, "transfer_id", res, err)
}

// moneyWindow reads start/end (the contract's names) or
// start_timestamp/end_timestamp (production's); end defaults to now.
func (s *Server) moneyWindow(w http.ResponseWriter, r *http.Request) (int64, int64, bool) {
	q := r.URL.Query()
	sn, en := "start_timestamp", "end_timestamp"
	if q.Has("start") {
		sn = "start"
	}
	if q.Has("end") {
		en = "end"
	}
	start, ok := queryMs(w, r, sn, 0)
	if !ok {
		return 0, 0, false
	}
	end, ok := queryMs(w, r, en, s.now().UnixMilli())
	if end < perps.MaxMs {
		end++ // inclusive of end
	}
	return start, end, ok
}

func (s *Server) withdrawals(w http.ResponseWriter, r *http.Request, acct string) {
	q := r.URL.Query()
	st := q.Get("status")
	if st == "" {
		st = q.Get("withdrawal_status")
	}
	switch st {
	case "", perps.WPending, perps.WConfirmed, perps.WRemoved, perps.WFailed:
	default:
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "status: unknown variant `"+st+
			"`, expected one of `pending`, `confirmed`, `removed`, `failed`"), false)
		return
	}
	start, end, ok := s.moneyWindow(w, r)
	if !ok {
		return
	}
	hash := q.Get("hash")
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.WithdrawalWire]) {
		p.Data, p.More = m.WithdrawalsOf(acct, st, hash, start, end, 100)
		return p
	})
}

func (s *Server) deposits(w http.ResponseWriter, r *http.Request, acct string) {
	q := r.URL.Query()
	st := q.Get("status")
	if st == "" {
		st = q.Get("deposit_status")
	}
	switch st {
	case "", perps.WPending, perps.WConfirmed, perps.WRemoved:
	default:
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "deposit_status: unknown variant `"+st+
			"`, expected one of `pending`, `confirmed`, `removed`"), false)
		return
	}
	start, end, ok := s.moneyWindow(w, r)
	if !ok {
		return
	}
	hash := q.Get("hash")
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.DepositWire]) {
		p.Data, p.More = m.DepositsOf(acct, st, hash, start, end, 100)
		return p
	})
}

func (s *Server) transfers(w http.ResponseWriter, r *http.Request, acct string) {
	dir := r.URL.Query().Get("direction")
	if dir != "" && dir != "in" && dir != "out" {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidQuery, "direction: unknown variant `"+dir+"`, expected `in` or `out`"), false)
		return
	}
	start, end, ok := s.moneyWindow(w, r)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.TransferWire]) {
		p.Data, p.More = m.TransfersOf(acct, dir, start, end, 100)
		return p
	})
}

// adminWithdrawalStatus: {withdraw_id, status} with status removed or failed,
// the operator's stand-in for a chain outcome.
func (s *Server) adminWithdrawalStatus(w http.ResponseWriter, r *http.Request) {
	var b struct {
		ID     uint64 `json:"withdraw_id"`
		Status string `json:"status"`
	}
	if !decodeStrict(w, r, &b) {
		return
	}
	if err := s.svc.SetWithdrawalStatus(b.ID, b.Status); err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]any{"status": "ok", "withdraw_id": b.ID})
}
