package clobhttp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"pmx/internal/clob/clobhttp"
	"pmx/internal/clob/clobsql"
	"pmx/internal/npmtest"
)

// TestOfficialNPMClient runs clients/clob.test.mjs (the official
// @polymarket/client, pinned by clients/package-lock.json) against the CLOB
// handler on a real port and the real clock (the client signs with its own
// clock). Skipped only when node is absent outside CI; in CI (CI=true) a
// missing node or install is a failure.
func TestOfficialNPMClient(t *testing.T) {
	node, dir := npmtest.MustNode(t), npmtest.MustClients(t)

	st, err := clobsql.New(context.Background(), openDB(t))
	if err != nil {
		t.Fatal(err)
	}
	h, err := clobhttp.New(clobhttp.Options{Store: st, MasterKey: []byte(strings.Repeat("m", 32))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	npmtest.MustRun(t, node, dir, []string{"PMX_CLOB_URL=" + srv.URL}, "--test", "clob.test.mjs")
}
