package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pmx/internal/config"
	"pmx/internal/server"
)

// TestHelpExitsZeroForEveryCommand: -h / --help is an answer, not an error:
// exit status 0, the help on stdout, naming the command's arguments.
func TestHelpExitsZeroForEveryCommand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "pmx serve"},
		{[]string{"help"}, "pmx version"},
		{[]string{"serve", "-h"}, "-demo-market-makers"},
		{[]string{"serve", "--help"}, "kill -INT"},
		{[]string{"help", "serve"}, "-data-dir"},
		{[]string{"demo", "-h"}, "--out FILE"},
		{[]string{"ingest", "-h"}, "FILE   the ledger"},
		{[]string{"bench", "--help"}, "URL...   one or more full URLs"},
		{[]string{"admin", "-h"}, "instruments create"},
		{[]string{"admin", "instruments", "--help"}, "pmx admin instruments list"},
		{[]string{"admin", "instruments", "list", "-h"}, "pmx admin instruments list"},
		{[]string{"admin", "instruments", "create", "-h"}, "-max-leverage"},
		{[]string{"admin", "deposit", "-h"}, "-amount"},
		{[]string{"admin", "index", "--help"}, "-price"},
		{[]string{"admin", "mode", "-h"}, "-retry-after"},
		{[]string{"admin", "flight", "-h"}, "in-flight windows"},
		{[]string{"admin", "help", "deposit"}, "-account"},
		{[]string{"version", "-h"}, "Usage: pmx version"},
		{[]string{"trade", "-h"}, "pmx trade"},
		{[]string{"trade", "order", "-h"}, "-price"},
		{[]string{"trade", "key", "--help"}, "-key"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cmd := exec.Command(pmxBin, c.args...)
			cmd.Dir = t.TempDir() // no data dir: help needs none
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("exit: %v\nstdout:%s\nstderr:%s", err, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), c.want) {
				t.Errorf("stdout lacks %q:\n%s", c.want, stdout.String())
			}
		})
	}
}

// TestUnknownCommandsAndBadFlagsExitNonZero: the other side of the help rule.
func TestUnknownCommandsAndBadFlagsExitNonZero(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"serve", "--nope"}, {"admin", "nope"}, {"ingest"}, {"bench"},
		{"demo"}, {"version", "extra"}} {
		out, err := exec.Command(pmxBin, args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("pmx %v: want exit 1, got %v\n%s", args, err, out)
		}
	}
}

// TestVersionNamesTheBuild: pmx version prints one line with the Go version.
func TestVersionNamesTheBuild(t *testing.T) {
	out, err := exec.Command(pmxBin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "pmx ") || !strings.Contains(string(out), "go1.") ||
		strings.Count(string(out), "\n") != 1 {
		t.Fatalf("version: %v %q", err, out)
	}
}

// TestServeBindsEveryListenerBeforeLoadingTheDemo: a port clash on the last
// listener is reported before the demo world is generated: serve fails naming
// the listener, and the data dir holds no database, finished or partial.
func TestServeBindsEveryListenerBeforeLoadingTheDemo(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	out, err := exec.Command(pmxBin, "serve", "--data-dir", dir, "--data-addr", "127.0.0.1:0",
		"--catalog-addr", "127.0.0.1:0", "--clob-addr", "127.0.0.1:0", "--perps-addr", "127.0.0.1:0",
		"--admin-addr", taken.Addr().String()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "admin listener on "+taken.Addr().String()) ||
		!strings.Contains(string(out), "address already in use") {
		t.Fatalf("serve with a taken port: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "demo world") {
		t.Errorf("the demo world was started before the clash was reported:\n%s", out)
	}
	for _, f := range []string{"pmx.db", "pmx.db.loading"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a failed bind: %v", f, err)
		}
	}
}

// TestServeAnswersStartingUntilReady: from the moment its port is bound and
// before any long work, every listener answers 503 with Retry-After and a
// JSON error (not a hung connection); an interrupt then stops serve at once.
func TestServeAnswersStartingUntilReady(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checked := 0
	testHookBound = func(g *server.Group) {
		defer cancel()
		for _, l := range g.Listeners {
			for _, path := range []string{"/ok", "/v2/trades", "/metrics"} {
				resp, err := http.Get(l.URL() + path)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var e struct{ Error string }
				if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" ||
					json.Unmarshal(b, &e) != nil || !strings.Contains(e.Error, "starting") {
					t.Errorf("%s%s while starting: %d %q %s", l.Name, path, resp.StatusCode, resp.Header.Get("Retry-After"), b)
				}
				checked++
			}
		}
	}
	defer func() { testHookBound = nil }()
	err := run(ctx, []string{"serve", "--data-dir", t.TempDir(), "--demo-scale", "0.003", "--data-addr", "127.0.0.1:0",
		"--catalog-addr", "127.0.0.1:0", "--clob-addr", "127.0.0.1:0", "--perps-addr", "127.0.0.1:0",
		"--admin-addr", "127.0.0.1:0"}, io.Discard, io.Discard)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("serve interrupted while loading: %v", err)
	}
	if checked != 15 {
		t.Errorf("checked %d answers, want 15", checked)
	}
}

