package clobhttp

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"pmx/internal/amount"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

func lower(s string) string { return strings.ToLower(s) }

// validToken: a token id is a canonical decimal uint256.
func validToken(s string) bool {
	if s == "" || len(s) > 78 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

type level struct {
	Price string `json:"price"`
	Size  string `json:"size"`
}

// bookJSON is the OrderBookSummary in the field order the clients hash
// (clob-and-catalog.md §6).
type bookJSON struct {
	Market         string  `json:"market"`
	AssetID        string  `json:"asset_id"`
	Timestamp      string  `json:"timestamp"`
	Hash           string  `json:"hash"`
	Bids           []level `json:"bids"`
	Asks           []level `json:"asks"`
	MinOrderSize   string  `json:"min_order_size"`
	TickSize       string  `json:"tick_size"`
	NegRisk        bool    `json:"neg_risk"`
	LastTradePrice string  `json:"last_trade_price"`
}

const bookDepth = 1000

// summary builds a token's book, best price last on both sides, and sets
// its hash: SHA-1 of the compact JSON with hash "".
func (h *Handler) summary(mk *clobengine.Market, outcome uint8) bookJSON {
	bids, asks := mk.Depth(outcome, bookDepth)
	b := bookJSON{Market: mk.ConditionID, AssetID: mk.Tokens[outcome].ID, Timestamp: strconv.FormatInt(h.svc.Now().UnixMilli(), 10),
		Bids: make([]level, len(bids)), Asks: make([]level, len(asks)), MinOrderSize: mk.MinSize.String(),
		TickSize: clob.TickSize(mk.GridTicks()), NegRisk: mk.NegRisk, LastTradePrice: "0.5"}
	for i, l := range bids {
		b.Bids[len(bids)-1-i] = level{clob.PriceText(l.Price, mk.Ticks), amount.Micro(l.Size).String()}
	}
	for i, l := range asks {
		b.Asks[len(asks)-1-i] = level{clob.PriceText(l.Price, mk.Ticks), amount.Micro(l.Size).String()}
	}
	if lt := mk.Last[outcome]; lt.Price > 0 {
		b.LastTradePrice = clob.PriceText(lt.Price, mk.Ticks)
	}
	raw, _ := json.Marshal(b)
	sum := sha1.Sum(raw)
	b.Hash = hex.EncodeToString(sum[:])
	return b
}

// withToken runs fn on the token's market, answering the contract's
// "Invalid token id" / "No orderbook exists" errors.
func (h *Handler) withToken(w http.ResponseWriter, id string, missing clob.Code, fn func(*clobengine.Market, uint8)) bool {
	if !validToken(id) {
		fail(w, clob.ErrInvalidTokenID)
		return false
	}
	found := false
	if err := h.svc.View(func(m *clobengine.Machine) {
		if mk, o := m.TokenMarket(id); mk != nil {
			found = true
			fn(mk, o)
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return false
	}
	if !found {
		fail(w, missing)
	}
	return found
}

func (h *Handler) book(w http.ResponseWriter, r *http.Request) {
	var b bookJSON
	if h.withToken(w, r.URL.Query().Get("token_id"), clob.ErrNoOrderbook, func(mk *clobengine.Market, o uint8) { b = h.summary(mk, o) }) {
		writeJSON(w, http.StatusOK, b)
	}
}

type bookParam struct {
	TokenID string `json:"token_id"`
	Side    string `json:"side"`
}

// batchParams reads a POST body of BookParams, at most max entries.
func (h *Handler) batchParams(w http.ResponseWriter, r *http.Request, max int) ([]bookParam, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	var ps []bookParam
	if err != nil || json.Unmarshal(body, &ps) != nil {
		fail(w, clob.ErrInvalidPayload)
		return nil, false
	}
	if len(ps) > max {
		fail(w, clob.ErrPayloadLimit)
		return nil, false
	}
	for _, p := range ps {
		if !validToken(p.TokenID) {
			fail(w, clob.ErrInvalidPayload)
			return nil, false
		}
	}
	return ps, true
}

const maxBatchTokens = 500

func (h *Handler) books(w http.ResponseWriter, r *http.Request) {
	ps, ok := h.batchParams(w, r, maxBatchTokens)
	if !ok {
		return
	}
	out := []bookJSON{}
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, p := range ps {
			if mk, o := m.TokenMarket(p.TokenID); mk != nil {
				out = append(out, h.summary(mk, o))
			}
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// quote is the best bid and ask of a token in its own terms (0: none).
type quote struct{ bid, ask, ticks int64 }

func quoteOf(mk *clobengine.Market, o uint8) quote {
	bids, asks := mk.Depth(o, 1)
	q := quote{ticks: mk.Ticks}
	if len(bids) > 0 {
		q.bid = bids[0].Price
	}
	if len(asks) > 0 {
		q.ask = asks[0].Price
	}
	return q
}

func (q quote) price(side string) string {
	p := q.ask
	if side == "BUY" {
		p = q.bid
	}
	return clob.PriceText(p, q.ticks)
}

func (q quote) mid() string {
	switch {
	case q.bid > 0 && q.ask > 0:
		return amount.Micro((q.bid + q.ask) * (1_000_000 / q.ticks) / 2).String()
	case q.bid > 0:
		return clob.PriceText(q.bid, q.ticks)
	case q.ask > 0:
		return clob.PriceText(q.ask, q.ticks)
	}
	return "0.5"
}

func (q quote) spread() string {
	if q.bid > 0 && q.ask > 0 {
		return clob.PriceText(q.ask-q.bid, q.ticks)
	}
	return "0"
}

func (h *Handler) price(w http.ResponseWriter, r *http.Request) {
	side := r.URL.Query().Get("side")
	id := r.URL.Query().Get("token_id")
	if validToken(id) && side != "BUY" && side != "SELL" {
		fail(w, clob.ErrInvalidSide)
		return
	}
	var q quote
	if h.withToken(w, id, clob.ErrNoOrderbook, func(mk *clobengine.Market, o uint8) { q = quoteOf(mk, o) }) {
		writeJSON(w, http.StatusOK, map[string]string{"price": q.price(side)})
	}
}

func (h *Handler) midpoint(w http.ResponseWriter, r *http.Request) {
	var q quote
	if h.withToken(w, r.URL.Query().Get("token_id"), clob.ErrNoOrderbook, func(mk *clobengine.Market, o uint8) { q = quoteOf(mk, o) }) {
		writeJSON(w, http.StatusOK, map[string]string{"mid": q.mid()})
	}
}

func (h *Handler) spread(w http.ResponseWriter, r *http.Request) {
	var q quote
	if h.withToken(w, r.URL.Query().Get("token_id"), clob.ErrNoOrderbook, func(mk *clobengine.Market, o uint8) { q = quoteOf(mk, o) }) {
		writeJSON(w, http.StatusOK, map[string]string{"spread": q.spread()})
	}
}

// quotes serves POST /prices, /midpoints, /spreads.
func (h *Handler) quotes(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ps, ok := h.batchParams(w, r, maxBatchTokens)
		if !ok {
			return
		}
		if kind == "prices" {
			for _, p := range ps {
				if p.Side != "BUY" && p.Side != "SELL" {
					fail(w, clob.ErrInvalidSide)
					return
				}
			}
		}
		out := map[string]any{}
		if err := h.svc.View(func(m *clobengine.Machine) {
			for _, p := range ps {
				mk, o := m.TokenMarket(p.TokenID)
				if mk == nil {
					continue
				}
				q := quoteOf(mk, o)
				switch kind {
				case "prices":
					e, _ := out[p.TokenID].(map[string]string)
					if e == nil {
						e = map[string]string{}
						out[p.TokenID] = e
					}
					e[p.Side] = q.price(p.Side)
				case "midpoints":
					out[p.TokenID] = q.mid()
				default:
					out[p.TokenID] = q.spread()
				}
			}
		}); err != nil {
			WriteError(w, h.log, err, 0)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

type lastTrade struct {
	TokenID string `json:"token_id,omitempty"`
	Price   string `json:"price"`
	Side    string `json:"side"`
}

func lastOf(mk *clobengine.Market, o uint8) lastTrade {
	if lt := mk.Last[o]; lt.Price > 0 {
		return lastTrade{Price: clob.PriceText(lt.Price, mk.Ticks), Side: lt.Side}
	}
	return lastTrade{Price: "0.5", Side: ""}
}

func (h *Handler) lastTradePrice(w http.ResponseWriter, r *http.Request) {
	var lt lastTrade
	if h.withToken(w, r.URL.Query().Get("token_id"), clob.ErrNoOrderbook, func(mk *clobengine.Market, o uint8) { lt = lastOf(mk, o) }) {
		writeJSON(w, http.StatusOK, lt)
	}
}

func (h *Handler) lastTradesPrices(w http.ResponseWriter, r *http.Request) {
	ps, ok := h.batchParams(w, r, maxBatchTokens)
	if !ok {
		return
	}
	out := []lastTrade{}
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, p := range ps {
			if mk, o := m.TokenMarket(p.TokenID); mk != nil {
				lt := lastOf(mk, o)
				lt.TokenID = p.TokenID
				out = append(out, lt)
			}
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// tokenParam is the token id of ?token_id= or of the /{token_id} form.
func tokenParam(r *http.Request) string {
	if id := r.PathValue("token_id"); id != "" {
		return id
	}
	return r.URL.Query().Get("token_id")
}

func (h *Handler) tickSize(w http.ResponseWriter, r *http.Request) {
	var t string
	if h.withToken(w, tokenParam(r), clob.ErrMarketNotFound, func(mk *clobengine.Market, _ uint8) { t = clob.TickSize(mk.GridTicks()) }) {
		writeJSON(w, http.StatusOK, map[string]json.Number{"minimum_tick_size": json.Number(t)})
	}
}

func (h *Handler) negRisk(w http.ResponseWriter, r *http.Request) {
	var nr bool
	if h.withToken(w, tokenParam(r), clob.ErrMarketNotFound, func(mk *clobengine.Market, _ uint8) { nr = mk.NegRisk }) {
		writeJSON(w, http.StatusOK, map[string]bool{"neg_risk": nr})
	}
}

func (h *Handler) feeRate(w http.ResponseWriter, r *http.Request) {
	var fee int64
	if h.withToken(w, tokenParam(r), clob.ErrMarketNotFound, func(mk *clobengine.Market, _ uint8) { fee = mk.TakerFeeBps }) {
		writeJSON(w, http.StatusOK, map[string]int64{"base_fee": fee})
	}
}
