package dataapi_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/data/store"
	"pmx/internal/ratelimit"
)

// heldStore is the real store whose Positions counts its calls and, while
// hold is set, keeps the first call's answer (read before it waits) until
// hold closes.
type heldStore struct {
	*sqlite.DB
	calls   atomic.Int64
	hold    chan struct{}
	holding atomic.Bool // the first held call has read its answer and waits
}

func (s *heldStore) Positions(ctx context.Context, p store.PositionsParams) (store.Page[store.Position, store.PositionKey], error) {
	page, err := s.DB.Positions(ctx, p)
	if s.calls.Add(1) == 1 && s.hold != nil {
		s.holding.Store(true)
		<-s.hold
	}
	return page, err
}

func newHeldRig(t *testing.T) (*cacheRig, *heldStore) {
	var hs *heldStore
	rig := newCacheRig(t, func(o *dataapi.Options) {
		hs = &heldStore{DB: o.Store.(*sqlite.DB)}
		o.Store = hs
	})
	rig.apply(rig.gen.setup())
	for i := 0; i < 30; i++ {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
	}
	return rig, hs
}

// holdFirst makes the next Positions call wait for release; a failing test
// releases it before the servers close.
func (s *heldStore) holdFirst(t *testing.T) (release func()) {
	s.calls.Store(0)
	s.hold = make(chan struct{})
	release = sync.OnceFunc(func() { close(s.hold) })
	t.Cleanup(release)
	return release
}

// poll waits (generously) for cond; it fails the test with what when it
// never holds.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

// N clients missing one page at once: the page is built once, and each
// gets its bytes (those an uncached server answers).
func TestPageCache_ConcurrentMissesOfOnePageBuildItOnce(t *testing.T) {
	rig, hs := newHeldRig(t)
	path := "/v2/positions?user=" + rigWallet(0)
	_, want := fetch(t, rig.uncache.URL+path)
	release := hs.holdFirst(t)
	const n = 16
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, bodies[i] = fetch(t, rig.cached.URL+path)
		}()
	}
	poll(t, "the first miss never reached the store", hs.holding.Load)
	poll(t, "concurrent misses did not wait for the first one's build", func() bool {
		return rig.svc.PageCacheStats().Waiting == n-1
	})
	release()
	wg.Wait()
	if c := hs.calls.Load(); c != 1 {
		t.Errorf("%d concurrent misses built the page %d times, want once", n, c)
	}
	for i, b := range bodies {
		if b != want {
			t.Fatalf("client %d got %.200s, want %.200s", i, b, want)
		}
	}
	if st := rig.svc.PageCacheStats(); st.Shared != n-1 || st.Misses != 1 || st.Waiting != 0 {
		t.Errorf("stats %+v, want %d shared, 1 miss, none waiting", st, n-1)
	}
}

// A miss after an acknowledged ingest never takes the answer of a build that
// read the store before it: it builds its own, and the older build, landing
// later, does not replace it in the cache.
func TestPageCache_AMissAfterAnIngestDoesNotJoinAnOlderBuild(t *testing.T) {
	rig, hs := newHeldRig(t)
	path := "/v2/positions?user=" + rigWallet(0)
	_, before := fetch(t, rig.uncache.URL+path)
	release := hs.holdFirst(t)
	var old string
	oldDone := make(chan struct{})
	go func() { defer close(oldDone); _, old = fetch(t, rig.cached.URL+path) }()
	poll(t, "the first miss never reached the store", hs.holding.Load)

	rig.apply([]ledger.Event{rig.gen.env(ledger.Event{Kind: ledger.KindSplit, User: rigWallet(0), ConditionID: rigCond(1),
		Amount: 7 * amount.One}, rig.clock.Now().Unix())}) // acknowledged: the page changes
	_, after := fetch(t, rig.uncache.URL+path)
	if after == before {
		t.Fatal("the ingest did not change the page; the test proves nothing")
	}
	var got string
	newDone := make(chan struct{})
	go func() { defer close(newDone); _, got = fetch(t, rig.cached.URL+path) }()
	poll(t, "the miss after the ingest neither answered nor waited", func() bool {
		select {
		case <-newDone:
			return true
		default:
			return rig.svc.PageCacheStats().Waiting > 0
		}
	})
	release()
	<-newDone
	<-oldDone
	if got != after {
		t.Fatalf("after the ingest the cache answered %.200s, want %.200s", got, after)
	}
	if old != before {
		t.Errorf("the held build answered %.200s, want the page before the ingest", old)
	}
	if d := rig.compare(path); d != "" {
		t.Fatalf("the older build replaced the newer page: %s", d)
	}
}

