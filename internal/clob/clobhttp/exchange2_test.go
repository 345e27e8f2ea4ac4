package clobhttp_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
)

const orderTypeV2 = "Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)"

// sign1271 signs a V2 order for a deposit wallet as clob-client-v2 does for
// POLY_1271: the wallet is maker and signer; the EOA signs the ERC-7739
// TypedDataSign envelope, wrapped with the app domain, contents hash and
// type string.
func (w wallet) sign1271(wal []byte, o testOrder) (string, string) {
	salt := 1000 + saltN.Add(1)
	side := uint64(0)
	if o.Side == "SELL" {
		side = 1
	}
	contents := kec(kec([]byte(orderTypeV2)), word(uint64(salt)), addrWord(wal), addrWord(wal), bigWord(o.Token),
		word(uint64(o.MakerAmt)), word(uint64(o.TakerAmt)), word(side), word(3), word(uint64(o.Stamp)), make([]byte, 32), make([]byte, 32))
	dom := exchangeDomain("2", exV2)
	env := kec(kec([]byte("TypedDataSign(Order contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)"+orderTypeV2)),
		contents, kec([]byte("DepositWallet")), kec([]byte("1")), word(137), addrWord(wal), make([]byte, 32))
	c := ecdsa.SignCompact(w.priv, kec([]byte{0x19, 0x01}, dom, env), false)
	inner := append(append([]byte{}, c[1:]...), c[0])
	wrapped := append(append(append(append(inner, dom...), contents...), orderTypeV2...), 0, byte(len(orderTypeV2)))
	m := map[string]any{"salt": salt, "maker": "0x" + hex.EncodeToString(wal), "signer": "0x" + hex.EncodeToString(wal),
		"tokenId": o.Token, "makerAmount": strconv.FormatInt(o.MakerAmt, 10), "takerAmount": strconv.FormatInt(o.TakerAmt, 10),
		"side": o.Side, "signatureType": 3, "timestamp": strconv.FormatInt(o.Stamp, 10), "expiration": "0",
		"metadata": "0x" + hex.EncodeToString(make([]byte, 32)), "builder": "0x" + hex.EncodeToString(make([]byte, 32)),
		"signature": "0x" + hex.EncodeToString(wrapped)}
	b, _ := json.Marshal(m)
	return string(b), "0x" + hex.EncodeToString(kec([]byte{0x19, 0x01}, dom, contents))
}

