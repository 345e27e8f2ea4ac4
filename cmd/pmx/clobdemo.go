package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"pmx/internal/clob/clobsvc"
	"pmx/internal/config"
)

// startCLOBDemo runs the CLOB demo market makers on a demo data dir (with
// --demo-market-makers) and the taker bots trading against them
// (--demo-takers); stop ends them.
func startCLOBDemo(ctx context.Context, svc *clobsvc.Service, cfg config.Serve, log *slog.Logger) (stop func()) {
	if !cfg.Demo || !cfg.DemoMarketMakers {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := svc.RunMarketMakers(ctx, clobsvc.MarketMakerOptions{Interval: max(cfg.DemoMMInterval, 30*time.Second), Markets: 50}); err != nil {
			log.Error("clob demo market makers stopped", "err", err)
		}
	})
	if cfg.DemoTakers > 0 {
		wg.Go(func() {
			o := clobsvc.TakerOptions{Bots: int(cfg.DemoTakers), Interval: cfg.DemoTakerInterval, Seed: uint64(cfg.DemoSeed), Markets: 50}
			if err := svc.RunTakers(ctx, o); err != nil {
				log.Error("clob demo takers stopped", "err", err)
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}
