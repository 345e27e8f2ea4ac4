package dataapi_test

import (
	"net/url"
	"strings"
	"testing"
)

// marketsLedger declares the markets the position tests share: M1 and M3
// in event 101 (M3 archived), M2 in 102, M4 in 103.
const marketsLedger = `
{"kind":"market","condition_id":"{M1}","question":"Will it rain in Paris?","slug":"rain-paris","event_id":101,"event_slug":"weather","event_title":"Weather","category":"weather","outcomes":["Yes","No"],"token_ids":["11","12"],"end_date":"2026-12-31T00:00:00Z","icon":"https://img/rain.png"}
{"kind":"market","condition_id":"{M2}","question":"Bitcoin above 100k?","slug":"btc-100k","event_id":102,"event_slug":"crypto","event_title":"Crypto","category":"crypto","outcomes":["Yes","No"],"token_ids":["21","22"],"end_date":"2026-10-01T00:00:00Z"}
{"kind":"market","condition_id":"{M3}","question":"Will it snow in Oslo?","slug":"snow-oslo","event_id":101,"event_slug":"weather","event_title":"Weather","category":"weather","outcomes":["Yes","No"],"token_ids":["31","32"],"end_date":"2026-12-31T00:00:00Z","archived":true}
{"kind":"market","condition_id":"{M4}","question":"Lakers win?","slug":"lakers","event_id":103,"event_slug":"nba","event_title":"NBA","category":"sports","outcomes":["Yes","No"],"token_ids":["41","42"],"end_date":"2026-11-01T00:00:00Z"}
`

// bookLedger gives wallet D a book of five positions bought from B (who
// split 1000 of each market first):
//
//	token  size  price-paid  mark  value  last_event_at
//	11     100   0.20        0.2   20     T-4000
//	21      50   0.60        0.6   30     T-3000
//	31      10   0.90        0.9    9     T-2000  (archived market)
//	41       5   0.50        0.7    3.5   T-1500
//	42       2   0.30        0.3    0.6   T-1000  (M4's last fill marks 41 at 0.7)
const bookLedger = marketsLedger + `
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":900,"timestamp":{T-9000},"user":"{B}","condition_id":"{M1}","amount":"1000"}
{"kind":"split","tx_hash":"{H1}","log_index":1,"block_number":900,"timestamp":{T-9000},"user":"{B}","condition_id":"{M2}","amount":"1000"}
{"kind":"split","tx_hash":"{H1}","log_index":2,"block_number":900,"timestamp":{T-9000},"user":"{B}","condition_id":"{M3}","amount":"1000"}
{"kind":"split","tx_hash":"{H1}","log_index":3,"block_number":900,"timestamp":{T-9000},"user":"{B}","condition_id":"{M4}","amount":"1000"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":901,"timestamp":{T-4000},"token_id":"11","maker":"{B}","taker":"{D}","side":"BUY","price":"0.2","size":"100"}
{"kind":"trade","tx_hash":"{H3}","log_index":0,"block_number":902,"timestamp":{T-3000},"token_id":"21","maker":"{B}","taker":"{D}","side":"BUY","price":"0.6","size":"50"}
{"kind":"trade","tx_hash":"{H4}","log_index":0,"block_number":903,"timestamp":{T-2000},"token_id":"31","maker":"{B}","taker":"{D}","side":"BUY","price":"0.9","size":"10"}
{"kind":"trade","tx_hash":"{H5}","log_index":0,"block_number":904,"timestamp":{T-1500},"token_id":"41","maker":"{B}","taker":"{D}","side":"BUY","price":"0.5","size":"5"}
{"kind":"trade","tx_hash":"{H6}","log_index":0,"block_number":905,"timestamp":{T-1000},"token_id":"42","maker":"{B}","taker":"{D}","side":"BUY","price":"0.3","size":"2"}
`

func bookWorld(t *testing.T) *World {
	w := MustWorld(t)
	w.MustApply(bookLedger)
	return w
}

