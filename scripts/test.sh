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
# A log per run (two runs at once must not share one); packages are counted
# from go test's package summary lines only (scripts/count-packages.sh).
log=$(mktemp "${TMPDIR:-/tmp}/pmx-test.XXXXXX")
set +e
go test -race -count=1 -timeout 25m ./... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo "$(bash scripts/count-packages.sh "$log") (log: $log)"
exit "$rc"
