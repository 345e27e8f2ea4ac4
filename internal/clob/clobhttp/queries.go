package clobhttp

import (
	"net/http"
	"strconv"
	"time"

	"pmx/internal/chain"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobsvc"
)

// openOrderJSON is the OpenOrder object (§7.1): sizes in shares, status in
// the Rust SDK's spelling.
type openOrderJSON struct {
	ID              string   `json:"id"`
	Status          string   `json:"status"`
	Owner           string   `json:"owner"`
	MakerAddress    string   `json:"maker_address"`
	Market          string   `json:"market"`
	AssetID         string   `json:"asset_id"`
	Side            string   `json:"side"`
	OriginalSize    string   `json:"original_size"`
	SizeMatched     string   `json:"size_matched"`
	Price           string   `json:"price"`
	AssociateTrades []string `json:"associate_trades"`
	Outcome         string   `json:"outcome"`
	CreatedAt       int64    `json:"created_at"`
	Expiration      string   `json:"expiration"`
	OrderType       string   `json:"order_type"`
}

func openOrder(m *clobengine.Machine, o *clobengine.Order) openOrderJSON {
	mk := m.Market(o.Mkt)
	tr := o.Trades
	if tr == nil {
		tr = []string{}
	}
	return openOrderJSON{ID: o.Hash, Status: o.Status, Owner: o.APIKey, MakerAddress: o.Maker, Market: mk.ConditionID,
		AssetID: o.Token, Side: clobengine.SideName(o.Side), OriginalSize: microText(o.Orig), SizeMatched: microText(o.Filled),
		Price: clob.PriceText(o.Price, mk.Ticks), AssociateTrades: tr, Outcome: mk.Tokens[o.Outcome].Outcome,
		CreatedAt: o.Created / 1000, Expiration: strconv.FormatInt(o.Expiration, 10), OrderType: o.Type}
}

