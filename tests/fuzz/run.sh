#!/bin/sh
# run.sh FUZZ_DIR SECONDS TARGET... - `make fuzz`: runs each libFuzzer
# harness for SECONDS on a working corpus (build/fuzz/corpus/<target>,
# seeded from the shipped examples) plus the committed corpus
# (tests/fuzz/corpus/<target>/: seeds, inputs that once failed, where a new
# failing input is written as crash-*, leak-*, timeout-* or oom-*, and the
# coverage kept from earlier runs). After a clean run the working inputs of
# at most 8 KiB that add coverage are merged into the committed corpus
# (libFuzzer -merge=1, named by their SHA-1): commit them, and a failing
# input with its fix; `make test` replays them all. Prints the executions
# per target and ends with "N targets clean, N failed".
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
    import_sd) head -60 tests/fixtures/alibaba-sd/*.csv >"$work/seed.csv" ;;
    import_dlrm) head -60 tests/fixtures/alibaba-dlrm/*.csv >"$work/seed.csv" ;;
    import_mooncake) head -30 tests/fixtures/mooncake/*.jsonl >"$work/seed.jsonl" ;;
    import_azure) head -60 workloads/traces/azure-llm-inference-2023/*.csv >"$work/seed.csv" 2>/dev/null ;;
    import_openb) # the first byte picks the pod list (even) or the node list (odd)
       { printf '\000'; head -60 workloads/traces/alibaba-openb-gpu-v2023/openb_pod_list_default.csv; } >"$work/pods"
       { printf '\001'; head -60 tests/fixtures/openb/openb_node_list_all_node.csv; } >"$work/nodes" ;;
    check) cp results/baseline/*.json "$work"/ 2>/dev/null ;;
  esac
  log=$FZ/fuzz_$t.log
  "$FZ/fuzz_$t" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$keep/" "$work" "$keep" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | cut -d' ' -f2)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  if [ $rc -eq 0 ]; then
    small=$FZ/small/$t had=$(ls "$keep" | wc -l)
    rm -rf "$small" && mkdir -p "$small" && find "$work" -type f -size -8193c -exec cp {} "$small"/ \;
    "$FZ/fuzz_$t" -merge=1 -timeout=20 -rss_limit_mb=2048 "$keep" "$small" >>"$log" 2>&1
    clean=$((clean + 1)); echo "fuzz/$t: clean, ${runs:-?} executions in ${SECS} s ($(ls "$work" | wc -l) inputs in the working corpus; $(($(ls "$keep" | wc -l) - had)) added to $keep)"
  else
    failed=$((failed + 1)); echo "fuzz/$t: FAILED after ${runs:-?} executions (input kept in $keep/; log $log):"
    grep -E 'ERROR|runtime error|BUG|fuzz:' "$log" | head -5 | sed 's/^/    /'
  fi
done
echo "$clean targets clean, $failed failed"
[ "$failed" -eq 0 ]
