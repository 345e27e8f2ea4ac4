package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Each subcommand's help text. A command's flags are listed after it by the
// flag package (so a flag added to a command shows up here by itself).
const (
	serveUsage = `Usage: pmx serve [flags]

Runs every service, each on its own listener, on one data directory. On an
empty data dir the demo world is generated and loaded first (about a minute
on a laptop at --demo-scale 1; ~340 MB on disk). Every listener is bound
before that work, answering 503 "starting" until the services are ready.
Stop it with Ctrl-C, or: kill -INT $(cat <data-dir>/LOCK).

Every flag can also be set by a PMX_* environment variable
(e.g. --data-dir = PMX_DATA_DIR); a flag wins over the variable.

Flags:
`
	demoUsage = `Usage: pmx demo --out FILE [--seed N] [--scale S] [--now EPOCH_S]

Writes the demo world (90 days of history ending at --now) as ledger events,
one JSON object per line, for 'pmx ingest' or POST /admin/ledger.

Flags:
`
	ingestUsage = `Usage: pmx ingest [--data-dir DIR] FILE

Applies FILE to the data dir of a stopped server, atomically: either a ledger
file (NDJSON ledger events, docs/ledger-events.md) or a catalog document (a
JSON array of catalog events). The whole file is checked first; a bad line is
reported with its number and nothing is applied. For a running server, POST
the file to its admin listener (/admin/ledger) instead.

Arguments:
  FILE   the ledger (.ndjson) or catalog (.json) file to apply

Flags:
`
	benchUsage = `Usage: pmx bench [--clients N] [--duration D] [--warmup D] [--header "K: V"]... URL...

Drives running listeners with N closed-loop keep-alive clients for D and
prints throughput and exact latency percentiles. Requests cycle through the
URLs. Start the server with --ip-limits=false, or the limits throttle you.

Arguments:
  URL...   one or more full URLs, e.g. 'http://127.0.0.1:8081/v2/trades?limit=10'

Flags:
`
	versionUsage = `Usage: pmx version

Prints the pmx version (module version, VCS revision and time when built from
a checkout) and the Go version it was built with.
`
)

// newFlagSet is a subcommand's flag set with its help text.
func newFlagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. -h / --help anywhere before "--" prints
// the help on stdout and returns flag.ErrHelp (pmx then exits 0); a bad
// flag prints the error and the help on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return flag.ErrHelp
	}
	fs.SetOutput(stderr)
	return fs.Parse(args)
}

// wantsHelp reports whether args ask for help (-h, -help, --help, help as
// the first word), before any "--".
func wantsHelp(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-h" || a == "-help" || a == "--help" || a == "--h":
			return true
		case i == 0 && a == "help":
			return true
		}
	}
	return false
}

// indent is text with every line indented by two spaces.
func indent(text string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n  ") + "\n"
}
