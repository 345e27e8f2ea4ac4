#!/usr/bin/env bash
# Issue 20's one-core pair (docs/perf/hotpath.md): for each cached route, the
# bare endpoint (loadgen's BenchmarkServeBare serving the bytes captured from
# the running pmx), then pmx, then pmx to a gzip client; server on core 0
# with GOMAXPROCS=1, `pmx bench --clients 32` on core 1. CPU per request is
# the server process's utime+stime over the run divided by its requests.
#
#   scripts/hotpath-vs-bare.sh DATA_DIR [REPS] [STORE_URL]
#
# DATA_DIR holds the demo world (scale 1; loaded on first use, ~40 s). With
# STORE_URL (postgres://...) pmx serves from PostgreSQL instead of the file.
# For figures that go into docs run it as `flock /tmp/pmx-bench.lock ...` on
# an otherwise quiet machine; each line notes the load average.
# PMX_HOTPATH_ROUTES="trades positions" runs only those routes (names as
# printed); PMX_HOTPATH_GOGC sets the server's GOGC (default: the runtime's).
# PMX_HOTPATH_PAIRS=N replaces the rounds with N alternating 2 s runs of one
# long-lived bare endpoint and pmx on one route (the first of
# PMX_HOTPATH_ROUTES, default positions): whether a slow run is the
# machine's (both sides) or pmx's (docs/perf/hotpath.md, sixth pass).
set -euo pipefail
dir=${1:?usage: hotpath-vs-bare.sh DATA_DIR [REPS] [STORE_URL]}
reps=${2:-2}
store=${3:-}
bin=${PMX_HOTPATH_BIN:-/tmp/pmx-hotpath}
base=${PMX_HOTPATH_PORT:-28180}
dp=$((base + 1)) bp=$((base + 9))
mkdir -p "$bin"
nice -n 19 go build -o "$bin/pmx" ./cmd/pmx
nice -n 19 go test -c -o "$bin/loadgen.test" ./internal/loadgen
args=(serve --ip-limits=false --demo-market-makers=false --data-dir "$dir" --data-addr "127.0.0.1:$dp"
	--catalog-addr "127.0.0.1:$((base + 2))" --clob-addr "127.0.0.1:$((base + 3))"
	--perps-addr "127.0.0.1:$((base + 4))" --admin-addr "127.0.0.1:$((base + 5))")
[ -n "$store" ] && args+=(--store "$store")
GOMAXPROCS=1 GOGC=${PMX_HOTPATH_GOGC:-100} GODEBUG=gctrace=1 taskset -c 0 "$bin/pmx" "${args[@]}" >"$bin/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
w=0x639359feee1735ac0f1c4a643e80c13142ab1e6c # 82 KB trades, 88 KB activity, 124 KB positions pages
for i in $(seq 600); do
	n=$(curl -s "http://127.0.0.1:$dp/v2/trades?user=$w&limit=500" | wc -c || true)
	[ "${n:-0}" -gt 80000 ] && break
	kill -0 $pid || { cat "$bin/serve.log"; exit 1; }
	sleep 1