func TestPositions_SortsOrderRows(t *testing.T) {
	w := bookWorld(t)
	for _, tc := range []struct{ query, want string }{
		{"", "21 11 41 42"}, // default OPEN, CURRENT_VALUE DESC; archived excluded
		{"&sort_by=CURRENT_VALUE&sort_direction=ASC", "42 41 11 21"},
		{"&sort_by=TOKENS", "11 21 41 42"},
		{"&sort_by=TOKENS&sort_direction=ASC", "42 41 21 11"},
		{"&sort_by=PRICE", "41 21 42 11"},
		{"&sort_by=TIMESTAMP", "42 41 21 11"},
		{"&sort_by=TIMESTAMP&sort_direction=ASC", "11 21 41 42"},
		{"&sortBy=tokens&sortDirection=asc", "42 41 21 11"}, // camelCase, any-case enums
	} {
		p := w.MustPage("/v2/positions?user={D}" + tc.query)
		MustEqualRows(t, tc.query, p.Data, "token_id", strings.Fields(tc.want)...)
	}
}

func TestPositions_WalkVisitsEveryRowOnceInOrder(t *testing.T) {
	w := bookWorld(t)
	for _, q := range []string{"", "&sort_by=TOKENS", "&sort_by=PRICE&sort_direction=ASC", "&sort_by=TIMESTAMP",
		"&include_archived=true", "&status=MERGEABLE"} {
		all := w.MustPage("/v2/positions?user={D}" + q)
		for _, limit := range []string{"1", "2", "3"} {
			// Filters are not in the cursor: re-send them (restating the cohort is fine).
			rows := w.MustWalk("/v2/positions?user={D}&limit="+limit+q, "user={D}"+q)
			if got, want := strings.Join(col(rows, "token_id"), " "), strings.Join(col(all.Data, "token_id"), " "); got != want {
				t.Errorf("%s limit %s: walk %s, one page %s", q, limit, got, want)
			}
		}
	}
}

func TestPositions_MarketAnchorListsHolders(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?condition={M1}")
	// B: 900 YES at 0.2 = 180, 1000 NO at 0.8 = 800; D: 100 YES = 20.
	MustEqualRows(t, "holders", p.Data, "current_value", "800", "180", "20")
	MustEqualRows(t, "holders", p.Data, "proxy_wallet", V("{B}"), V("{B}"), V("{D}"))
	w.MustError("/v2/positions?condition={M1},{M2}", 400, "invalid_request", "condition", "exactly one condition")
}

func TestPositions_ArchivedOnlyWithIncludeArchived(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?user={D}&include_archived=true")
	MustEqualRows(t, "archived", p.Data, "token_id", "21", "11", "31", "41", "42")
	MustFields(t, "31", find(t, p.Data, "token_id", "31"), map[string]string{"archived": "true"})
	p = w.MustPage("/v2/positions?user={D}&includeArchived=1&title=oslo")
	MustEqualRows(t, "archived title", p.Data, "token_id", "31")
	w.MustError("/v2/positions?user={D}&include_archived=true&status=CLOSED", 400, "invalid_request", "include_archived", "CLOSED")
}

func TestPositions_TitleIsCaseInsensitiveLike(t *testing.T) {
	w := bookWorld(t)
	for _, tc := range []struct{ title, want string }{
		{"RAIN", "11"},
		{"bitcoin%100", "21"}, // % honoured
		{"L_kers", "41 42"},   // _ honoured
		{"  ", "21 11 41 42"}, // blank = absent
		{"nothing-matches", ""},
	} {
		p := w.MustPage("/v2/positions?user={D}&title=" + url.QueryEscape(tc.title))
		MustEqualRows(t, tc.title, p.Data, "token_id", strings.Fields(tc.want)...)
	}
	w.MustError("/v2/positions?user={D}&title="+strings.Repeat("x", 201), 400, "invalid_request", "title", "200")
}

func TestPositions_FilterTypeAndAmount(t *testing.T) {
	w := bookWorld(t)
	for _, tc := range []struct{ q, want string }{
		{"&filter_amount=10", "21 11"}, // TOKENS: at least 10 shares
		{"&filter_type=TOKENS&filter_amount=5", "21 11 41"},
		{"&filter_type=CASH&filter_amount=5", "21 11"}, // CASH: current_value at least 5
		{"&filterType=cash&filterAmount=1", "21 11 41"},
		{"&filter_amount=nonsense", "21 11 41 42"}, // invalid amount falls back to the default
	} {
		p := w.MustPage("/v2/positions?user={D}" + tc.q)
		MustEqualRows(t, tc.q, p.Data, "token_id", strings.Fields(tc.want)...)
	}
	w.MustError("/v2/positions?user={D}&filter_type=SHARES", 400, "invalid_request", "filter_type", "filterType must be CASH or TOKENS")
}

