package dataapi_test

import (
	"strconv"
	"testing"
)

// The contract's own field names (interface.md, "Data service rows named in
// the interface"), served beside production's spellings.

// "Activity row: block_timestamp, sequence_id (ordering pair)."
func TestContract_ActivityRowCarriesBlockTimestampAndSequenceIDOrderingPair(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(feedLedger)
	for _, q := range []string{"/v2/activity?user={A}&limit=3", "/v2/activity?user={A}&limit=3&sort_direction=ASC"} {
		rows := w.MustWalk(q, "user={A}")
		if len(rows) < 5 {
			t.Fatalf("%s: %d rows", q, len(rows))
		}
		asc := q[len(q)-3:] == "ASC"
		for i, r := range rows {
			if str(r["block_timestamp"]) != str(r["timestamp"]) {
				t.Errorf("row %d: block_timestamp %s, timestamp %s", i, str(r["block_timestamp"]), str(r["timestamp"]))
			}
			if i == 0 {
				continue
			}
			p := rows[i-1]
			pt, _ := strconv.ParseInt(str(p["block_timestamp"]), 10, 64)
			ps, _ := strconv.ParseInt(str(p["sequence_id"]), 10, 64)
			ct, _ := strconv.ParseInt(str(r["block_timestamp"]), 10, 64)
			cs, _ := strconv.ParseInt(str(r["sequence_id"]), 10, 64)
			before := pt < ct || (pt == ct && ps < cs)
			if before != asc || (pt == ct && ps == cs) {
				t.Errorf("%s: rows %d,%d not strictly ordered by (block_timestamp, sequence_id): (%d,%d) then (%d,%d)",
					q, i-1, i, pt, ps, ct, cs)
			}
		}
	}
	// sequence_id = block × 10^7 + log_index × 10 + participant (0 taker, 1 maker).
	rows := w.MustWalk("/v2/activity?user={A}&type=TRADE&limit=50&start=1", "")
	MustFields(t, "A's taker fill in block 101", find(t, rows, "transaction_hash", expand("{H2}")),
		map[string]string{"sequence_id": "1010000000"})
	MustFields(t, "A's maker fill in block 400", find(t, rows, "transaction_hash", expand("{H6}")),
		map[string]string{"sequence_id": "4000000001"})
}

// "Biggest-winner row: title. For kind = combo: title is the legs' titles
// joined with ' / ', event_id is 0, event_slug is empty."
func TestContract_BiggestWinnerRowCarriesTitle(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	rows := w.MustWalk("/v2/biggest-winners?time_period=all", "")
	market := find(t, rows, "kind", "market")
	MustFields(t, "market row", market, map[string]string{"title": "Lions vs. Hawks", "event_title": "Lions vs. Hawks",
		"event_id": "100", "event_slug": "lions-vs-hawks"})
	combo := find(t, rows, "kind", "combo")
	MustFields(t, "combo row", combo, map[string]string{"title": "Will Lions win? / Will Team Liquid win?",
		"event_id": "0", "event_slug": ""})
}

// "Builders leaderboard row: builder (display name; falls back to
// builder_code when the builder has no profile)"; builders volume rows alike.
func TestContract_BuilderRowsCarryBuilderFallingBackToCode(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(boardsLedger)
	board := w.MustWalk("/v2/builders/leaderboard?time_period=all", "")
	MustFields(t, "named builder", find(t, board, "builder_code", V("{BC1}")), map[string]string{"builder": "betmoar"})
	MustFields(t, "unnamed builder", find(t, board, "builder_code", V("{BC2}")), map[string]string{"builder": V("{BC2}")})
	vol := w.MustPageless("/v2/builders/volume?interval=all")
	MustFields(t, "volume, named", find(t, vol, "builder_code", V("{BC1}")), map[string]string{"builder": "betmoar"})
	MustFields(t, "volume, unnamed", find(t, vol, "builder_code", V("{BC2}")), map[string]string{"builder": V("{BC2}")})
}

// "Builders leaderboard row: volume (shares)": a builder's volume is what
// the orders it routed filled, each fill once. A builder that routed 60
// shares (two fills, 25 + 35) shows 60 on the board and in its bucket; an
// unrouted fill counts for nobody.
func TestContract_BuilderVolumeCountsEachRoutedFillOnceInShares(t *testing.T) {
	w := MustWorld(t)
	w.MustApply(marketsLedger + `
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":{T-7200},"user":"{B}","condition_id":"{M1}","amount":"1000"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":{T-3600},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.4","size":"25","builder_code":"{BC1}"}
{"kind":"trade","tx_hash":"{H3}","log_index":0,"block_number":12,"timestamp":{T-3500},"token_id":"11","maker":"{B}","taker":"{C}","side":"BUY","price":"0.4","size":"35","builder_code":"{BC1}"}
{"kind":"trade","tx_hash":"{H4}","log_index":0,"block_number":13,"timestamp":{T-3400},"token_id":"11","maker":"{B}","taker":"{D}","side":"BUY","price":"0.4","size":"40"}
`)
	board := w.MustWalk("/v2/builders/leaderboard?time_period=day", "")
	if len(board) != 1 {
		t.Fatalf("board rows %v", board)
	}
	MustFields(t, "board", board[0], map[string]string{"builder_code": V("{BC1}"), "volume": "60", "active_users": "1"})
	for _, iv := range []string{"day", "week", "month", "all"} {
		vol := w.MustPageless("/v2/builders/volume?interval=" + iv)
		if len(vol) != 1 {
			t.Fatalf("%s: rows %v", iv, vol)
		}
		MustFields(t, iv+" bucket", vol[0], map[string]string{"volume": "60", "rank": "1"})
	}
}
