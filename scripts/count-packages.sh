#!/usr/bin/env bash
# Counts packages in a `go test` log: "ok  <pkg>" lines passed, "FAIL<TAB><pkg>"
# lines failed. A failing test's "--- FAIL" lines and the bare "FAIL" that ends
# a failing package's output are not packages. Usage: count-packages.sh LOG
set -euo pipefail
passed=$(grep -cE '^ok[[:space:]]' "$1" || true)
failed=$(grep -c $'^FAIL\t' "$1" || true)
echo "packages: $passed passed, $failed failed"
