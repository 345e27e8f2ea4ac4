// Package demo generates the deterministic demo world: a realistic venue's
// last 90 days as ledger events (markets, wallets with profiles, builders,
// trades with price paths, splits, merges, conversions, resolutions and
// redemptions, rewards, rebates, flows, tips and combos). The same Options
// always give byte-identical output.
package demo

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"pmx/internal/data/ledger"
)

// Options choose the world.
type Options struct {
	Seed  uint64
	Scale float64   // 1.0 = full world (5,000 wallets, >500,000 trades); must be > 0
	Now   time.Time // end of the 90-day window; the caller's clock, so output is reproducible
}

// Window is how far back the demo history reaches from Now.
const Window = 90 * 24 * time.Hour

// full-scale sizes.
const (
	fullWallets = 5000
	fullTrades  = 390_000 // ticks; a mint match makes two trades, so ~535,000 trades
	fullEvents  = 110
	fullCombos  = 40
)

// Generate emits the world's events in order: timestamps and block numbers
// never decrease, (block_number, log_index) strictly increases, and every
// event passes ledger.Validate. emit may keep e. An error from emit stops
// generation and is returned.
func Generate(opts Options, emit func(*ledger.Event) error) error {
	if !(opts.Scale > 0) || math.IsInf(opts.Scale, 0) || opts.Scale > 100 {
		return fmt.Errorf("demo: scale must be in (0,100], got %v", opts.Scale)
	}
	if opts.Now.Unix() < int64(Window/time.Second)*2 {
		return errors.New("demo: Now is too early")
	}
	g := newGen(opts, emit)
	return g.run()
}

// Estimate is the approximate number of events Generate emits, for progress.
func Estimate(opts Options) int {
	return int(float64(fullTrades) * opts.Scale * 2.2)
}

// WriteFile writes the world to path as NDJSON (atomically: a temporary
// file renamed into place). progress, if set, is called now and then with
// events written so far and the estimated total, and once at the end with
// done == total.
func WriteFile(path string, opts Options, progress func(done, total int)) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".demo-*.ndjson")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	enc := ledger.NewEncoder(f)
	total := Estimate(opts)
	n := 0
	err = Generate(opts, func(e *ledger.Event) error {
		n++
		if progress != nil && n%16384 == 0 {
			progress(min(n, total-1), total)
		}
		return enc.Encode(e)
	})
	if err != nil {
		return err
	}
	if err = enc.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if progress != nil {
		progress(n, n)
	}
	return nil
}
