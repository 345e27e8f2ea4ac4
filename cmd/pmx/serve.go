package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/pprof"
	"os"
	"sync"
	"time"

	"pmx/internal/admin"
	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/config"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/demo"
	"pmx/internal/perps/perpshttp"
	"pmx/internal/perps/perpsvc"
	"pmx/internal/ratelimit"
	"pmx/internal/server"
)

// dbFile is the embedded store inside the data dir.
const dbFile = "pmx.db"

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		var c config.Serve
		fs := newFlagSet("serve", serveUsage)
		c.Bind(fs, os.Getenv)
		return parseFlags(fs, args, stdout, stderr)
	}
	cfg, err := config.Parse(args)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogFormat)
	began := time.Now()

	dd, err := server.OpenDataDir(cfg.DataDir)
	if err != nil {
		if errors.Is(err, server.ErrLocked) {
			return fmt.Errorf("%w: is another 'pmx serve' using %s? stop it or pass a different --data-dir", err, cfg.DataDir)
		}
		return err
	}
	defer dd.Close()
	token, err := dd.Secret("admin.token")
	if err != nil {
		return err
	}
	cursorKey, err := dd.Secret("cursor.key")
	if err != nil {
		return err
	}

	// Every port is bound before any long work: a clash is reported at once,
	// and until the services are ready each listener answers 503 "starting".
	metrics := server.NewMetrics()
	var dataG, catalogG, clobG, perpsG, adminG gate
	var listeners []*server.Listener
	if serves(cfg.Role, "data") {
		listeners = append(listeners,
			&server.Listener{Name: "data", Addr: cfg.DataAddr, Handler: &dataG, ServesOK: true,
				Wrap: dataapi.Trace, Refuse: dataapi.Refuse, Body: readOnlyBody},
			&server.Listener{Name: "catalog", Addr: cfg.CatalogAddr, Handler: &catalogG, ServesOK: true, Refuse: cataloghttp.Refuse, Body: readOnlyBody})
	}
	if serves(cfg.Role, "clob") { // not on a read node: the exchanges and their journals live on the writer
		listeners = append(listeners,
			&server.Listener{Name: "clob", Addr: cfg.ClobAddr, Handler: &clobG, ServesOK: true, Refuse: clobhttp.Refuse},
			&server.Listener{Name: "perps", Addr: cfg.PerpsAddr, Handler: &perpsG, ServesOK: true,
				Refuse: perpshttp.Refuse})
	}
	listeners = append(listeners, &server.Listener{Name: "admin", Addr: cfg.AdminAddr, Handler: &adminG, ServesOK: true, Refuse: adminRefuse, Body: adminBody})
	g := &server.Group{Log: log, Metrics: metrics, Listeners: listeners}
	if err := g.Start(); err != nil {
		return err
	}
	// The listeners stop first on the way out (the stores and the perps
	// exchange close after them); on an early error return, via the defer.
	stopListeners := sync.OnceFunc(func() { shutdown(g, log) })
	defer stopListeners()
	for _, l := range g.Listeners {
		fmt.Fprintf(stdout, "%-8s %s\n", l.Name, l.URL())
	}
	if testHookBound != nil {
		testHookBound(g)
	}

	openFile := func(dbPath string) func() (*stores, error) {
		return func() (*stores, error) { return openStores(ctx, dbPath, nil) }
	}
	var stores *stores
	if cfg.Store != "" { // PostgreSQL (store.go): the cursor key is the deployment's
		if stores, cursorKey, err = pgServe(ctx, cfg, stderr, log); err != nil {
			return err
		}
	} else {
		dbPath := dd.File(dbFile)
		if _, err := os.Stat(dbPath); errors.Is(err, os.ErrNotExist) && cfg.Demo {
			if err := loadDemo(ctx, dbPath, cfg.DemoSeed, cfg.DemoScale, time.Now().Unix(), stderr, log); err != nil {
				return fmt.Errorf("loading demo world: %w", err)
			}
		}
		if stores, err = step(log, "opening the data store", openFile(dbPath)); err != nil {
			return err
		}
	}
	defer stores.Close()
	st := stores.data

	dataOpts := dataapi.Options{Store: st, CursorKey: []byte(cursorKey), Log: log}
	if !cfg.IPLimits {
		dataOpts.Limits = &ratelimit.Config{}
	}
	data := dataapi.New(dataOpts)
	metrics.Registry.MustRegister(data.Collectors()...) // the page cache's bytes, hits, evictions
	catLimiter, err := ratelimit.New(ratelimit.CatalogDefaults(), nil)
	if err != nil {
		return err
	}
	// The catalog's live fields: the data store's, with the CLOB's book on top once it runs
	// (on a PostgreSQL read node, the book tops the writer publishes).
	live := &clobsvc.BookLive{Data: st}
	var catalogLive catalog.LiveFields = live
	if stores.pg != nil && cfg.Role == config.RoleData {
		stored := clobsvc.NewStoredBookLive(st, clobsql.NewBookTops(stores.catPool), 0, log)
		defer stored.Close()
		catalogLive = stored
	}
	catalogAPI := cataloghttp.NewHandler(stores.catalog, cataloghttp.Options{Live: catalogLive, Log: log})
	adminRoutes := map[string]http.Handler{"POST /admin/catalog": cataloghttp.ImportHandler(stores.pipeline)}
	if serves(cfg.Role, "clob") {
		clobAPI, clobLimiter, clobSvc, err := newCLOB(ctx, dd, stores, cfg, log)
		if err != nil {
			return err
		}
		defer clobSvc.Close() // after the listeners have shut down
		metrics.GaugeFunc("pmx_clob_ws_sessions", "Open CLOB WebSocket sessions (/ws/market and /ws/user).", nil,
			func() float64 { return float64(clobSvc.StreamSessions()) })
		metrics.CounterFunc("pmx_clob_ws_slow_consumers_total", "CLOB WebSocket sessions closed because their send queue was full.", nil,
			func() float64 { return float64(clobSvc.StreamDrops()) })
		live.SetService(clobSvc)
		perpsSrv, err := step(log, "opening the perps exchange (replaying its journal)", func() (*perpshttp.Server, error) {
			return perpshttp.New(perpshttp.Options{Dir: dd.File("perps"), Log: log,
				RiskDelay: cfg.PerpsRiskDelay, AcceptDelay: cfg.PerpsAcceptDelay, TakerDelay: cfg.PerpsTakerDelay,
				ModifyDelay: cfg.PerpsModifyDelay, COIDWait: cfg.PerpsCOIDWait, NoHeldCancels: !cfg.PerpsHeldCancels,
				FundingInterval: cfg.PerpsFundingInterval,
				AutoCancelDaily: cfg.PerpsAutoCancelDaily,
				CloseOnlyWindow: cfg.PerpsCloseOnlyWindow, IndexWindow: cfg.PerpsIndexWindow,
				Money: perpsvc.MoneyOptions{Chain: cfg.Chain(), WithdrawFee: cfg.PerpsWithdrawFee}})
		})
		if err != nil {
			return err
		}
		defer perpsSrv.Close() // after the listeners have shut down (defers run last-in first-out)
		metrics.CounterFunc("pmx_perps_signers_recovered_total", "Signed perps requests whose signer was recovered from the signature (every one).",
			nil, func() float64 { return float64(perpsSrv.Recovered()) })
		stopMM, err := startPerpsDemo(perpsSrv, cfg, log)
		if err != nil {
			return err
		}
		defer stopMM() // before perpsSrv.Close
		maps.Copy(adminRoutes, perpsSrv.AdminRoutes())
		maps.Copy(adminRoutes, clobhttp.AdminRoutes(clobSvc))
		stopCLOBMM := startCLOBDemo(ctx, clobSvc, cfg, log)
		defer stopCLOBMM()
		clobG.ready(clobAPI, false, ipLimit(cfg.IPLimits, ratelimit.Middleware{L: clobLimiter, Reject: clobhttp.RateLimited}))
		// The perps listener limits by request weight itself (429, no delay).
		perpsG.ready(perpsSrv.Handler(), false, nil)
	}

	adminAPI := &admin.Handler{Ledger: stores.pipeline, Lookup: st.Outcomes, Extra: adminRoutes}
	adminMux := http.NewServeMux()
	adminMux.Handle("GET /metrics", metrics.Handler())
	if serves(cfg.Role, "ingest") { // a read node takes no writes: metrics and profiles only
		adminMux.Handle("/", server.RequireToken(token, adminAPI.Routes()))
	}
	// Go profiles for operators (CPU, heap, goroutines, execution trace), behind the admin token.
	adminMux.Handle("/debug/pprof/", server.RequireToken(token, http.HandlerFunc(pprof.Index)))
	adminMux.Handle("/debug/pprof", server.RequireToken(token, http.HandlerFunc(pprof.Index))) // no redirect to the subtree
	adminMux.Handle("/debug/pprof/profile", server.RequireToken(token, http.HandlerFunc(pprof.Profile)))
	adminMux.Handle("/debug/pprof/trace", server.RequireToken(token, http.HandlerFunc(pprof.Trace))) // GC, scheduler and syscall latencies

	dataG.ready(data, true, nil)
	catalogG.ready(catalogAPI, false, ipLimit(cfg.IPLimits, ratelimit.Middleware{L: catLimiter, Reject: catalogRateLimited}))
	adminG.ready(adminMux, false, nil)
	elapsed := time.Since(began).Round(100 * time.Millisecond)
	fmt.Fprintf(stdout, "ready in %s (data dir %s; stop with Ctrl-C or kill -INT $(cat %s))\n", elapsed, cfg.DataDir, dd.File("LOCK"))
	log.Info("ready", "data_dir", cfg.DataDir, "role", cfg.Role, "elapsed", elapsed.String())

	select {
	case <-ctx.Done():
		log.Info("shutting down", "reason", "signal")
	case err := <-g.Err():
		log.Error("listener failed", "err", err)
	}
	stopListeners()
	return nil
}

