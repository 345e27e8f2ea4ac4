package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"pmx/internal/data/ingest"
	"pmx/internal/data/ledger"
	"pmx/internal/demo"
	"pmx/internal/progress"
)

// applyChunk is how many demo events go into one Apply transaction.
const applyChunk = 250_000

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	out := fs.String("out", "", "output file (NDJSON ledger events)")
	seed := fs.Int64("seed", 1, "random seed")
	scale := fs.Float64("scale", 1, "world size, 1 = full (500k+ trades)")
	now := fs.Int64("now", 0, "end of the world's 90-day window, epoch s (default: now)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("demo: --out FILE is required")
	}
	if *now == 0 {
		*now = time.Now().Unix()
	}
	log := newLogger(stderr, "text")
	opts := demo.Options{Seed: uint64(*seed), Scale: *scale, Now: time.Unix(*now, 0)}
	bar := progress.New("demo", 100, stderr, log)
	err := demo.WriteFile(*out, opts, func(done, total int) {
		if total > 0 {
			bar.Set(int64(done) * 100 / int64(total))
		}
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// applyDemo streams the demo world into st in chunks, showing progress by the
// events' position in the world's time window.
func applyDemo(ctx context.Context, st ingest.DataStore, seed int64, scale float64, now int64, stderr io.Writer, log *slog.Logger) (int, error) {
	opts := demo.Options{Seed: uint64(seed), Scale: scale, Now: time.Unix(now, 0)}
	const window = 90 * 24 * 3600
	bar := progress.New("demo world", window, stderr, log)
	chunk := make([]ledger.Event, 0, applyChunk)
	total := 0
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		if _, err := st.Apply(ctx, chunk); err != nil {
			return err
		}
		total += len(chunk)
		if ts := chunk[len(chunk)-1].Timestamp; ts > 0 {
			bar.Set(min(max(ts-(now-window), 0), window))
		}
		chunk = chunk[:0]
		return ctx.Err()
	}
	err := demo.Generate(opts, func(e *ledger.Event) error {
		chunk = append(chunk, *e)
		if len(chunk) == cap(chunk) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	bar.Set(window)
	bar.Finish()
	return total, err
}
