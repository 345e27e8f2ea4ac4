package dataapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// comboLedger: combo X1 = (M1 Yes) AND (M2 Yes), position ids 9001/9002.
// A buys 100 of outcome 0 at 0.2 (fee 1), splits 10 USDC into 10 of both
// outcomes (basis 0.5 each), wraps; both legs resolve Yes (X1 wins) and A
// redeems the 110 winning shares for 110 USDC, keeping the 10 losing ones.
const comboLedger = marketsLedger + `
{"kind":"combo_market","combo_condition_id":"{X1}","question":"Rain and BTC?","outcomes":["Yes","No"],"token_ids":["9001","9002"],"legs":[{"condition_id":"{M1}","outcome_index":0},{"condition_id":"{M2}","outcome_index":0}]}
{"kind":"combo_trade","tx_hash":"{H40}","log_index":0,"block_number":3000,"timestamp":{T-3000},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"side":"BUY","price":"0.2","size":"100","fee_usdc":"1"}
{"kind":"combo_activity","tx_hash":"{H41}","log_index":0,"block_number":3001,"timestamp":{T-2000},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"type":"SPLIT","size":"10","amount_usdc":"10"}
{"kind":"combo_activity","tx_hash":"{H42}","log_index":1,"block_number":3001,"timestamp":{T-2000},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"type":"WRAP","size":"10"}
`

const comboResolveLedger = `
{"kind":"resolution","condition_id":"{M1}","payouts":["1","0"],"resolved_at":{T-1500}}
{"kind":"resolution","condition_id":"{M2}","payouts":["1","0"],"resolved_at":{T-1400}}
{"kind":"combo_activity","tx_hash":"{H43}","log_index":0,"block_number":3002,"timestamp":{T-1000},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"type":"REDEEM","size":"110","payout_usdc":"110"}
`

func TestComboPositions_EntryCostAndLegs(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(comboLedger)
	p := w.MustPage("/v2/positions/combos?user={A}&sort_by=ENTRY_COST")
	if len(p.Data) != 2 {
		t.Fatalf("%d rows", len(p.Data))
	}
	r := p.Data[0]
	// 100 × 0.2 = 20 plus 10 × 0.5 from the split: 25 for 110 shares.
	MustFields(t, "combo", r, map[string]string{"combo_condition_id": V("{X1}"), "outcome_index": "0",
		"outcome_label": "Yes", "combo_position_id": "9001", "proxy_wallet": V("{A}"), "current_size": "110",
		"entry_cost_usdc": "25", "entry_fees_usdc": "1", "gross_entry_cost_usdc": "26", "status": "OPEN",
		"redeemable": "false", "resolved_at": "null", "legs_total": "2", "legs_resolved": "0", "legs_pending": "2",
		"first_entry_at":        Now.Add(-3000e9).UTC().Format("2006-01-02T15:04:05Z"),
		"first_entry_at_micros": fmt.Sprint((now - 3000) * 1_000_000),
		"updated_at_micros":     fmt.Sprint((now - 2000) * 1_000_000)})
	MustFields(t, "other outcome", p.Data[1], map[string]string{"outcome_index": "1", "outcome_label": "No",
		"combo_position_id": "9002", "current_size": "10", "entry_cost_usdc": "5", "entry_fees_usdc": "0"})
	legs := r["legs"].([]any)
	if len(legs) != 2 {
		t.Fatalf("legs %v", legs)
	}
	MustFields(t, "leg 0", legs[0].(map[string]any), map[string]string{"leg_index": "0", "leg_condition_id": V("{M1}"),
		"leg_outcome_index": "0", "leg_outcome_label": "Yes", "leg_status": "OPEN", "leg_resolved_at": "null"})
	// Value counts the unresolved combos at cost basis.
	MustFields(t, "value", w.Data("/v2/value?user={A}"), map[string]string{"value": "30"})
	MustFields(t, "value scoped", w.Data("/v2/value?user={A}&condition={M1}"), map[string]string{"value": "0"})

	w.MustApply(comboResolveLedger)
	p = w.MustPage("/v2/positions/combos?user={A}&status=RESOLVED_WIN")
	MustEqualRows(t, "won", p.Data, "outcome_index", "0")
	MustEqualRows(t, "won", p.Data, "realized_payout_usdc", "110")
	MustEqualRows(t, "won", p.Data, "legs_resolved", "2")
	MustEqualRows(t, "won", p.Data, "current_size", "0")
	p = w.MustPage("/v2/positions/combos?user={A}&status=RESOLVED_LOSS")
	MustEqualRows(t, "lost", p.Data, "outcome_index", "1")
	MustEqualRows(t, "lost", p.Data, "current_size", "10")
	MustFields(t, "resolved value", w.Data("/v2/value?user={A}"), map[string]string{"value": "0"}) // terminal combos drop out
	w.MustError("/v2/positions/combos?user={A}&status=REDEEMABLE,OPEN", 400, "invalid_request", "status", "REDEEMABLE")
	w.MustError("/v2/positions/combos?user={A}&updated_after=10&updated_before=5", 400, "invalid_request", "updated_before", "")
	w.MustError("/v2/positions/combos?user={A}&updated_after=-1", 400, "invalid_request", "updated_after", "")
}

