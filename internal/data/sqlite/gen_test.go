package sqlite_test

import (
	"fmt"
	"math/rand/v2"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
)

// synth generates a deterministic world: markets binary markets in groups
// of 4 per event (every other event neg-risk), wallets with profiles, and
// trades fills spread over 90 days in time order, with one other event (split,
// merge, reward, rebate, deposit, tip, ...) per five fills and a resolution
// of a tenth of the markets halfway through.
func synth(seed uint64, markets, wallets, trades int) []ledger.Event {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	evs := make([]ledger.Event, 0, markets+wallets+trades+trades/5+markets)
	b := newBuilder(1_780_000_000)
	hold := sqlite.NewHoldings()
	for i := 1; i <= markets; i++ {
		e := binary(i, int64(1000+(i-1)/4), ((i-1)/4)%2 == 0)
		e.Category = []string{"politics", "sports", "crypto", "esports"}[i%4]
		evs = append(evs, e)
		hold.Apply(e)
	}
	// add appends e, preceded by the split its disposer needs (nobody
	// disposes of shares they do not hold).
	add := func(e ledger.Event, step int64) {
		if s := hold.Need(e); s != nil {
			evs = append(evs, b.env(*s, step))
			hold.Apply(*s)
		}
		evs = append(evs, b.env(e, step))
		hold.Apply(e)
	}
	for w := 1; w <= wallets; w++ {
		evs = append(evs, ledger.Event{Kind: ledger.KindProfile, Address: addr(w), Name: fmt.Sprintf("trader%d", w),
			Pseudonym: fmt.Sprintf("Pseudo-%d", w), JoinedAt: 1_770_000_000})
	}
	price := make([]int64, markets+1) // YES price in micros
	for i := range price {
		price[i] = 200_000 + r.Int64N(600_000)
	}
	span := int64(90 * 86400)
	step := span / int64(trades+trades/5)
	resolved := map[int]bool{}
	for n := 0; n < trades+trades/5; n++ {
		mk := 1 + r.IntN(markets)
		for resolved[mk] {
			mk = 1 + r.IntN(markets)
		}
		if n == (trades+trades/5)/2 {
			for i := 1; i <= markets/10; i++ {
				resolved[i*10] = true
				evs = append(evs, ledger.Event{Kind: ledger.KindResolution, ConditionID: cond(i * 10),
					Payouts: []amount.Micro{amount.One, 0}, ResolvedAt: b.ts})
			}
		}
		w1, w2 := 1+r.IntN(wallets), 1+r.IntN(wallets)
		for w2 == w1 {
			w2 = 1 + r.IntN(wallets)
		}
		if n%6 != 5 {
			price[mk] = min(max(price[mk]+r.Int64N(20_001)-10_000, 10_000), 990_000)
			tok, p := fmt.Sprintf("%d1", mk), price[mk]
			if r.IntN(2) == 0 {
				tok, p = fmt.Sprintf("%d2", mk), 1_000_000-p
			}
			side := "BUY"
			if r.IntN(3) == 0 {
				side = "SELL"
			}
			size := amount.Micro((1 + r.Int64N(500)) * 100_000)
			e := ledger.Event{Kind: ledger.KindTrade, TokenID: tok, Maker: addr(w2), Taker: addr(w1), Side: side,
				Price: amount.Micro(p / 1000 * 1000), Size: size, FeeUSDC: amount.Micro(r.Int64N(20_000))}
			add(e, step)
			continue
		}
		var e ledger.Event
		switch r.IntN(8) {
		case 0, 1:
			e = userEv(ledger.KindSplit, w1, mk, "25")
		case 2:
			e = userEv(ledger.KindMerge, w1, mk, "5")
		case 3:
			e = userEv(ledger.KindReward, w1, 0, "1.25")
		case 4:
			e = userEv(ledger.KindMakerRebate, w1, 0, "0.5")
		case 5:
			e = userEv(ledger.KindDeposit, w1, 0, "100")
		case 6:
			e = ledger.Event{Kind: ledger.KindTip, From: addr(w1), To: addr(w2), AmountUSDC: amount.One}
		default:
			if len(resolved) == 0 {
				e = userEv(ledger.KindYield, w1, 0, "0.1")
			} else {
				e = userEv(ledger.KindRedeem, w1, 10*(1+r.IntN(markets/10)), "")
			}
		}
		add(e, step)
	}
	return evs
}