// TestDocsUseTheDefaults: every loopback address and admin-token path the
// README and docs/ show is a default of pmx serve, so copied commands work.
func TestDocsUseTheDefaults(t *testing.T) {
	d := config.Defaults()
	ok := map[string]bool{d.DataAddr: true, d.CatalogAddr: true, d.ClobAddr: true, d.PerpsAddr: true, d.AdminAddr: true}
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	addr := regexp.MustCompile(`(?:127\.0\.0\.1|localhost):(\d{4,5})\b`)
	token := regexp.MustCompile(`[\w./-]*/admin\.token`)
	flagAddr := regexp.MustCompile(`-addr[ =](127\.0\.0\.1:\d{4,5})\b`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{} // addresses the file's own commands pass by flag (e.g. a second node)
		for _, m := range flagAddr.FindAllStringSubmatch(string(b), -1) {
			set[m[1]] = true
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "postgres://") {
				continue // a database URL names the database's port
			}
			for _, m := range addr.FindAllString(line, -1) {
				if m = strings.Replace(m, "localhost", "127.0.0.1", 1); !ok[m] && !set[m] {
					t.Errorf("%s: %s is not a default listener address", f, m)
				}
			}
		}
		for _, m := range token.FindAllString(string(b), -1) {
			if m != "pmx-data/admin.token" && !strings.HasPrefix(m, "/") { // "/admin.token": after <data-dir>
				t.Errorf("%s: admin token at %s, the default is pmx-data/admin.token", f, m)
			}
		}
	}
}

// TestDemoCatalogListsSeries: the demo world's recurring events are filed
// under catalog series, each listing its events, and an event names its series.
func TestDemoCatalogListsSeries(t *testing.T) {
	urls, _ := startServe(t, "--data-dir", t.TempDir(), "--demo-scale", "0.01", "--demo-market-makers=false")
	code, body := get(t, urls["catalog"]+"/series?limit=50")
	var series []struct {
		ID         string `json:"id"`
		Slug       string `json:"slug"`
		Recurrence string `json:"recurrence"`
		Events     []struct {
			ID string `json:"id"`
		} `json:"events"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &series) != nil || len(series) < 3 {
		t.Fatalf("series: %d %.300s", code, body)
	}
	for _, s := range series {
		if s.Slug == "" || s.Recurrence == "" || len(s.Events) == 0 {
			t.Errorf("series %+v", s)
			continue
		}
		code, body := get(t, urls["catalog"]+"/events/"+s.Events[0].ID)
		if code != 200 || !strings.Contains(body, `"seriesSlug":"`+s.Slug+`"`) {
			t.Errorf("event %s of series %s: %d %.200s", s.Events[0].ID, s.Slug, code, body)
		}
	}
}

// TestServePrintsEachListenerOnce: each listener's URL is printed once, on
// stdout, before "ready"; the log (stderr) narrates the steps without
// repeating the URLs; SIGINT then stops serve with status 0.
func TestServePrintsEachListenerOnce(t *testing.T) {
	cmd := exec.Command(pmxBin, "serve", "--data-dir", t.TempDir(), "--demo=false", "--data-addr", "127.0.0.1:0",
		"--catalog-addr", "127.0.0.1:0", "--clob-addr", "127.0.0.1:0", "--perps-addr", "127.0.0.1:0",
		"--admin-addr", "127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "ready in ") {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGINT: %v\n%s", err, stderr.String())
	}
	seen := map[string]int{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[1], "http://") {
			seen[f[0]]++
			if strings.Contains(stderr.String(), f[1]) {
				t.Errorf("%s's URL is in the log too", f[0])
			}
		}
	}
	for _, name := range []string{"data", "catalog", "clob", "perps", "admin"} {
		if seen[name] != 1 {
			t.Errorf("%s printed %d times:\n%s", name, seen[name], strings.Join(lines, "\n"))
		}
	}
	if len(lines) != 6 || !strings.HasPrefix(lines[5], "ready in ") {
		t.Errorf("stdout:\n%s", strings.Join(lines, "\n"))
	}
}

// TestTestScriptCountsPackages: scripts/test.sh's summary counts packages
// from go test's summary lines, not a failing test's FAIL lines.
func TestTestScriptCountsPackages(t *testing.T) {
	log := filepath.Join(t.TempDir(), "go-test.log")
	os.WriteFile(log, []byte("ok  \tpmx/a\t1.0s\n--- FAIL: TestX (0.00s)\n    x_test.go:9: boom\nFAIL\nFAIL\tpmx/b\t2.0s\n"+
		"?   \tpmx/c\t[no test files]\n--- FAIL: TestY (0.00s)\nFAIL\nFAIL\tpmx/d [build failed]\nok  \tpmx/e\t(cached)\n"), 0o600)
	out, err := exec.Command("bash", filepath.Join("..", "..", "scripts", "count-packages.sh"), log).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "packages: 2 passed, 2 failed" {
		t.Fatalf("%v: %s", err, out)
	}
}
