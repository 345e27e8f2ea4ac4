// Command pmx runs the pmx stack and its tools. It only wires packages
// together; everything it calls lives under internal/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

const usage = `pmx: a self-hosted prediction-market trading stack

Usage:
  pmx serve  [flags]              run every service (demo world on an empty data dir)
  pmx demo   --out FILE [--seed N] [--scale S]
                                  write the demo world as ledger events (NDJSON)
  pmx ingest [--data-dir DIR] FILE
                                  apply a ledger file to the data dir atomically
  pmx admin  [--admin-url URL] [--data-dir DIR] COMMAND
                                  operator commands (perps instruments, deposits, index)
  pmx migrate --store postgres://...
                                  create or update the PostgreSQL schemas (data, catalog, CLOB)
  pmx copy   --from file:DATA-DIR --to postgres://...
                                  move an embedded data dir into an empty PostgreSQL database
  pmx bench  [--clients N] [--duration D] URL...
                                  drive running listeners, print latency percentiles
  pmx trade  COMMAND [flags]      sign and send perps requests (a proxy key, orders)
  pmx version                     the version and build of this binary
  pmx help                        this text

Run 'pmx <command> -h' for a command's arguments and flags. Every serve flag can also be set
by a PMX_* environment variable (e.g. --data-dir = PMX_DATA_DIR).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first SIGINT/SIGTERM asks for a graceful stop; after it the default
	// action is restored, so a second Ctrl-C ends the process at once.
	go func() { <-ctx.Done(); stop() }()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp): // help asked for: exit 0
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, "pmx: interrupted")
		os.Exit(130)
	default:
		fmt.Fprintln(os.Stderr, "pmx:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "demo":
		return demoCmd(ctx, args[1:], stdout, stderr)
	case "ingest":
		return ingestCmd(ctx, args[1:], stdout, stderr)
	case "admin":
		return adminCmd(ctx, args[1:], stdout, stderr)
	case "migrate":
		return migrateCmd(ctx, args[1:], stdout, stderr)
	case "copy":
		return copyCmd(ctx, args[1:], stdout, stderr)
	case "bench":
		return benchCmd(ctx, args[1:], stdout, stderr)
	case "trade":
		return tradeCmd(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return versionCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] != "help" && !wantsHelp(args[1:2]) {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr) // pmx help serve
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
