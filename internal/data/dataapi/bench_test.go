package dataapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"pmx/internal/ratelimit"
)

type benchRow struct {
	ProxyWallet string `json:"proxy_wallet"`
	ConditionID string `json:"condition_id"`
	Size        int64  `json:"size"`
	Timestamp   int64  `json:"timestamp"`
}

// benchHandler is a representative route body: parse and validate the
// query, mint a cursor, write a 10-row page.
func benchHandler(c *Cursors) HandlerFunc {
	rows := make([]benchRow, 10)
	for i := range rows {
		rows[i] = benchRow{"0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a", cid, int64(i), 1790000000}
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := ParseRequest(r)
		if err != nil {
			return err
		}
		if _, err := q.User(true); err != nil {
			return err
		}
		limit, err := q.Limit(100, 1000)
		if err != nil {
			return err
		}
		if _, err := q.Enum(EnumSide, ""); err != nil {
			return err
		}
		next, err := c.Encode("trades", Keyset{Limit: limit, Offset: limit, TS: 1790000000, Seq: "937842960003104210"})
		if err != nil {
			return err
		}
		WritePage(w, r, rows, Pagination{Limit: limit, NextCursor: next})
		return nil
	}
}

func benchReq() *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/v2/trades?user=0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a&limit=10&side=BUY", nil)
	req.RemoteAddr = "203.0.113.7:5000"
	return req
}

// BenchmarkHandlerBare is the route body alone; BenchmarkHandlerStack is the
// same body behind every convention middleware. The difference is the
// conventions' overhead per request.
func BenchmarkHandlerBare(b *testing.B) {
	h := benchHandler(mustCursors(b, testSecret))
	req := benchReq()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

func BenchmarkHandlerStack(b *testing.B) {
	h := conventionStack(benchHandler(mustCursors(b, testSecret)))
	req := benchReq()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// conventionStack mounts route at /v2/trades behind every convention
// middleware: trace, the per-client limiter with the data defaults' rule set
// (limits lifted), mux, deadline and heavy gate.
func conventionStack(route HandlerFunc) http.Handler {
	cfg := ratelimit.DataDefaults()
	for i := range cfg.Rules {
		cfg.Rules[i].Limit = 1 << 30
	}
	l, _ := ratelimit.New(cfg, nil)
	m := NewMux()
	heavy := NewHeavyQueue(GateConfig{Slots: 64, Wait: time.Second}, time.Second)
	m.Handle("/v2/trades", Deadline(5*time.Second, nil)(heavy.Wrap(route)))
	return Trace(ClientLimit(l)(m))
}

// BenchmarkMiddlewareOnly is the whole convention stack (trace, per-client
// limiter with the data defaults' rule set, mux, deadline, heavy gate)
// around a handler that does nothing: its time is the per-request overhead.
func BenchmarkMiddlewareOnly(b *testing.B) {
	h := conventionStack(HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	req := benchReq()
	w := httptest.NewRecorder()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}

func BenchmarkCursorEncode(b *testing.B) {
	c := mustCursors(b, testSecret)
	k := Keyset{Limit: 100, Offset: 100, TS: 1790000000, Seq: "937842960003104210"}
	for b.Loop() {
		c.Encode("trades", k)
	}
}

func BenchmarkCursorDecode(b *testing.B) {
	c := mustCursors(b, testSecret)
	s, _ := c.Encode("trades", Keyset{Limit: 100, Offset: 100, TS: 1790000000, Seq: "937842960003104210"})
	for b.Loop() {
		if _, err := c.DecodeKeyset("trades", s, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseQuery(b *testing.B) {
	raw := "user=0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a&limit=10&sortBy=TOKENS&conditionId=" + cid
	for b.Loop() {
		q, _ := ParseQuery("/v2/positions", raw)
		q.User(true)
		q.Limit(100, 1000)
		q.Enum(EnumPositionSortBy, "")
		q.Conditions()
	}
}
