package dataapi

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"pmx/internal/store"
)

// TestAppendJSONStringWordPath puts each byte class that needs care at every
// offset of a 24-byte string, so plain8's 8-byte skip meets it in every lane.
func TestAppendJSONStringWordPath(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", "\n", " ", "~", "\x7f", "é", "\u2028", "\xff", "<"}
	for _, sp := range specials {
		for at := 0; at < 24; at++ {
			s := strings.Repeat("a", at) + sp + strings.Repeat("b", 24-at)
			got := appendJSONString(nil, s)
			want := bytes.TrimSuffix(stdJSON(t, s), []byte("\n"))
			if !bytes.Equal(got, want) {
				t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
			}
		}
	}
}

// TestAppendFeedPageMemo fills pages with strings drawn from a small pool
// (repeats, equal contents at different addresses, memo slot collisions,
// strings that need escaping) and compares with encoding/json.
func TestAppendFeedPageMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pool []string
	for i := 0; i < 300; i++ {
		n := 14 + r.IntN(30)
		b := make([]byte, n)
		for j := range b {
			b[j] = "abcdefgh \"\\\n\x01é/<>"[r.IntN(18)]
		}
		pool = append(pool, string(b), string(b)) // same contents, two allocations
	}
	s := func() string { return pool[r.IntN(len(pool))] }
	for round := 0; round < 20; round++ {
		var trades []store.Trade
		var acts []store.Activity
		for i := 0; i < 150; i++ {
			trades = append(trades, store.Trade{ProxyWallet: s(), TokenID: s(), ConditionID: s(), Title: s(),
				Slug: s(), Icon: s(), EventSlug: s(), Outcome: s(), Name: s(), Bio: s(), TransactionHash: s()})
			acts = append(acts, store.Activity{ProxyWallet: s(), ConditionID: s(), Title: s(), Slug: s(), Icon: s(),
				Name: s(), Pseudonym: s(), ProfileImage: s(), TransactionHash: s()})
		}
		p := Pagination{Limit: 150}
		for _, c := range []struct {
			rows any
			want []byte
		}{{trades, stdJSON(t, page{trades, p})}, {acts, stdJSON(t, page{acts, p})}} {
			got, ok := appendFeedPage(nil, c.rows, p)
			if !ok || !bytes.Equal(got, c.want) {
				t.Fatalf("round %d %T: got\n%s\nwant\n%s", round, c.rows, got, c.want)
			}
		}
	}
}

// BenchmarkAppendJSONString escapes strings shaped like a feed row's
// (hashes, titles, URLs): go test -run '^$' -bench AppendJSONString ./internal/dataapi/
func BenchmarkAppendJSONString(b *testing.B) {
	in := []string{"0x9f2c7a1be3d04f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c",
		"Will the Lakers win the 2026 NBA Finals?", "https://polymarket-upload.s3.us-east-2.amazonaws.com/lakers.png",
		"lakers-win-2026-nba-finals", "71321045679252212594626385532706912750332728571942532289631379312455583992563"}
	n := 0
	for _, s := range in {
		n += len(s)
	}
	b.SetBytes(int64(n))
	buf := make([]byte, 0, 4096)
	for range b.N {
		buf = buf[:0]
		for _, s := range in {
			buf = appendJSONString(buf, s)
		}
	}
}
