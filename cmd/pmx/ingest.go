package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"pmx/internal/catalog/catalog"
	"pmx/internal/config"
	"pmx/internal/data/ledger"
	"pmx/internal/progress"
	"pmx/internal/server"
)

// ingestCmd applies a ledger file (or imports a catalog document) to the data dir's store atomically: the whole
// file is parsed and validated first (a bad line is reported with its number
// and nothing is applied), then applied in one transaction.
func ingestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ingest", ingestUsage)
	var dataDir string
	config.StringVar(fs, os.Getenv, &dataDir, "data-dir", config.Defaults().DataDir, "data directory")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("ingest: exactly one FILE is required (pmx ingest -h)")
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
	dd, err := server.OpenDataDir(dataDir)
	if err != nil {
		if errors.Is(err, server.ErrLocked) {
			return fmt.Errorf("%w: a running server owns it; POST the file to its admin listener at /admin/ledger instead", err)
		}
		return err
	}
	defer dd.Close()
	var apply *progress.Bar
	st, err := openStores(ctx, dd.File(dbFile), func(done, total int) {
		if apply == nil {
			apply = progress.New("apply", int64(total), stderr, log)
		}
		apply.Set(int64(done))
	})
	if err != nil {
		return err
	}
	defer st.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	if isCatalogDocument(br) {
		body, err := io.ReadAll(br)
		if err != nil {
			return err
		}
		evs, err := catalog.ParseImport(body)
		if err != nil {
			return err
		}
		if err := st.pipeline.ImportEvents(ctx, evs); err != nil { // the venue trades them too
			return err
		}
		fmt.Fprintf(stdout, "imported %d catalog events\n", len(evs))
		return nil
	}
	bar := progress.New("parse", fi.Size(), stderr, log)
	d := ledger.NewDecoder(&countingReader{r: br, bar: bar})
	d.SetLookup(st.data.Outcomes)
	events, err := d.ReadAll()
	bar.Finish()
	if err != nil {
		return err
	}
	log.Info("applying", "events", len(events))
	n, err := st.pipeline.Apply(ctx, events)
	if apply != nil {
		apply.Finish()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d events\n", n)
	return nil
}

// isCatalogDocument tells a catalog document (production wire events: an
// array, {"events": [...]}, or one event object) from a ledger, whose lines
// are objects carrying "kind". It peeks at the first line only.
func isCatalogDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(1 << 16)
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] == '[' {
		return len(head) > 0
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		// Not one complete object on the first line: a pretty-printed
		// catalog document, unless it is a broken ledger line (then the
		// ledger parser reports it with its line number).
		return !bytes.Contains(line, []byte(`"kind"`))
	}
	_, ledgerLine := probe["kind"]
	return !ledgerLine
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