func TestComboActivity_NewestFirstWithCashAndPayout(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(comboLedger + comboResolveLedger)
	p := w.MustPage("/v2/activity/combos?user={A}")
	MustEqualRows(t, "types", p.Data, "type", "REDEEM", "WRAP", "SPLIT")
	MustEqualRows(t, "cash", p.Data, "amount_usdc", "null", "null", "10")
	MustEqualRows(t, "payout", p.Data, "payout_usdc", "110", "null", "null")
	MustEqualRows(t, "ids", p.Data, "id", expand("{H43}")+"-0", expand("{H42}")+"-1", expand("{H41}")+"-0")
	MustEqualRows(t, "blocks", p.Data, "block_number", "3002", "3001", "3001")
	rows := w.MustWalk("/v2/activity/combos?user={A}&limit=1", "user={A}")
	MustEqualRows(t, "walk", rows, "id", col(p.Data, "id")...)
	// The combo trade is in /v2/activity (is_combo), not in /v2/trades.
	act := w.MustPage("/v2/activity?user={A}&type=TRADE")
	MustFields(t, "combo trade", act.Data[0], map[string]string{"is_combo": "true", "condition_id": V("{X1}"), "token_id": "9001"})
	MustEqualRows(t, "trades", w.MustPage("/v2/trades?user={A}").Data, "size")
	other := "0x03" + strings.Repeat("0", 59) + "2"
	MustEqualRows(t, "other combo", w.MustPage("/v2/activity/combos?user={A}&condition="+other).Data, "type")
}

func TestComboPositions_WalkVisitsEveryRowOnceInOrder(t *testing.T) {
	w := MustWorld(t)
	var b strings.Builder
	b.WriteString(marketsLedger)
	// Five combos over M1×M2 and M3×M4, A buys a different amount of each at
	// a different time.
	for i := 1; i <= 5; i++ {
		id := fmt.Sprintf("0x03%060x", 100+i)
		fmt.Fprintf(&b, `{"kind":"combo_market","combo_condition_id":"%s","outcomes":["Yes","No"],"token_ids":["%d1","%d2"],"legs":[{"condition_id":"{M1}","outcome_index":%d},{"condition_id":"{M2}","outcome_index":0}]}
{"kind":"combo_trade","tx_hash":"{H%d}","log_index":0,"block_number":%d,"timestamp":{T-%d},"user":"{A}","combo_condition_id":"%s","outcome_index":%d,"side":"BUY","price":"0.%d","size":"%d"}
`, id, 800+i, 800+i, i%2, 50+i, 4000+i, 1000*(6-i)+7*i, id, i%2, i, 10*((i*3)%5+1))
	}
	w.MustApply(b.String())
	for _, q := range []string{"", "&sort_by=ENTRY_COST", "&sort_by=UPDATED&sort_direction=ASC", "&sort_by=CURRENT_VALUE&sort_direction=ASC", "&sort_direction=ASC"} {
		all := w.MustPage("/v2/positions/combos?user={A}" + q)
		if len(all.Data) != 5 {
			t.Fatalf("%s: %d rows", q, len(all.Data))
		}
		for _, limit := range []string{"1", "2", "4"} {
			rows := w.MustWalk("/v2/positions/combos?user={A}&limit="+limit+q, "user={A}")
			MustEqualRows(t, q+" limit "+limit, rows, "combo_condition_id", col(all.Data, "combo_condition_id")...)
		}
	}
	p := w.MustPage("/v2/positions/combos?user={A}&limit=2&sort_by=ENTRY_COST")
	c := *p.Pagination.NextCursor
	w.MustPage("/v2/positions/combos?user={A}&sort_by=ENTRY_COST&sortDirection=DESC&cursor=" + c)
	w.MustError("/v2/positions/combos?user={A}&sort_by=UPDATED&cursor="+c, 400, "invalid_request", "cursor", "contradicts")
	w.MustError("/v2/positions/combos?user={B}&cursor="+c, 400, "invalid_request", "cursor", "contradicts")
	// CURRENT_VALUE is an alias of ENTRY_COST: restating the other spelling agrees.
	c2 := *w.MustPage("/v2/positions/combos?user={A}&limit=2&sort_by=CURRENT_VALUE").Pagination.NextCursor
	next := w.MustPage("/v2/positions/combos?user={A}&sort_by=ENTRY_COST&cursor=" + c2)
	same := w.MustPage("/v2/positions/combos?user={A}&cursor=" + c)
	MustEqualRows(t, "alias", next.Data, "combo_condition_id", col(same.Data, "combo_condition_id")...)
	w.MustError("/v2/positions/combos?cursor="+c, 400, "invalid_request", "user", "required query param 'user' not provided")
}

func TestComboPositions_SyncWatermarkCappedNinetySecondsBeforeNow(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(marketsLedger + `
{"kind":"combo_market","combo_condition_id":"{X1}","outcomes":["Yes","No"],"token_ids":["9001","9002"],"legs":[{"condition_id":"{M1}","outcome_index":0},{"condition_id":"{M2}","outcome_index":0}]}
{"kind":"combo_trade","tx_hash":"{H40}","log_index":0,"block_number":3000,"timestamp":{T-100},"user":"{A}","combo_condition_id":"{X1}","outcome_index":0,"side":"BUY","price":"0.2","size":"10"}
{"kind":"combo_trade","tx_hash":"{H41}","log_index":0,"block_number":3001,"timestamp":{T-30},"user":"{A}","combo_condition_id":"{X1}","outcome_index":1,"side":"BUY","price":"0.8","size":"10"}
`)
	MustEqualRows(t, "no watermark", w.MustPage("/v2/positions/combos?user={A}&sort_by=UPDATED").Data, "outcome_index", "1", "0")
	MustEqualRows(t, "after", w.MustPage("/v2/positions/combos?user={A}&updated_after={T-1000}").Data, "outcome_index", "0")
	MustEqualRows(t, "before", w.MustPage("/v2/positions/combos?user={A}&updatedBefore={T}").Data, "outcome_index", "0")
	w.Clock.Advance(time.Minute)
	MustEqualRows(t, "settled", w.MustPage("/v2/positions/combos?user={A}&updated_after={T-1000}&sort_by=UPDATED&sort_direction=ASC").Data, "outcome_index", "0", "1")
}
