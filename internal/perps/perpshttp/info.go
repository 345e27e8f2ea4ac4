package perpshttp

import (
	_ "embed"
	"net/http"
	"strconv"

	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsvc"
)

// Static reference data served as production shapes (perps.md §5). The fee
// schedule's $0 tier is what the machine charges (maker 0.000125, taker 0.0004).
var (
	//go:embed static/fees.json
	feesJSON []byte
	//go:embed static/limit_tiers.json
	limitTiersJSON []byte
)

// CollateralToken is the pUSD token address published on /v1/info/assets.
const CollateralToken = "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"

func (s *Server) routes(mux *http.ServeMux) {
	pub := func(pattern string, weight int, h http.HandlerFunc) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if s.chargeIP(w, r, weight, false) {
				h(w, r)
			}
		})
	}
	pub("GET /v1/info/ping", 1, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]string{"status": "ok"})
	})
	pub("GET /v1/info/time", 1, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]int64{"time": s.now().UnixMilli()})
	})
	pub("GET /v1/info/exchange", 2, s.exchange)
	pub("GET /v1/info/assets", 2, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, []map[string]any{{"asset": perps.Asset, "address": CollateralToken, "decimals": 6,
			"collateral_ratio": "1.00", "withdrawal_fee": s.svc.WithdrawFee()}})
	})
	pub("GET /v1/info/instruments", 2, s.instruments)
	pub("GET /v1/info/tickers", 2, s.tickers)
	pub("GET /v1/info/bbo", 2, s.bbo)
	pub("GET /v1/info/statistics", 2, s.statistics)
	mux.HandleFunc("GET /v1/info/book", s.book) // weight depends on depth
	pub("GET /v1/info/trades", 10, s.trades)
	pub("GET /v1/info/klines", 5, s.klines)
	pub("GET /v1/info/fees", 2, raw(feesJSON))
	pub("GET /v1/info/limit-tiers", 2, raw(limitTiersJSON))
	pub("GET /v1/info/registered", 1, s.registered)
}

func raw(b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}
}

func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	name, chain, contract := s.ver.Domain()
	writeJSON(w, 200, map[string]any{"name": name, "version": "1", "chain_id": chain,
		"contract": contract.String(), "cancel_only": s.cancelOnly(), "engine_version": "pmx-1"})
}

// queryIID parses instrument_id; required reports a missing one as 400.
func queryIID(w http.ResponseWriter, r *http.Request, required bool) (uint32, bool) {
	v := r.URL.Query().Get("instrument_id")
	if v == "" {
		if required {
			writeErr(w, 400, "invalid query parameters: missing field `instrument_id`")
			return 0, false
		}
		return 0, true
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		writeErr(w, 400, "invalid query parameters: instrument_id: invalid digit found in string")
		return 0, false
	}
	return uint32(n), true
}

// queryMs parses an optional millisecond timestamp.
func queryMs(w http.ResponseWriter, r *http.Request, name string, def int64) (int64, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		writeErr(w, 400, "invalid query parameters: "+name+": invalid digit found in string")
		return 0, false
	}
	return n, true
}

// queryWindow parses start_timestamp (default 0) and end_timestamp (default
// end), in that order.
func queryWindow(w http.ResponseWriter, r *http.Request, end int64) (int64, int64, bool) {
	start, ok := queryMs(w, r, "start_timestamp", 0)
	if !ok {
		return 0, 0, false
	}
	end, ok = queryMs(w, r, "end_timestamp", end)
	return start, end, ok
}

func (s *Server) instruments(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	q := r.URL.Query()
	if t := q.Get("instrument_type"); t != "" && t != "perpetual" {
		writeErr(w, 400, "invalid query parameters: unknown variant `"+t+"`, expected `perpetual`")
		return
	}
	cat := q.Get("category")
	switch cat {
	case "", "equity", "commodity", "index", "crypto":
	default:
		writeErr(w, 400, "invalid query parameters: unknown variant `"+cat+"`, expected one of `equity`, `commodity`, `index`, `crypto`")
		return
	}
	var out []perps.InstrumentWire
	if err := s.view(func(m *perps.Machine) { out = m.Instruments() }); err != nil {
		s.engineErr(w, err, false)
		return
	}
	res := []perps.InstrumentWire{}
	for _, in := range out {
		if (iid == 0 || in.ID == iid) && (cat == "" || in.Category == cat) {
			res = append(res, in)
		}
	}
	writeJSON(w, 200, res)
}

