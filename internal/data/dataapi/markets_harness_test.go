package dataapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pmx/internal/amount"
	"pmx/internal/clock"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ledger"
	"pmx/internal/data/sqlite"
	"pmx/internal/ratelimit"
)

// The markets tests run black-box: events go through the ledger encoder and
// parser into a real SQLite store, and requests go through the real data
// service over HTTP, on a manual clock fixed at mNow.

const mNow = 1_790_000_000

// mT0 is the start of the hand-built history (a multiple of 3600).
const mT0 = 1_789_920_000

type mHarness struct {
	t   testing.TB
	db  *sqlite.DB
	srv *httptest.Server
}

func newMHarness(t testing.TB, evs []ledger.Event) *mHarness {
	t.Helper()
	db, err := openStore(t, sqlite.Options{
		Clock: func() time.Time { return time.Unix(mNow-100, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if len(evs) > 0 {
		loadThroughLedger(t, db, evs)
	}
	limits := ratelimit.DataDefaults()
	for i := range limits.Rules {
		limits.Rules[i].Limit = 1 << 30
	}
	svc := dataapi.New(dataapi.Options{Store: db, CursorKey: []byte("markets-test-cursor-key-0123456789"),
		Clock: clock.NewManual(time.Unix(mNow, 0)), Limits: &limits, HeavySlots: 64})
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return &mHarness{t: t, db: db, srv: srv}
}

// loadThroughLedger encodes evs as NDJSON, parses them back with the ledger
// parser (validation included) and applies the batch.
func loadThroughLedger(t testing.TB, db *sqlite.DB, evs []ledger.Event) {
	t.Helper()
	var buf bytes.Buffer
	enc := ledger.NewEncoder(&buf)
	for i := range evs {
		if err := enc.Encode(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	parsed, err := ledger.ParseAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Apply(context.Background(), parsed); err != nil {
		t.Fatal(err)
	}
}

// get fetches path and returns the status and body.
func (h *mHarness) get(path string) (int, []byte) {
	h.t.Helper()
	resp, err := http.Get(h.srv.URL + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, b
}

// ok fetches path, requires a 200 and decodes the body into v.
func (h *mHarness) ok(path string, v any) {
	h.t.Helper()
	code, b := h.get(path)
	if code != 200 {
		h.t.Fatalf("GET %s: %d %s", path, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		h.t.Fatalf("GET %s: %v in %s", path, err, b)
	}
}

type mError struct {
	Error     string  `json:"error"`
	Code      string  `json:"code"`
	Parameter *string `json:"parameter"`
}

// bad fetches path, requires a 400 and returns the error body.
func (h *mHarness) bad(path string) mError {
	h.t.Helper()
	code, b := h.get(path)
	var e mError
	if err := json.Unmarshal(b, &e); err != nil || code != 400 || e.Code != "invalid_request" {
		h.t.Fatalf("GET %s: want 400 invalid_request, got %d %s", path, code, b)
	}
	return e
}

func mm(s string) amount.Micro { return amount.MustParse(s) }

func maddr(n int) string { return fmt.Sprintf("0x%040x", n) }
func mcond(n int) string { return fmt.Sprintf("0x%064x", n) }

// mBuilder stamps on-chain envelopes at chosen times.
type mBuilder struct {
	block, log int64
	evs        []ledger.Event
}

func (b *mBuilder) add(e ledger.Event) { b.evs = append(b.evs, e) }

// at appends an on-chain event at timestamp ts (non-decreasing).
func (b *mBuilder) at(ts int64, e ledger.Event) {
	b.block++
	b.log = 0
	e.BlockNumber, e.LogIndex, e.Timestamp = 80_000_000+b.block, b.log, ts
	e.TxHash = fmt.Sprintf("0x%064x", 0xabc000+b.block)
	b.evs = append(b.evs, e)
}

func mMarket(n int, event int64, outcomes ...string) ledger.Event {
	toks := make([]string, len(outcomes))
	for i := range outcomes {
		toks[i] = fmt.Sprintf("%d%d", n, i+1)
	}
	return ledger.Event{Kind: ledger.KindMarket, ConditionID: mcond(n), Question: fmt.Sprintf("Market %d?", n),
		Slug: fmt.Sprintf("market-%d", n), EventID: event, EventSlug: fmt.Sprintf("event-%d", event),
		EventTitle: fmt.Sprintf("Event %d", event), Category: "politics", Outcomes: outcomes, TokenIDs: toks,
		EndDate: "2026-12-31T00:00:00Z"}
}

func mTrade(token string, maker, taker int, side, price, size string) ledger.Event {
	return ledger.Event{Kind: ledger.KindTrade, TokenID: token, Maker: maddr(maker), Taker: maddr(taker), Side: side,
		Price: mm(price), Size: mm(size)}
}

func mSplit(user, market int, amt string) ledger.Event {
	return ledger.Event{Kind: ledger.KindSplit, User: maddr(user), ConditionID: mcond(market), Amount: mm(amt)}
}

// Wallets of the hand-built world.
const (
	wA = 1 // "alice", profile with name
	wB = 2 // "bob"
	wC = 3 // no profile
	wD = 4 // no profile
)

// handWorld is the hand-built history every exact test reads:
//
//	market 1 (event 100, Yes/No, tokens 11/12): A splits 100; B buys 40 Yes
//	  from A at 0.60 (T0+70); C buys 30 No from A at 0.45 (T0+100); B splits
//	  10 (T0+130); D buys 5 Yes from B at 0.70 (T0+200). Marks: Yes 0.70, No
//	  0.30. Supply 110 each side: Yes A 60 B 45 D 5, No A 70 C 30 B 10.
//	market 2 (event 100, tokens 21/22): C splits 20; B buys 20 Yes from C at
//	  0.30 (T0+400); resolves Yes at T0+500; B redeems 20 (T0+600).
//	market 3 (event 200, three outcomes, tokens 31/32/33): D splits 9; A buys
//	  4 of outcome 0 from D at 0.50 (T0+800).
//	market 4 (event 200): declared, never traded.
func handWorld() []ledger.Event {
	b := &mBuilder{}
	b.add(mMarket(1, 100, "Yes", "No"))
	b.add(mMarket(2, 100, "Yes", "No"))
	b.add(mMarket(3, 200, "Red", "Green", "Blue"))
	b.add(mMarket(4, 200, "Yes", "No"))
	b.add(ledger.Event{Kind: ledger.KindProfile, Address: maddr(wA), Name: "alice", Pseudonym: "Able-Ant", Bio: "a",
		ProfileImage: "https://pmx.example/a.png", Verified: true})
	b.add(ledger.Event{Kind: ledger.KindProfile, Address: maddr(wB), Name: "bob", Pseudonym: "Busy-Bee"})
	b.at(mT0+10, mSplit(wA, 1, "100"))
	b.at(mT0+70, mTrade("11", wA, wB, "BUY", "0.60", "40"))
	b.at(mT0+100, mTrade("12", wA, wC, "BUY", "0.45", "30"))
	b.at(mT0+130, mSplit(wB, 1, "10"))
	b.at(mT0+200, mTrade("11", wB, wD, "BUY", "0.70", "5"))
	b.at(mT0+300, mSplit(wC, 2, "20"))
	b.at(mT0+400, mTrade("21", wC, wB, "BUY", "0.30", "20"))
	b.add(ledger.Event{Kind: ledger.KindResolution, ConditionID: mcond(2), Payouts: []amount.Micro{amount.One, 0},
		ResolvedAt: mT0 + 500})
	b.at(mT0+600, ledger.Event{Kind: ledger.KindRedeem, User: maddr(wB), ConditionID: mcond(2)})
	b.at(mT0+700, mSplit(wD, 3, "9"))
	b.at(mT0+800, mTrade("31", wD, wA, "BUY", "0.50", "4"))
	return b.evs
}

// sharedFixture reads testdata/data-v2/<name>, a copy of a live production
// capture (testdata/data-v2/PROVENANCE.md). A missing file fails the test.
func sharedFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
