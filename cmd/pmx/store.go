package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"pmx/internal/catalog/catalogpg"
	"pmx/internal/clob/clob"
	"pmx/internal/clob/clobpg"
	"pmx/internal/clob/clobsql"
	"pmx/internal/config"
	"pmx/internal/data/ingest"
	"pmx/internal/data/postgres"
	"pmx/internal/pgsql"
)

// --store postgres://... and --role (docs/postgres.md): the data store and
// the catalog (and the CLOB's key records) on PostgreSQL; a data node serves
// the data and catalog listeners from it read-only, a writer the exchanges
// and ingest, "all" everything.

// openPGStores opens the stores on url; a follower (--role data) never
// writes to the database.
func openPGStores(ctx context.Context, url string, follower bool) (*stores, error) {
	data, err := postgres.Open(ctx, url, postgres.Options{Follower: follower})
	if err != nil {
		return nil, err
	}
	pool, err := pgsql.Pool(ctx, url, 4, 10*time.Second)
	if err != nil {
		data.Close()
		return nil, err
	}
	catDB := pgsql.SQL(pool)
	cat, err := catalogpg.New(ctx, catDB)
	if err != nil {
		catDB.Close()
		pool.Close()
		data.Close()
		return nil, err
	}
	return &stores{data: data.DB, pg: data, catPool: catDB, catalog: cat,
		pipeline: &ingest.Pipeline{Data: data, Catalog: cat},
		closers:  []func(){pool.Close, func() { data.Close() }}}, nil
}

// pgServe opens the PostgreSQL stores for serve, loads the demo world into
// an empty database (not on a read node) and returns the deployment's
// cursor key, which every node shares.
func pgServe(ctx context.Context, cfg config.Serve, stderr io.Writer, log *slog.Logger) (*stores, string, error) {
	st, err := openPGStores(ctx, cfg.Store, cfg.Role == config.RoleData)
	if err != nil {
		return nil, "", err
	}
	if cfg.Demo && cfg.Role != config.RoleData {
		wm, err := st.data.Watermark(ctx)
		if err != nil {
			st.Close()
			return nil, "", err
		}
		if wm.Applied == 0 {
			start := time.Now()
			n, err := applyDemo(ctx, st.pipeline, cfg.DemoSeed, cfg.DemoScale, time.Now().Unix(), stderr, log, nil)
			if err != nil {
				st.Close()
				return nil, "", fmt.Errorf("loading demo world: %w", err)
			}
			log.Info("demo world loaded", "events", n, "elapsed", time.Since(start).Round(time.Millisecond).String())
		}
	}
	key, err := st.pg.Secret(ctx, "cursor.key")
	if err != nil {
		st.Close()
		return nil, "", err
	}
	return st, key, nil
}

// clobKeys is the CLOB key store on the stores' database.
func clobKeys(ctx context.Context, st *stores) (*clobsql.Store, error) {
	if st.pg != nil {
		return clobpg.New(ctx, st.catPool)
	}
	return clobsql.New(ctx, st.catPool)
}

var _ clob.Store = (*clobsql.Store)(nil)

// serves reports whether a process of role runs listener name.
func serves(role, name string) bool {
	switch role {
	case config.RoleData:
		return name == "data" || name == "catalog" || name == "admin"
	case config.RoleWriter:
		return name != "data" && name != "catalog"
	}
	return true
}