func (s *Server) tickers(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	now := s.now().UnixMilli()
	viewJSON(s, w, func(m *perps.Machine) []perps.Ticker { return m.Tickers(iid, now) })
}

func (s *Server) bbo(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	now := s.now().UnixMilli()
	viewJSON(s, w, func(m *perps.Machine) []perps.BBO { return m.BBOs(iid, now) })
}

var depthWeight = map[string]int{"10": 2, "100": 5, "500": 10, "1000": 20}

func (s *Server) book(w http.ResponseWriter, r *http.Request) {
	d := r.URL.Query().Get("depth")
	if d == "" {
		d = "100"
	}
	weight, okd := depthWeight[d]
	if !okd {
		weight = 2
	}
	if !s.chargeIP(w, r, weight, false) {
		return
	}
	if !okd {
		writeErr(w, 400, "invalid query parameters: depth must be one of 10, 100, 500, 1000")
		return
	}
	iid, ok := queryIID(w, r, true)
	if !ok {
		return
	}
	depth, _ := strconv.Atoi(d)
	now := s.now().UnixMilli()
	var bk perps.BookWire
	known := false
	if err := s.view(func(m *perps.Machine) {
		if known = m.HasInstrument(iid); known {
			bk = m.Book(iid, depth, now)
		}
	}); err != nil {
		s.engineErr(w, err, false)
		return
	}
	if !known { // an empty book would claim the instrument exists
		writeErr(w, 404, "instrument_not_found")
		return
	}
	writeJSON(w, 200, bk)
}

type page[T any] struct {
	Data []T  `json:"data"`
	More bool `json:"more"`
}

func (s *Server) trades(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, true)
	if !ok {
		return
	}
	start, end, ok := queryWindow(w, r, s.now().UnixMilli()+1)
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[perps.PublicTrade]) {
		p.Data, p.More = m.Trades(iid, start, end, 100)
		return p
	})
}

var intervals = perpsvc.Intervals

func (s *Server) klines(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, true)
	if !ok {
		return
	}
	q := r.URL.Query()
	iv, okv := intervals[q.Get("interval")]
	if !okv {
		// 1s is in the production enum; candles here are 1-minute, so it is refused.
		writeErr(w, 400, "invalid query parameters: interval must be one of 1m, 5m, 15m, 30m, 1h, 4h, 6h, 12h, 1d, 1w")
		return
	}
	if q.Get("start_timestamp") == "" {
		writeErr(w, 400, "invalid query parameters: missing field `start_timestamp`")
		return
	}
	start, end, ok := queryWindow(w, r, s.now().UnixMilli())
	if !ok {
		return
	}
	viewJSON(s, w, func(m *perps.Machine) (p page[[]any]) {
		p.Data, p.More = m.Klines(iid, iv, start, end, 1000)
		return p
	})
}

func (s *Server) registered(w http.ResponseWriter, r *http.Request) {
	a, ok := parseAddr(w, r.URL.Query().Get("address"))
	if !ok {
		return
	}
	ok, err := s.svc.Registered(a)
	if err != nil {
		s.engineErr(w, err, false)
		return
	}
	writeJSON(w, 200, map[string]bool{"registered": ok})
}

func (s *Server) statistics(w http.ResponseWriter, r *http.Request) {
	iid, ok := queryIID(w, r, false)
	if !ok {
		return
	}
	now := s.now().UnixMilli()
	viewJSON(s, w, func(m *perps.Machine) []perps.Statistic { return m.Statistics(iid, now) })
}
