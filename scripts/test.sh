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
set +e
go test -race -count=1 -timeout 25m ./... 2>&1 | tee /tmp/pmx-test.log
rc=${PIPESTATUS[0]}
echo "== go test -tags perpsaudit (the perps machine audits its books, orders and balances after every Apply)"
go test -count=1 -timeout 10m -tags perpsaudit ./internal/perps/... 2>&1 | tee -a /tmp/pmx-test.log
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
set -e
passed=$(grep -c '^ok' /tmp/pmx-test.log || true)
failed=$(grep -c '^FAIL' /tmp/pmx-test.log || true)
echo "packages: $passed passed, $failed failed"
exit "$rc"