func TestPositions_StartEndBoundLastEventAt(t *testing.T) {
	w := bookWorld(t)
	for _, tc := range []struct{ q, want string }{
		{"&start={T-3000}", "21 41 42"},
		{"&end={T-3000}", "21 11"},
		{"&start={T-3000}&end={T-1200}", "21 41"},
		{"&start=0&end=0", "21 11 41 42"},
		{"&start={T-1200}&end={T-3000}", ""}, // inverted: an empty page, not an error
	} {
		p := w.MustPage("/v2/positions?user={D}" + tc.q)
		MustEqualRows(t, tc.q, p.Data, "token_id", strings.Fields(tc.want)...)
	}
	w.MustError("/v2/positions?user={D}&start=-1", 400, "invalid_request", "start", "")
}

func TestPositions_EventIDNarrowsUser(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?user={D}&event_id=101,103")
	MustEqualRows(t, "events", p.Data, "token_id", "11", "41", "42")
	p = w.MustPage("/v2/positions?user={D}&eventId=102&condition={M1}")
	MustEqualRows(t, "event and condition", p.Data, "token_id")
	p = w.MustPage("/v2/positions?user={D}&conditionId={M2},{M4}")
	MustEqualRows(t, "conditions narrow", p.Data, "token_id", "21", "41", "42")
}

func TestPositions_MergeableNeedsComplementaryPair(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?user={D}&status=MERGEABLE")
	// Default sort TOKENS: 5 then 2; rows keep status OPEN with mergeable=true.
	MustEqualRows(t, "mergeable", p.Data, "token_id", "41", "42")
	MustEqualRows(t, "mergeable", p.Data, "status", "OPEN", "OPEN")
	MustEqualRows(t, "mergeable", p.Data, "mergeable", "true", "true")
	MustFields(t, "11", find(t, w.MustPage("/v2/positions?user={D}").Data, "token_id", "11"), map[string]string{"mergeable": "false"})
}

// pnlLedger is the exact-figure history (the store's own tests use the same):
//
//	B splits 100 of M1 (YES and NO at 0.50 each);
//	A buys 100 YES from B at 0.40 (A taker, fee 1);
//	A sells 40 YES to C at 0.60 (A taker, fee 0.5);
//	C splits 10 then merges 10.
const pnlLedger = marketsLedger + `
{"kind":"split","tx_hash":"{H11}","log_index":0,"block_number":1000,"timestamp":{T-5000},"user":"{B}","condition_id":"{M1}","amount":"100"}
{"kind":"trade","tx_hash":"{H12}","log_index":0,"block_number":1001,"timestamp":{T-4000},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.4","size":"100","fee_usdc":"1"}
{"kind":"trade","tx_hash":"{H13}","log_index":0,"block_number":1002,"timestamp":{T-3000},"token_id":"11","maker":"{C}","taker":"{A}","side":"SELL","price":"0.6","size":"40","fee_usdc":"0.5"}
{"kind":"split","tx_hash":"{H14}","log_index":0,"block_number":1003,"timestamp":{T-2000},"user":"{C}","condition_id":"{M1}","amount":"10"}
{"kind":"merge","tx_hash":"{H15}","log_index":0,"block_number":1004,"timestamp":{T-1000},"user":"{C}","condition_id":"{M1}","amount":"10"}
`

// resolveLedger resolves M1 YES; A and B redeem, C does not.
const resolveLedger = `
{"kind":"resolution","condition_id":"{M1}","payouts":["1","0"],"resolved_at":{T-900}}
{"kind":"redeem","tx_hash":"{H16}","log_index":0,"block_number":1005,"timestamp":{T-800},"user":"{A}","condition_id":"{M1}"}
{"kind":"redeem","tx_hash":"{H17}","log_index":0,"block_number":1006,"timestamp":{T-700},"user":"{B}","condition_id":"{M1}"}
`

// pos is the money figures of one position row, as served.
type pos struct{ size, cost, fees, avg, bought, realized, price, value, unreal, total, status string }

