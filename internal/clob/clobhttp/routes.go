package clobhttp

import "net/http"

// exchangeRoutes are the order-book routes (docs/clob.md lists them).
func (h *Handler) exchangeRoutes() {
	pub := map[string]http.HandlerFunc{
		"GET /ok":                          func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, "OK") },
		"GET /version":                     func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]int{"version": 2}) },
		"GET /markets":                     h.listMarkets(false, false),
		"GET /simplified-markets":          h.listMarkets(true, false),
		"GET /sampling-markets":            h.listMarkets(false, true),
		"GET /sampling-simplified-markets": h.listMarkets(true, true),
		"GET /markets/{condition_id}":      h.market,
		"GET /clob-markets/{condition_id}": h.clobMarket,
		"GET /markets-by-token/{token_id}": h.marketByToken,
		"GET /book":                        h.book,
		"POST /books":                      h.books,
		"GET /price":                       h.price,
		"POST /prices":                     h.quotes("prices"),
		"GET /midpoint":                    h.midpoint,
		"POST /midpoints":                  h.quotes("midpoints"),
		"GET /spread":                      h.spread,
		"POST /spreads":                    h.quotes("spreads"),
		"GET /last-trade-price":            h.lastTradePrice,
		"POST /last-trades-prices":         h.lastTradesPrices,
		"GET /tick-size":                   h.tickSize,
		"GET /tick-size/{token_id}":        h.tickSize,
		"GET /neg-risk":                    h.negRisk,
		"GET /neg-risk/{token_id}":         h.negRisk,
		"GET /fee-rate":                    h.feeRate,
		"GET /fee-rate/{token_id}":         h.feeRate,
		"GET /prices-history":              h.pricesHistory,
		"GET /ohlc":                        h.ohlc,
		"DELETE /auth/builder-api-key":     h.revokeBuilderKey, // builder headers only
		"GET /builder/trades":              h.builderTrades,    // builder headers only
	}
	for p, f := range pub {
		h.mux.HandleFunc(p, f)
	}
	l2 := map[string]http.HandlerFunc{
		"DELETE /order":                    h.cancelOrder,
		"DELETE /orders":                   h.cancelOrders,
		"DELETE /cancel-all":               h.cancelAll,
		"DELETE /cancel-market-orders":     h.cancelMarket,
		"GET /data/order/{id}":             h.getOrder,
		"GET /data/orders":                 h.getOrders,
		"GET /data/trades":                 h.getTrades,
		"GET /balance-allowance":           h.balanceAllowance,
		"GET /balance-allowance/update":    h.balanceAllowance,
		"GET /auth/ban-status/closed-only": h.closedOnly,
		"GET /v1/user/rate-limit-tier":     h.rateLimitTier,
		"POST /v1/heartbeats":              h.heartbeat,
		"GET /order-scoring":               h.orderScoring,
		"POST /orders-scoring":             h.ordersScoring,
		"POST /auth/builder-api-key":       h.createBuilderKey,
		"GET /auth/builder-api-key":        h.listBuilderKeys,
	}
	for p, f := range l2 {
		h.mux.Handle(p, h.RequireL2(f))
	}
	h.mux.Handle("POST /order", h.requireL2Direct(h.postOrder))
	h.mux.Handle("POST /orders", h.requireL2Direct(h.postOrders))
}
