package clobhttp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

// Pagination (clob-and-catalog.md §3): the cursor is base64 of a decimal
// offset, "MA==" the first page, "LTE=" (-1) the end.
const (
	firstCursor = "MA=="
	endCursor   = "LTE="
)

func parseCursor(c string) (int, bool) {
	if c == "" {
		return 0, true
	}
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(b))
	if err != nil || n < -1 {
		return 0, false
	}
	return n, true
}

type page struct {
	Limit      int    `json:"limit"`
	Count      int    `json:"count"`
	NextCursor string `json:"next_cursor"`
	Data       any    `json:"data"`
}

// paginate cuts items at the cursor; n is the item count, sub returns the
// page's slice.
func paginate[T any](items []T, cursor string, size int) (page, bool) {
	off, ok := parseCursor(cursor)
	if !ok {
		return page{}, false
	}
	if off < 0 || off > len(items) {
		off = len(items)
	}
	end := min(off+size, len(items))
	next := endCursor
	if end < len(items) {
		next = base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	data := items[off:end]
	if data == nil {
		data = []T{}
	}
	return page{Limit: size, Count: len(data), NextCursor: next, Data: data}, true
}

type marketToken struct {
	TokenID string      `json:"token_id"`
	Outcome string      `json:"outcome"`
	Price   json.Number `json:"price"`
	Winner  bool        `json:"winner"`
}

type rewards struct {
	Rates     any         `json:"rates"`
	MinSize   json.Number `json:"min_size"`
	MaxSpread json.Number `json:"max_spread"`
}

// marketJSON is the CLOB Market object (§7.3).
type marketJSON struct {
	EnableOrderBook   bool          `json:"enable_order_book"`
	Active            bool          `json:"active"`
	Closed            bool          `json:"closed"`
	Archived          bool          `json:"archived"`
	AcceptingOrders   bool          `json:"accepting_orders"`
	AcceptingOrdersTS *string       `json:"accepting_order_timestamp"`
	MinimumOrderSize  json.Number   `json:"minimum_order_size"`
	MinimumTickSize   json.Number   `json:"minimum_tick_size"`
	ConditionID       string        `json:"condition_id"`
	QuestionID        string        `json:"question_id"`
	Question          string        `json:"question"`
	Description       string        `json:"description"`
	MarketSlug        string        `json:"market_slug"`
	EndDateISO        *string       `json:"end_date_iso"`
	GameStartTime     *string       `json:"game_start_time"`
	SecondsDelay      int64         `json:"seconds_delay"`
	FPMM              string        `json:"fpmm"`
	MakerBaseFee      int64         `json:"maker_base_fee"`
	TakerBaseFee      int64         `json:"taker_base_fee"`
	Notifications     bool          `json:"notifications_enabled"`
	NegRisk           bool          `json:"neg_risk"`
	NegRiskMarketID   string        `json:"neg_risk_market_id"`
	NegRiskRequestID  string        `json:"neg_risk_request_id"`
	Icon              string        `json:"icon"`
	Image             string        `json:"image"`
	Rewards           rewards       `json:"rewards"`
	Is5050            bool          `json:"is_50_50_outcome"`
	Tokens            []marketToken `json:"tokens"`
	Tags              []string      `json:"tags"`
}

type simplifiedJSON struct {
	ConditionID     string        `json:"condition_id"`
	Tokens          []marketToken `json:"tokens"`
	Rewards         rewards       `json:"rewards"`
	Active          bool          `json:"active"`
	Closed          bool          `json:"closed"`
	Archived        bool          `json:"archived"`
	AcceptingOrders bool          `json:"accepting_orders"`
}

func tokensOf(mk *clobengine.Market) []marketToken {
	out := make([]marketToken, 2)
	for i, t := range mk.Tokens {
		p := "0.5"
		if l := mk.Last[i]; l.Price > 0 {
			p = clob.PriceText(l.Price, mk.Ticks)
		}
		out[i] = marketToken{TokenID: t.ID, Outcome: t.Outcome, Price: json.Number(p)}
	}
	return out
}

func toMarketJSON(mk *clobengine.Market) marketJSON {
	var end *string
	if mk.EndDateISO != "" {
		e := mk.EndDateISO
		end = &e
	}
	return marketJSON{EnableOrderBook: true, Active: mk.Active, Closed: mk.Closed, Archived: mk.Archived,
		AcceptingOrders: mk.Accepting, MinimumOrderSize: json.Number(mk.MinSize.String()),
		MinimumTickSize: json.Number(clob.TickSize(mk.GridTicks())), ConditionID: mk.ConditionID, QuestionID: mk.QuestionID,
		Question: mk.Question, Description: mk.Description, MarketSlug: mk.Slug, EndDateISO: end,
		SecondsDelay: mk.SecondsDelay, MakerBaseFee: mk.MakerFeeBps, TakerBaseFee: mk.TakerFeeBps, NegRisk: mk.NegRisk,
		NegRiskMarketID: mk.NegRiskID, Icon: mk.Icon, Image: mk.Image,
		Rewards: rewards{MinSize: "0", MaxSpread: "0"}, Tokens: tokensOf(mk), Tags: []string{}}
}

const marketsPage = 1000

// listMarkets serves /markets, /sampling-markets and the simplified forms.
func (h *Handler) listMarkets(simplified, sampling bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Copy the markets on the engine goroutine; render outside it, so a
		// large listing does not hold up trading.
		var ms []clobengine.Market
		err := h.svc.View(func(m *clobengine.Machine) {
			for _, mk := range m.Markets() {
				if !sampling || (mk.Accepting && !mk.Closed) {
					ms = append(ms, *mk)
				}
			}
		})
		var full []marketJSON
		var simple []simplifiedJSON
		if err == nil {
			for i := range ms {
				mk := &ms[i]
				if simplified {
					simple = append(simple, simplifiedJSON{ConditionID: mk.ConditionID, Tokens: tokensOf(mk),
						Rewards: rewards{MinSize: "0", MaxSpread: "0"}, Active: mk.Active, Closed: mk.Closed,
						Archived: mk.Archived, AcceptingOrders: mk.Accepting})
				} else {
					full = append(full, toMarketJSON(mk))
				}
			}
		}
		if err != nil {
			WriteError(w, h.log, err, 0)
			return
		}
		cur := r.URL.Query().Get("next_cursor")
		var p page
		var ok bool
		if simplified {
			p, ok = paginate(simple, cur, marketsPage)
		} else {
			p, ok = paginate(full, cur, marketsPage)
		}
		if !ok {
			fail(w, clob.ErrInvalidPayload)
			return
		}
		writeJSON(w, http.StatusOK, p)
	}
}

