#!/usr/bin/env bash
# The one test command: formatting, vet, every Go test with the race detector
# (real HTTP servers, WebSockets, SQLite, PostgreSQL and the official npm
# clients included). CI runs exactly this (.ci/run).
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

# A throwaway PostgreSQL cluster for the postgres tests, when the binaries exist.
if command -v initdb >/dev/null 2>&1 && [ -z "${PMX_PG_URL:-}" ]; then
  pgdir=$(mktemp -d)
  port=$(( 20000 + RANDOM % 20000 ))
  if initdb -D "$pgdir/data" -A trust -U postgres >/dev/null 2>&1 &&
     pg_ctl -D "$pgdir/data" -o "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c fsync=off" -l "$pgdir/log" -w start >/dev/null 2>&1; then
    export PMX_PG_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
    trap 'pg_ctl -D "$pgdir/data" -m immediate stop >/dev/null 2>&1; rm -rf "$pgdir"' EXIT
    echo "== postgres on $port"
  fi
fi

echo "== go test -race"
set +e
go test -race -count=1 -timeout 25m ./... 2>&1 | tee /tmp/pmx-test.log
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -c '^ok' /tmp/pmx-test.log || true)
failed=$(grep -c '^FAIL' /tmp/pmx-test.log || true)
echo "packages: $passed passed, $failed failed"
exit "$rc"
