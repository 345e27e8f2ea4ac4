// Package npmtest runs the official npm clients (clients/*.test.mjs, the
// @polymarket/client pinned by clients/package-lock.json) from Go tests.
// Only tests import it. scripts/test.sh runs `npm ci` in clients/ before
// `go test`, so in CI node_modules is present and no two packages install
// it at once.
package npmtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// runLimit bounds one node run.
const runLimit = 2 * time.Minute

// MustNode returns the path of node. Without node the test is skipped,
// except in CI (CI=true), where it fails.
func MustNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required in CI for the npm client test")
		}
		t.Skip("node not installed")
	}
	return node
}

// MustClients returns the absolute clients/ directory, first running
// `npm ci` there if the client is not installed; it fails the test when it
// cannot install.
func MustClients(t testing.TB) string {
	t.Helper()
	dir := clientsDir(t)
	if installed(dir) {
		return dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("clients/node_modules is missing and npm is not installed: run `npm ci` in clients/")
	}
	cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	return dir
}

// InstalledClients returns the absolute clients/ directory if the client is
// installed, and otherwise skips the test, saying why (who installs it).
func InstalledClients(t testing.TB, why string) string {
	t.Helper()
	dir := clientsDir(t)
	if !installed(dir) {
		t.Skip("clients/node_modules missing (" + why + ")")
	}
	return dir
}

// MustRun runs node with args in the clients directory dir, with env added
// to this process's environment, logs its output and fails the test if it
// fails.
func MustRun(t testing.TB, node, dir string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node %v:\n%s", args, out)
	if err != nil {
		t.Fatalf("npm client test failed: %v", err)
	}
}

func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@polymarket", "client", "package.json"))
	return err == nil
}

// clientsDir is clients/ at the module root: the first directory above the
// test's working directory (its package directory) that holds go.mod.
func clientsDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "clients")
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}
