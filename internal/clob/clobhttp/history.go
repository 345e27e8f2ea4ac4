package clobhttp

import (
	"encoding/json"
	"net/http"
	"strconv"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// tradesOf returns (time s, own price as JSON number, size micro) of every
// kept trade touching token, oldest first.
type tick struct {
	t    int64
	p    json.Number
	raw  int64
	size int64
}

func tokenTicks(m *clobengine.Machine, token string, from, to int64) []tick {
	var out []tick
	for _, tr := range m.Trades(func(t *clobengine.Trade) bool { return t.TakerToken == token || t.MakerToken == token }) {
		s := tr.Time / 1000
		if (from > 0 && s < from) || (to > 0 && s > to) {
			continue
		}
		mk := m.Market(tr.Mkt)
		p := tr.Price
		if tr.TakerToken != token {
			p = tr.MakerPrice
		}
		out = append(out, tick{s, json.Number(clob.PriceText(p, mk.Ticks)), p * (1_000_000 / mk.Ticks), tr.Size})
	}
	return out
}

func optInt(r *http.Request, name string) (int64, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}

// pricesHistory is GET /prices-history: the token's trade prices from this
// venue, one point (the last price) per fidelity minutes.
func (h *Handler) pricesHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	token := q.Get("market")
	if !validToken(token) {
		fail(w, clob.ErrHistoryFilter, "market")
		return
	}
	from, ok1 := optInt(r, "startTs")
	to, ok2 := optInt(r, "endTs")
	fid, ok3 := optInt(r, "fidelity")
	switch {
	case !ok1:
		fail(w, clob.ErrHistoryFilter, "startTs")
		return
	case !ok2 || (to > 0 && to < from):
		fail(w, clob.ErrHistoryFilter, "endTs")
		return
	case !ok3 || fid > 1440*30:
		fail(w, clob.ErrHistoryFilter, "fidelity")
		return
	}
	if iv := q.Get("interval"); iv != "" && from == 0 {
		secs := map[string]int64{"1m": 60, "1h": 3600, "6h": 6 * 3600, "1d": 86400, "1w": 7 * 86400, "max": 0, "all": 0}
		d, ok := secs[iv]
		if !ok {
			fail(w, clob.ErrHistoryFilter, "interval")
			return
		}
		if d > 0 {
			from = h.svc.Now().Unix() - d
		}
	}
	step := max(fid, 1) * 60
	type point struct {
		T int64       `json:"t"`
		P json.Number `json:"p"`
	}
	out := []point{}
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, t := range tokenTicks(m, token, from, to) {
			b := t.t / step * step
			if n := len(out); n > 0 && out[n-1].T == b {
				out[n-1].P = t.p
				continue
			}
			out = append(out, point{b, t.p})
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"history": out})
}

var fidelities = map[string]int64{"1m": 60, "5m": 300, "15m": 900, "30m": 1800, "1h": 3600, "4h": 14400, "1d": 86400, "1w": 604800}

// ohlc is GET /ohlc: candles of the token's trades on this venue.
func (h *Handler) ohlc(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("startTs") == "" {
		fail(w, clob.ErrOhlcStartTs)
		return
	}
	token := q.Get("asset_id")
	if token == "" {
		fail(w, clob.ErrOhlcAssetID)
		return
	}
	from, ok := optInt(r, "startTs")
	if !ok {
		fail(w, clob.ErrOhlcStartTs)
		return
	}
	if !validToken(token) {
		fail(w, clob.ErrOhlcAssetID)
		return
	}
	f := q.Get("fidelity")
	if f == "" {
		f = "1m"
	}
	step, ok := fidelities[f]
	if !ok {
		fail(w, clob.ErrOhlcFidelity)
		return
	}
	limit, ok := optInt(r, "limit")
	if !ok || limit > 1000 {
		fail(w, clob.ErrOhlcLimit)
		return
	}
	if limit == 0 {
		limit = 1000
	}
	type candle struct {
		T      int64       `json:"t"`
		Open   json.Number `json:"o"`
		High   json.Number `json:"h"`
		Low    json.Number `json:"l"`
		Close  json.Number `json:"c"`
		Volume json.Number `json:"v"`
		hi, lo int64
		vol    int64
	}
	out := []*candle{}
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, t := range tokenTicks(m, token, from, 0) {
			b := t.t / step * step
			n := len(out)
			if n == 0 || out[n-1].T != b {
				if int64(n) >= limit {
					break
				}
				out = append(out, &candle{T: b, Open: t.p, High: t.p, Low: t.p, hi: t.raw, lo: t.raw})
				n++
			}
			c := out[n-1]
			if t.raw > c.hi {
				c.hi, c.High = t.raw, t.p
			}
			if t.raw < c.lo {
				c.lo, c.Low = t.raw, t.p
			}
			c.Close = t.p
			c.vol += t.size
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	for _, c := range out {
		c.Volume = json.Number(microText(c.vol))
	}
	writeJSON(w, http.StatusOK, out)
}
