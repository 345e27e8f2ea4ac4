package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
	"pmx/internal/data/store"
	"pmx/internal/demo"
)

// The hot read model must answer exactly as the SQL path: these tests walk
// random query shapes page by page on both and compare every page.

func hotOpen(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pmx.db")
	db, err := Open(path, Options{Clock: func() time.Time { return time.Unix(1_800_000_000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func demoEvents(t testing.TB, seed uint64, scale float64) []ledger.Event {
	t.Helper()
	var evs []ledger.Event
	err := demo.Generate(demo.Options{Seed: seed, Scale: scale, Now: time.Unix(1_790_000_000, 0)},
		func(e *ledger.Event) error { evs = append(evs, *e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// hotWorld is what the random queries draw from: the wallets and, per
// wallet, the markets, events and timestamps of its rows.
type hotWorld struct {
	wallets []string
	conds   map[string][]string
	eids    map[string][]int64
	ts      map[string][]int64
}

func worldOf(t *testing.T, db *DB) *hotWorld {
	t.Helper()
	w := &hotWorld{conds: map[string][]string{}, eids: map[string][]int64{}, ts: map[string][]int64{}}
	cat := db.cat.Load()
	db.hot.mu.RLock()
	defer db.hot.mu.RUnlock()
	for addr, hw := range db.hot.byAddr {
		w.wallets = append(w.wallets, addr)
		for _, r := range hw.rows {
			if m := cat.byMid[int64(r.mid)]; m != nil {
				w.conds[addr] = append(w.conds[addr], m.conditionID)
			}
			if r.eid != 0 {
				w.eids[addr] = append(w.eids[addr], r.eid)
			}
			w.ts[addr] = append(w.ts[addr], r.ts)
		}
	}
	return w
}

// hotN is n, or long with PMX_LONG=1 (the default keeps the package's -race
// run short).
func hotN(n, long int) int {
	if os.Getenv("PMX_LONG") != "" {
		return long
	}
	return n
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func (w *hotWorld) window(r *rand.Rand, user string) store.Window {
	ts := w.ts[user]
	if len(ts) == 0 || r.IntN(3) == 0 {
		return store.Window{}
	}
	a, b := pick(r, ts), pick(r, ts)
	switch r.IntN(4) {
	case 0:
		return store.Window{Start: a}
	case 1:
		return store.Window{End: a}
	}
	return store.Window{Start: min(a, b), End: max(a, b)}
}

func (w *hotWorld) filters(r *rand.Rand, user string) ([]string, []int64) {
	var conds []string
	var eids []int64
	if c := w.conds[user]; len(c) > 0 && r.IntN(4) == 0 {
		conds = []string{pick(r, c)}
		if r.IntN(2) == 0 {
			conds = append(conds, fmt.Sprintf("0x%064x", r.IntN(1000)), pick(r, c))
		}
	}
	if e := w.eids[user]; len(e) > 0 && r.IntN(5) == 0 {
		eids = []int64{pick(r, e), 999_999}
	}
	return conds, eids
}

func randTrades(r *rand.Rand, w *hotWorld, user string) store.TradesParams {
	p := store.TradesParams{User: user, IncludeMaker: r.IntN(2) == 0, Window: w.window(r, user),
		Limit: pick(r, []int{1, 2, 7, 100})}
	p.Conditions, p.EventIDs = w.filters(r, user)
	p.Side = pick(r, []string{"", "", "BUY", "SELL"})
	switch r.IntN(4) {
	case 0:
		p.FilterType, p.FilterAmount = store.FilterCash, 5_000_000
	case 1:
		p.FilterAmount = 20_000_000
	}
	return p
}

func randActivity(r *rand.Rand, w *hotWorld, user string) store.ActivityParams {
	p := store.ActivityParams{User: user, IncludeDepositsWithdrawals: r.IntN(2) == 0, Window: w.window(r, user),
		Ascending: r.IntN(2) == 0, Limit: pick(r, []int{1, 3, 10, 100})}
	p.Conditions, p.EventIDs = w.filters(r, user)
	p.Side = pick(r, []string{"", "", "BUY", "SELL"})
	if r.IntN(2) == 0 {
		for _, t := range store.ActivityTypes {
			if r.IntN(3) == 0 {
				p.Types = append(p.Types, t)
			}
		}
	}
	return p
}

// walkBoth pages through one query on both paths until the end (or
// maxPages), failing on the first differing page; between pages it may run
// mid (an Apply).
func walkBoth[P any, R any](t *testing.T, name string, p P, setAfter func(*P, *store.FeedKey), limit int,
	hot, sql func(P) (store.Page[R, store.FeedKey], error), mid func(page int)) int {
	t.Helper()
	rows := 0
	for page := 0; page < 50; page++ {
		a, errA := hot(p)
		b, errB := sql(p)
		if errA != nil || errB != nil {
			t.Fatalf("%s: errors %v / %v", name, errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s page %d (%+v):\nhot %+v\nsql %+v", name, page, p, a, b)
		}
		rows += len(a.Rows)
		if !a.HasMore {
			break
		}
		if mid != nil {
			mid(page)
		}
		setAfter(&p, a.Next)
	}
	return rows
}

func compareRandom(t *testing.T, db *DB, seed uint64, queries int) {
	t.Helper()
	ctx := context.Background()
	w := worldOf(t, db)
	w.wallets = append(w.wallets, "0x000000000000000000000000000000000000dead")
	r := rand.New(rand.NewPCG(seed, 7))
	total := 0
	for i := 0; i < queries; i++ {
		user := pick(r, w.wallets)
		tp := randTrades(r, w, user)
		total += walkBoth(t, "trades", tp, func(p *store.TradesParams, k *store.FeedKey) { p.After = k }, tp.Limit,
			func(p store.TradesParams) (store.Page[store.Trade, store.FeedKey], error) { return db.Trades(ctx, p) },
			func(p store.TradesParams) (store.Page[store.Trade, store.FeedKey], error) {
				return db.tradesSQL(ctx, p)
			}, nil)
		ap := randActivity(r, w, user)
		total += walkBoth(t, "activity", ap, func(p *store.ActivityParams, k *store.FeedKey) { p.After = k }, ap.Limit,
			func(p store.ActivityParams) (store.Page[store.Activity, store.FeedKey], error) {
				return db.Activity(ctx, p)
			},
			func(p store.ActivityParams) (store.Page[store.Activity, store.FeedKey], error) {
				return db.activitySQL(ctx, p)
			}, nil)
	}
	if total == 0 {
		t.Fatal("no rows compared")
	}
	t.Logf("%d queries, %d rows compared", queries, total)
}

// TestHotMatchesSQLDemo loads small demo worlds in several batches (so
// publish merges into existing wallets), compares, then reopens the file (so
// loadHot builds the model) and compares again.
func TestHotMatchesSQLDemo(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			db, path := hotOpen(t)
			evs := demoEvents(t, seed, []float64{0.002, 0.01}[hotN(0, 1)])
			for i := 0; i < len(evs); i += 1500 {
				if _, err := db.Apply(context.Background(), evs[i:min(i+1500, len(evs))]); err != nil {
					t.Fatal(err)
				}
			}
			compareRandom(t, db, seed, hotN(50, 500))
			comparePositions(t, db, seed, hotN(60, 600), nil)
			db.Close()
			db2, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			compareRandom(t, db2, seed+10, hotN(50, 500))
			comparePositions(t, db2, seed+10, hotN(60, 600), nil)
		})
	}
}

// TestHotEdges: timestamp ties, every activity kind (TIP, deposits,
// withdrawals), an event older than stored ones (a merge, not an append),
// profile changes and Applies between pages, and a failed batch.
func TestHotEdges(t *testing.T) {
	ctx := context.Background()
	db, _ := hotOpen(t)
	addr := func(n int) string { return fmt.Sprintf("0x%040x", n) }
	cond := func(n int) string { return fmt.Sprintf("0x%064x", n) }
	block, log := int64(100), int64(0)
	env := func(e ledger.Event, ts int64) ledger.Event {
		log++
		if log == 7 {
			block, log = block+1, 0
		}
		e.BlockNumber, e.LogIndex, e.Timestamp, e.TxHash = block, log, ts, fmt.Sprintf("0x%064x", block*100+log)
		return e
	}
	var evs []ledger.Event
	for n := 1; n <= 3; n++ {
		evs = append(evs, ledger.Event{Kind: ledger.KindMarket, ConditionID: cond(n), Question: fmt.Sprint("Q", n),
			Slug: fmt.Sprint("q", n), EventID: int64(10 + n/2), EventSlug: "e", EventTitle: "E", Category: "c",
			Outcomes: []string{"Yes", "No"}, TokenIDs: []string{fmt.Sprint(n, 1), fmt.Sprint(n, 2)},
			EndDate: "2026-12-31T00:00:00Z"})
	}
	evs = append(evs, ledger.Event{Kind: ledger.KindProfile, Address: addr(1), Name: "one", Pseudonym: "P1"})
	hold := NewHoldings()
	for _, e := range evs {
		hold.Apply(e)
	}
	r := rand.New(rand.NewPCG(3, 4))
	ts := int64(1_780_000_000)
	gen := func(k int) []ledger.Event {
		var out []ledger.Event
		for i := 0; i < k; i++ {
			if r.IntN(3) != 0 { // ties: a third of the events advance the clock
				ts += int64(r.IntN(100))
			}
			u, v := addr(1+r.IntN(3)), addr(1+r.IntN(3))
			if u == v {
				v = addr(9)
			}
			n := 1 + r.IntN(3)
			var e ledger.Event
			switch r.IntN(8) {
			case 0:
				e = ledger.Event{Kind: ledger.KindTip, From: u, To: v, AmountUSDC: 1_500_000}
			case 1:
				e = ledger.Event{Kind: ledger.KindDeposit, User: u, AmountUSDC: 100_000_000}
			case 2:
				e = ledger.Event{Kind: ledger.KindWithdrawal, User: u, AmountUSDC: 3_000_000}
			case 3:
				e = ledger.Event{Kind: ledger.KindSplit, User: u, ConditionID: cond(n), Amount: 10_000_000}
			case 4:
				e = ledger.Event{Kind: ledger.KindReward, User: u, AmountUSDC: 2_000_000}
			default:
				e = ledger.Event{Kind: ledger.KindTrade, TokenID: fmt.Sprint(n, 1+r.IntN(2)), Maker: u, Taker: v,
					Side: pick(r, []string{"BUY", "SELL"}), Price: amount.Micro(100_000 + r.IntN(800_000)),
					Size: amount.Micro(1 + r.IntN(50_000_000))}
			}
			if sp := hold.Need(e); sp != nil { // sellers split first
				out = append(out, env(*sp, ts))
				hold.Apply(*sp)
			}
			out = append(out, env(e, ts))
			hold.Apply(e)
		}
		return out
	}
	evs = append(evs, gen(300)...)
	if _, err := db.Apply(ctx, evs); err != nil {
		t.Fatal(err)
	}
	// An older event in a new block: it sorts before stored rows.
	old := env(ledger.Event{Kind: ledger.KindDeposit, User: addr(1), AmountUSDC: 7_000_000}, 1_780_000_050)
	if _, err := db.Apply(ctx, []ledger.Event{old}); err != nil {
		t.Fatal(err)
	}
	// A failed batch (unknown condition at its end) changes nothing.
	kept := hold.Clone()
	bad := append(gen(5), env(ledger.Event{Kind: ledger.KindSplit, User: addr(1), ConditionID: cond(77),
		Amount: 1}, ts))
	if _, err := db.Apply(ctx, bad); err == nil {
		t.Fatal("bad batch applied")
	}
	hold = kept
	compareRandom(t, db, 5, hotN(80, 800))
	comparePositions(t, db, 5, hotN(80, 800), nil)

	// Applies between pages: new rows (newer, tied and older than the key)
	// and a profile change; both paths must still agree page by page.
	w := worldOf(t, db)
	mid := func(page int) {
		batch := gen(4)
		batch = append(batch, ledger.Event{Kind: ledger.KindProfile, Address: addr(1 + page%3),
			Name: fmt.Sprint("renamed", page)})
		m := evs[page%3] // a market upsert: new texts for the enrichment table
		m.Question, m.Icon = fmt.Sprint("Q", page%3+1, " renamed ", page), fmt.Sprint("icon-", page)
		batch = append(batch, m)
		if _, err := db.Apply(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	comparePositions(t, db, 6, hotN(15, 60), mid)
	for i := 0; i < hotN(10, 40); i++ {
		user := addr(1 + i%3)
		ap := randActivity(r, w, user)
		ap.Limit = 5
		walkBoth(t, "activity+apply", ap, func(p *store.ActivityParams, k *store.FeedKey) { p.After = k }, ap.Limit,
			func(p store.ActivityParams) (store.Page[store.Activity, store.FeedKey], error) {
				return db.Activity(ctx, p)
			},
			func(p store.ActivityParams) (store.Page[store.Activity, store.FeedKey], error) {
				return db.activitySQL(ctx, p)
			}, mid)
		tp := randTrades(r, w, user)
		tp.Limit = 5
		walkBoth(t, "trades+apply", tp, func(p *store.TradesParams, k *store.FeedKey) { p.After = k }, tp.Limit,
			func(p store.TradesParams) (store.Page[store.Trade, store.FeedKey], error) { return db.Trades(ctx, p) },
			func(p store.TradesParams) (store.Page[store.Trade, store.FeedKey], error) {
				return db.tradesSQL(ctx, p)
			}, mid)
	}
}

func randPositions(r *rand.Rand, w *hotWorld, user string) store.PositionsParams {
	p := store.PositionsParams{User: user, Ascending: r.IntN(3) == 0, Limit: pick(r, []int{1, 4, 50, 500}),
		Status: pick(r, []string{"", store.StatusOpen, store.StatusRedeemable, store.StatusRedeemableLost,
			store.StatusMergeable, store.StatusClosed}),
		IncludeArchived: r.IntN(4) == 0}
	if r.IntN(2) == 0 {
		p.SortBy = pick(r, []string{store.SortCurrentValue, store.SortPrice, store.SortTokens,
			store.SortUnrealizedPnL, store.SortRealizedPnL, store.SortTotalPnL, store.SortTimestamp})
	}
	p.Conditions, p.EventIDs = w.filters(r, user)
	switch r.IntN(4) {
	case 0:
		p.FilterType, p.FilterAmount = store.FilterCash, 1_000_000
	case 1:
		p.FilterAmount = 5_000_000
	}
	if r.IntN(6) == 0 {
		p.Title = pick(r, []string{"a", "Q1", "will", "%"})
	}
	if ts := w.ts[user]; len(ts) > 0 && r.IntN(4) == 0 {
		p.Start, p.End = pick(r, ts), 0
		if r.IntN(2) == 0 {
			p.Start, p.End = 0, pick(r, ts)
		}
	}
	return p
}

// comparePositions walks random position queries on both paths.
func comparePositions(t *testing.T, db *DB, seed uint64, queries int, mid func(int)) {
	t.Helper()
	ctx := context.Background()
	w := worldOf(t, db)
	w.wallets = append(w.wallets, "0x000000000000000000000000000000000000dead")
	r := rand.New(rand.NewPCG(seed, 11))
	var busy []string // wallets with many rows: most have positions
	for _, u := range w.wallets {
		if len(w.ts[u]) >= 20 {
			busy = append(busy, u)
		}
	}
	total := 0
	for i := 0; i < queries; i++ {
		user := pick(r, w.wallets)
		if len(busy) > 0 && r.IntN(4) != 0 {
			user = pick(r, busy)
		}
		p := randPositions(r, w, user)
		for page := 0; page < 40; page++ {
			a, errA := db.positions(ctx, p, true)
			b, errB := db.positions(ctx, p, false)
			if errA != nil || errB != nil {
				t.Fatalf("positions: errors %v / %v", errA, errB)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("positions page %d (%+v):\nhot %+v\nsql %+v", page, p, a, b)
			}
			total += len(a.Rows)
			if !a.HasMore {
				break
			}
			if mid != nil {
				mid(page)
			}
			p.After = a.Next
		}
	}
	if total == 0 {
		t.Fatal("no positions compared")
	}
	t.Logf("%d position queries, %d rows compared", queries, total)
}

// TestHotAtomicBatches: readers running beside Apply see whole batches only.
// Every batch gives one wallet exactly five deposits, so a count of its
// DEPOSIT rows that is not a multiple of five is a half-published batch (the
// race detector checks the locking itself).
func TestHotAtomicBatches(t *testing.T) {
	ctx := context.Background()
	db, _ := hotOpen(t)
	user := fmt.Sprintf("0x%040x", 42)
	const batches, per = 40, 5
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		for b := 0; b < batches; b++ {
			var evs []ledger.Event
			for i := 0; i < per; i++ {
				evs = append(evs, ledger.Event{Kind: ledger.KindDeposit, User: user, AmountUSDC: 1_000_000,
					BlockNumber: int64(100 + b), LogIndex: int64(i), Timestamp: 1_780_000_000 + int64(b),
					TxHash: fmt.Sprintf("0x%064x", b*10+i)})
			}
			if _, err := db.Apply(ctx, evs); err != nil {
				errs <- err
				return
			}
		}
	}()
	p := store.ActivityParams{User: user, Types: []string{store.ActDeposit}, IncludeDepositsWithdrawals: true,
		Limit: batches * per}
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		pg, err := db.Activity(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Rows)%per != 0 {
			t.Fatalf("read %d saw %d deposits: half a batch", reads, len(pg.Rows))
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	pg, err := db.Activity(ctx, p)
	if err != nil || len(pg.Rows) != batches*per {
		t.Fatalf("final read: %d rows, %v", len(pg.Rows), err)
	}
}

// TestHotRowTxHash: a canonical hash round-trips through the inline bytes,
// anything else through the odd strings, and odd indexes stay distinct.
func TestHotRowTxHash(t *testing.T) {
	canon := "0x" + strings.Repeat("0123456789abcdef", 4)
	var odd []string
	for _, tx := range []string{canon, "", "0xABC", "0x" + strings.Repeat("A", 64), canon[:65] + "g", "not-a-hash"} {
		var r hotRow
		odd = r.setTx(tx, odd)
		if got := string(r.appendTx(nil, odd)); got != tx {
			t.Errorf("setTx(%q) then appendTx = %q", tx, got)
		}
		if (r.txOdd == 0) != (tx == canon) {
			t.Errorf("%q: txOdd = %d", tx, r.txOdd)
		}
	}
	if len(odd) != 5 {
		t.Fatalf("%d odd hashes, want 5", len(odd))
	}
}

// TestReopenAfterMigrations: a data dir migrated by an earlier pmx (one
// schema_version row, the old runner's form) opens without re-running any
// migration, and one migrated now reopens too.
func TestReopenAfterMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pmx.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.Exec(`DELETE FROM schema_version WHERE version < (SELECT MAX(version) FROM schema_version)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 {
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		db.Close()
	}
}
