package main

import (
	"context"
	"log/slog"

	"pmx/internal/config"
	"pmx/internal/perps/perpshttp"
)

// startPerpsDemo seeds the perps demo venue (only on an exchange with no
// instruments, only with --demo) and starts its market makers (only on a
// demo-seeded exchange, unless --demo-market-makers=false). The returned stop
// function cancels the makers and waits for them; call it before closing the
// perps server.
func startPerpsDemo(srv *perpshttp.Server, cfg config.Serve, log *slog.Logger) (stop func(), err error) {
	stop = func() {}
	if !cfg.Demo {
		return stop, nil
	}
	seeded, err := srv.SeedDemo()
	if err != nil {
		return stop, err
	}
	if seeded {
		log.Info("perps demo venue seeded")
	}
	if !cfg.DemoMarketMakers {
		return stop, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := srv.RunMarketMakers(ctx, perpshttp.MarketMakerOptions{Interval: cfg.DemoMMInterval, Seed: uint64(cfg.DemoSeed)})
		switch {
		case err == perpshttp.ErrNotDemo:
			log.Info("perps demo market makers not started: the exchange was not seeded by the demo")
		case err != nil:
			log.Error("perps demo market makers stopped", "err", err)
		}
	}()
	return func() { cancel(); <-done }, nil
}
