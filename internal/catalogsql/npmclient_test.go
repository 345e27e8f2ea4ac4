package catalogsql_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"pmx/internal/catalog"
)

// TestOfficialNPMClient runs clients/catalog.test.mjs (the official
// @polymarket/client, pinned by clients/package-lock.json) against the
// catalog handler on a real port. Skipped only when node is absent outside
// CI; in CI (CI=true) a missing node or install is a failure.
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

	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: catalog.NewHandler(e.store, catalog.Options{Live: e.live}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "catalog.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PMX_CATALOG_URL=http://"+ln.Addr().String(),
		"PMX_EXPECT_EVENTS=101,103,9001", // open events (the client sends closed=false)
	)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("npm client test failed: %v", err)
	}
}
