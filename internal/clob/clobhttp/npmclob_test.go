package clobhttp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pmx/internal/chain"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobsvc"
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

// TestOfficialClientFollowsTheMarketSocket runs clients/clob-ws.test.mjs: the
// official @polymarket/client subscribes to /ws/market with its own message
// and must parse the book snapshot, the price changes and the tick size
// changes that follow (operator orders placed and cancelled, and the tick
// size moved, while it listens).
func TestOfficialClientFollowsTheMarketSocket(t *testing.T) {
	node, dir := npmtest.MustNode(t), npmtest.MustClients(t)
	x := newExchange(t, "", nil, "enforce")
	const mm = "0x00000000000000000000000000000000000000aa"
	x.must(t, clobengine.Command{Op: clobengine.OpDeposit, Addr: mm, Amount: 1_000_000_000_000})
	order := func(i int, cents int64) clobengine.OrderInput {
		return clobengine.OrderInput{Hash: fmt.Sprintf("0x%064x", i), Token: yesA, Type: "GTC", Maker: mm, Signer: mm,
			APIKey: "mm", Version: 2, Stamp: 1, MakerAmt: 10 * cents * 10_000, TakerAmt: 10_000_000}
	}
	x.must(t, clobengine.Command{Op: clobengine.OpPlace, Orders: []clobengine.OrderInput{order(1, 40)}})
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // level changes while the client listens
		defer close(done)
		for i := 2; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			o := order(i, 30)
			x.svc.Submit(&clobengine.Command{Op: clobengine.OpPlace, Orders: []clobengine.OrderInput{o}})
			x.svc.Submit(&clobengine.Command{Op: clobengine.OpCancel, Addr: mm, IDs: []string{o.Hash}})
			if i%5 == 0 { // and tick size changes: 0.001, 0.01, ...
				x.svc.Submit(&clobengine.Command{Op: clobengine.OpTickSize, Cond: condA, Ticks: []int64{1000, 100}[i/5%2]})
			}
		}
	}()
	defer func() { close(stop); <-done }()
	npmtest.MustRun(t, node, dir, []string{"PMX_CLOB_URL=" + x.srv.URL, "PMX_CLOB_WS_MARKET=ws" + strings.TrimPrefix(x.srv.URL, "http") + "/ws/market",
		"PMX_TOKEN_YES=" + yesA}, "--experimental-websocket", "--test", "clob-ws.test.mjs")
}

// TestOfficialClientFollowsTheUserSocket runs clients/clob-user-ws.test.mjs:
// two secure @polymarket/client instances authenticate, subscribe to
// /ws/user with their API credentials, cross two limit orders with the
// client's own placeLimitOrder, and must parse the order events (PLACEMENT,
// UPDATE) and the trade's MATCHED, MINED and CONFIRMED events with the
// client's strict schemas.
func TestOfficialClientFollowsTheUserSocket(t *testing.T) {
	node, dir := npmtest.MustNode(t), npmtest.MustClients(t)
	x := newExchangeGated(t, "", nil, "enforce", nil, func(o *clobsvc.Options) { o.Chain = chain.Params{BlockTime: 100, Confirmations: 2} })
	for _, k := range []string{ // Anvil #8 and #9, as in the script
		"dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
		"2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
	} {
		x.fund(t, newWallet(t, k).addr, 1000, 100)
	}
	npmtest.MustRun(t, node, dir, []string{"PMX_CLOB_URL=" + x.srv.URL, "PMX_CLOB_WS_USER=ws" + strings.TrimPrefix(x.srv.URL, "http") + "/ws/user",
		"PMX_MARKET=" + condA, "PMX_TOKEN_YES=" + yesA}, "--experimental-websocket", "--test", "clob-user-ws.test.mjs")
}
