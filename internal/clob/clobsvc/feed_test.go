package clobsvc

import (
	"fmt"
	"strings"
	"testing"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/data/ledger"
)

const (
	feedCond = "0x00000000000000000000000000000000000000000000000000000000000000f1"
	walletT  = "0x1111111111111111111111111111111111111111"
	walletM  = "0x2222222222222222222222222222222222222222"
	codeV2   = "0x00000000000000000000000000000000000000000000000000000000000000c0"
)

// TestLedgerEventsOfFills: how each kind of fill and set operation maps
// onto ledger events (docs/clob.md "CLOB → ledger"); every event passes
// the ledger's own validation, and a command's events share its block and
// number their log indexes from 0.
func TestLedgerEventsOfFills(t *testing.T) {
	s := Open(Options{Dir: t.TempDir(), SyncEvery: -1})
	t.Cleanup(func() { s.Close() })
	<-s.Ready()
	mk := clob.Market{ConditionID: feedCond, Tokens: [2]clob.Token{{ID: "11", Outcome: "Yes"}, {ID: "12", Outcome: "No"}},
		Ticks: 100, Active: true, Accepting: true}
	if r, err := s.Submit(&clobengine.Command{Op: clobengine.OpMarket, Market: &mk}); err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	if _, ok := s.Token("11"); !ok {
		t.Fatal("market not registered")
	}
	// 10 shares; the taker's own price 60 ticks, the maker's 40 (mint/merge) or 60.
	fill := func(match uint8, tok, mtok string, tside, mside uint8, maker string) clobengine.Trade {
		mp := int64(60)
		if tok != mtok {
			mp = 40
		}
		return clobengine.Trade{ID: "t-7", Match: match, Size: 10_000_000, Fee: 123_456 * clobengine.Unit,
			TakerToken: tok, TakerSide: tside, Price: 60, TakerMaker: walletT, TakerCode: codeV2,
			MakerToken: mtok, MakerSide: mside, MakerPrice: mp, MakerAddr: maker, MakerBuild: "builder-key"}
	}
	ex := ExchangeAddress
	mbc := builderCode("", "builder-key")
	for _, c := range []struct {
		name string
		r    clobengine.Result
		want []string
	}{
		{"a normal match is one trade on the taker's side", clobengine.Result{Fills: []clobengine.Trade{fill(0, "11", "11", 1, 0, walletM)}},
			[]string{"trade 11 " + walletM + " " + walletT + " SELL 0.6 10 0.123456 " + codeV2}},
		{"a mint: the exchange splits and sells each side its outcome", clobengine.Result{Fills: []clobengine.Trade{fill(1, "11", "12", 0, 0, walletM)}},
			[]string{"split " + ex + " 10", "trade 11 " + ex + " " + walletT + " BUY 0.6 10 0.123456 " + codeV2,
				"trade 12 " + walletM + " " + ex + " SELL 0.4 10 0 " + mbc}},
		{"a merge: the exchange buys each side's outcome and merges", clobengine.Result{Fills: []clobengine.Trade{fill(2, "11", "12", 1, 1, walletM)}},
			[]string{"trade 11 " + ex + " " + walletT + " SELL 0.6 10 0.123456 " + codeV2,
				"trade 12 " + walletM + " " + ex + " BUY 0.4 10 0 " + mbc, "merge " + ex + " 10"}},
		{"a self-trade moves nothing", clobengine.Result{Fills: []clobengine.Trade{fill(0, "11", "11", 1, 0, walletT)}}, nil},
		{"a self-mint is a split", clobengine.Result{Fills: []clobengine.Trade{fill(1, "11", "12", 0, 0, walletT)}}, []string{"split " + walletT + " 10"}},
		{"a self-merge is a merge", clobengine.Result{Fills: []clobengine.Trade{fill(2, "11", "12", 1, 1, walletT)}}, []string{"merge " + walletT + " 10"}},
		{"an operator split", clobengine.Result{Sets: []clobengine.SetOp{{Op: clobengine.OpSplit, Addr: walletT, Cond: feedCond, Amount: 5_000_000}}},
			[]string{"split " + walletT + " 5"}},
		{"an operator merge", clobengine.Result{Sets: []clobengine.SetOp{{Op: clobengine.OpMerge, Addr: walletT, Cond: feedCond, Amount: 5_000_000}}},
			[]string{"merge " + walletT + " 5"}},
		{"a resolution is off chain, after the command's chain events", clobengine.Result{Sets: []clobengine.SetOp{{Op: clobengine.OpResolve, Cond: feedCond, Payouts: []int64{1_000_000, 0}}}},
			[]string{"resolution [1 0] 1800000000"}},
		{"an automatic redemption redeems each holder", clobengine.Result{Sets: []clobengine.SetOp{
			{Op: clobengine.OpRedeem, Addr: walletM, Cond: feedCond, Amount: 3, Paid: 2},
			{Op: clobengine.OpRedeem, Addr: walletT, Cond: feedCond, Amount: 5, Paid: 5}}},
			[]string{"redeem " + walletM + " 0", "redeem " + walletT + " 0"}},
		{"a fill of an unknown token is dropped", clobengine.Result{Fills: []clobengine.Trade{fill(0, "99", "99", 1, 0, walletM)}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Events of an earlier command in the same batch do not shift the log indexes.
			prev := s.LedgerEvents(nil, 41, 1_800_000_000_000, &clobengine.Result{Sets: []clobengine.SetOp{{Op: clobengine.OpSplit, Addr: walletM, Cond: feedCond, Amount: 1}}})
			evs := s.LedgerEvents(prev, 42, 1_800_000_000_500, &c.r)[len(prev):]
			var got []string
			for i := range evs {
				e := &evs[i]
				if err := ledger.Validate(e); err != nil {
					t.Errorf("event %d invalid: %v (%+v)", i, err, e)
				}
				if e.Kind == ledger.KindResolution {
					got = append(got, fmt.Sprintf("resolution %v %d", e.Payouts, e.ResolvedAt))
					continue
				}
				if e.BlockNumber != ChainBlock0+42 || e.LogIndex != int64(i) || e.Timestamp != 1_800_000_000 {
					t.Errorf("event %d envelope: block %d log %d ts %d", i, e.BlockNumber, e.LogIndex, e.Timestamp)
				}
				switch e.Kind {
				case ledger.KindTrade:
					if e.TxHash != clobengine.TxHash("t-7") {
						t.Errorf("trade tx %s", e.TxHash)
					}
					got = append(got, strings.TrimSpace(fmt.Sprintf("trade %s %s %s %s %s %s %s %s", e.TokenID, e.Maker, e.Taker, e.Side, e.Price, e.Size, e.FeeUSDC, e.BuilderCode)))
				default:
					if e.ConditionID != feedCond {
						t.Errorf("%s condition %s", e.Kind, e.ConditionID)
					}
					got = append(got, fmt.Sprintf("%s %s %s", e.Kind, e.User, e.Amount))
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
