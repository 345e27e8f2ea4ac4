package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"pmx/internal/config"
	"pmx/internal/ledger"
	"pmx/internal/progress"
	"pmx/internal/server"
)

// ingest applies a ledger file to the data dir's store atomically: the whole
// file is parsed and validated first (a bad line is reported with its number
// and nothing is applied), then applied in one transaction.
func ingestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	dataDir := fs.String("data-dir", envOr(config.EnvName("data-dir"), config.Defaults().DataDir), "data directory (env PMX_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("ingest: exactly one FILE is required")
	}
	log := newLogger(stderr, "text")
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	// The store is opened first so the batch is also checked against the
	// markets it already holds.
	dd, err := server.OpenDataDir(*dataDir)
	if err != nil {
		if errors.Is(err, server.ErrLocked) {
			return fmt.Errorf("%w: a running server owns it; POST the file to its admin listener at /admin/ledger instead", err)
		}
		return err
	}
	defer dd.Close()
	st, err := openStores(ctx, dd.File(dbFile))
	if err != nil {
		return err
	}
	defer st.Close()
	bar := progress.New("parse", fi.Size(), stderr, log)
	d := ledger.NewDecoder(&countingReader{r: f, bar: bar})
	d.SetLookup(st.data.Outcomes)
	events, err := d.ReadAll()
	bar.Finish()
	if err != nil {
		return err
	}
	log.Info("applying", "events", len(events))
	n, err := st.pipeline.Apply(ctx, events)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d events\n", n)
	return nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

type countingReader struct {
	r   io.Reader
	bar *progress.Bar
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.bar.Add(int64(n))
	return n, err
}
