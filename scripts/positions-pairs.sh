#!/usr/bin/env bash
# Issue 20's positions tail, paired (docs/perf/hotpath.md, sixth pass): one
# long-lived bare endpoint and pmx serving the same 121 KB positions page,
# alternating 2 s runs of `pmx bench --clients 32`, the servers on core 0
# (GOMAXPROCS=1), the load on core 1. Each line: time, load average, then
# per side the server's CPU-µs per request and p99 (ms), and pmx's GC cycles
# in its run (the server's own GC count). Run scripts/hotpath-vs-bare.sh first (it builds the binaries
# into $PMX_HOTPATH_BIN and loads the demo world into DATA_DIR).
#
#   scripts/positions-pairs.sh DATA_DIR [PAIRS] [BARE_SECONDS]
set -u
dir=${1:?usage: positions-pairs.sh DATA_DIR [PAIRS] [BARE_SECONDS]}
bin=${PMX_HOTPATH_BIN:-/tmp/pmx-hotpath}
cd "$bin"
b=28180; dp=$((b+1)); bp=$((b+9))
GODEBUG=gctrace=1 GOMAXPROCS=1 taskset -c 0 ./pmx serve --ip-limits=false --demo-market-makers=false --data-dir "$dir" --data-addr 127.0.0.1:$dp --catalog-addr 127.0.0.1:$((b+2)) --clob-addr 127.0.0.1:$((b+3)) --perps-addr 127.0.0.1:$((b+4)) --admin-addr 127.0.0.1:$((b+5)) > pairs-serve.log 2>&1 & pid=$!
w=0x639359feee1735ac0f1c4a643e80c13142ab1e6c # the busy wallet of hotpath-vs-bare.sh
path="/v2/positions?user=$w"
for i in $(seq 600); do # ready, and the page cached as a polled page is
	curl -sf -o /dev/null "http://127.0.0.1:$dp$path" && break
	kill -0 $pid || { cat pairs-serve.log; exit 1; }
	sleep 0.5
done
echo "http://127.0.0.1:$dp$path" > pairs-urls
GOMAXPROCS=1 taskset -c 0 env PMX_BARE_ADDR="127.0.0.1:$bp" PMX_BARE_URLS=pairs-urls PMX_BARE_FOR=${3:-200}s ./loadgen.test -test.run '^$' -test.bench ServeBare -test.benchtime 1x >/dev/null 2>&1 &
bpid=$!
trap 'kill $pid $bpid 2>/dev/null' EXIT
for j in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$bp$path" && break || sleep 0.1; done
one() {
  local c0 c1 out req
  c0=$(awk '{print $14+$15}' /proc/$1/stat)
  out=$(GOMAXPROCS=1 taskset -c 1 ./pmx bench --clients 32 --duration 2s --warmup 0s "$2")
  c1=$(awk '{print $14+$15}' /proc/$1/stat)
  req=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
  echo -n "$(( (c1-c0)*10000/req )) $(sed -n 's/.* p99=\([0-9.]*\)ms.*/\1/p' <<<"$out") "
}
for i in $(seq ${2:-40}); do
  echo -n "$(date +%T) $(cut -d' ' -f1 /proc/loadavg) bare "; one $bpid "http://127.0.0.1:$bp$path"
  g0=$(grep -c "^gc " pairs-serve.log); echo -n "pmx "; one $pid "http://127.0.0.1:$dp$path"; echo "gc=$(( $(grep -c "^gc " pairs-serve.log) - g0 ))"
done
