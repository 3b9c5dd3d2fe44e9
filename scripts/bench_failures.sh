#!/bin/sh
# bench_failures.sh - `make bench`: failing hardware's per-event cost, printed (never asserted in
# tests). On FAIL_SIZES GPUs (default 1,024 and 16,384; nodes of 8 H100s) one trace of FAIL_JOBS
# single-node jobs (default 400,000: 800,000 events with failures off; 1 to 8 GPUs, durations
# exponential with a mean of 1 h, Poisson arrivals at load 0.75, each with a 50 GiB checkpoint
# written every hour) run under whole with
# failures off; on at the H100 rates (each periodic write then two events of its job, and a
# completion rescheduled); on without periodic checkpoints (checkpoint_every=0: the failure clocks,
# node lists and interrupts alone); and on at 30x the rates (fail_scale=30: a failure every half hour
# at 16,384 GPUs, a few percent of the nodes in repair). Per series: events, events/s and us/event of
# the event loop in CPU seconds (sim.cpu_s), failures, and us/event as a ratio to failures off at the
# same size (goal: within 1.2x). Best of BENCH_REPS runs (default 5).
set -e
D=build/bench
mkdir -p "$D"
JOBS=${FAIL_JOBS:-400000}
SIZES=${FAIL_SIZES:-1024 16384}
TMO=${FAIL_TIMEOUT:-300}
REPS=${BENCH_REPS:-5}
. scripts/bench_lib.sh
BL_JSON=$D/failures.json

gen() { # GPUS -> trace on stdout
  awk -v c="$1" -v n="$JOBS" 'BEGIN {
    srand(11)
    rate = 0.75 * c / (3.75 * 3600)
    print "id,submit,duration,gpus,checkpoint_gib"
    t = 0
    for (i = 0; i < n; i++) {
      t += -log(1 - rand()) / rate
      printf "j%d,%.3f,%.3f,%d,50\n", i, t, -3600 * log(1 - rand()) + 1, 2 ^ int(4 * rand())
    }
  }'
}
for g in $SIZES; do
  [ -s "$D/fail-$JOBS-$g.csv" ] || gen "$g" >"$D/fail-$JOBS-$g.csv"
done

echo "bench: failing hardware, $JOBS single-node jobs at load 0.75 per size (50 GiB checkpoints every hour),"
echo "  H100 nodes of 8, whole, best of $REPS runs; us/event: CPU seconds of the event loop"
printf "  %-18s %8s %10s %12s %10s %10s %8s\n" series GPUs events events/s us/event failures "x off"
run_fail() { # SERIES GPUS
  timeout "$TMO" ./gpusim run --trace "$D/fail-$JOBS-$2.csv" --policy whole --gpus "H100-SXM5-80GB:$2" \
    --sample-s 0 --out "$D/fail-run" --json $3 >"$BL_JSON" 2>/dev/null
}
run_off() { run_fail off "$1" ""; }
run_on() { run_fail on "$1" "--set failures=on"; }
run_on_nowrite() { run_fail on_nowrite "$1" "--set failures=on --set checkpoint_every=0"; }
run_on_x30() { run_fail on_x30 "$1" "--set failures=on --set fail_scale=30"; }
for g in $SIZES; do
  off=""
  for series in off on on_nowrite on_x30; do
    in_turn "run_$series" "$g"
    base=""
    if bl_size "$g"; then
      [ "$series" = off ] && off=$us
      n=0
      [ "$series" = off ] || n=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['failures']['interruptions'])" "$BL_JSON")
      awk -v s="$series" -v g="$g" -v ev="$ev" -v e="$eps" -v us="$us" -v b="$off" -v n="$n" \
        'BEGIN {printf "  %-18s %8d %10d %12.0f %10.3f %10d %8.2f\n", s, g, ev, e, us, n, (b > 0 ? us / b : 0)}'
    else
      printf "  %-18s %8d %12s\n" "$series" "$g" "timeout (> ${TMO} s) or error"
    fi
  done
done
