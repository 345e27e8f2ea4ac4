package perpshttp

import (
	"testing"
	"time"

	"pmx/internal/npmtest"
)

// TestOfficialNPMClientPublic runs clients/perps-public.test.mjs (the official
// @polymarket/client, pinned by clients/package-lock.json) against a real
// perps listener. Skipped only when node is absent outside CI; in CI
// (CI=true) a missing node or install is a failure.
func TestOfficialNPMClientPublic(t *testing.T) {
	node, dir := npmtest.MustNode(t), npmtest.MustClients(t)
	e := newEnv(t, Options{})
	e.ms.Store(time.Now().UnixMilli()) // the client checks nothing against it, but keep it real
	e.instrument()
	a, b := e.trader(1, "100000"), e.trader(2, "100000")
	a.placeOK(ord{iid: 1, buy: true, p: "99", qty: "1"})
	a.placeOK(ord{iid: 1, buy: false, p: "101", qty: "1"})
	b.placeOK(ord{iid: 1, buy: true, p: "101", qty: "0.5", tif: "ioc"})

	npmtest.MustRun(t, node, dir, []string{"PMX_PERPS_URL=" + e.api.URL}, "--test", "perps-public.test.mjs")
}
