package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"pmx/internal/admin"
	"pmx/internal/config"
	"pmx/internal/dataapi"
	"pmx/internal/server"
	"pmx/internal/sqlite"
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
		if err := loadDemo(ctx, dbPath, cfg.DemoSeed, cfg.DemoScale, time.Now().Unix(), stderr, log); err != nil {
			return fmt.Errorf("loading demo world: %w", err)
		}
	}
	st, err := sqlite.Open(dbPath, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()

	metrics := server.NewMetrics()
	data := dataapi.New(dataapi.Options{Store: st, CursorKey: []byte(cursorKey), Log: log})

	adminAPI := &admin.Handler{Ledger: st}
	adminMux := http.NewServeMux()
	adminMux.Handle("GET /metrics", metrics.Handler())
	adminMux.Handle("/", server.RequireToken(token, adminAPI.Routes()))

	g := &server.Group{Log: log, Metrics: metrics, Listeners: []*server.Listener{
		{Name: "data", Addr: cfg.DataAddr, Handler: data},
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
	st, err := sqlite.Open(tmp, sqlite.Options{})
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := applyDemo(ctx, st, seed, scale, now, stderr, log)
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
