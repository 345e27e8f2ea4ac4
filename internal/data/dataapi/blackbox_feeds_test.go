package dataapi_test

import (
	"net/url"
	"strings"
	"testing"
)

// feedLedger is wallet A's history for the feed tests (now = 2026-09-15
// 12:00 UTC; three years back = T-94694400; the global trades feed starts
// 2026-08-01 = T-3931200). Sizes name the rows: each fill has its own size.
//
//	size  when                      what
//	10    T-94694401 (3y + 1 s)     A buys 11 from B: outside the default window
//	11    T-94694400 (3y exactly)   A buys 11 from B: first row inside it
//	12    T-3931201 (Jul 31 23:59)  A buys 11 from B: outside the global feed
//	13    T-3931200 (Aug 1 00:00)   A buys 21 from B: first row of the global feed
//	3     T-3600                    C buys 11 from A (A is the maker, SELL)
//	0.005 T-1800                    A sells 11 to B: under the 0.01 trade filter
//	      T-1700..T-1100            reward, deposit, withdrawal, tip A→D, split,
//	                                merge, maker rebate
//	7     T+86400 (now + 1 day)     A buys 21 from B: last row inside the window
//	8     T+86401                   A buys 21 from B: outside it
const feedLedger = marketsLedger + `
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":100,"timestamp":{T-126144000},"user":"{B}","condition_id":"{M1}","amount":"1000"}
{"kind":"split","tx_hash":"{H1}","log_index":1,"block_number":100,"timestamp":{T-126144000},"user":"{B}","condition_id":"{M2}","amount":"1000"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":101,"timestamp":{T-94694401},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"10"}
{"kind":"trade","tx_hash":"{H3}","log_index":0,"block_number":102,"timestamp":{T-94694400},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"11"}
{"kind":"trade","tx_hash":"{H4}","log_index":0,"block_number":200,"timestamp":{T-3931201},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"12"}
{"kind":"trade","tx_hash":"{H5}","log_index":0,"block_number":300,"timestamp":{T-3931200},"token_id":"21","maker":"{B}","taker":"{A}","side":"BUY","price":"0.4","size":"13"}
{"kind":"trade","tx_hash":"{H6}","log_index":0,"block_number":400,"timestamp":{T-3600},"token_id":"11","maker":"{A}","taker":"{C}","side":"BUY","price":"0.6","size":"3"}
{"kind":"trade","tx_hash":"{H7}","log_index":0,"block_number":500,"timestamp":{T-1800},"token_id":"11","maker":"{B}","taker":"{A}","side":"SELL","price":"0.5","size":"0.005"}
{"kind":"reward","tx_hash":"{H8}","log_index":0,"block_number":501,"timestamp":{T-1700},"user":"{A}","amount_usdc":"2"}
{"kind":"deposit","tx_hash":"{H9}","log_index":0,"block_number":502,"timestamp":{T-1600},"user":"{A}","amount_usdc":"100"}
{"kind":"withdrawal","tx_hash":"{H10}","log_index":0,"block_number":503,"timestamp":{T-1500},"user":"{A}","amount_usdc":"50"}
{"kind":"tip","tx_hash":"{H11}","log_index":0,"block_number":504,"timestamp":{T-1400},"from":"{A}","to":"{D}","amount_usdc":"1"}
{"kind":"split","tx_hash":"{H12}","log_index":0,"block_number":505,"timestamp":{T-1300},"user":"{A}","condition_id":"{M2}","amount":"5"}
{"kind":"merge","tx_hash":"{H13}","log_index":0,"block_number":506,"timestamp":{T-1200},"user":"{A}","condition_id":"{M2}","amount":"4"}
{"kind":"maker_rebate","tx_hash":"{H14}","log_index":0,"block_number":507,"timestamp":{T-1100},"user":"{A}","amount_usdc":"0.1"}
{"kind":"trade","tx_hash":"{H15}","log_index":0,"block_number":600,"timestamp":{T+86400},"token_id":"21","maker":"{B}","taker":"{A}","side":"BUY","price":"0.4","size":"7"}
{"kind":"trade","tx_hash":"{H16}","log_index":0,"block_number":601,"timestamp":{T+86401},"token_id":"21","maker":"{B}","taker":"{A}","side":"BUY","price":"0.4","size":"8"}
`

func feedWorld(t *testing.T) *World {
	w := MustWorld(t)
	w.MustApply(feedLedger)
	return w
}

