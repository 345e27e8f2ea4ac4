package demo

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

// worldStats are the figures a user sees, re-derived from the ledger by the
// independent replay: per event, traded notional (the catalog's volume) and
// open interest (outstanding complete sets of its open markets, valued at
// $1); per wallet, its position value at the last traded prices.
type worldStats struct {
	volume, oi    map[int64]amount.Micro // event id ->
	walletValue   map[string]amount.Micro
	titles        map[string]int // event title -> markets events carrying it
	names         []string       // profile user names
	lastTS        int64
	tradesLastDay int
}

func statsOf(t testing.TB, data []byte) worldStats {
	t.Helper()
	r := newReplay()
	s := worldStats{volume: map[int64]amount.Micro{}, oi: map[int64]amount.Micro{}, walletValue: map[string]amount.Micro{},
		titles: map[string]int{}}
	last := map[string]amount.Micro{} // token -> last price
	eventTitle := map[int64]string{}
	evs, err := ledger.ParseAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		e := &evs[i]
		if err := r.apply(e); err != nil {
			t.Fatal(err)
		}
		switch e.Kind {
		case ledger.KindMarket:
			eventTitle[e.EventID] = e.EventTitle
		case ledger.KindTrade:
			s.volume[r.markets[r.tokens[e.TokenID].cond].eventID] += amount.Mul(e.Price, e.Size)
			if e.Timestamp > demoNowForTests.Unix()-86400 {
				s.tradesLastDay++
			}
			last[e.TokenID] = e.Price
		case ledger.KindProfile:
			if e.Name != "" {
				s.names = append(s.names, e.Name)
			}
		}
		if e.Timestamp > s.lastTS {
			s.lastTS = e.Timestamp
		}
	}
	for _, title := range eventTitle {
		s.titles[title]++
	}
	supply := map[string]amount.Micro{}
	for k, v := range r.hold {
		if v <= 0 {
			continue
		}
		supply[k[1]] += v
		if p, ok := last[k[1]]; ok {
			if tk := r.tokens[k[1]]; !tk.combo && r.markets[tk.cond].payouts == nil {
				s.walletValue[k[0]] += amount.Mul(v, p)
			}
		}
	}
	for _, m := range r.markets {
		if m.payouts != nil || m.closed {
			continue
		}
		sets := amount.Micro(0)
		for _, tok := range m.tokens {
			sets = max(sets, supply[tok])
		}
		s.oi[m.eventID] += sets
	}
	return s
}

// demoNowForTests is a start-up instant that is not a whole minute.
var demoNowForTests = time.Date(2026, 11, 25, 20, 17, 3, 0, time.UTC)

var shared struct {
	once sync.Once
	s    worldStats
	data []byte
}

// sharedWorld is one 5% world and its figures, for the relation tests.
func sharedWorld(t *testing.T) worldStats {
	shared.once.Do(func() {
		shared.data = world(t, Options{Seed: 1, Scale: 0.05, Now: demoNowForTests})
		shared.s = statsOf(t, shared.data)
	})
	if shared.s.volume == nil {
		t.Fatal("the shared world failed to build")
	}
	return shared.s
}

// TestDemoOpenInterestIsExplainedByVolume: no event's open interest exceeds
// what its traded volume paid for (sets are minted only by matched buys and
// small user splits), so an event never shows more OI than volume.
func TestDemoOpenInterestIsExplainedByVolume(t *testing.T) {
	s := sharedWorld(t)
	open := 0
	for id, oi := range s.oi {
		open++
		if oi > s.volume[id] {
			t.Errorf("event %d: open interest %s above its volume %s", id, oi, s.volume[id])
		}
	}
	if open == 0 {
		t.Fatal("no open event: the relation was not exercised")
	}
}

// TestDemoWalletValuesArePlausible: position values follow a heavy-tailed
// but bounded distribution: no wallet above $10M, the median holder under
// $5,000, and the ten largest under half of all value held.
func TestDemoWalletValuesArePlausible(t *testing.T) {
	s := sharedWorld(t)
	var vals []amount.Micro
	var total amount.Micro
	for _, v := range s.walletValue {
		if v > 0 {
			vals = append(vals, v)
			total += v
		}
	}
	if len(vals) < 20 {
		t.Fatalf("only %d wallets hold anything", len(vals))
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] > vals[j] })
	var top10 amount.Micro
	for _, v := range vals[:10] {
		top10 += v
	}
	if max, median := vals[0], vals[len(vals)/2]; max > amount.MustParse("10000000") || median > amount.MustParse("5000") ||
		top10 > total/2 {
		t.Errorf("wallet values: max %s, median %s, top ten %s of %s", max, median, top10, total)
	}
}

// TestDemoTitlesAreUnique: every event has its own title.
func TestDemoTitlesAreUnique(t *testing.T) {
	s := sharedWorld(t)
	for title, n := range s.titles {
		if n > 1 {
			t.Errorf("%q is the title of %d events", title, n)
		}
	}
}

// TestDemoUserNamesAreBelievable: user names are unique handles built from
// real words (a first or last name, or an adjective and a noun), lower case,
// at most 24 characters.
func TestDemoUserNamesAreBelievable(t *testing.T) {
	s := sharedWorld(t)
	if len(s.names) < 20 {
		t.Fatalf("only %d user names", len(s.names))
	}
	words := append(append(append([]string{}, firstNames...), lastNames...), adjectives...)
	seen := map[string]bool{}
	shape := regexp.MustCompile(`^[a-z]+([._][a-z]+)?[0-9]*$`)
	for _, n := range s.names {
		if seen[n] {
			t.Errorf("user name %q used twice", n)
		}
		seen[n] = true
		real := false
		for _, w := range words {
			real = real || strings.Contains(n, strings.ToLower(w)) || strings.HasSuffix(strings.TrimRight(n, "0123456789"), strings.ToLower(w))
		}
		if !shape.MatchString(n) || len(n) > 24 || !real {
			t.Errorf("user name %q does not look like a handle", n)
		}
	}
}

// TestDemoHistoryReachesStartUp: the history ends at the start-up instant
// (its last hour has trades, nothing is later), so day-window boards are
// never empty on a fresh start.
func TestDemoHistoryReachesStartUp(t *testing.T) {
	s := sharedWorld(t)
	now := demoNowForTests.Unix()
	if s.lastTS > now || s.lastTS < now-3600 {
		t.Errorf("last event at %s, start-up at %s", time.Unix(s.lastTS, 0).UTC(), demoNowForTests)
	}
	if s.tradesLastDay == 0 {
		t.Error("no trade in the day before start-up")
	}
}
