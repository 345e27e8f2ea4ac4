package catalogsql_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"pmx/internal/catalog/cataloghttp"
	"pmx/internal/npmtest"
)

// TestOfficialNPMClient runs clients/catalog.test.mjs (the official
// @polymarket/client, pinned by clients/package-lock.json) against the
// catalog handler on a real port. Skipped only when node is absent outside
// CI; in CI (CI=true) a missing node or install is a failure.
func TestOfficialNPMClient(t *testing.T) {
	node, dir := npmtest.MustNode(t), npmtest.MustClients(t)

	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: cataloghttp.NewHandler(e.store, cataloghttp.Options{Live: e.live}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })

	npmtest.MustRun(t, node, dir, []string{
		"PMX_CATALOG_URL=http://" + ln.Addr().String(),
		"PMX_EXPECT_EVENTS=101,103,9001", // open events (the client sends closed=false)
	}, "--test", "catalog.test.mjs")
}
