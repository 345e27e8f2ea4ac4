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

if [ -f clients/package-lock.json ] && command -v npm >/dev/null 2>&1; then
  echo "== npm ci (official clients, pinned by clients/package-lock.json)"
  (cd clients && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "== go test -race"
# A log per run (two runs at once must not share one). Packages are counted
# from go test's package summary lines only: "ok  <pkg>" and "FAIL<TAB><pkg>"
# (a failing test's own "--- FAIL" lines and the bare "FAIL" that ends a
# package's output are not packages).
log=$(mktemp "${TMPDIR:-/tmp}/pmx-test.XXXXXX.log")
set +e
go test -race -count=1 -timeout 25m ./... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -cE '^ok[[:space:]]' "$log" || true)
failed=$(grep -c $'^FAIL\t' "$log" || true)
echo "packages: $passed passed, $failed failed (log: $log)"
exit "$rc"
