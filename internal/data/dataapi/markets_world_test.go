package dataapi_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/demo"
)

// demoWorld generates the demo world at scale, ending at mNow's UTC day.
func demoWorld(t testing.TB, scale float64) []ledger.Event {
	t.Helper()
	return demoEvents(t, demo.Options{Seed: 11, Scale: scale, Now: time.Unix(mNow, 0)})
}

// ledgerModel replays the ledger independently of the store: balances per
// token and wallet, and each token's price ticks under the mark rule.
type ledgerModel struct {
	bal      map[string]map[string]amount.Micro // token → wallet → shares
	tokens   map[string][]string                // condition → token ids
	tokenOf  map[string]string                  // token → condition
	negRisk  map[int64][]string                 // event → neg-risk conditions, in declaration order
	eventOf  map[string]int64
	ticks    map[string][][2]int64 // token → (timestamp, price micros), in ledger order
	resolved map[string]bool
	hidden   map[string]bool // inactive or archived: no /v2/oi row
}

func replayModel(evs []ledger.Event) *ledgerModel {
	m := &ledgerModel{bal: map[string]map[string]amount.Micro{}, tokens: map[string][]string{},
		tokenOf: map[string]string{}, negRisk: map[int64][]string{}, eventOf: map[string]int64{},
		ticks: map[string][][2]int64{}, resolved: map[string]bool{}, hidden: map[string]bool{}}
	active, archived := map[string]bool{}, map[string]bool{}
	add := func(tok, user string, d amount.Micro) {
		if m.bal[tok] == nil {
			m.bal[tok] = map[string]amount.Micro{}
		}
		m.bal[tok][user] += d
	}
	for i := range evs {
		e := &evs[i]
		switch e.Kind {
		case ledger.KindMarket:
			if _, seen := m.tokens[e.ConditionID]; !seen {
				active[e.ConditionID] = true // the first declaration's defaults
			}
			if e.Active != nil {
				active[e.ConditionID] = *e.Active
			}
			if e.Archived != nil {
				archived[e.ConditionID] = *e.Archived
			}
			m.hidden[e.ConditionID] = !active[e.ConditionID] || archived[e.ConditionID]
			if _, seen := m.tokens[e.ConditionID]; !seen {
				m.tokens[e.ConditionID] = e.TokenIDs
				m.eventOf[e.ConditionID] = e.EventID
				for _, t := range e.TokenIDs {
					m.tokenOf[t] = e.ConditionID
				}
				if e.NegRisk {
					m.negRisk[e.EventID] = append(m.negRisk[e.EventID], e.ConditionID)
				}
			}
		case ledger.KindSplit, ledger.KindMerge:
			d := e.Amount
			if e.Kind == ledger.KindMerge {
				d = -d
			}
			for _, t := range m.tokens[e.ConditionID] {
				add(t, e.User, d)
			}
		case ledger.KindTrade:
			d := e.Size
			if e.Side == "SELL" {
				d = -d
			}
			add(e.TokenID, e.Taker, d)
			add(e.TokenID, e.Maker, -d)
			toks := m.tokens[m.tokenOf[e.TokenID]]
			m.ticks[e.TokenID] = append(m.ticks[e.TokenID], [2]int64{e.Timestamp, int64(e.Price)})
			if len(toks) == 2 {
				other := toks[0]
				if other == e.TokenID {
					other = toks[1]
				}
				m.ticks[other] = append(m.ticks[other], [2]int64{e.Timestamp, int64(amount.One - e.Price)})
			}
		case ledger.KindRedeem:
			for _, t := range m.tokens[e.ConditionID] {
				if m.bal[t] != nil {
					m.bal[t][e.User] = 0
				}
			}
		case ledger.KindResolution:
			m.resolved[e.ConditionID] = true
		case ledger.KindConversion:
			listed := map[string]bool{}
			for _, c := range e.ConditionIDs {
				listed[c] = true
				add(m.tokens[c][1], e.User, -e.Amount)
			}
			for _, c := range m.negRisk[m.eventOf[e.ConditionIDs[0]]] {
				if !listed[c] {
					add(m.tokens[c][0], e.User, e.Amount)
				}
			}
		}
	}
	return m
}

// supply is each token's outstanding shares (Σ positive balances).
func (m *ledgerModel) supply(cond string) map[string]amount.Micro {
	out := map[string]amount.Micro{}
	for _, t := range m.tokens[cond] {
		for _, b := range m.bal[t] {
			if b > 0 {
				out[t] += b
			}
		}
		if out[t] == 0 {
			delete(out, t)
		}
	}
	return out
}

// TestDemoWorldConsistency checks, over a generated world, that the
// holders of each market sum to its outstanding shares (replayed from the
// ledger independently) and priced to /v2/oi, and that prices-history
// serves exactly the buckets of the token's fills.
func TestDemoWorldConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated world")
	}
	evs := demoWorld(t, 0.01)
	h := newMHarness(t, evs)
	model := replayModel(evs)
	var conds []string
	for c := range model.tokens {
		conds = append(conds, c)
	}
	sort.Strings(conds)
	if len(conds) > 25 {
		conds = conds[:25]
	}
	checked, ticked := 0, 0
	for _, c := range conds {
		checkHoldersAgainstOI(t, h, c, model.supply(c), model.hidden[c])
		checked++
		for _, tok := range model.tokens[c] {
			ticks := model.ticks[tok]
			if len(ticks) == 0 {
				continue
			}
			ticked++
			const b = 43200
			var want []string
			for _, k := range ticks {
				start := k[0] - k[0]%b
				if n := len(want); n > 0 && want[n-1][:len(fmt.Sprint(start))+1] == fmt.Sprint(start)+":" {
					want[n-1] = fmt.Sprintf("%d:%s/%d", start, amount.Micro(k[1]), b)
					continue
				}
				want = append(want, fmt.Sprintf("%d:%s/%d", start, amount.Micro(k[1]), b))
			}
			last := ticks[len(ticks)-1]
			want = append(want, fmt.Sprintf("%d:%s/0", last[0], amount.Micro(last[1])))
			var p pricesPage
			h.ok("/v2/prices-history?interval=max&token_id="+tok, &p)
			var got []string
			for _, r := range p.Data {
				got = append(got, fmt.Sprintf("%d:%s/%d", r.Timestamp, r.Price, r.ResolutionSeconds))
			}
			if model.resolved[c] && len(got) > 0 {
				got = got[:len(got)-1] // the settlement point
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("token %s: served %v\nfrom the fills %v", tok, got, want)
			}
		}
	}
	if checked == 0 || ticked == 0 {
		t.Fatalf("nothing checked: %d markets, %d tokens with fills", checked, ticked)
	}
	t.Logf("%d events; %d markets and %d token series checked", len(evs), checked, ticked)
}
