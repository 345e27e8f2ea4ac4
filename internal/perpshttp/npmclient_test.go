package perpshttp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestOfficialNPMClientPublic runs clients/perps-public.test.mjs (the official
// @polymarket/client, pinned by clients/package-lock.json) against a real
// perps listener. Skipped only when node is absent outside CI; in CI
// (CI=true) a missing node or install is a failure.
func TestOfficialNPMClientPublic(t *testing.T) {
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
	e := newEnv(t, Options{})
	e.ms.Store(time.Now().UnixMilli()) // the client checks nothing against it, but keep it real
	e.instrument()
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"})
	a.placeOK(ord{iid: 1, buy: false, p: "101", qty: "1"})
	b.placeOK(ord{iid: 1, buy: true, p: "101", qty: "0.5", tif: "ioc"})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "perps-public.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PMX_PERPS_URL="+e.api.URL)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("npm client test failed: %v", err)
	}
}