func validCond(c string) bool {
	if len(c) != 66 || c[:2] != "0x" {
		return false
	}
	for _, ch := range c[2:] {
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f') {
			return false
		}
	}
	return true
}

// market is GET /markets/{condition_id}.
func (h *Handler) market(w http.ResponseWriter, r *http.Request) {
	cond := lower(r.PathValue("condition_id"))
	if !validCond(cond) {
		fail(w, clob.ErrInvalidMarket)
		return
	}
	var out *marketJSON
	if err := h.svc.View(func(m *clobengine.Machine) {
		if mk := m.MarketByCond(cond); mk != nil {
			j := toMarketJSON(mk)
			out = &j
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	if out == nil {
		fail(w, clob.ErrMarketNotFound)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// clobMarket is GET /clob-markets/{condition_id}: the compact market info
// clob-client-v2 caches (tokens t/o, mts, mos, nr, fd, fees).
func (h *Handler) clobMarket(w http.ResponseWriter, r *http.Request) {
	cond := lower(r.PathValue("condition_id"))
	if !validCond(cond) {
		fail(w, clob.ErrInvalidMarket)
		return
	}
	type tok struct {
		T string `json:"t"`
		O string `json:"o"`
	}
	type info struct {
		GST  *string     `json:"gst"`
		R    any         `json:"r"`
		T    []tok       `json:"t"`
		MOS  json.Number `json:"mos"`
		MTS  json.Number `json:"mts"`
		MBF  int64       `json:"mbf"`
		TBF  int64       `json:"tbf"`
		RFQE bool        `json:"rfqe"`
		NR   bool        `json:"nr"`
		FD   struct {
			R  json.Number `json:"r"`
			E  json.Number `json:"e"`
			TO bool        `json:"to"`
		} `json:"fd"`
	}
	var out *info
	if err := h.svc.View(func(m *clobengine.Machine) {
		if mk := m.MarketByCond(cond); mk != nil {
			out = &info{R: nil, T: []tok{{mk.Tokens[0].ID, mk.Tokens[0].Outcome}, {mk.Tokens[1].ID, mk.Tokens[1].Outcome}},
				MOS: json.Number(mk.MinSize.String()), MTS: json.Number(clob.TickSize(mk.GridTicks())), MBF: mk.MakerFeeBps,
				TBF: mk.TakerFeeBps, NR: mk.NegRisk}
			out.FD.R, out.FD.E, out.FD.TO = "0", "0", true
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	if out == nil {
		fail(w, clob.ErrMarketNotFound)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// marketByToken is GET /markets-by-token/{token_id}.
func (h *Handler) marketByToken(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("token_id")
	if !validToken(id) {
		fail(w, clob.ErrInvalidMarket)
		return
	}
	var out map[string]string
	if err := h.svc.View(func(m *clobengine.Machine) {
		if mk, _ := m.TokenMarket(id); mk != nil {
			out = map[string]string{"condition_id": mk.ConditionID, "primary_token_id": mk.Tokens[0].ID, "secondary_token_id": mk.Tokens[1].ID}
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	if out == nil {
		fail(w, clob.ErrMarketNotFound)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