func TestTrades_UserShapeWindowIsThreeYearsToNowPlusOneDay(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/trades?user={A}")
	MustEqualRows(t, "default window", p.Data, "size", "7", "13", "12", "11")
	p = w.MustPage("/v2/trades?user={A}&start=1")
	MustEqualRows(t, "start=1", p.Data, "size", "7", "13", "12", "11", "10")
	p = w.MustPage("/v2/trades?user={A}&start=0&end=0")
	MustEqualRows(t, "zero bounds", p.Data, "size", "7", "13", "12", "11")
	p = w.MustPage("/v2/trades?user={A}&start={T-3931201}&end={T+86401}")
	MustEqualRows(t, "explicit inclusive", p.Data, "size", "8", "7", "13", "12")
}

func TestTrades_ConditionShapeIsThreeYearsAndIgnoresStartEnd(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/trades?condition={M1}&start=1&end={T-3600}")
	MustEqualRows(t, "condition", p.Data, "size", "3", "12", "11")
	p = w.MustPage("/v2/trades?event_id=102")
	MustEqualRows(t, "event", p.Data, "size", "7", "13")
}

func TestTrades_BareFeedIsCurrentAndPreviousCalendarMonth(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/trades?start=1")
	MustEqualRows(t, "global", p.Data, "size", "7", "3", "13")
	// The taker's row: C bought from A.
	MustFields(t, "C's fill", find(t, p.Data, "size", "3"), map[string]string{"proxy_wallet": V("{C}"), "side": "BUY"})
}

func TestTrades_TakerOnlyFalseAddsMakerRows(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/trades?user={A}&taker_only=false&start={T-3931200}&end={T}")
	MustEqualRows(t, "with maker rows", p.Data, "size", "3", "13")
	MustFields(t, "A as maker", p.Data[0], map[string]string{"proxy_wallet": V("{A}"), "side": "SELL", "price": "0.6"})
	p = w.MustPage("/v2/trades?user={A}&takerOnly=true&start={T-3931200}&end={T}")
	MustEqualRows(t, "taker only", p.Data, "size", "13")
}

func TestTrades_FilterAmountDefaultsToOneCent(t *testing.T) {
	w := feedWorld(t)
	for _, tc := range []struct{ q, want string }{
		{"", "13"},
		{"&filter_amount=0", "13"},
		{"&filter_amount=0.001", "0.005 13"},
		{"&filter_type=CASH&filter_amount=5", "13"}, // 13 × 0.4 = 5.2 USDC
		{"&filter_type=CASH&filter_amount=5.3", ""}, // notional below
		{"&filterType=TOKENS&filterAmount=14", ""},  // shares below
		{"&side=SELL&filter_amount=0.001", "0.005"}, // side filter
		{"&side=buy", "13"},
	} {
		p := w.MustPage("/v2/trades?user={A}&start={T-3931200}&end={T}" + tc.q)
		MustEqualRows(t, tc.q, p.Data, "size", strings.Fields(tc.want)...)
	}
	w.MustError("/v2/trades?user={A}&side=HOLD", 400, "invalid_request", "side", "side must be BUY or SELL")
	w.MustError("/v2/trades?filter_type=USD", 400, "invalid_request", "filter_type", "filterType must be CASH or TOKENS")
}

func TestTrades_WalkVisitsEveryRowOnceInOrder(t *testing.T) {
	w := feedWorld(t)
	for _, q := range []string{"user={A}&start=1&taker_only=false&filter_amount=0.001", "condition={M1},{M2}", "start=1"} {
		all := w.MustPage("/v2/trades?" + q)
		for _, limit := range []string{"1", "2", "3"} {
			rows := w.MustWalk("/v2/trades?limit="+limit+"&"+q, q)
			MustEqualRows(t, q+" limit "+limit, rows, "transaction_hash", col(all.Data, "transaction_hash")...)
			MustEqualRows(t, q+" limit "+limit, rows, "size", col(all.Data, "size")...)
		}
	}
}

func TestActivity_DefaultTypesExcludeTipDepositWithdrawal(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/activity?user={A}")
	MustEqualRows(t, "types", p.Data, "type",
		"TRADE", "MAKER_REBATE", "MERGE", "SPLIT", "REWARD", "TRADE", "TRADE", "TRADE", "TRADE", "TRADE")
	MustEqualRows(t, "sizes", p.Data, "size", "7", "0.1", "4", "5", "2", "0.005", "3", "13", "12", "11")
}

func TestActivity_TipIsOptIn(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/activity?user={A}&type=TIP")
	MustEqualRows(t, "sender", p.Data, "side", "OUT")
	MustEqualRows(t, "sender", p.Data, "size", "1")
	p = w.MustPage("/v2/activity?user={D}&type=TIP,TRADE")
	MustEqualRows(t, "receiver", p.Data, "side", "IN")
	p = w.MustPage("/v2/activity?user={D}")
	MustEqualRows(t, "receiver default", p.Data, "type")
}

