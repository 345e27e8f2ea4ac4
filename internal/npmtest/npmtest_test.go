package npmtest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestClientsDir(t *testing.T) {
	dir := clientsDir(t)
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		t.Fatalf("clients dir %s: %v", dir, err)
	}
}

func TestInstalled(t *testing.T) {
	dir := t.TempDir()
	if installed(dir) {
		t.Fatal("empty dir counts as installed")
	}
	pkg := filepath.Join(dir, "node_modules", "@polymarket", "client")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !installed(dir) {
		t.Fatal("installed client not found")
	}
}
