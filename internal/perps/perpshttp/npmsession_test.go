package perpshttp

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"
	"pmx/internal/npmtest"
)

// TestOfficialNPMClientSession runs clients/perps-session.test.mjs: the
// official client's whole perps session (CLOB key on a CLOB listener, then
// proxy, WS and trading on this one).
func TestOfficialNPMClientSession(t *testing.T) {
	node := npmtest.MustNode(t)
	dir := npmtest.MustClients(t) // installs the pinned client if missing: never a skip for a missing file
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "clob.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := clobsql.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	h, err := clobhttp.New(clobhttp.Options{Store: st, MasterKey: []byte(strings.Repeat("m", 32))})
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
	e.trader(9, "100000").placeOK(ord{iid: 1, buy: false, p: "150", qty: "1"}) // the session's IOC fills against it

	npmtest.MustRun(t, node, dir, []string{"PMX_CLOB_URL=" + clobSrv.URL, "PMX_PERPS_URL=" + e.api.URL,
		"PMX_PERPS_WS=ws" + strings.TrimPrefix(e.api.URL, "http") + "/v1/ws"},
		"--experimental-websocket", "--test", "perps-session.test.mjs")
}
