package clob_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pmx/internal/clob"
	"pmx/internal/clobsql"
)

// TestOfficialNPMClient runs clients/clob.test.mjs (the official
// @polymarket/client, pinned by clients/package-lock.json) against the CLOB
// handler on a real port and the real clock (the client signs with its own
// clock). Skipped only when node is absent outside CI; in CI (CI=true) a
// missing node or install is a failure.
func TestOfficialNPMClient(t *testing.T) {
	ci := os.Getenv("CI") == "true"
	node, err := exec.LookPath("node")
	if err != nil {
		if ci {
			t.Fatal("node is required in CI for the npm client test")
		}
		t.Skip("node not installed")
	}
	dir, err := filepath.Abs("../../clients")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@polymarket", "client", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatal("clients/node_modules is missing and npm is not installed: run `npm ci` in clients/")
		}
		cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}

	st, err := clobsql.New(context.Background(), openDB(t))
	if err != nil {
		t.Fatal(err)
	}
	h, err := clob.New(clob.Options{Store: st, MasterKey: []byte(strings.Repeat("m", 32))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "clob.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PMX_CLOB_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("npm client test failed: %v", err)
	}
}