func (p pos) fields() map[string]string {
	return map[string]string{"current_size": p.size, "entry_cost_usdc": p.cost, "entry_fees_usdc": p.fees,
		"avg_price": p.avg, "total_size": p.bought, "realized_pnl": p.realized, "current_price": p.price,
		"current_value": p.value, "unrealized_pnl": p.unreal, "total_pnl": p.total, "status": p.status}
}

func TestPositions_ExactPnLForHandBuiltHistories(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		resolve     bool
		want        map[string]pos    // by token id; exactly these rows
		pct         map[string]string // percent_pnl by token id, where checked
	}{
		// 100 @ 0.40 = 40; selling 40 removes 16 of basis: 40×0.6 − 16 − 0.5 fee = 7.5.
		{"taker buy then sell", "user={A}", false, map[string]pos{
			"11": {"60", "24", "1", "0.4", "100", "7.5", "0.6", "36", "12", "19.5", "OPEN"}},
			map[string]string{"11": "50"}}, // (36 − 24) / 24
		// split 100 → 100 YES + 100 NO at 0.5 each; sold 100 YES at 0.4.
		{"maker sold split shares", "user={B}", false, map[string]pos{
			"12": {"100", "50", "0", "0.5", "100", "0", "0.4", "40", "-10", "-10", "OPEN"}},
			map[string]string{"12": "-20"}}, // (40 − 50) / 50
		{"maker sold split shares closed", "user={B}&status=CLOSED", false, map[string]pos{
			"11": {"0", "0", "0", "0.5", "100", "-10", "0.6", "0", "0", "-10", "CLOSED"}},
			map[string]string{"11": "0"}}, // no basis left
		// 40 YES @0.6 = 24; split 10 → YES 50 cost 29; merge 10 removes 5.8 for 5.
		{"split then merge", "user={C}", false, map[string]pos{
			"11": {"40", "23.2", "0", "0.58", "50", "-0.8", "0.6", "24", "0.8", "0", "OPEN"}}, nil},
		{"resolved unredeemed is redeemable", "user={C}&status=REDEEMABLE", true, map[string]pos{
			"11": {"40", "23.2", "0", "0.58", "50", "-0.8", "1", "40", "16.8", "16", "REDEEMABLE"}}, nil},
		{"open includes redeemable rows", "user={C}", true, map[string]pos{
			"11": {"40", "23.2", "0", "0.58", "50", "-0.8", "1", "40", "16.8", "16", "REDEEMABLE"}}, nil},
		// 7.5 + (60 × 1 − 24) = 43.5
		{"redeemed winner closes", "user={A}&status=CLOSED", true, map[string]pos{
			"11": {"0", "0", "1", "0.4", "100", "43.5", "1", "0", "0", "43.5", "CLOSED"}}, nil},
		{"redeemed loser closes", "user={B}&status=CLOSED", true, map[string]pos{
			"12": {"0", "0", "0", "0.5", "100", "-50", "0", "0", "0", "-50", "CLOSED"},
			"11": {"0", "0", "0", "0.5", "100", "-10", "1", "0", "0", "-10", "CLOSED"}}, nil},
		{"redeemed wallet has nothing open", "user={A}", true, map[string]pos{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := MustWorld(t)
			w.MustApply(pnlLedger)
			if tc.resolve {
				w.MustApply(resolveLedger)
			}
			rows := w.MustPage("/v2/positions?" + tc.query).Data
			if len(rows) != len(tc.want) {
				t.Fatalf("%d rows, want %d: %v", len(rows), len(tc.want), col(rows, "token_id"))
			}
			for tok, p := range tc.want {
				r := find(t, rows, "token_id", tok)
				MustFields(t, tok, r, p.fields())
				if pct, ok := tc.pct[tok]; ok {
					MustFields(t, tok, r, map[string]string{"percent_pnl": pct})
				}
				// total_cost_usdc = entry_cost_usdc + entry_fees_usdc, always.
				if r["total_cost_usdc"].(float64) != r["entry_cost_usdc"].(float64)+r["entry_fees_usdc"].(float64) {
					t.Errorf("%s: total_cost_usdc %v", tok, r["total_cost_usdc"])
				}
			}
		})
	}
}