func TestActivity_DepositWithdrawalOnlyWhenNotExcluded(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/activity?user={A}&type=DEPOSIT,WITHDRAWAL")
	MustEqualRows(t, "excluded by default", p.Data, "type")
	p = w.MustPage("/v2/activity?user={A}&type=DEPOSIT,WITHDRAWAL&exclude_deposits_withdrawals=false")
	MustEqualRows(t, "named and allowed", p.Data, "type", "WITHDRAWAL", "DEPOSIT")
	MustEqualRows(t, "named and allowed", p.Data, "usdc_size", "50", "100")
	p = w.MustPage("/v2/activity?user={A}&excludeDepositsWithdrawals=false&start={T-1700}&end={T-1400}")
	MustEqualRows(t, "all types", p.Data, "type", "WITHDRAWAL", "DEPOSIT", "REWARD")
}

func TestActivity_WindowIsThreeYearsToNowPlusOneDay(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/activity?user={A}&type=TRADE&start=1")
	MustEqualRows(t, "start=1", p.Data, "size", "7", "0.005", "3", "13", "12", "11", "10")
	p = w.MustPage("/v2/activity?user={A}&type=TRADE&end={T+86401}&start={T-3600}")
	MustEqualRows(t, "bounds", p.Data, "size", "8", "7", "0.005", "3")
}

func TestActivity_SortDirectionAndCursorBindsIt(t *testing.T) {
	w := feedWorld(t)
	asc := w.MustPage("/v2/activity?user={A}&sort_direction=ASC&sort_by=TIMESTAMP")
	MustEqualRows(t, "asc", asc.Data, "size", "11", "12", "13", "3", "0.005", "2", "5", "4", "0.1", "7")
	// Resuming without restating the direction adopts the cursor's.
	rows := w.MustWalk("/v2/activity?user={A}&sort_direction=ASC&limit=3", "user={A}")
	MustEqualRows(t, "asc walk", rows, "size", col(asc.Data, "size")...)
	w.MustError("/v2/activity?user={A}&sort_by=CASH", 400, "invalid_request", "sort_by",
		"only sortBy=TIMESTAMP with sortDirection=DESC is supported")
}

func TestActivity_WalkVisitsEveryRowOnceInOrder(t *testing.T) {
	w := feedWorld(t)
	for _, q := range []string{"user={A}&start=1&exclude_deposits_withdrawals=false&type=TRADE,TIP,DEPOSIT,WITHDRAWAL,REWARD,SPLIT,MERGE,MAKER_REBATE",
		"user={A}&sort_direction=ASC", "user={A}&condition={M1}", "user={B}&start=1"} {
		all := w.MustPage("/v2/activity?" + q)
		if len(all.Data) < 3 {
			t.Fatalf("%s: only %d rows", q, len(all.Data))
		}
		for _, limit := range []string{"1", "2", "4"} {
			rows := w.MustWalk("/v2/activity?limit="+limit+"&"+q, q)
			MustEqualRows(t, q+" limit "+limit, rows, "transaction_hash", col(all.Data, "transaction_hash")...)
			MustEqualRows(t, q+" limit "+limit, rows, "type", col(all.Data, "type")...)
		}
	}
}

func TestActivity_ConditionAndEventFilters(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/activity?user={A}&condition={M2}")
	MustEqualRows(t, "condition", p.Data, "type", "TRADE", "MERGE", "SPLIT", "TRADE")
	p = w.MustPage("/v2/activity?user={A}&event_id=102")
	MustEqualRows(t, "event", p.Data, "type", "TRADE", "MERGE", "SPLIT", "TRADE")
	p = w.MustPage("/v2/activity?user={A}&side=SELL")
	MustEqualRows(t, "side", p.Data, "size", "0.005", "3")
	w.MustError("/v2/activity?user={A}&condition={M2}&event_id=102", 400, "invalid_request", "event_id", "mutually exclusive")
	w.MustError("/v2/activity?user={A}&type=TRADES", 400, "invalid_request", "type", "invalid activity type: TRADES")
}

