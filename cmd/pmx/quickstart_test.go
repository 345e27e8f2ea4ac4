package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pmx/internal/npmtest"
)

// quickstartBlocks returns the fenced code blocks of lang in the section
// of docs/quickstart.md whose "## " heading is section.
func quickstartBlocks(t *testing.T, section, lang string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(doc), "\n## "+section+"\n")
	if !ok {
		t.Fatalf("docs/quickstart.md has no section %q", section)
	}
	body, _, _ = strings.Cut(body, "\n## ")
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("section %q has no %s block", section, lang)
	}
	return out
}

// localize points the page's default addresses at the test server's.
func localize(s string, urls map[string]string) string {
	return strings.NewReplacer("http://127.0.0.1:8084", urls["perps"],
		"ws://127.0.0.1:8084", "ws"+strings.TrimPrefix(urls["perps"], "http"),
		"http://127.0.0.1:8083", urls["clob"]).Replace(s)
}

// TestQuickstart runs docs/quickstart.md's perps commands as a user would:
// the shell block (pmx trade, pmx admin, curl) against a demo server in a
// directory holding ./pmx and ./pmx-data, then the JavaScript block with the
// official client, funded the same way.
func TestQuickstart(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the quickstart uses curl; install it")
	}
	dir := t.TempDir()
	if err := os.Symlink(pmxBin, filepath.Join(dir, "pmx")); err != nil {
		t.Fatal(err)
	}
	urls, _ := startServe(t, "--data-dir", filepath.Join(dir, "pmx-data"), "--demo-scale", "0.003")
	env := append(os.Environ(), "PMX_ADMIN_URL="+urls["admin"])

	script := localize(strings.Join(quickstartBlocks(t, "Perpetuals", "sh"), "\n"), urls)
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script+"\necho OWNER_KEY=$OWNER_KEY\n")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	t.Logf("shell block:\n%s", out)
	if err != nil {
		t.Fatalf("the shell block failed: %v", err)
	}
	// Printed: the limit buy's ack, the market sell's, the cancel's item (the
	// second resting order's ack is captured into OID), then cancel-all's answer.
	if n := strings.Count(string(out), `[{"status":"ok","oid":`); n != 3 {
		t.Errorf("want 3 ok items (limit buy, market sell, cancel), got %d", n)
	}
	if !strings.Contains(string(out), "\n{\"status\":\"ok\"}\n") {
		t.Errorf("cancel-all was not accepted")
	}
	if !strings.Contains(string(out), `"price":"90000"`) {
		t.Errorf("the resting buy is not in the open orders")
	}
	key := regexp.MustCompile(`OWNER_KEY=(0x[0-9a-f]{64})`).FindStringSubmatch(string(out))
	if key == nil {
		t.Fatal("no OWNER_KEY")
	}

	node, clients := npmtest.MustNode(t), npmtest.MustClients(t)
	js := localize(quickstartBlocks(t, "Perpetuals", "js")[0], urls)
	if err := os.WriteFile(filepath.Join(dir, "quickstart.mjs"), []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(clients, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(node, "--experimental-websocket", "quickstart.mjs") // Node 20's WebSocket (the doc says so)
	cmd.Dir, cmd.Env = dir, append(env, "OWNER_KEY="+key[1])
	out, err = cmd.CombinedOutput()
	t.Logf("js block:\n%s", clipLines(out)) // a failure prints the client's minified source
	if err != nil {
		t.Fatalf("the JavaScript block failed: %v", err)
	}
	if !strings.Contains(string(out), "status: 'ok'") || !strings.Contains(string(out), "price: '90000") {
		t.Errorf("the JavaScript order was not accepted and listed")
	}
}

// clipLines shortens each line of out to 300 bytes: a JavaScript failure
// prints whole lines of the client's minified source around the error.
func clipLines(out []byte) string {
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…" + l[len(l)-300:]
		}
	}
	return strings.Join(lines, "\n")
}
