package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"pmx/internal/loadgen"
)

// benchCmd drives a running listener with closed-loop clients and prints
// latency percentiles: pmx bench --clients 32 URL [URL...].
func benchCmd(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	clients := fs.Int("clients", 32, "concurrent keep-alive connections")
	dur := fs.Duration("duration", 8*time.Second, "measured time")
	warm := fs.Duration("warmup", 2*time.Second, "unmeasured warm-up")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("bench: at least one URL is required")
	}
	res, err := loadgen.Run(ctx, loadgen.Config{URLs: fs.Args(), Clients: *clients, Duration: *dur, Warmup: *warm})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s clients=%d %s\n", strings.Join(fs.Args(), " "), *clients, res)
	return nil
}
