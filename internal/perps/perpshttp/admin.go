package perpshttp

import (
	"encoding/json"
	"net/http"

	"pmx/internal/crypto/secp"
	"pmx/internal/jsonerr"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Handler is the public perps API (mount at the perps listener's root).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes(mux)
	s.accountRoutes(mux)
	s.tradeRoutes(mux)
	mux.HandleFunc("GET /v1/ws", s.wsHandler)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { writeErr(w, 404, "not_found") })
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
	if err := d.Decode(dst); err != nil {
		writeErr(w, 400, "invalid request: "+jsonerr.Describe(err))
		return false
	}
	if d.More() {
		writeErr(w, 400, "invalid request: trailing data after the object")
		return false
	}
	return true
}

func (s *Server) adminSubmit(w http.ResponseWriter, c *perps.Command, ok func(ev perps.Event)) {
	ev, err := s.submit(c)
	if err != nil {
		s.engineErr(w, err, false)
		return
	}
	if ev.Err != "" {
		s.writeError(w, perpsvc.E(perpsvc.CodeRejected, ev.Err), false)
		return
	}
	ok(ev)
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
	s.adminSubmit(w, &perps.Command{Kind: perps.KCreateInstrument, Instrument: &spec}, func(ev perps.Event) {
		writeJSON(w, 201, map[string]uint64{"instrument_id": ev.ID})
	})
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
		writeErr(w, 400, "invalid request: address")
		return
	}
	s.adminSubmit(w, &perps.Command{Kind: perps.KDeposit, Account: a.Hex(), Amount: b.Amount}, func(ev perps.Event) {
		writeJSON(w, 200, map[string]any{"status": "ok", "deposit_id": ev.ID})
	})
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
	s.adminSubmit(w, &perps.Command{Kind: perps.KIndex, IID: b.IID, Price: b.Price}, func(perps.Event) {
		writeJSON(w, 200, map[string]any{"status": "ok", "instrument_id": b.IID})
	})
}
