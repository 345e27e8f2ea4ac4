package clobengine

import "fmt"

// legacyStep is one command of the journal in testdata/journal-v1, which
// the JSON-only encoder (before the binary place record) wrote with these
// commands and timestamps; TestReplayJSONJournal replays it.
type legacyStep struct {
	ts int64
	c  Command
}

func legacySteps() []legacyStep {
	const t0 = 1_700_000_000_000
	a := "0x" + fmt.Sprintf("%040x", 0xa)
	b := "0x" + fmt.Sprintf("%040x", 0xb)
	proxy := "0x" + fmt.Sprintf("%040x", 0xc)
	neg := testMarket("0x"+fmt.Sprintf("%064x", 7), "333", "444", 1000)
	neg.NegRisk = true
	base := func(i int, maker, tok string, side uint8, ma, ta int64) OrderInput {
		return OrderInput{Hash: legacyHash(i), Token: tok, Side: side, MakerAmt: ma, TakerAmt: ta, Type: "GTC", Maker: maker,
			Signer: maker, APIKey: "key-" + maker[len(maker)-1:], Version: 2, Stamp: t0 - 5}
	}
	v1 := base(3, a, "1", 0, 4_000_000, 10_000_000)
	v1.Version, v1.Stamp, v1.Nonce, v1.FeeBps = 1, 0, 7, 100
	v1ok := base(10, a, "1", 0, 2_000_000, 10_000_000)
	v1ok.Version, v1ok.Stamp, v1ok.FeeBps = 1, 0, 100 // nonce 0: the address's current nonce
	huge := base(4, b, "2", 0, 3_000_000, 10_000_000)
	huge.Version, huge.Stamp, huge.NonceHuge = 1, 0, true
	gtd := base(5, b, "2", 0, 2_000_000, 10_000_000)
	gtd.Type, gtd.Expiration, gtd.PostOnly = "GTD", t0/1000+3600, true
	built := base(6, b, "1", 0, 6_000_000, 10_000_000)
	built.Builder, built.Code = "builder-key", "0x"+fmt.Sprintf("%064x", 0xb1d)
	fok := base(7, a, "1", 1, 5_000_000, 2_000_000)
	fok.Type = "FOK"
	viaProxy := base(8, proxy, "333", 0, 1_500_000, 5_000_000)
	viaProxy.Signer, viaProxy.SigType, viaProxy.NegRisk = a, 1, true
	return []legacyStep{
		{t0, Command{Op: OpMarket, Market: testMarket(cond0, "1", "2", 100)}},
		{t0 + 1, Command{Op: OpMarket, Market: neg}},
		{t0 + 2, Command{Op: OpDeposit, Addr: a, Amount: 500_000_000}},
		{t0 + 3, Command{Op: OpDeposit, Addr: b, Amount: 500_000_000}},
		{t0 + 4, Command{Op: OpDeposit, Addr: proxy, Amount: 100_000_000, Signer: a}},
		{t0 + 5, Command{Op: OpPlace, Orders: []OrderInput{base(1, a, "1", 0, 3_000_000, 10_000_000)}}},
		{t0 + 6, Command{Op: OpPlace, Orders: []OrderInput{base(2, b, "2", 0, 7_000_000, 10_000_000), v1, huge, v1ok}}},
		{t0 + 7, Command{Op: OpPlace, Orders: []OrderInput{gtd, built}}},
		{t0 + 8, Command{Op: OpPlace, Orders: []OrderInput{fok}}},
		{t0 + 9, Command{Op: OpPlace, Orders: []OrderInput{viaProxy}}},
		{t0 + 10, Command{Op: OpCancel, Addr: a, IDs: []string{legacyHash(3)}}},
		{t0 + 11, Command{Op: OpSplit, Addr: b, Cond: cond0, Amount: 5_000_000}},
		{t0 + 12, Command{Op: OpPlace, Orders: []OrderInput{base(9, b, "1", 1, 5_000_000, 2_500_000)}}},
		{t0 + 13, Command{Op: OpTick}},
	}
}

func legacyHash(i int) string { return fmt.Sprintf("0x%064x", 0xfeed00+i) }
