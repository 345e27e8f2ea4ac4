package perpshttp

import (
	"encoding/json"
	"net/http"

	"pmx/internal/crypto/secp"
	"pmx/internal/httpjson"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Handler is the public perps API (mount at the perps listener's root).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes(mux)
	s.accountRoutes(mux)
	s.tradeRoutes(mux)
	s.leverageRoutes(mux)
	s.marginRoutes(mux) // margin.go
	s.fundingRoutes(mux)
	s.autoCancelRoutes(mux)
	s.moneyRoutes(mux)
	mux.HandleFunc("GET /v1/ws", s.wsHandler)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeNotFound, ""), false)
	})
	return mux
}

// AdminRoutes are the operator routes, keyed by pattern, for admin.Handler.Extra
// (the admin listener's token check wraps them).
func (s *Server) AdminRoutes() map[string]http.Handler {
	return map[string]http.Handler{
		"GET /admin/perps/instruments":  http.HandlerFunc(s.adminListInstruments),
		"POST /admin/perps/instruments": http.HandlerFunc(s.adminCreateInstrument),
		"POST /admin/perps/deposits":    http.HandlerFunc(s.adminDeposit),
		"POST /admin/perps/index":       http.HandlerFunc(s.adminIndex),
		"GET /admin/perps/mode":         http.HandlerFunc(s.adminGetMode),
		"POST /admin/perps/mode":        http.HandlerFunc(s.adminSetMode),
		"GET /admin/perps/flight":       http.HandlerFunc(s.adminGetFlight),
		"POST /admin/perps/insurance":   http.HandlerFunc(s.adminInsurance),
		"POST /admin/perps/close-only":  http.HandlerFunc(s.adminCloseOnly),
		"POST /admin/perps/settle":      http.HandlerFunc(s.adminSettle),
		"POST /admin/perps/withdrawals": http.HandlerFunc(s.adminWithdrawalStatus),
	}
}

// AdminHandler serves AdminRoutes on its own mux.
func (s *Server) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	for p, h := range s.AdminRoutes() {
		mux.Handle(p, h)
	}
	return mux
}

func decodeStrict(w http.ResponseWriter, r *http.Request, dst any) bool {
	d := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	d.DisallowUnknownFields()
	var e *perpsvc.Error
	if err := d.Decode(dst); err != nil {
		e = perpsvc.E(perpsvc.CodeInvalidRequest, httpjson.Describe(err).Error())
	} else if d.More() {
		e = perpsvc.E(perpsvc.CodeInvalidRequest, "trailing data after the object")
	}
	if e != nil {
		writeCatalogued(w, e, false)
		return false
	}
	return true
}

func (s *Server) adminListInstruments(w http.ResponseWriter, r *http.Request) {
	viewJSON(s, w, func(m *perps.Machine) []perps.InstrumentWire { return m.Instruments() })
}

// adminCreateInstrument: {symbol, category, price_decimals, quantity_decimals,
// max_leverage, min_notional, base_asset?} → 201 {instrument_id}.
func (s *Server) adminCreateInstrument(w http.ResponseWriter, r *http.Request) {
	var spec perps.InstrumentSpec
	if !decodeStrict(w, r, &spec) {
		return
	}
	id, err := s.svc.CreateInstrument(spec)
	if err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 201, map[string]uint64{"instrument_id": id})
}

// adminDeposit: {address, amount} credits collateral (a deposit record).
func (s *Server) adminDeposit(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Address string `json:"address"`
		Amount  string `json:"amount"`
	}
	if !decodeStrict(w, r, &b) {
		return
	}
	a, err := secp.ParseAddress(b.Address)
	if err != nil {
		writeCatalogued(w, perpsvc.E(perpsvc.CodeInvalidRequest, "address"), false)
		return
	}
	id, err := s.svc.Deposit(a.Hex(), b.Amount)
	if err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]any{"status": "ok", "deposit_id": id})
}

// adminIndex: {instrument_id, price} sets the index price.
func (s *Server) adminIndex(w http.ResponseWriter, r *http.Request) {
	var b struct {
		IID   uint32 `json:"instrument_id"`
		Price string `json:"price"`
	}
	if !decodeStrict(w, r, &b) {
		return
	}
	if err := s.svc.SetIndex(b.IID, b.Price); err != nil {
		s.writeError(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]any{"status": "ok", "instrument_id": b.IID})
}
