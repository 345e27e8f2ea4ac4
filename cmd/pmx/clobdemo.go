package main

import (
	"context"
	"log/slog"
	"time"

	"pmx/internal/clob/clobsvc"
	"pmx/internal/config"
)

// startCLOBDemo runs the CLOB demo market makers on a demo data dir (with
// --demo-market-makers); stop ends them.
func startCLOBDemo(ctx context.Context, svc *clobsvc.Service, cfg config.Serve, log *slog.Logger) (stop func()) {
	if !cfg.Demo || !cfg.DemoMarketMakers {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := svc.RunMarketMakers(ctx, clobsvc.MarketMakerOptions{Interval: max(cfg.DemoMMInterval, 30*time.Second), Markets: 50}); err != nil {
			log.Error("clob demo market makers stopped", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}