// TestProxyAndWalletMakers: a POLY_PROXY maker and a POLY_1271 deposit
// wallet trade for the signer the operator tied them to; another key's
// orders for them, and orders for an untied funded address, are refused.
func TestProxyAndWalletMakers(t *testing.T) {
	x, _ := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	proxy := unhex("0x00000000000000000000000000000000000000a1")
	wal := unhex("0x00000000000000000000000000000000000000a2")
	// The operator's deposits tie both wallets to a's EOA (the chain's
	// proxy-factory and deposit-wallet records).
	for _, w := range []string{"0x00000000000000000000000000000000000000a1", "0x00000000000000000000000000000000000000a2"} {
		x.must(t, clobengine.Command{Op: clobengine.OpDeposit, Addr: w, Amount: 100_000_000, Signer: strings.ToLower(a.w.addr)})
	}
	// An unbound maker is refused, even funded: no one may spend another
	// address's balance by naming it as a funder.
	x.fund(t, "0x00000000000000000000000000000000000000a3", 100, 0)
	free := limitOrder(yesA, "BUY", 40, 10)
	free.Maker, free.SigType = unhex("0x00000000000000000000000000000000000000a3"), 2
	r0, _ := a.post(t, free, "GTC", false)
	r0.wantError(t, 400, msg(clob.ErrSignerMismatch))
	// Rebinding a wallet to another signer is refused.
	if res, _ := x.svc.Submit(&clobengine.Command{Op: clobengine.OpDeposit, Addr: "0x00000000000000000000000000000000000000a1",
		Amount: 1, Signer: strings.ToLower(b.w.addr)}); res.Err == nil {
		t.Fatal("a wallet moved to another signer")
	}

	o := limitOrder(yesA, "BUY", 40, 10)
	o.Maker, o.SigType = proxy, 1
	if r, _ := a.post(t, o, "GTC", false); r.status != 200 {
		t.Fatalf("proxy order: %s", r.body)
	}
	o2 := limitOrder(yesA, "BUY", 41, 10)
	o2.Maker, o2.SigType = proxy, 1
	r, _ := b.post(t, o2, "GTC", false)
	r.wantError(t, 400, msg(clob.ErrSignerMismatch))
	// The proxy's balance is what signature_type 1 reads for its signer.
	if bal := decode[map[string]any](t, a.call(t, "GET", "/balance-allowance?asset_type=COLLATERAL&signature_type=1", "")); bal["balance"] != "96000000" {
		t.Fatalf("proxy balance %v orders %s", bal, a.call(t, "GET", "/data/orders", "").body)
	}

	v2 := limitOrder(yesA, "BUY", 42, 10)
	v2.Stamp = now0 * 1000
	wire, id := a.w.sign1271(wal, v2)
	body := fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false}`, wire, a.c.APIKey)
	if o := decode[orderResp](t, a.call(t, "POST", "/order", body)); o.OrderID != id || o.Status != "live" {
		t.Fatalf("1271 order: %+v", o)
	}
	// The same wallet signed by another EOA is not the API key's signer.
	wire, _ = b.w.sign1271(wal, v2)
	body = fmt.Sprintf(`{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false}`, wire, a.c.APIKey)
	a.call(t, "POST", "/order", body).wantError(t, 400, msg(clob.ErrSignerMismatch))
}

// TestBatchPerOrderErrors: in post-only mode a batch answers 200 with each
// order's own outcome; a nonce increment voids the maker's live orders.
func TestBatchPerOrderErrors(t *testing.T) {
	x, _ := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 100, 0)
	x.must(t, clobengine.Command{Op: clobengine.OpMode, Mode: clobengine.ModePostOnly, Retry: 9})
	w1, id1 := a.w.sign(limitOrder(yesA, "BUY", 40, 10))
	w2, _ := a.w.sign(limitOrder(yesA, "BUY", 41, 10))
	body := fmt.Sprintf(`[{"order":%s,"owner":%q,"orderType":"GTC","postOnly":true},{"order":%s,"owner":%q,"orderType":"GTC","postOnly":false}]`,
		w1, a.c.APIKey, w2, a.c.APIKey)
	out := decode[[]orderResp](t, a.call(t, "POST", "/orders", body))
	if len(out) != 2 || !out[0].Success || out[0].OrderID != id1 || out[1].Success ||
		out[1].ErrorMsg != clob.Catalogue[clob.ErrPostOnlyMode].Msg {
		t.Fatalf("batch %+v", out)
	}
	x.must(t, clobengine.Command{Op: clobengine.OpMode, Mode: clobengine.ModeNormal})
	res := x.must(t, clobengine.Command{Op: clobengine.OpNonce, Addr: strings.ToLower(a.w.addr)})
	if len(res.Canceled) != 1 || res.Canceled[0] != id1 {
		t.Fatalf("nonce cancel %+v", res)
	}
	o := limitOrder(yesA, "BUY", 40, 10)
	o.Nonce = 1
	if r, _ := a.post(t, o, "GTC", false); r.status != 200 {
		t.Fatalf("order with the new nonce: %s", r.body)
	}
}

// TestCancelMarketAndAccountRoutes: cancel-market-orders filters by market
// and token; scoring, closed-only status and the tier route answer.
func TestCancelMarketAndAccountRoutes(t *testing.T) {
	x, _ := newClocked(t)
	a := x.trader(t, priv0)
	x.fund(t, a.w.addr, 100, 0)
	_, idA := a.post(t, limitOrder(yesA, "BUY", 40, 10), "GTC", false)
	_, idNo := a.post(t, limitOrder(noA, "BUY", 40, 10), "GTC", false)
	bo := limitOrder(yesB, "BUY", 40, 10)
	bo.NegRisk = true
	_, idB := a.post(t, bo, "GTC", false)
	sc := decode[map[string]bool](t, a.call(t, "POST", "/orders-scoring", `["`+idA+`","0x`+strings.Repeat("0", 64)+`"]`))
	if !sc[idA] || sc["0x"+strings.Repeat("0", 64)] {
		t.Fatalf("scoring %v", sc)
	}
	c := decode[map[string]any](t, a.call(t, "DELETE", "/cancel-market-orders", `{"market":"`+condA+`","asset_id":"`+yesA+`"}`))
	if fmt.Sprint(c["canceled"]) != "["+idA+"]" {
		t.Fatalf("by token %v", c)
	}
	c = decode[map[string]any](t, a.call(t, "DELETE", "/cancel-market-orders", `{"market":"`+condA+`"}`))
	if fmt.Sprint(c["canceled"]) != "["+idNo+"]" {
		t.Fatalf("by market %v", c)
	}
	if s := decode[map[string]bool](t, a.call(t, "GET", "/order-scoring?order_id="+idB, "")); !s["scoring"] {
		t.Fatal("live order not scoring")
	}
	if s := decode[map[string]bool](t, a.call(t, "GET", "/auth/ban-status/closed-only", "")); s["closed_only"] {
		t.Fatal("closed only")
	}
	if tier := decode[map[string]any](t, a.call(t, "GET", "/v1/user/rate-limit-tier", "")); tier["tier"] != "Standard" {
		t.Fatalf("tier %v", tier)
	}
}

// TestPriceHistoryAndOHLC: both are built from this venue's trades.
func TestPriceHistoryAndOHLC(t *testing.T) {
	x, clk := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 100, 0)
	x.fund(t, b.w.addr, 100, 50)
	for i, c := range []int64{40, 45, 42} {
		clk.set(time.Unix(now0+int64(i)*30, 0))
		a.post(t, limitOrder(yesA, "BUY", c, 5), "GTC", false)
		b.post(t, limitOrder(yesA, "SELL", c, 5), "GTC", false)
	}
	h := x.do(t, "GET", fmt.Sprintf("/prices-history?market=%s&startTs=%d&fidelity=1", yesA, now0-60), nil, "")
	if string(h.body) != fmt.Sprintf(`{"history":[{"t":%d,"p":0.45},{"t":%d,"p":0.42}]}`, now0/60*60, now0/60*60+60) {
		t.Fatalf("history %s", h.body)
	}
	o := x.do(t, "GET", fmt.Sprintf("/ohlc?asset_id=%s&startTs=%d&fidelity=1h", yesA, now0-60), nil, "")
	if string(o.body) != fmt.Sprintf(`[{"t":%d,"o":0.4,"h":0.45,"l":0.4,"c":0.42,"v":15}]`, now0/3600*3600) {
		t.Fatalf("ohlc %s", o.body)
	}
}

// TestTierFollowsVolume: the tier follows the signer's 30-day traded
// notional on this venue once the tiers are recomputed.
func TestTierFollowsVolume(t *testing.T) {
	x, _ := newClocked(t)
	a, b := x.trader(t, priv0), x.trader(t, priv1)
	x.fund(t, a.w.addr, 50_000, 0)
	x.fund(t, b.w.addr, 100_000, 100_000)
	a.post(t, limitOrder(yesA, "BUY", 40, 80_000), "GTC", false)
	if r, _ := b.post(t, limitOrder(yesA, "SELL", 40, 80_000), "GTC", false); r.status != 200 {
		t.Fatalf("%s", r.body)
	}
	tier := func(tr *trader) any {
		return decode[map[string]any](t, tr.call(t, "GET", "/v1/user/rate-limit-tier", ""))["tier"]
	}
	if tier(a) != "Standard" {
		t.Fatal("tier moved before the recomputation")
	}
	if err := x.svc.RecomputeTiers(); err != nil {
		t.Fatal(err)
	}
	if tier(a) != "Copper" || tier(b) != "Copper" { // 32,000 USD each
		t.Fatalf("tiers %v %v", tier(a), tier(b))
	}
}
