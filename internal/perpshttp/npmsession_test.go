package perpshttp

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"pmx/internal/clob"
	"pmx/internal/clobsql"
)

// TestOfficialNPMClientSession runs clients/perps-session.test.mjs: the
// official client's whole perps session (CLOB key on a CLOB listener, then
// proxy, WS and trading on this one).
func TestOfficialNPMClientSession(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required in CI for the npm client test")
		}
		t.Skip("node not installed")
	}
	dir, _ := filepath.Abs("../../clients")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@polymarket", "client", "package.json")); err != nil {
		t.Skip("clients/node_modules missing (TestOfficialNPMClientPublic installs it)")
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "clob.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := clobsql.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	h, err := clob.New(clob.Options{Store: st, MasterKey: []byte(strings.Repeat("m", 32))})
	if err != nil {
		t.Fatal(err)
	}
	clobSrv := httptest.NewServer(h)
	t.Cleanup(clobSrv.Close)

	e := newEnv(t, Options{})
	e.ms.Store(time.Now().UnixMilli())
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() { // the session signs with the real clock: keep the server's on it
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				e.ms.Store(time.Now().UnixMilli())
			}
		}
	}()
	e.instrument()
	e.adminPost("/admin/perps/deposits", `{"address":"0x90F79bf6EB2c4f870365E785982E1f101E93b906","amount":"100000"}`)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--experimental-websocket", "--test", "perps-session.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PMX_CLOB_URL="+clobSrv.URL, "PMX_PERPS_URL="+e.api.URL,
		"PMX_PERPS_WS=ws"+strings.TrimPrefix(e.api.URL, "http")+"/v1/ws")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("npm client session test failed: %v", err)
	}
}
