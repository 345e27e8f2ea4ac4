#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests: initdb into a mktemp dir,
# listening only on a unix socket in that dir, trust auth, C collation;
# stopped and deleted on exit.
#
#   scripts/pgcluster.sh go test ./internal/data/...   # run a command with PMX_TEST_POSTGRES set
#   source scripts/pgcluster.sh; pg_start               # (scripts/test.sh) export it; pg_stop on exit
#
# PMX_TEST_POSTGRES is the admin URL; tests create a database of their own on
# it (internal/data/postgres/pgtest). Installs postgresql-15 with apt-get when
# the binaries are missing; initdb refuses root, so as root the cluster runs
# as the postgres user (created if missing).

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

pg_install() {
  [ -x "$PG_BIN/initdb" ] && return 0
  echo "pgcluster: $PG_BIN/initdb missing; installing postgresql-15" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  fi
  [ -x "$PG_BIN/initdb" ]
}

# pg_as runs a command as the cluster's owner.
pg_as() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$PG_USER" -- "$@"
  else
    "$@"
  fi
}

pg_start() {
  pg_install || { echo "pgcluster: no PostgreSQL 15 (looked in $PG_BIN)" >&2; return 1; }
  PG_USER=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    PG_USER=postgres
    id "$PG_USER" >/dev/null 2>&1 || useradd --system --no-create-home "$PG_USER"
  fi
  PG_DIR=$(mktemp -d /tmp/pmxpg.XXXXXX)
  chmod 755 "$PG_DIR"
  [ "$(id -u)" = 0 ] && chown "$PG_USER" "$PG_DIR"
  pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust --locale=C -E UTF8 >"$PG_DIR/initdb.log" 2>&1 ||
    { cat "$PG_DIR/initdb.log" >&2; return 1; }
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start \
    -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=128MB" >/dev/null ||
    { cat "$PG_DIR/server.log" >&2; return 1; }
  export PMX_TEST_POSTGRES="postgres://postgres@/postgres?host=$PG_DIR&sslmode=disable"
  echo "pgcluster: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') at $PG_DIR (PMX_TEST_POSTGRES)" >&2
}

pg_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  trap pg_stop EXIT
  pg_start
  "$@"
fi