// testHookBound, set by tests, runs once every listener is bound and before
// any long work.
var testHookBound func(*server.Group)

// shutdown stops the listeners gracefully (in-flight requests finish, up to
// 10 s).
func shutdown(g *server.Group, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "err", err)
	}
	log.Info("stopped")
}

// loadDemo builds the demo world into a temporary database and renames it
// into place only when complete, so an interrupted load leaves no half world.
func loadDemo(ctx context.Context, dbPath string, seed int64, scale float64, now int64, stderr io.Writer, log *slog.Logger) error {
	tmp := dbPath + ".loading"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(tmp + suffix)
	}
	var within func(done, total int) // set by applyDemo for each chunk
	st, err := openStores(ctx, tmp, func(done, total int) {
		if within != nil {
			within(done, total)
		}
	})
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := applyDemo(ctx, st.pipeline, seed, scale, now, stderr, log, &within)
	if err == nil {
		err = linkDemoSeries(ctx, st.catalog, now)
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return err
	}
	log.Info("demo world loaded", "events", n, "elapsed", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// linkDemoSeries files the demo's recurring events under their catalog
// series (the ledger carries markets, not series).
func linkDemoSeries(ctx context.Context, cat catalog.Store, now int64) error {
	events, err := cat.ListEvents(ctx, catalog.EventFilter{})
	if err != nil {
		return err
	}
	return cat.ImportEvents(ctx, demo.LinkSeries(events, time.Unix(now, 0).UTC().Format(time.RFC3339)))
}

// stores are the data store and the catalog, sharing one SQLite file, and
// the ingest pipeline that feeds both.
type stores struct {
	data     *sqlite.DB
	catPool  *sql.DB
	catalog  *catalogsql.Store
	pipeline *ingest.Pipeline
	pg       *postgres.DB // the data store when on PostgreSQL (store.go)
	closers  []func()     // run after the pools close
}

func openStores(ctx context.Context, path string, progress func(done, total int)) (*stores, error) {
	data, err := sqlite.Open(path, sqlite.Options{Progress: progress})
	if err != nil {
		return nil, err
	}
	pool, err := sqlite.OpenPool(path, 4)
	if err != nil {
		data.Close()
		return nil, err
	}
	cat, err := catalogsql.New(ctx, pool)
	if err != nil {
		pool.Close()
		data.Close()
		return nil, err
	}
	return &stores{data: data, catPool: pool, catalog: cat, pipeline: &ingest.Pipeline{Data: data, Catalog: cat}}, nil
}

func (s *stores) Close() error {
	err := s.catPool.Close()
	if err2 := s.data.Close(); err == nil {
		err = err2
	}
	for _, c := range s.closers {
		c()
	}
	return err
}

// catalogRateLimited is the catalog's 429: JSON with Retry-After.
func catalogRateLimited(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration, _ string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", ratelimit.RetryAfterSeconds(retryAfter))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = io.WriteString(w, `{"type":"rate_limited","error":"too many requests"}`)
}

// ipLimit is the listener wrapper enforcing the IP-based request limits, or
// nothing when they are switched off (--ip-limits=false).
func ipLimit(on bool, m ratelimit.Middleware) func(http.Handler) http.Handler {
	if !on {
		return nil
	}
	return m.Wrap
}

// Listener-level refusals and body limits (see server.guard). The data
// service and the catalog only read; the admin listener carries the big
// operator uploads.
var (
	readOnlyBody = func(*http.Request) server.BodyLimit {
		return server.BodyLimit{Max: 64 << 10, Timeout: 10 * time.Second}
	}
	adminBody = server.BodyByRoute(server.DefaultBody, map[string]server.BodyLimit{
		"POST /admin/ledger":  {Max: admin.MaxLedgerBody, Timeout: 10 * time.Minute},
		"POST /admin/catalog": {Max: catalog.MaxImportBytes, Timeout: 2 * time.Minute},
	})
	adminRefuse = server.RefuseByPrefix(server.JSONRefuse, map[string]server.Refuser{
		"/admin/catalog": cataloghttp.Refuse, "/admin/perps/": perpshttp.Refuse})
)
