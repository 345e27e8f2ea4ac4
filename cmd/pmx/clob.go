package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"

	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"
	"pmx/internal/clob/clobsvc"
	"pmx/internal/clob/clobws"
	"pmx/internal/config"
	"pmx/internal/ratelimit"
	"pmx/internal/server"
)

// newCLOB builds the CLOB service: API keys derive from the master key in
// <data-dir>/clob.key (losing it invalidates every issued key) and their
// records live in the shared database; the exchange's journal is
// <data-dir>/clob and its markets come from the catalog.
func newCLOB(ctx context.Context, dd *server.DataDir, st *stores, cfg config.Serve, log *slog.Logger) (http.Handler, *ratelimit.Limiter, *clobsvc.Service, error) {
	keyHex, err := dd.Secret("clob.key")
	if err != nil {
		return nil, nil, nil, err
	}
	master, err := hex.DecodeString(keyHex)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("clob.key: %w", err)
	}
	keys, err := clobKeys(ctx, st)
	if err != nil {
		return nil, nil, nil, err
	}
	opt := clobsvc.Options{Dir: dd.File("clob"), Markets: clobsvc.CatalogMarkets(st.catalog), Log: log,
		Limits: cfg.ClobRateLimits, Chain: cfg.Chain(), AutoRedeem: cfg.ClobAutoRedeem,
		Ledger: st.pipeline} // every fill reaches the data store (docs/clob.md "CLOB → ledger")
	if st.pg != nil { // read nodes see the book through the database (docs/postgres.md)
		opt.BookTops = clobsql.NewBookTops(st.catPool)
	}
	svc := clobsvc.Open(opt)
	h, err := clobhttp.New(clobhttp.Options{Store: keys, MasterKey: master, Log: log, Service: svc})
	if err != nil {
		svc.Close()
		return nil, nil, nil, err
	}
	// The WebSocket (/ws/market, /ws/user) beside the routes, as production
	// serves them on its own host.
	mux := http.NewServeMux()
	for p, hd := range clobws.New(clobws.Options{Service: svc, Credentials: h.Credentials, Log: log}).Routes() {
		mux.Handle(p, hd)
	}
	mux.Handle("/", h)
	lim, err := ratelimit.New(ratelimit.CLOBDefaults(), nil)
	return mux, lim, svc, err
}
