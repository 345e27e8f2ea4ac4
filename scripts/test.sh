#!/usr/bin/env bash
# The one test command: formatting, vet, every Go test with the race detector
# (real HTTP servers, SQLite and the official npm clients included). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi

echo "== go vet"
go vet ./...

# Signature crypto in both builds: every other step builds with cgo, which
# links libsecp256k1; CGO_ENABLED=0 builds recover with decred
# (docs/signing.md). Without -race, so the allocation tests run too.
echo "== internal/crypto: CGO_ENABLED=0 (pure-Go backend), then cgo without -race"
CGO_ENABLED=0 go vet ./internal/crypto/...
CGO_ENABLED=0 go test -count=1 ./internal/crypto/...
go test -count=1 ./internal/crypto/...

if [ -f clients/package-lock.json ] && command -v npm >/dev/null 2>&1; then
  echo "== npm ci (official clients, pinned by clients/package-lock.json)"
  (cd clients && npm ci --no-audit --no-fund --loglevel=error)
fi

# --- PostgreSQL (issue 21) -------------------------------------------------
# A throwaway PostgreSQL 15 cluster for the whole run (PMX_TEST_POSTGRES):
# the PostgreSQL tests use it, and the data, catalog and CLOB black-box
# suites run a second time with PMX_TEST_STORE=postgres. Without PostgreSQL
# a CI run fails; elsewhere those tests skip and say why.
source scripts/pgcluster.sh
trap pg_stop EXIT
if ! pg_start; then
  echo "no PostgreSQL cluster"; [ "${CI:-}" = true ] && exit 1
fi
pg_suites="./internal/data/dataapi/ ./internal/catalog/catalogsql/ ./internal/clob/clobsql/ ./internal/clob/clobhttp/"
# ---------------------------------------------------------------------------

echo "== go test -race"
# A log per run (two runs at once must not share one); packages are counted
# from go test's package summary lines only (scripts/count-packages.sh).
log=$(mktemp "${TMPDIR:-/tmp}/pmx-test.XXXXXX")
set +e
go test -race -count=1 -timeout 25m ./... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "== go test -tags perpsaudit (the perps machine audits its books, orders and balances after every Apply)"
go test -count=1 -timeout 10m -tags perpsaudit ./internal/perps/... 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
set -e

# --- PostgreSQL (issue 21): the black-box suites again, on PostgreSQL -------
if [ -n "${PMX_TEST_POSTGRES:-}" ]; then
  echo "== go test -race (PMX_TEST_STORE=postgres)"
  set +e
  PMX_TEST_STORE=postgres go test -race -count=1 -timeout 25m $pg_suites 2>&1 | tee -a "$log"
  pgrc=${PIPESTATUS[0]}
  set -e
  [ "$rc" = 0 ] && rc=$pgrc
fi
# ---------------------------------------------------------------------------
echo "log: $log"
bash scripts/count-packages.sh "$log"
exit "$rc"
