package clobhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobengine"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/clob/clobws"
)

// The exchange tests' markets: A on a 0.01 grid, B neg-risk on 0.001.
const (
	condA = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1"
	yesA  = "71321045679252212594626385532706912750332728571942532289631379312455583992563"
	noA   = "52114319501245915516055106046884209969926127482827954674443846427813813222426"
	condB = "0x00000000000000000000000000000000000000000000000000000000000000b2"
	yesB  = "1001"
	noB   = "1002"
	condC = "0x00000000000000000000000000000000000000000000000000000000000000c3" // 3 s match delay
	yesC  = "1003"
	condD = "0x00000000000000000000000000000000000000000000000000000000000000d4" // not accepting orders
	yesD  = "1005"
)

func testMarkets() []clob.Market {
	return []clob.Market{
		{ConditionID: condA, Question: "Will A?", Tokens: [2]clob.Token{{ID: yesA, Outcome: "Yes"}, {ID: noA, Outcome: "No"}},
			Ticks: 100, MinSize: 5_000_000, Active: true, Accepting: true},
		{ConditionID: condB, Question: "Will B?", Tokens: [2]clob.Token{{ID: yesB, Outcome: "Yes"}, {ID: noB, Outcome: "No"}},
			Ticks: 1000, MinSize: 1_000_000, NegRisk: true, Active: true, Accepting: true},
		{ConditionID: condC, Question: "Will C?", Tokens: [2]clob.Token{{ID: yesC, Outcome: "Yes"}, {ID: "1004", Outcome: "No"}},
			Ticks: 100, Active: true, Accepting: true, SecondsDelay: 3},
		{ConditionID: condD, Question: "Will D?", Tokens: [2]clob.Token{{ID: yesD, Outcome: "Yes"}, {ID: "1006", Outcome: "No"}},
			Ticks: 100, Active: true},
	}
}

// xenv is an env whose handler runs the exchange.
type xenv struct {
	*env
	svc *clobsvc.Service
}

type clockLike interface {
	clobsvc.Clock
}

// newExchange starts a service in a temp dir (markets A and B) behind the
// CLOB handler; clk nil means the real clock.
func newExchange(t testing.TB, dir string, clk *fixedClock, limits string) *xenv {
	t.Helper()
	return newExchangeGated(t, dir, clk, limits, nil)
}

func newExchangeGated(t testing.TB, dir string, clk *fixedClock, limits string, gate chan struct{}, more ...func(*clobsvc.Options)) *xenv {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	opt := clobsvc.Options{Dir: dir, Markets: func(context.Context) ([]clob.Market, error) { return testMarkets(), nil },
		SyncEvery: -1, Limits: limits, Gate: gate}
	if clk != nil {
		opt.Clock = clk
	}
	for _, f := range more {
		f(&opt)
	}
	svc := clobsvc.Open(opt)
	if gate == nil {
		<-svc.Ready()
		if err := svc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { svc.Close() })
	if gate != nil { // a failed test must not leave Close waiting for the replay
		t.Cleanup(func() {
			select {
			case <-gate:
			default:
				close(gate)
			}
		})
	}
	hopt := clobhttp.Options{Store: newStore(t), MasterKey: []byte(strings.Repeat("k", 32)), Service: svc}
	if clk != nil {
		hopt.Clock = clk
	}
	h, err := clobhttp.New(hopt)
	if err != nil {
		t.Fatal(err)
	}
	// The CLOB listener as pmx serve mounts it: the sockets beside the routes.
	mux := http.NewServeMux()
	for p, hd := range clobws.New(clobws.Options{Service: svc, Credentials: h.Credentials}).Routes() {
		mux.Handle(p, hd)
	}
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &xenv{env: &env{srv: srv, clock: clk, h: h}, svc: svc}
}

// must submits an operator command and fails the test on any refusal.
func (x *xenv) must(t testing.TB, c clobengine.Command) clobengine.Result {
	t.Helper()
	r, err := x.svc.Submit(&c)
	if err == nil && r.Err != nil {
		err = r.Err
	}
	if err != nil {
		t.Fatalf("%s: %v", c.Op, err)
	}
	return r
}

// fund deposits collateral and splits sets of market A for addr.
func (x *xenv) fund(t testing.TB, addr string, usdc, sets int64) {
	t.Helper()
	x.must(t, clobengine.Command{Op: clobengine.OpDeposit, Addr: strings.ToLower(addr), Amount: usdc * 1_000_000})
	if sets > 0 {
		x.must(t, clobengine.Command{Op: clobengine.OpSplit, Addr: strings.ToLower(addr), Cond: condA, Amount: sets * 1_000_000})
	}
}