// countingGen is the real store counting PositionsGeneration calls.
type countingGen struct {
	*sqlite.DB
	n atomic.Int64
}

func (s *countingGen) PositionsGeneration(addr string) uint64 {
	s.n.Add(1)
	return s.DB.PositionsGeneration(addr)
}

// A hit skips the page's scoped generation (for positions a walk over the
// wallet's markets) while no ingest has been acknowledged since the page
// was last found current, and reads it again after any ingest.
func TestPageCache_HitsSkipTheScopeGenerationUntilAnIngest(t *testing.T) {
	var cg *countingGen
	rig := newCacheRig(t, func(o *dataapi.Options) {
		cg = &countingGen{DB: o.Store.(*sqlite.DB)}
		o.Store = cg
	})
	rig.apply(rig.gen.setup())
	for i := 0; i < 20; i++ {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
	}
	path := "/v2/positions?user=" + rigWallet(0)
	for range 2 { // the miss, then the first hit finds it current
		if d := rig.compare(path); d != "" {
			t.Fatal(d)
		}
	}
	cg.n.Store(0)
	for range 5 {
		if d := rig.compare(path); d != "" {
			t.Fatal(d)
		}
	}
	if n := cg.n.Load(); n != 0 {
		t.Errorf("5 hits with no ingest read the positions generation %d times, want 0", n)
	}
	rig.apply([]ledger.Event{rig.gen.env(ledger.Event{Kind: ledger.KindDeposit, User: rigWallet(4), AmountUSDC: amount.One},
		rig.clock.Now().Unix())}) // another wallet's: the page stays cached
	for range 3 {
		if d := rig.compare(path); d != "" {
			t.Fatal(d)
		}
	}
	if n := cg.n.Load(); n != 1 {
		t.Errorf("after an ingest 3 hits read the positions generation %d times, want once", n)
	}
	rig.apply([]ledger.Event{rig.gen.env(ledger.Event{Kind: ledger.KindSplit, User: rigWallet(0), ConditionID: rigCond(2),
		Amount: 3 * amount.One}, rig.clock.Now().Unix())}) // the wallet's own: the page changes
	if d := rig.compare(path); d != "" {
		t.Fatal(d)
	}
	if st := rig.svc.PageCacheStats(); st.Invalidations == 0 {
		t.Errorf("the wallet's ingest invalidated nothing: %+v", st)
	}
}

// A store just opened over existing data is at generation 0 until its
// first ingest; its hits skip the scoped generation as well (a data node
// restarted on a quiet ledger serves every poll from the cache that way).
func TestPageCache_HitsSkipTheScopeGenerationAtGenerationZero(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pmx.db")
	clk := clock.NewManual(Now)
	db, err := sqlite.Open(file, sqlite.Options{Clock: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Apply(context.Background(), newRigLedger().setup()); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = sqlite.Open(file, sqlite.Options{Clock: clk.Now}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if g := db.Generation(); g != 0 {
		t.Fatalf("a reopened store is at generation %d; this test needs 0", g)
	}
	cg := &countingGen{DB: db}
	srv := httptest.NewServer(dataapi.New(dataapi.Options{Store: cg, CursorKey: []byte("page-cache-test-cursor-key-01234"),
		Clock: clk, Limits: &ratelimit.Config{}}))
	defer srv.Close()
	url := srv.URL + "/v2/positions?user=" + rigWallet(0)
	_, first := fetch(t, url)
	fetch(t, url) // the first hit finds the page current
	cg.n.Store(0)
	for range 5 {
		if _, b := fetch(t, url); b != first {
			t.Fatalf("a hit answered %.200s, the miss %.200s", b, first)
		}
	}
	if n := cg.n.Load(); n != 0 {
		t.Errorf("5 hits at generation 0 read the positions generation %d times, want 0", n)
	}
}