done
cond=$(curl -s "http://127.0.0.1:$dp/v2/trades?limit=1" | grep -o '"condition_id":"0x[0-9a-f]*"' | head -1 | cut -d'"' -f4)
routes=("trades /v2/trades?user=$w" "activity /v2/activity?user=$w" "positions /v2/positions?user=$w"
	"value /v2/value?user=$w" "holders /v2/holders?condition=$cond"
	"leaderboard /v2/leaderboard?time_period=all" "biggest-winners /v2/biggest-winners?time_period=all"
	"builders /v2/builders/leaderboard?time_period=all")
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # clock ticks
tick=$(getconf CLK_TCK)
gcs() { grep -c '^gc ' "$bin/serve.log" || true; } # pmx's GC cycles so far (gctrace)
# The machine's share of a run: involuntary context switches of the server's
# threads (another task ran on its core) and core 0's steal time (the host
# ran something else on this vCPU).
preempts() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^nonvoluntary_ctxt_switches/ {s += $2} END {print s + 0}'; }
steal() { awk '/^cpu0 / {print $9}' /proc/stat; }
# run PID URL [HEADER] [DURATION]: "rps=.. p99=.. cpu-us/req=.." of one run (default 5 s) against the process PID,
# for pmx the GC cycles it ran meanwhile, then the machine's share (preempts, steal).
run() {
	local c0 out c1 req g0 x0 s0 hdr=()
	[ -n "${3:-}" ] && hdr=(--header "$3")
	c0=$(cpu "$1") g0=$(gcs) x0=$(preempts "$1") s0=$(steal)
	out=$(GOMAXPROCS=1 taskset -c 1 "$bin/pmx" bench --clients 32 --duration "${4:-5s}" --warmup 0s "${hdr[@]}" "$2")
	c1=$(cpu "$1")
	req=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
	echo "rps=$(sed -n 's/.* rps=\([0-9]*\).*/\1/p' <<<"$out") p99=$(sed -n 's/.* p99=\([0-9.]*ms\).*/\1/p' <<<"$out") cpu-us/req=$(((c1 - c0) * 1000000 / tick / (req > 0 ? req : 1)))$([ "$1" = "$pid" ] && echo " gc=$(($(gcs) - g0))") preempted=$(($(preempts "$1") - x0)) steal-ms=$((($(steal) - s0) * 1000 / tick))"
}
# bare DURATION URLFILE: loadgen's bare endpoint on core 0 serving URLFILE's bytes, its pid in bpid.
bare() {
	GOMAXPROCS=1 taskset -c 0 env PMX_BARE_ADDR="127.0.0.1:$bp" PMX_BARE_URLS="$2" PMX_BARE_FOR="$1" \
		"$bin/loadgen.test" -test.run '^$' -test.bench ServeBare -test.benchtime 1x >/dev/null 2>&1 &
	bpid=$!
	for i in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$bp$path" && break || sleep 0.1; done
}
if [ -n "${PMX_HOTPATH_PAIRS:-}" ]; then
	name=${PMX_HOTPATH_ROUTES:-positions} name=${name%% *} path=
	for r in "${routes[@]}"; do [ "${r%% *}" = "$name" ] && path=${r#* }; done
	[ -n "$path" ] || { echo "no route $name" >&2; exit 1; }
	url="http://127.0.0.1:$dp$path"
	curl -s "$url" >/dev/null # cached, as a polled page is
	echo "$url" >"$bin/urls"
	bare "$((PMX_HOTPATH_PAIRS * 6 + 10))s" "$bin/urls"
	trap 'kill $pid $bpid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
	for i in $(seq "$PMX_HOTPATH_PAIRS"); do
		echo "pair=$i $(date -u +%T) load=$(cut -d' ' -f1 /proc/loadavg) route=$name | bare $(run $bpid "http://127.0.0.1:$bp$path" "" 2s) | pmx $(run $pid "$url" "" 2s)"
	done
	exit 0
fi
for rep in $(seq "$reps"); do
	for r in "${routes[@]}"; do
		name=${r%% *} path=${r#* }
		[ -n "${PMX_HOTPATH_ROUTES:-}" ] && [[ " $PMX_HOTPATH_ROUTES " != *" $name "* ]] && continue
		url="http://127.0.0.1:$dp$path"
		bytes=$(curl -s "$url" | wc -c)
		curl -s "$url" >/dev/null # cached before the pmx runs, as a polled page is
		echo "$url" >"$bin/urls"
		bare 7s "$bin/urls"
		bare=$(run $bpid "http://127.0.0.1:$bp$path")
		wait $bpid || true
		p=$(run $pid "$url")
		g=$(run $pid "$url" "Accept-Encoding: gzip")
		echo "rep=$rep $(date -u +%T) load=$(cut -d' ' -f1 /proc/loadavg) route=$name bytes=$bytes | bare $bare | pmx $p | pmx-gzip $g"
	done
done
