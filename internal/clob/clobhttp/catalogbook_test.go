package clobhttp_test

import (
	"testing"
	"time"
)

// TestCatalogFollowsTheBook: the catalog market's bestBid, bestAsk, spread
// and liquidity (and liquidityClob, and the event's liquidity) follow the
// CLOB's book, and its one-hour and one-day price changes follow the
// trades, through the response cache pmx serve runs.
func TestCatalogFollowsTheBook(t *testing.T) {
	dir, path := newVenuePaths(t)
	v := newFullVenue(t, dir, path)
	a, b := v.trader(t, priv0), v.trader(t, priv1)
	v.fund(t, a.w.addr, 1000, 0)
	v.fund(t, b.w.addr, 1000, 100)
	matched := func(r reply) {
		t.Helper()
		if decode[orderResp](t, r).Status != "matched" {
			t.Fatalf("not matched: %s", r.body)
		}
	}
	market := func(want map[string]string) {
		t.Helper()
		eventuallyDoc(t, v.cat.URL+"/markets/9001", 10*time.Second, func(d any) bool {
			for k, w := range want {
				if field(d, k) != w {
					return false
				}
			}
			return true
		})
	}
	// A market the CLOB has never quoted nor traded keeps the catalog's own
	// figures (here none), as a read node shows them.
	market(map[string]string{"bestBid": "<nil>", "bestAsk": "<nil>", "spread": "<nil>"})

	// Trades two days ago at 0.30 and two hours ago at 0.40, then now at 0.55.
	for _, tr := range []struct {
		ago   time.Duration
		cents int64
	}{{48 * time.Hour, 30}, {2 * time.Hour, 40}, {0, 55}} {
		v.clk.set(time.Unix(now0, 0).Add(-tr.ago))
		a.post(t, limitOrder(yesA, "BUY", tr.cents, 5), "GTC", false)
		r, _ := b.post(t, limitOrder(yesA, "SELL", tr.cents, 5), "GTC", false)
		matched(r)
	}
	// Every order matched: an empty book now reads no bid (0), no ask (1),
	// no liquidity.
	market(map[string]string{"lastTradePrice": "0.55", "oneHourPriceChange": "0.15", "oneDayPriceChange": "0.25",
		"bestBid": "0", "bestAsk": "1", "spread": "1", "liquidityClob": "0"})

	// A book: bids 0.40 × 10 (a) and 0.20 × 50; asks 0.60 × 5 (b) and 0.70 × 8
	// (a NO bid at 0.30, resting in the same book). Midpoint 0.50: within
	// 0.10 of it rest 10 × 0.40 + 5 × 0.60 = 7 USDC.
	a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	a.post(t, limitOrder(yesA, "BUY", 20, 50), "GTC", false)
	b.post(t, limitOrder(yesA, "SELL", 60, 5), "GTC", false)
	a.post(t, limitOrder(noA, "BUY", 30, 8), "GTC", false)
	want := map[string]string{"bestBid": "0.4", "bestAsk": "0.6", "spread": "0.2", "liquidity": "7", "liquidityNum": "7", "liquidityClob": "7"}
	market(want)
	eventuallyDoc(t, v.cat.URL+"/events/9000", 10*time.Second, func(d any) bool { return field(d, "liquidity") == "7" })

	// The book moves: b's SELL takes the 0.40 bid; the 0.20 bid is now best.
	// Midpoint 0.40: both best prices are 0.20 from it, so nothing counts.
	matched(func() reply { r, _ := b.post(t, limitOrder(yesA, "SELL", 40, 10), "GTC", false); return r }())
	market(map[string]string{"bestBid": "0.2", "bestAsk": "0.6", "spread": "0.4", "liquidityClob": "0", "lastTradePrice": "0.4"})
	// A bid at 0.45 brings the midpoint to 0.525: 0.45 × 6 + 0.60 × 5 = 5.7.
	a.post(t, limitOrder(yesA, "BUY", 45, 6), "GTC", false)
	market(map[string]string{"bestBid": "0.45", "spread": "0.15", "liquidityClob": "5.7"})
}
