package dataapi

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/store"
)

// stdJSON is what writeJSON writes for v.
func stdJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var oddStrings = []string{"", "plain", `q"uote`, `back\slash`, "ctl\x00\x01\x1f\b\f\n\r\t", "<html>&amp;",
	"ünïcødé ✓ 😀", "bad\xffutf8\xc3", "sep\u2028\u2029", "\x7f del"}

func TestAppendFeedPageMatchesEncodingJSON(t *testing.T) {
	var trades []store.Trade
	var acts []store.Activity
	var poss []store.Position
	for i, s := range oddStrings {
		m := amount.Micro(int64(i)*1_234_567 - 3_000_001)
		trades = append(trades, store.Trade{ProxyWallet: s, Side: "BUY", TokenID: s, ConditionID: s, Size: m, Price: -m,
			Timestamp: int64(i) * 1e9, Title: s, Slug: s, Icon: s, EventSlug: s, Outcome: s, OutcomeIndex: 999 - i,
			Name: s, Pseudonym: s, Bio: s, ProfileImage: s, ProfileImageOptimized: s, TransactionHash: s})
		acts = append(acts, store.Activity{ProxyWallet: s, Timestamp: -int64(i), ConditionID: s, Type: s, Size: m,
			USDCSize: m * 3, TransactionHash: s, Price: m / 7, TokenID: s, Side: s, OutcomeIndex: i, Title: s, Slug: s,
			Icon: s, EventSlug: s, Outcome: s, Name: s, Pseudonym: s, Bio: s, ProfileImage: s, ProfileImageOptimized: s,
			IsCombo: i%2 == 1})
		poss = append(poss, store.Position{ProxyWallet: s, TokenID: s, ConditionID: s, CurrentSize: m, AvgPrice: m + 1,
			EntryCostUSDC: m + 2, EntryFeesUSDC: m + 3, TotalCostUSDC: m + 4, CurrentPrice: m + 5, CurrentValue: m + 6,
			TotalSize: m + 7, RealizedPnL: m + 8, UnrealizedPnL: m + 9, TotalPnL: m + 10, PercentPnL: m + 11,
			PercentRealizedPnL: m + 12, Status: s, Redeemable: i%2 == 0, Mergeable: i%3 == 0, NegativeRisk: i%4 == 0,
			Archived: i%5 == 0, Title: s, Slug: s, Icon: s, EventID: s, EventSlug: s, Outcome: s, OutcomeIndex: i,
			OppositeOutcome: s, OppositeTokenID: s, EndDate: s, LastEventAt: int64(i), FirstEntryAt: -int64(i),
			Name: s, ProfileImage: s, Verified: i%2 == 1})
	}
	for _, p := range []Pagination{{Limit: 100}, {Limit: 3, Offset: 6, NextCursor: "abc_-"}} {
		for _, rows := range []any{trades, acts, poss, []store.Trade(nil), []store.Activity{}, []store.Position(nil)} {
			got, ok := appendFeedPage(nil, rows, p)
			if !ok {
				t.Fatalf("%T not handled", rows)
			}
			var want []byte
			switch rs := rows.(type) {
			case []store.Trade:
				if rs == nil {
					rs = []store.Trade{}
				}
				want = stdJSON(t, page{rs, p})
			case []store.Activity:
				want = stdJSON(t, page{rs, p})
			case []store.Position:
				if rs == nil {
					rs = []store.Position{}
				}
				want = stdJSON(t, page{rs, p})
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%T:\n got %s\nwant %s", rows, got, want)
			}
		}
	}
	if _, ok := appendFeedPage(nil, []store.ComboActivity{}, Pagination{}); ok {
		t.Fatal("combo activity has no hand encoder")
	}
}

// TestPageMemoRandomPages: rows drawn from small pools of values (some
// long enough for the string memo, some sharing one allocation across
// fields, equal values in distinct allocations) encode exactly as
// encoding/json, so every memo hit, miss and collision is covered (seeded).
func TestPageMemoRandomPages(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	long := strings.Repeat("0123456789abcdef", 3)
	pool := []string{"", "Yes", long, long[:40], strings.Clone(long), `a "quoted" title that is long`, "https://pmx.example/i/1.png",
		"https://pmx.example/i/2.png", "ünïcødé outcome with length"}
	pick := func() string { return pool[rnd.IntN(len(pool))] }
	for range 200 {
		n := rnd.IntN(40)
		trades, acts, poss := make([]store.Trade, n), make([]store.Activity, n), make([]store.Position, n)
		for i := range n {
			trades[i] = store.Trade{ProxyWallet: pick(), Side: pick(), TokenID: pick(), ConditionID: pick(), Title: pick(),
				Slug: pick(), Icon: pick(), EventSlug: pick(), Outcome: pick(), OutcomeIndex: rnd.IntN(2), Name: pick(),
				Pseudonym: pick(), Bio: pick(), ProfileImage: pick(), ProfileImageOptimized: pick(), TransactionHash: pick()}
			acts[i] = store.Activity{ProxyWallet: pick(), ConditionID: pick(), Type: pick(), TransactionHash: pick(),
				TokenID: pick(), Side: pick(), Title: pick(), Slug: pick(), Icon: pick(), EventSlug: pick(), Outcome: pick(),
				Name: pick(), Pseudonym: pick(), Bio: pick(), ProfileImage: pick(), ProfileImageOptimized: pick(),
				IsCombo: rnd.IntN(2) == 0}
			poss[i] = store.Position{ProxyWallet: pick(), TokenID: pick(), Title: pick(), Name: pick(), ProfileImage: pick(),
				EventID: pick(), Outcome: pick(), EndDate: pick()}
		}
		for _, c := range []struct {
			rows any
			want []byte
		}{{trades, stdJSON(t, page{trades, Pagination{Limit: 100}})}, {acts, stdJSON(t, page{acts, Pagination{Limit: 100}})},
			{poss, stdJSON(t, page{poss, Pagination{Limit: 100}})}} {
			got, _ := appendFeedPage(nil, c.rows, Pagination{Limit: 100})
			if !bytes.Equal(got, c.want) {
				t.Fatalf("%T:\n got %s\nwant %s", c.rows, got, c.want)
			}
		}
	}
}