func TestActivity_RowFields(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/activity?user={A}&start={T-3600}&end={T-3600}")
	MustFields(t, "maker fill", p.Data[0], map[string]string{"type": "TRADE", "side": "SELL", "size": "3", "usdc_size": "1.8",
		"price": "0.6", "token_id": "11", "condition_id": V("{M1}"), "outcome": "Yes", "outcome_index": "0",
		"title": "Will it rain in Paris?", "slug": "rain-paris", "event_slug": "weather", "proxy_wallet": V("{A}"),
		"transaction_hash": expand("{H6}"), "timestamp": expand("{T-3600}")})
	if _, ok := p.Data[0]["is_combo"]; ok {
		t.Errorf("is_combo must be omitted on plain trades")
	}
	p = w.MustPage("/v2/activity?user={A}&type=REWARD")
	MustFields(t, "reward", p.Data[0], map[string]string{"condition_id": "", "token_id": "", "side": "", "price": "0",
		"usdc_size": "2", "outcome_index": "999"})
}

func TestCursor_TypedPerRoute(t *testing.T) {
	w := feedWorld(t)
	tc := *w.MustPage("/v2/trades?user={A}&limit=1").Pagination.NextCursor
	ac := *w.MustPage("/v2/activity?user={A}&limit=1").Pagination.NextCursor
	pc := *w.MustPage("/v2/positions?user={B}&limit=1").Pagination.NextCursor
	for _, c := range []struct{ path, cur string }{
		{"/v2/activity?user={A}", tc},
		{"/v2/trades?user={A}", ac},
		{"/v2/positions?user={B}", ac},
		{"/v2/positions/combos?user={B}", pc},
		{"/v2/activity/combos?user={A}", tc},
	} {
		w.MustError(c.path+"&cursor="+url.QueryEscape(c.cur), 400, "invalid_request", "cursor", "invalid cursor")
	}
}

func TestCursor_TamperedIs400(t *testing.T) {
	w := feedWorld(t)
	c := *w.MustPage("/v2/trades?user={A}&limit=1").Pagination.NextCursor
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for _, bad := range []string{flip(c, 5), flip(c, len(c)/2), flip(c, len(c)-3), c[:len(c)-4], "garbage", c + "x"} {
		w.MustError("/v2/trades?user={A}&cursor="+url.QueryEscape(bad), 400, "invalid_request", "cursor", "invalid cursor")
	}
}

func TestCursor_HasMoreIsExactOnFullLastPage(t *testing.T) {
	w := feedWorld(t)
	// Four rows, page size 2: the second page is full and is the last.
	p := w.MustPage("/v2/trades?user={A}&limit=4")
	if len(p.Data) != 4 || *p.Pagination.HasMore {
		t.Fatalf("4 rows in one page of 4 must end the walk: %d rows, %+v", len(p.Data), p.Pagination)
	}
	rows := w.MustWalk("/v2/trades?user={A}&limit=2", "user={A}")
	if len(rows) != 4 {
		t.Fatalf("walk: %d rows", len(rows))
	}
}

func TestActivity_TypeRowsCarryTheirFields(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger + resolveLedger + `
{"kind":"tip","tx_hash":"{H60}","log_index":0,"block_number":2000,"timestamp":{T-100},"from":"{C}","to":"{A}","amount_usdc":"2.5"}
`)
	rows := w.MustPage("/v2/activity?user={A}&type=REDEEM,TIP,TRADE").Data
	MustEqualRows(t, "types", rows, "type", "TIP", "REDEEM", "TRADE", "TRADE")
	MustFields(t, "tip", rows[0], map[string]string{"side": "IN", "size": "2.5", "usdc_size": "2.5", "condition_id": "", "token_id": ""})
	// Redeeming 60 winning shares pays 60 USDC.
	MustFields(t, "redeem", rows[1], map[string]string{"condition_id": V("{M1}"), "usdc_size": "60",
		"title": "Will it rain in Paris?", "slug": "rain-paris", "event_slug": "weather", "side": ""})
	MustFields(t, "sell", rows[2], map[string]string{"side": "SELL", "size": "40", "usdc_size": "24", "price": "0.6"})
	MustFields(t, "buy", rows[3], map[string]string{"side": "BUY", "size": "100", "usdc_size": "40", "price": "0.4"})
	rows = w.MustPage("/v2/activity?user={C}&type=SPLIT,MERGE").Data
	MustEqualRows(t, "split/merge", rows, "type", "MERGE", "SPLIT")
	for _, r := range rows {
		MustFields(t, "lifecycle", r, map[string]string{"condition_id": V("{M1}"), "size": "10", "usdc_size": "10", "side": ""})
	}
	// C's side of the tip.
	MustFields(t, "tip out", w.MustPage("/v2/activity?user={C}&type=TIP").Data[0], map[string]string{"side": "OUT", "size": "2.5"})
}
