package dataapi

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"pmx/internal/data/store"
)

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
