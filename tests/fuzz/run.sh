#!/bin/sh
# run.sh FUZZ_DIR SECONDS TARGET... - `make fuzz`: runs each libFuzzer
# harness for SECONDS on a working corpus (build/fuzz/corpus/<target>,
# seeded from the shipped examples, not committed) plus the committed
# corpus of inputs that once failed (tests/fuzz/corpus/<target>/, where a new
# failing input is written as crash-*, leak-*, timeout-* or oom-*: commit it
# with its fix, and `make test` replays it from then on). Prints the
# executions per target and ends with "N targets clean, N failed".
FZ=${1:?usage: run.sh FUZZ_DIR SECONDS TARGET...}; SECS=${2:?}; shift 2
clean=0 failed=0
for t in "$@"; do
  work=$FZ/corpus/$t keep=tests/fuzz/corpus/$t
  mkdir -p "$work" "$keep"
  case $t in # seeds: what the reader normally gets
    trace) cp workloads/examples/*.csv "$work"/ 2>/dev/null ;;
    cluster) cp workloads/examples/cluster*.json "$work"/ 2>/dev/null ;;
    model) cp models/gpu/*.json "$work"/ 2>/dev/null ;;
    report) cp results/baseline/*.json "$work"/ 2>/dev/null ;;
    k8s) cp tests/fixtures/k8s/*.json "$work"/ 2>/dev/null ;;
    sacct) cp tests/fixtures/slurm/*.txt "$work"/ 2>/dev/null ;;
    sim) i=0
         for f in workloads/examples/day.csv workloads/examples/preempt.csv workloads/examples/mig-mix.csv \
                  workloads/examples/agents.csv workloads/examples/inference.csv; do
           [ -f "$f" ] || continue
           # the first byte picks the policy (fuzz_sim.c); keep the seeds small
           { printf "\\$(printf '%03o' $i)"; head -40 "$f"; } >"$work/seed$i"; i=$((i + 1))
         done ;;
  esac
  log=$FZ/fuzz_$t.log
  "$FZ/fuzz_$t" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$keep/" "$work" "$keep" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | cut -d' ' -f2)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  if [ $rc -eq 0 ]; then
    clean=$((clean + 1)); echo "fuzz/$t: clean, ${runs:-?} executions in ${SECS} s ($(ls "$work" | wc -l) inputs in the working corpus)"
  else
    failed=$((failed + 1)); echo "fuzz/$t: FAILED after ${runs:-?} executions (input kept in $keep/; log $log):"
    grep -E 'ERROR|runtime error|BUG|fuzz:' "$log" | head -5 | sed 's/^/    /'
  fi
done
echo "$clean targets clean, $failed failed"
[ "$failed" -eq 0 ]
