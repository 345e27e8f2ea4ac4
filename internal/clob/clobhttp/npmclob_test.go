package clobhttp_test

import (
	"testing"

	"pmx/internal/npmtest"
)

// TestOfficialCLOBClients runs clients/clob-v1.test.mjs
// (@polymarket/clob-client 5.8.1) and clients/clob-v2.test.mjs
// (@polymarket/clob-client-v2 1.1.0) against the exchange on a real port
// with the real clock: each derives a key, lists markets, checks a book's
// hash, posts, lists, gets and cancels a resting order, cancels all, and
// crosses a second client so that both see the trade in getTrades.
func TestOfficialCLOBClients(t *testing.T) {
	node, dir := npmtest.MustNode(t), npmtest.MustClients(t)
	for _, tc := range []struct {
		script string
		keys   [2]string // Anvil #4/#5 and #6/#7, as in the scripts
	}{
		{"clob-v1.test.mjs", [2]string{"47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a", "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"}},
		{"clob-v2.test.mjs", [2]string{"92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e", "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			x := newExchange(t, "", nil, "enforce")
			for _, k := range tc.keys {
				x.fund(t, newWallet(t, k).addr, 1000, 100)
			}
			npmtest.MustRun(t, node, dir, []string{"PMX_CLOB_URL=" + x.srv.URL, "PMX_MARKET=" + condA, "PMX_TOKEN_YES=" + yesA},
				"--test", tc.script)
		})
	}
}
