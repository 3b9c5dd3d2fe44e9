#!/bin/sh
# run_all.sh - every test: the unit/validation runner (sanitized), then the
# command line end to end (sanitized binary). Ends with the total line
# "N passed, N failed" and exits non-zero on any failure.
log=$(mktemp /tmp/gpusim-tests-XXXXXX)
trap 'rm -f "$log"' EXIT
status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 ./build/test/run_tests | tee "$log" || status=1
sh tests/e2e.sh build/test/gpusim | tee -a "$log" || status=1
sh tests/e2e_sweep.sh build/test/gpusim | tee -a "$log" || status=1
p=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | awk '{s+=$1} END {print s+0}')
f=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | awk '{s+=$3} END {print s+0}')
[ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1 # a crash (sanitizer, abort) counts as a failure
echo "$p passed, $f failed"
[ "$status" -eq 0 ] && [ "$f" -eq 0 ]
