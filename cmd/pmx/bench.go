package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"pmx/internal/loadgen"
)

// benchCmd drives a running listener with closed-loop clients and prints
// latency percentiles: pmx bench --clients 32 URL [URL...].
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchUsage)
	clients := fs.Int("clients", 32, "concurrent keep-alive connections")
	dur := fs.Duration("duration", 8*time.Second, "measured time")
	warm := fs.Duration("warmup", 2*time.Second, "unmeasured warm-up")
	var headers headerFlags
	fs.Var(&headers, "header", `extra request header "Name: value" (repeatable), e.g. "Accept-Encoding: gzip"`)
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("bench: at least one URL is required (pmx bench -h)")
	}
	res, err := loadgen.Run(ctx, loadgen.Config{URLs: fs.Args(), Clients: *clients, Duration: *dur, Warmup: *warm, Headers: headers})
	if err != nil {
		return err
	}
	urls := strings.Join(fs.Args(), " ")
	if fs.NArg() > 3 {
		urls = fmt.Sprintf("%s ... (%d URLs)", fs.Arg(0), fs.NArg())
	}
	fmt.Fprintf(stdout, "%s clients=%d %s\n", urls, *clients, res)
	return nil
}

type headerFlags []string

func (h *headerFlags) String() string { return strings.Join(*h, ", ") }

func (h *headerFlags) Set(v string) error {
	name, _, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(v, "\r\n") {
		return fmt.Errorf("header %q: want \"Name: value\"", v)
	}
	*h = append(*h, v)
	return nil
}
