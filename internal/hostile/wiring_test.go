package hostile

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pmx/internal/admin"
	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/clob/clobws"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/sqlite"
	"pmx/internal/perps/perpshttp"
	"pmx/internal/ratelimit"
	"pmx/internal/server"
)

const adminToken = "hostile-test-token"

// logBuf collects every log line of the servers under test.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// pmx is the five listeners of one `pmx serve`.
type pmx struct {
	url  map[string]string
	logs *logBuf
}

// start wires the five services exactly as cmd/pmx/serve.go does (stores in
// one SQLite file, IP limits on, the listener refusals and body limits of
// each service), on 127.0.0.1:0.
// options vary the wiring; the zero value is `pmx serve`'s.
type options struct {
	bodyReadsPerIP int           // the Group's cap (0: the default)
	noIPLimits     bool          // as --ip-limits=false (fuzzing must reach the decoders)
	perpsIPBudget  int           // perps request weight per IP per minute (0: default)
	bodyTimeout    time.Duration // every route's body deadline (0: serve's)
	clobEngine     bool          // run the CLOB exchange and its sockets (/ws/market, /ws/user) behind the keys
}

func start(t testing.TB, o options) *pmx {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	logs := &logBuf{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	prev := slog.Default()
	slog.SetDefault(log) // packages that log through the default logger
	t.Cleanup(func() { slog.SetDefault(prev) })

	path := filepath.Join(dir, "pmx.db")
	data, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	pool, err := sqlite.OpenPool(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	cat, err := catalogsql.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	pipeline := &ingest.Pipeline{Data: data, Catalog: cat}
	keys, err := clobsql.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	var clobAPI http.Handler
	if o.clobEngine {
		clobAPI = clobExchange(t, keys, filepath.Join(dir, "clob"), log)
	} else if clobAPI, err = clobhttp.New(clobhttp.Options{Store: keys, MasterKey: bytes.Repeat([]byte{7}, 32), Log: log}); err != nil {
		t.Fatal(err)
	}
	perpsSrv, err := perpshttp.New(perpshttp.Options{Dir: filepath.Join(dir, "perps"), Log: log, IPBudget: o.perpsIPBudget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { perpsSrv.Close() })
	catLimiter, err := ratelimit.New(ratelimit.CatalogDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	clobLimiter, err := ratelimit.New(ratelimit.CLOBDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}

	metrics := server.NewMetrics()
	adminRoutes := map[string]http.Handler{"POST /admin/catalog": cataloghttp.ImportHandler(cat)}
	for p, h := range perpsSrv.AdminRoutes() {
		adminRoutes[p] = h
	}
	adminAPI := &admin.Handler{Ledger: pipeline, Lookup: data.Outcomes, Extra: adminRoutes}
	adminMux := http.NewServeMux()
	adminMux.Handle("GET /metrics", metrics.Handler())
	adminMux.Handle("/", server.RequireToken(adminToken, adminAPI.Routes()))

	dataOpts := dataapi.Options{Store: data, CursorKey: []byte("hostile-test-cursor-key"), Log: log}
	catWrap := ratelimit.Middleware{L: catLimiter, Reject: func(w http.ResponseWriter, r *http.Request, _ time.Duration, _ string) {
		cataloghttp.Refuse(w, r, http.StatusTooManyRequests, "too many requests")
	}}.Wrap
	clobWrap := ratelimit.Middleware{L: clobLimiter, Reject: clobhttp.RateLimited}.Wrap
	if o.noIPLimits {
		dataOpts.Limits = &ratelimit.Config{}
		catWrap, clobWrap = nil, nil
	}
	readOnly := func(*http.Request) server.BodyLimit {
		return server.BodyLimit{Max: 64 << 10, Timeout: 10 * time.Second}
	}
	g := &server.Group{Log: log, Metrics: metrics, BodyReadsPerIP: o.bodyReadsPerIP, Listeners: []*server.Listener{
		{Name: "data", Addr: "127.0.0.1:0", Handler: dataapi.New(dataOpts),
			ServesOK: true, Wrap: dataapi.Trace, Refuse: dataapi.Refuse, Body: readOnly},
		{Name: "catalog", Addr: "127.0.0.1:0", Handler: cataloghttp.NewHandler(cat, cataloghttp.Options{Live: data, Log: log}),
			Refuse: cataloghttp.Refuse, Body: readOnly, Wrap: catWrap},
		{Name: "clob", Addr: "127.0.0.1:0", Handler: clobAPI, Refuse: clobhttp.Refuse, Wrap: clobWrap},
		{Name: "perps", Addr: "127.0.0.1:0", Handler: perpsSrv.Handler(), Refuse: perpshttp.Refuse},
		{Name: "admin", Addr: "127.0.0.1:0", Handler: adminMux,
			Refuse: server.RefuseByPrefix(server.JSONRefuse, map[string]server.Refuser{"/admin/catalog": cataloghttp.Refuse, "/admin/perps/": perpshttp.Refuse}),
			Body: server.BodyByRoute(server.DefaultBody, map[string]server.BodyLimit{
				"POST /admin/ledger":  {Max: admin.MaxLedgerBody, Timeout: 10 * time.Minute},
				"POST /admin/catalog": {Max: catalog.MaxImportBytes, Timeout: 2 * time.Minute},
			})},
	}}
	if o.bodyTimeout > 0 {
		for _, l := range g.Listeners {
			limit := l.Body
			if limit == nil {
				limit = func(*http.Request) server.BodyLimit { return server.DefaultBody }
			}
			l.Body = func(r *http.Request) server.BodyLimit {
				b := limit(r)
				b.Timeout = o.bodyTimeout
				return b
			}
		}
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = g.Shutdown(ctx)
	})
	p := &pmx{url: map[string]string{}, logs: logs}
	for _, l := range g.Listeners {
		p.url[l.Name] = l.URL()
	}
	return p
}

// do sends one request and returns the answer (status, headers, body).
func do(t testing.TB, method, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if len(body) > 16<<10 {
		// A route that answers without reading closes the connection on
		// the unread body (server.TestAnswerThatIgnoresTheBodyDoesNotWaitForIt);
		// a client still writing a large body would see the reset instead
		// of the answer, so it asks first, as careful clients do.
		req.Header.Set("Expect", "100-continue")
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// client never follows redirects: a redirect is an answer to check.
var client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// clobExchange is the CLOB listener as serve wires it with its exchange:
// the routes and the sockets beside them, on an engine with no markets.
func clobExchange(t testing.TB, keys clob.Store, dir string, log *slog.Logger) http.Handler {
	t.Helper()
	svc := clobsvc.Open(clobsvc.Options{Dir: dir, Log: log, SyncEvery: -1,
		Markets: func(context.Context) ([]clob.Market, error) { return nil, nil }})
	<-svc.Ready()
	if err := svc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	h, err := clobhttp.New(clobhttp.Options{Store: keys, MasterKey: bytes.Repeat([]byte{7}, 32), Log: log, Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for p, hd := range clobws.New(clobws.Options{Service: svc, Credentials: h.Credentials, Log: log}).Routes() {
		mux.Handle(p, hd)
	}
	mux.Handle("/", h)
	return mux
}
