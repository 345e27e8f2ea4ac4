package dataapi_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"pmx/internal/data/ledger"
)

func TestTrades_KeysetWalkIsStableUnderWrites(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/trades?user={A}&limit=2&start=1")
	MustEqualRows(t, "page 1", p.Data, "size", "7", "13")
	// New fills arrive mid-walk, newer than every row served so far.
	w.MustApply(`
{"kind":"trade","tx_hash":"{H90}","log_index":0,"block_number":700,"timestamp":{T-10},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"90"}
`)
	rest := w.MustWalk("/v2/trades?user={A}&start=1&cursor="+url.QueryEscape(*p.Pagination.NextCursor), "user={A}&start=1")
	MustEqualRows(t, "rest", rest, "size", "12", "11", "10")
}

func TestTrades_CursorDoesNotCarryFilters(t *testing.T) {
	w := feedWorld(t)
	p := w.MustPage("/v2/trades?user={A}&limit=1&start=1")
	c := url.QueryEscape(*p.Pagination.NextCursor)
	// Changing a filter mid-walk re-anchors silently: no error.
	// (13 shares at 0.4 = 5.2 USDC fall under a 5.5 USDC filter; 12 at 0.5 pass.)
	next := w.MustPage("/v2/trades?user={A}&start=1&filter_type=CASH&filter_amount=5.5&cursor=" + c)
	MustEqualRows(t, "re-filtered", next.Data, "size", "12")
	// The cursor's page size wins over a new limit.
	if *next.Pagination.Limit != 1 || *next.Pagination.Offset != 1 {
		t.Fatalf("pagination %+v", next.Pagination)
	}
}

func TestTrades_BareFeedPreviousMonthAcrossTheYear(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(marketsLedger + `
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":1796000000,"user":"{B}","condition_id":"{M1}","amount":"100"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":1796083199,"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"1"}
{"kind":"trade","tx_hash":"{H3}","log_index":0,"block_number":12,"timestamp":1796083200,"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"2"}
`)
	// Now moves to 2027-01-10 12:00: the feed starts 2026-12-01 00:00.
	w.Clock.Advance(10108800 * time.Second)
	MustEqualRows(t, "global", w.MustPage("/v2/trades").Data, "size", "2")
	MustEqualRows(t, "user", w.MustPage("/v2/trades?user={A}").Data, "size", "2", "1")
}

func TestPositions_ClosedSetIsNotNarrowedByFilterAmount(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(pnlLedger)
	for _, q := range []string{"", "&filter_amount=500", "&filter_type=CASH&filter_amount=500"} {
		MustEqualRows(t, q, w.MustPage("/v2/positions?user={B}&status=CLOSED"+q).Data, "token_id", "11")
	}
	MustEqualRows(t, "open narrowed", w.MustPage("/v2/positions?user={B}&filter_amount=500").Data, "token_id")
}

func TestLedger_RejectedBatchIsNotHalfApplied(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(marketsLedger)
	// A malformed line: the parser names it and nothing is applied.
	bad := expand(`{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":{T-100},"user":"{B}","condition_id":"{M1}","amount":"100"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":{T-90},"token_id":"11","maker":"{B}","taker":"{A}","side":"HOLD","price":"0.5","size":"1"}
`)
	if _, err := ledger.ParseAll(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("parse error %v, want one naming line 2", err)
	}
	// A line the store rejects (an unknown token) rolls the whole batch back.
	evs, err := ledger.ParseAll(strings.NewReader(expand(`{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":{T-100},"user":"{B}","condition_id":"{M1}","amount":"100"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":{T-90},"token_id":"999","maker":"{B}","taker":"{A}","side":"BUY","price":"0.5","size":"1"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Apply(context.Background(), evs); err == nil {
		t.Fatal("store accepted a trade on an unknown token")
	}
	MustEqualRows(t, "nothing applied", w.MustPage("/v2/activity?user={B}&start=1").Data, "type")
	if r := w.MustGet("/v2/user-stats?user={B}", nil); !strings.Contains(string(r.Body), `"data":null`) {
		t.Fatalf("wallet exists after a rolled-back batch: %s", r.Body)
	}
}

func TestActivity_LargeWalkAcrossEqualTimestamps(t *testing.T) {
	w := MustWorld(t)
	// 60 rows sharing three timestamps: the (timestamp, sequence) order must
	// be total, so pages never split ties wrongly.
	var b strings.Builder
	b.WriteString(marketsLedger)
	for i := range 60 {
		fmt.Fprintf(&b, `{"kind":"reward","tx_hash":"{H%d}","log_index":%d,"block_number":%d,"timestamp":{T-%d},"user":"{A}","amount_usdc":"%d"}`+"\n",
			100+i, i%7, 50+i/7, 200-100*(i/20), i+1)
	}
	w.MustApply(b.String())
	all := w.MustPage("/v2/activity?user={A}&limit=100")
	if len(all.Data) != 60 {
		t.Fatalf("%d rows", len(all.Data))
	}
	for _, dir := range []string{"DESC", "ASC"} {
		all := w.MustPage("/v2/activity?user={A}&limit=100&sort_direction=" + dir)
		for _, limit := range []string{"1", "7", "20", "59"} {
			rows := w.MustWalk("/v2/activity?user={A}&sort_direction="+dir+"&limit="+limit, "user={A}")
			MustEqualRows(t, dir+" "+limit, rows, "usdc_size", col(all.Data, "usdc_size")...)
		}
	}
}

func TestFeeds_ConcurrentApplyAndWalks(t *testing.T) {
	w := feedWorld(t)
	before := w.MustWalk("/v2/activity?user={A}&start=1&limit=2", "user={A}&start=1")
	done := make(chan error, 1)
	go func() {
		// New fills for B land while A's walks run; none touches A.
		for i := range 20 {
			evs, err := ledger.ParseAll(strings.NewReader(expand(fmt.Sprintf(
				`{"kind":"trade","tx_hash":"{H%d}","log_index":0,"block_number":%d,"timestamp":{T-5},"token_id":"21","maker":"{B}","taker":"{C}","side":"BUY","price":"0.5","size":"1"}`,
				1000+i, 10_000+i))))
			if err == nil {
				_, err = w.DB.Apply(context.Background(), evs)
			}
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 5 {
		rows := w.MustWalk("/v2/activity?user={A}&start=1&limit=2", "user={A}&start=1")
		MustEqualRows(t, "A's walk", rows, "transaction_hash", col(before, "transaction_hash")...)
		w.MustWalk("/v2/trades?start=1&limit=3", "start=1")
		w.MustWalk("/v2/positions?user={C}&limit=1", "user={C}")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	MustEqualRows(t, "C's fills", w.MustPage("/v2/trades?user={C}&condition={M2}").Data, "size",
		strings.Fields(strings.Repeat("1 ", 20))...)
}