func (h *Handler) getOrder(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	id := lower(r.PathValue("id"))
	if !validOrderID(id) {
		fail(w, clob.ErrInvalidOrderID)
		return
	}
	var out *openOrderJSON
	if err := h.svc.View(func(m *clobengine.Machine) {
		if o := m.Order(id); o != nil && o.Signer == lower(k.Address.Hex()) {
			j := openOrder(m, o)
			out = &j
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	if out == nil {
		fail(w, clob.ErrOrderNotFound)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

const dataPage = 500

func (h *Handler) getOrders(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	q := r.URL.Query()
	id, cond, asset := lower(q.Get("id")), lower(q.Get("market")), q.Get("asset_id")
	if (id != "" && !validOrderID(id)) || (cond != "" && !validCond(cond)) || (asset != "" && !validToken(asset)) {
		fail(w, clob.ErrInvalidOrderParams)
		return
	}
	var out []openOrderJSON
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, o := range m.OpenOrders(lower(k.Address.Hex()), id, cond, asset) {
			out = append(out, openOrder(m, o))
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	p, ok := paginate(out, q.Get("next_cursor"), dataPage)
	if !ok {
		fail(w, clob.ErrInvalidOrderParams)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

type makerOrderJSON struct {
	OrderID       string `json:"order_id"`
	Owner         string `json:"owner"`
	MakerAddress  string `json:"maker_address"`
	MatchedAmount string `json:"matched_amount"`
	Price         string `json:"price"`
	FeeRateBps    string `json:"fee_rate_bps"`
	AssetID       string `json:"asset_id"`
	Outcome       string `json:"outcome"`
	Side          string `json:"side"`
}

// tradeJSON is the Trade object (§7.2).
type tradeJSON struct {
	ID              string           `json:"id"`
	TakerOrderID    string           `json:"taker_order_id"`
	Market          string           `json:"market"`
	AssetID         string           `json:"asset_id"`
	Side            string           `json:"side"`
	Size            string           `json:"size"`
	FeeRateBps      string           `json:"fee_rate_bps"`
	Price           string           `json:"price"`
	Status          string           `json:"status"`
	MatchTime       string           `json:"match_time"`
	LastUpdate      string           `json:"last_update"`
	Outcome         string           `json:"outcome"`
	BucketIndex     int              `json:"bucket_index"`
	Owner           string           `json:"owner"`
	MakerAddress    string           `json:"maker_address"`
	MakerOrders     []makerOrderJSON `json:"maker_orders"`
	TransactionHash string           `json:"transaction_hash"`
	TraderSide      string           `json:"trader_side"`
}

// tradeStatus is a trade's place on the simulated chain: MATCHED while
// pending, MINED once in a block, CONFIRMED once deep enough; and when it got
// there (Unix ms).
func tradeStatus(ch chain.Params, at, now int64) (string, int64) {
	switch ch.Status(at, now) {
	case chain.Mined:
		return "MINED", ch.MinedAt(at)
	case chain.Confirmed:
		return "CONFIRMED", ch.ConfirmedAt(at)
	}
	return "MATCHED", at
}

func (h *Handler) trade(m *clobengine.Machine, t *clobengine.Trade, me string, now time.Time) tradeJSON {
	mk := m.Market(t.Mkt)
	st, at := tradeStatus(h.svc.Chain(), t.Time, now.UnixMilli())
	side := "TAKER"
	if t.TakerSigner != me {
		side = "MAKER"
	}
	return tradeJSON{ID: t.ID, TakerOrderID: t.TakerOrder, Market: mk.ConditionID, AssetID: t.TakerToken,
		Side: clobengine.SideName(t.TakerSide), Size: microText(t.Size), FeeRateBps: strconv.FormatInt(t.TakerFeeBps, 10),
		Price: clob.PriceText(t.Price, mk.Ticks), Status: st, MatchTime: strconv.FormatInt(t.Time/1000, 10),
		LastUpdate: strconv.FormatInt(at/1000, 10), Outcome: mk.Tokens[t.TakerOut].Outcome,
		Owner: t.TakerKey, MakerAddress: t.TakerMaker, TransactionHash: txHash(t.ID), TraderSide: side,
		MakerOrders: []makerOrderJSON{{OrderID: t.MakerOrder, Owner: t.MakerKey, MakerAddress: t.MakerAddr,
			MatchedAmount: microText(t.Size), Price: clob.PriceText(t.MakerPrice, mk.Ticks), FeeRateBps: "0",
			AssetID: t.MakerToken, Outcome: mk.Tokens[t.MakerOut].Outcome, Side: clobengine.SideName(t.MakerSide)}}}
}

func (h *Handler) getTrades(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	q := r.URL.Query()
	id, cond, asset, maker := q.Get("id"), lower(q.Get("market")), q.Get("asset_id"), lower(q.Get("maker_address"))
	before, ok1 := optInt(r, "before")
	after, ok2 := optInt(r, "after")
	if !ok1 || !ok2 || (cond != "" && !validCond(cond)) || (asset != "" && !validToken(asset)) || (maker != "" && !validAddr(maker)) {
		fail(w, clob.ErrInvalidTradeParams)
		return
	}
	me := lower(k.Address.Hex())
	now := h.svc.Now()
	var out []tradeJSON
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, t := range m.Trades(func(t *clobengine.Trade) bool {
			mine := t.TakerSigner == me || t.MakerSigner == me
			return mine && (id == "" || t.ID == id) && (asset == "" || t.TakerToken == asset || t.MakerToken == asset) &&
				(cond == "" || m.Market(t.Mkt).ConditionID == cond) && (maker == "" || t.TakerMaker == maker || t.MakerAddr == maker) &&
				(before == 0 || t.Time/1000 < before) && (after == 0 || t.Time/1000 > after)
		}) {
			out = append(out, h.trade(m, t, me, now))
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	p, ok := paginate(out, q.Get("next_cursor"), dataPage)
	if !ok {
		fail(w, clob.ErrInvalidTradeParams)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func validAddr(a string) bool {
	if len(a) != 42 || a[:2] != "0x" {
		return false
	}
	return validCond(a + "000000000000000000000000") // 40 hex digits, checked as 64
}

// balanceAllowance is GET /balance-allowance (and its /update twin): the
// free balance in base units; allowances are unlimited (no chain), served
// both as allowance and as the per-spender allowances map.
func (h *Handler) balanceAllowance(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	q := r.URL.Query()
	at := q.Get("asset_type")
	if at != "COLLATERAL" && at != "CONDITIONAL" {
		fail(w, clob.ErrInvalidAssetType)
		return
	}
	st := q.Get("signature_type")
	if st == "" {
		st = "0"
	}
	if len(st) != 1 || st[0] < '0' || st[0] > '3' {
		fail(w, clob.ErrInvalidSignatureType)
		return
	}
	token := ""
	if at == "CONDITIONAL" {
		token = q.Get("token_id")
		if !validToken(token) {
			fail(w, clob.ErrInvalidTokenID)
			return
		}
	}
	me := lower(k.Address.Hex())
	var bal int64
	if err := h.svc.View(func(m *clobengine.Machine) {
		addr := me
		if st != "0" {
			addr = m.BoundMaker(me, st[0]-'0')
		}
		bal = m.Balance(addr, token)
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	const unlimited = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	c := clob.ContractsFor(h.svc.Domains.Chain)
	allow := map[string]string{}
	for _, a := range [][20]byte{c.Exchange, c.NegRiskExchange, c.ExchangeV2, c.NegRiskExchangeV2} {
		allow["0x"+hexLower(a[:])] = unlimited
	}
	if r.URL.Path == "/balance-allowance/update" {
		writeJSON(w, http.StatusOK, nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"balance": strconv.FormatInt(bal, 10), "allowance": unlimited, "allowances": allow})
}

func (h *Handler) closedOnly(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	var st string
	if err := h.svc.View(func(m *clobengine.Machine) { st = m.AddressStatus(lower(k.Address.Hex())) }); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"closed_only": st == clobengine.StatusClosedOnly})
}

func (h *Handler) rateLimitTier(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	t := clobsvc.Tiers[h.svc.TierOf(lower(k.Address.Hex()))]
	type b struct {
		Rate     int64 `json:"rate_per_second"`
		Burst    int64 `json:"burst"`
		Negative bool  `json:"negative_balance"`
	}
	writeJSON(w, http.StatusOK, map[string]any{"tier": t.Name, "min_volume_30d": t.MinVolume,
		"order": b{t.Order.Rate, t.Order.Burst, t.Order.Debt}, "cancel": b{t.Cancel.Rate, t.Cancel.Burst, t.Cancel.Debt}})
}

func (h *Handler) heartbeat(w http.ResponseWriter, r *http.Request) {
	k, _ := KeyFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{"heartbeat_id": h.svc.Heartbeat(k.APIKey)})
}

func (h *Handler) orderScoring(w http.ResponseWriter, r *http.Request) {
	id := lower(r.URL.Query().Get("order_id"))
	if !validOrderID(id) {
		fail(w, clob.ErrInvalidOrderID)
		return
	}
	var live bool
	if err := h.svc.View(func(m *clobengine.Machine) {
		o := m.Order(id)
		live = o != nil && o.Status == clobengine.StatusLive
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"scoring": live})
}

func (h *Handler) ordersScoring(w http.ResponseWriter, r *http.Request) {
	body, _ := readBody(w, r, h.maxBody)
	var ids []string
	if jsonUnmarshal(body, &ids) != nil || len(ids) > MaxCancelIDs {
		fail(w, clob.ErrInvalidPayload)
		return
	}
	out := map[string]bool{}
	if err := h.svc.View(func(m *clobengine.Machine) {
		for _, id := range ids {
			o := m.Order(lower(id))
			out[id] = o != nil && o.Status == clobengine.StatusLive
		}
	}); err != nil {
		WriteError(w, h.log, err, 0)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
