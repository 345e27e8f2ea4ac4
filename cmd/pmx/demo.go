package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"pmx/internal/data/ingest"
	"pmx/internal/data/ledger"
	"pmx/internal/demo"
	"pmx/internal/progress"
)

// applyChunk is how many demo events go into one Apply transaction (small
// enough that progress moves every few seconds).
const applyChunk = 50_000

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", demoUsage)
	out := fs.String("out", "", "output file (NDJSON ledger events)")
	seed := fs.Int64("seed", 1, "random seed")
	scale := fs.Float64("scale", 1, "world size, 1 = full (500k+ trades)")
	now := fs.Int64("now", 0, "end of the world's 90-day window, epoch s (default: now)")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
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

// applyDemo streams the demo world into st in chunks, showing progress in
// days of the world's history applied. If within is set, applyDemo points it
// at a function that the store calls during a chunk's Apply (sqlite.Options.
// Progress), so the bar moves inside a chunk too.
func applyDemo(ctx context.Context, st ingest.DataStore, seed int64, scale float64, now int64, stderr io.Writer, log *slog.Logger, within *func(done, total int)) (int, error) {
	opts := demo.Options{Seed: uint64(seed), Scale: scale, Now: time.Unix(now, 0)}
	const days = int64(demo.Window / (24 * time.Hour))
	t0 := now - days*86400
	bar := progress.New("demo world", days, stderr, log)
	bar.Unit = "days of history"
	chunk := make([]ledger.Event, 0, applyChunk)
	total := 0
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		if within != nil {
			first, last := max(chunk[0].Timestamp-t0, 0), max(chunk[len(chunk)-1].Timestamp-t0, 0)
			*within = func(done, total int) {
				if total > 0 {
					bar.Set(min((first+(last-first)*int64(done)/int64(total))/86400, days))
				}
			}
		}
		if _, err := st.Apply(ctx, chunk); err != nil {
			return err
		}
		total += len(chunk)
		if ts := chunk[len(chunk)-1].Timestamp; ts > 0 {
			bar.Set(min(max(ts-t0, 0)/86400, days))
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
	if err == nil {
		bar.Set(days)
	}
	bar.Finish()
	return total, err
}
