package main

import (
	"cmp"
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
	"time"

	"pmx/internal/admin"
	"pmx/internal/catalog/catalog"
	"pmx/internal/catalog/catalogsql"
	"pmx/internal/clob/clobhttp"
	"pmx/internal/config"
	"pmx/internal/data/dataapi"
	"pmx/internal/data/ingest"
	"pmx/internal/data/sqlite"
	"pmx/internal/perps/perpshttp"
	"pmx/internal/ratelimit"
	"pmx/internal/server"
)

// dbFile is the embedded store inside the data dir.
const dbFile = "pmx.db"

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := config.Parse(args)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogFormat)

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

	dbPath := dd.File(dbFile)
	if _, err := os.Stat(dbPath); errors.Is(err, os.ErrNotExist) && cfg.Demo {
		if err := loadDemo(ctx, dbPath, cfg.DemoSeed, cfg.DemoScale, demoNow(time.Now()), stderr, log); err != nil {
			return fmt.Errorf("loading demo world: %w", err)
		}
	}
	stores, err := openStores(ctx, dbPath, nil)
	if err != nil {
		return err
	}
	defer stores.Close()
	st := stores.data

	metrics := server.NewMetrics()
	dataOpts := dataapi.Options{Store: st, CursorKey: []byte(cursorKey), Log: log}
	if !cfg.IPLimits {
		dataOpts.Limits = &ratelimit.Config{}
	}
	data := dataapi.New(dataOpts)
	catLimiter, err := ratelimit.New(ratelimit.CatalogDefaults(), nil)
	if err != nil {
		return err
	}
	catalogAPI := catalog.NewHandler(stores.catalog, catalog.Options{Live: st, Log: log})
	clobAPI, clobLimiter, clobSvc, err := newCLOB(ctx, dd, stores, cfg, log)
	if err != nil {
		return err
	}
	defer clobSvc.Close() // after the listeners have shut down

	perpsSrv, err := perpshttp.New(perpshttp.Options{Dir: dd.File("perps"), Log: log,
		RiskDelay: cfg.PerpsRiskDelay, AcceptDelay: cfg.PerpsAcceptDelay, TakerDelay: cfg.PerpsTakerDelay,
		ModifyDelay: cfg.PerpsModifyDelay, COIDWait: cfg.PerpsCOIDWait, NoHeldCancels: !cfg.PerpsHeldCancels,
		KnownKeys: cmp.Or(cfg.PerpsKnownKeys, -1)})
	if err != nil {
		return err
	}
	defer perpsSrv.Close() // after the listeners have shut down (defers run last-in first-out)
	for how, i := range map[string]int{"recovered": 0, "known_key": 1} {
		metrics.CounterFunc("pmx_perps_signers_total", "Signed perps requests whose signer was found by recovery or by the connection's known key.",
			map[string]string{"how": how}, func() float64 { return float64(perpsSrv.SignerStats()[i]) })
	}
	stopMM, err := startPerpsDemo(perpsSrv, cfg, log)
	if err != nil {
		return err
	}
	defer stopMM() // before perpsSrv.Close

	adminRoutes := map[string]http.Handler{"POST /admin/catalog": catalog.ImportHandler(stores.catalog)}
	maps.Copy(adminRoutes, perpsSrv.AdminRoutes())
	maps.Copy(adminRoutes, clobhttp.AdminRoutes(clobSvc))
	stopCLOBMM := startCLOBDemo(ctx, clobSvc, cfg, log)
	defer stopCLOBMM()
	adminAPI := &admin.Handler{Ledger: stores.pipeline, Lookup: st.Outcomes, Extra: adminRoutes}
	adminMux := http.NewServeMux()
	adminMux.Handle("GET /metrics", metrics.Handler())
	adminMux.Handle("/", server.RequireToken(token, adminAPI.Routes()))
	// Go profiles for operators (CPU, heap, goroutines), behind the admin token.
	adminMux.Handle("/debug/pprof/", server.RequireToken(token, http.HandlerFunc(pprof.Index)))
	adminMux.Handle("/debug/pprof/profile", server.RequireToken(token, http.HandlerFunc(pprof.Profile)))

	g := &server.Group{Log: log, Metrics: metrics, Listeners: []*server.Listener{
		{Name: "data", Addr: cfg.DataAddr, Handler: data, ServesOK: true},
		{Name: "catalog", Addr: cfg.CatalogAddr, Handler: catalogAPI,
			Wrap: ipLimit(cfg.IPLimits, ratelimit.Middleware{L: catLimiter, Reject: catalogRateLimited})},
		{Name: "clob", Addr: cfg.ClobAddr, Handler: clobAPI,
			Wrap: ipLimit(cfg.IPLimits, ratelimit.Middleware{L: clobLimiter, Reject: clobhttp.RateLimited})},
		// The perps listener limits by request weight itself (429, no delay).
		{Name: "perps", Addr: cfg.PerpsAddr, Handler: perpsSrv.Handler(), ConnContext: perpshttp.ConnContext},
		{Name: "admin", Addr: cfg.AdminAddr, Handler: adminMux},
	}}
	if err := g.Start(); err != nil {
		return err
	}
	for _, l := range g.Listeners {
		fmt.Fprintf(stdout, "%-8s %s\n", l.Name, l.URL())
		log.Info("listening", "service", l.Name, "url", l.URL())
	}
	log.Info("serving", "data_dir", cfg.DataDir)

	select {
	case <-ctx.Done():
		log.Info("shutting down", "reason", "signal")
	case err := <-g.Err():
		log.Error("listener failed", "err", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "err", err)
	}
	log.Info("stopped")
	return nil
}

// loadDemo builds the demo world into a temporary database and renames it
// into place only when complete, so an interrupted load leaves no half world.
func loadDemo(ctx context.Context, dbPath string, seed int64, scale float64, now int64, stderr io.Writer, log *slog.Logger) error {
	tmp := dbPath + ".loading"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(tmp + suffix)
	}
	st, err := openStores(ctx, tmp, nil)
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := applyDemo(ctx, st.pipeline, seed, scale, now, stderr, log)
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

// stores are the data store and the catalog, sharing one SQLite file, and
// the ingest pipeline that feeds both.
type stores struct {
	data     *sqlite.DB
	catPool  *sql.DB
	catalog  *catalogsql.Store
	pipeline *ingest.Pipeline
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
	return err
}

// catalogRateLimited is the catalog's 429: JSON with Retry-After.
func catalogRateLimited(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration, _ string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", ratelimit.RetryAfterSeconds(retryAfter))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = io.WriteString(w, `{"type":"rate_limited","error":"too many requests"}`)
}

// demoNow ends the demo world's window at the start of the current UTC day,
// so every start on the same day builds the same world from the same seed.
func demoNow(t time.Time) int64 {
	return t.UTC().Truncate(24 * time.Hour).Unix()
}

// ipLimit is the listener wrapper enforcing the IP-based request limits, or
// nothing when they are switched off (--ip-limits=false).
func ipLimit(on bool, m ratelimit.Middleware) func(http.Handler) http.Handler {
	if !on {
		return nil
	}
	return m.Wrap
}