func TestPositions_RedeemableWinnersFirstAndLostOnly(t *testing.T) {
	w := MustWorld(t)
	// D splits 10 of M2 (YES and NO at 0.5), buys 30 more NO; M2 resolves NO... then
	// YES is the loser (10 held), NO the winner (40 held).
	w.MustApply(marketsLedger + `
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":{T-900},"user":"{B}","condition_id":"{M2}","amount":"100"}
{"kind":"split","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":{T-800},"user":"{D}","condition_id":"{M2}","amount":"10"}
{"kind":"trade","tx_hash":"{H3}","log_index":0,"block_number":12,"timestamp":{T-700},"token_id":"22","maker":"{B}","taker":"{D}","side":"BUY","price":"0.5","size":"30"}
{"kind":"resolution","condition_id":"{M2}","payouts":["0","1"],"resolved_at":{T-600}}
`)
	p := w.MustPage("/v2/positions?user={D}&status=REDEEMABLE&sort_by=PRICE&sort_direction=ASC")
	// Winners first even under PRICE ASC.
	MustEqualRows(t, "redeemable", p.Data, "token_id", "22", "21")
	MustEqualRows(t, "redeemable", p.Data, "redeemable", "true", "true")
	p = w.MustPage("/v2/positions?user={D}&status=REDEEMABLE_LOST")
	MustEqualRows(t, "lost", p.Data, "token_id", "21")
	MustEqualRows(t, "lost", p.Data, "status", "REDEEMABLE")
	w.MustError("/v2/positions?condition={M2}&status=REDEEMABLE_LOST", 400, "invalid_request", "status", "requires 'user'")
}

func TestPositions_ClosedResidualSortsServeRealizedOrder(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	w.MustApply(resolveLedger)
	// B's closed rows: 11 realized −10, 12 realized −50.
	for _, q := range []string{"", "&sort_by=REALIZED_PNL", "&sort_by=TOKENS", "&sort_by=CURRENT_VALUE", "&sort_by=PRICE"} {
		p := w.MustPage("/v2/positions?user={B}&status=CLOSED" + q)
		MustEqualRows(t, "closed"+q, p.Data, "token_id", "11", "12")
	}
}

func TestPositions_CursorRestatingCohortIsOK(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?user={D}&status=OPEN&sort_by=TOKENS&limit=2")
	c := url.QueryEscape(*p.Pagination.NextCursor)
	next := w.MustPage("/v2/positions?user={D}&status=OPEN&sortBy=TOKENS&sort_direction=DESC&limit=500&cursor=" + c)
	MustEqualRows(t, "page 2", next.Data, "token_id", "41", "42")
	if *next.Pagination.Limit != 2 || *next.Pagination.Offset != 2 {
		t.Fatalf("cursor's size must win: %+v", next.Pagination)
	}
}

func TestPositions_CursorContradictingStatusIs400(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?user={D}&limit=1")
	c := url.QueryEscape(*p.Pagination.NextCursor)
	for _, q := range []string{"&status=CLOSED", "&sort_by=TOKENS", "&sort_direction=ASC"} {
		w.MustError("/v2/positions?user={D}&cursor="+c+q, 400, "invalid_request", "cursor", "contradicts")
	}
	// Another anchor contradicts the cursor too.
	w.MustError("/v2/positions?user={A}&cursor="+c, 400, "invalid_request", "cursor", "")
}

func TestPositions_BareCursorWithoutAnchorIs400(t *testing.T) {
	w := bookWorld(t)
	p := w.MustPage("/v2/positions?user={D}&limit=1")
	w.MustError("/v2/positions?cursor="+url.QueryEscape(*p.Pagination.NextCursor), 400, "invalid_request", "user",
		"required query param 'user' or 'condition' not provided")
	w.MustError("/v2/positions", 400, "invalid_request", "user", "required query param 'user' or 'condition' not provided")
}

func TestPositions_BadEnumsHaveExactMessages(t *testing.T) {
	w := bookWorld(t)
	w.MustError("/v2/positions?user={D}&status=WON", 400, "invalid_request", "status", "invalid position status: WON")
	w.MustError("/v2/positions?user={D}&sort_by=NOPE", 400, "invalid_request", "sort_by", "invalid position sortBy: NOPE")
	w.MustError("/v2/positions?user={D}&sortDirection=UP", 400, "invalid_request", "sort_direction", "sortDirection must be ASC or DESC")
}
