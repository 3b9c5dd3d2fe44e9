#!/bin/sh
# bench_scale.sh - `make bench`: the scale table, printed (never asserted in tests).
#  1. every space policy on M/M/c traces at load 0.75 with the same number of jobs (SCALE_JOBS,
#     default 50,000: about 100,000 events) on 1,024, 8,192 and 65,536 GPUs: events/s and us/event
#     of the event loop in CPU seconds (the report's sim.cpu_s; it moves less than wall time on a
#     loaded shared machine), peak RSS (sim.peak_rss_mib), us/event as a ratio to 1,024 GPUs (goal:
#     within 2x), and the setup before the first event (sim.setup_s, wall: building nodes, cards
#     and policy state, paid once per run). A run past SCALE_TIMEOUT seconds (default 120) prints "timeout".
#  2. the queue cliff: 128 nodes of 8 cards each pinned by a 7-card job, Q queued 8-card jobs that
#     can never fit, each its own shape (its own cpu value), beside CHURN 1-card jobs (M/M/128 at
#     load about 0.75); against the churn alone (goal: about the same time). mig and dynmig run it
#     on MIG cards (--mig whole / dynamic: a whole-card request takes the full-card profile), and
#     on a MIG variant: each of the 1,024 cards pinned by one long instance, Q queued requests
#     (each its own shape) for a profile that cannot fit beside it, 1g.10gb churn (dynmig: 1g pins,
#     7g.80gb queued; mig, balanced layout: 3g.40gb pins, 3g.40gb queued).
#  3. the overloaded CPU-bound day (whole, vgpu, timeslice at OVER_SIZES, default 1,024 and 8,192
#     GPUs): OVER_JOBS rows (default 50,000) whose CPU and memory asks bind, at load 1.0 of the
#     cards, against the same columns at load 0.5 (goal: about the same time).
# Scale figures are the best of BENCH_REPS runs (default 5), the sizes run in turn within each round
# so that all of them see the same spells of a shared machine's load; cliff times of one run:
# compare ratios, not absolutes.
set -e
D=build/bench
mkdir -p "$D"
JOBS=${SCALE_JOBS:-50000}
TMO=${SCALE_TIMEOUT:-120}
REPS=${BENCH_REPS:-5}
SIZES=${SCALE_SIZES:-1024 8192 65536}
POLICIES=${SCALE_POLICIES:-whole vgpu timeslice mps mig dynmig}
MODEL=A100-SXM4-80GB
. scripts/bench_lib.sh
BL_JSON=$D/scale.json

echo "bench: scale, M/M/c $JOBS jobs at load 0.75 per size, $MODEL, best of $REPS runs;"
echo "  events/s and us/event: CPU seconds of the event loop; setup s (the best run's, wall) builds the cluster before it"
printf "  %-10s %8s %12s %10s %10s %8s %8s\n" policy GPUs events/s us/event "RSS MiB" "x 1k" "setup s"
for g in $SIZES; do
  T="$D/scale-$JOBS-$g.csv"
  [ -s "$T" ] || ./gpusim gen mmc --jobs "$JOBS" --servers "$g" --util 0.75 --seed 1 --out "$T"
done
for pol in $POLICIES; do
  mig=""
  case $pol in mig) mig="--mig whole" ;; dynmig) mig="--mig dynamic" ;; esac
  # shellcheck disable=SC2086
  scale_run() { timeout "$TMO" ./gpusim run --trace "$D/scale-$JOBS-$1.csv" --policy "$pol" --gpus "$MODEL:$1" $mig \
                  --sample-s 0 --out "$D/scale-run" --json >"$BL_JSON" 2>/dev/null; }
  # shellcheck disable=SC2086
  in_turn scale_run $SIZES
  base=""
  for g in $SIZES; do
    if bl_size "$g"; then
      awk -v p="$pol" -v g="$g" -v e="$eps" -v us="$us" -v r="$rss" -v b="$base" -v su="$setup" \
        'BEGIN {printf "  %-10s %8d %12.0f %10.3f %10.1f %8.2f %8.3f\n", p, g, e, us, r, us / b, su}'
    else
      printf "  %-10s %8d %12s\n" "$pol" "$g" "timeout (> ${TMO} s) or error"
    fi
  done
done

Q=${CLIFF_QUEUED:-1000}
CHURN=${CLIFF_CHURN:-100000}
cliff() { # $1 queued, $2 churn jobs -> trace on stdout
  awk -v q="$1" -v n="$2" 'BEGIN {
    srand(1); print "id,submit,duration,gpus,cpu"
    for (i = 0; i < 128; i++) printf "pin%d,0,100000000,7,1\n", i
    for (i = 0; i < q; i++) printf "big%d,1,1000,8,%.3f\n", i, 1 + i * 0.001
    t = 2
    for (i = 0; i < n; i++) { t += -log(1 - rand()); printf "c%d,%.3f,%.3f,1,1\n", i, t, -96 * log(1 - rand()) + 0.001 }
  }'
}
cliff 0 "$CHURN" >"$D/cliff-0.csv"
cliff "$Q" "$CHURN" >"$D/cliff-$Q.csv"
echo "bench: queue cliff, 1,024 GPUs, $Q queued 8-card shapes that cannot fit beside $CHURN 1-card jobs"
printf "  %-10s %14s %14s\n" policy "churn alone s" "with queue s"
for pol in whole vgpu timeslice mps mig dynmig; do
  mig=""
  case $pol in mig) mig="--mig whole" ;; dynmig) mig="--mig dynamic" ;; esac
  row=""
  for q in 0 "$Q"; do
    # shellcheck disable=SC2086
    if timeout "$TMO" ./gpusim run --trace "$D/cliff-$q.csv" --policy "$pol" --gpus "$MODEL:1024" $mig --sample-s 0 \
         --out "$D/cliff-run" --json >"$D/cliff.json" 2>/dev/null; then
      row="$row $(val wall_s "$D/cliff.json" | awk '{printf "%.3f", $1}')"
    else
      row="$row timeout"
    fi
  done
  # shellcheck disable=SC2086
  printf "  %-10s %14s %14s\n" "$pol" $row
done
migcliff() { # $1 queued, $2 churn, $3 pinned profile, $4 queued profile -> trace on stdout
  awk -v q="$1" -v n="$2" -v pin="$3" -v big="$4" 'BEGIN {
    srand(1); print "id,submit,duration,gpus,cpu,mig"
    for (i = 0; i < 1024; i++) printf "pin%d,0,100000000,1,1,%s\n", i, pin
    for (i = 0; i < q; i++) printf "big%d,1,1000,1,%.3f,%s\n", i, 1 + i * 0.001, big
    t = 2
    for (i = 0; i < n; i++) { t += -log(1 - rand()); printf "c%d,%.3f,%.3f,1,1,1g.10gb\n", i, t, -96 * log(1 - rand()) + 0.001 }
  }'
}
echo "bench: MIG queue cliff, 1,024 GPUs each pinned by one instance, $Q queued shapes that cannot fit beside $CHURN 1g.10gb jobs"
printf "  %-36s %14s %14s\n" "policy (layout: pin, queued)" "churn alone s" "with queue s"
for c in "dynmig dynamic 1g.10gb 7g.80gb" "mig balanced 3g.40gb 3g.40gb"; do
  # shellcheck disable=SC2086
  set -- $c
  row=""
  for q in 0 "$Q"; do
    migcliff "$q" "$CHURN" "$3" "$4" >"$D/migcliff.csv"
    if timeout "$TMO" ./gpusim run --trace "$D/migcliff.csv" --policy "$1" --gpus "$MODEL:1024" --mig "$2" --sample-s 0 \
         --out "$D/cliff-run" --json >"$D/cliff.json" 2>/dev/null; then
      row="$row $(val wall_s "$D/cliff.json" | awk '{printf "%.3f", $1}')"
    else
      row="$row timeout"
    fi
  done
  # shellcheck disable=SC2086
  printf "  %-36s %14s %14s\n" "$1 ($2: $3, $4)" $row
done

# --- the overloaded CPU-bound day: jobs whose cpu and mem_gib asks bind long before the cards
# (cpu 2-21, mem_gib 8-157 on nodes of 8 cards, 64 cores and 512 GiB, as bench_compose.sh's cpumem),
# arriving at load 1.0 of the cards (gen mmc --util 1.0 --seed 2), so the queue holds a few hundred
# shape buckets for most of the day; against the churn alone, the same columns at load 0.5 (seed 1),
# where the queue stays short (goal: about the same time). wall_s of each run, best of REPS.
OJ=${OVER_JOBS:-50000}
OS=${OVER_SIZES:-1024 8192}
best_wall() { # trace cluster policy -> the least sim.wall_s of REPS runs, or "timeout"
  bw=""; bi=0
  while [ "$bi" -lt "$REPS" ]; do
    bi=$((bi + 1))
    timeout "$TMO" ./gpusim run --trace "$1" --cluster "$2" --policy "$3" --sample-s 0 --out "$D/over-run" --json \
      >"$D/over.json" 2>/dev/null || { echo timeout; return; }
    w=$(val wall_s "$D/over.json")
    bw=$(awk -v a="$bw" -v b="$w" 'BEGIN {print (a == "" || b + 0 < a + 0) ? b : a}')
  done
  awk -v w="$bw" 'BEGIN {printf "%.3f", w}'
}
echo "bench: overloaded CPU-bound day, $OJ jobs asking cpu 2-21 and mem_gib 8-157 (nodes of 8 cards, 64 cores,"
echo "  512 GiB), at load 1.0 of the cards against the churn alone at 0.5; best of $REPS runs"
printf "  %-10s %8s %14s %14s %8s\n" policy GPUs "churn alone s" "overloaded s" ratio
for g in $OS; do
  for u in 0.5 1.0; do
    T="$D/over-$u-$g.csv"
    seed=1; [ "$u" = 1.0 ] && seed=2
    [ -s "$T" ] || ./gpusim gen mmc --jobs "$OJ" --servers "$g" --util "$u" --seed "$seed" |
      awk -F, 'BEGIN {srand(7)} NR == 1 {print $0 ",cpu,mem_gib"; next}
        {printf "%s,%d,%d\n", $0, 2 + int(rand() * 20), 8 + int(rand() * 150)}' >"$T"
  done
  printf '{"name": "over-%d", "nodes": [{"name": "n", "model": "%s", "count": %d, "gpus": 8, "cpu": 64, "mem_gib": 512}]}\n' \
    "$g" "$MODEL" $((g / 8)) >"$D/over-$g.json"
  for pol in whole vgpu timeslice; do
    a=$(best_wall "$D/over-0.5-$g.csv" "$D/over-$g.json" "$pol")
    b=$(best_wall "$D/over-1.0-$g.csv" "$D/over-$g.json" "$pol")
    awk -v p="$pol" -v g="$g" -v a="$a" -v b="$b" 'BEGIN {
      r = (a + 0 > 0 && b != "timeout") ? sprintf("%.1f", b / a) : "-"
      printf "  %-10s %8d %14s %14s %8s\n", p, g, a, b, r }'
  done
done

# --- plan's width: the README's plan example (the example day on H100s, 8 a node), one count a round
# against the default (--jobs over --seeds: the online cores); wall seconds, as a buyer waits for it,
# and the rounds and counts from search.json. The evidence is the same at both (tests/e2e_plan_width.sh).
PW=${PLAN_WIDTHS:-1 default}
echo "bench: plan, workloads/examples/day.csv, whole on H100-SXM5-80GB, $(getconf _NPROCESSORS_ONLN) online cores"
for w in $PW; do
  rm -rf "$D/plan-$w"
  wa=""; [ "$w" != default ] && wa="--width $w"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  ./gpusim plan --trace workloads/examples/day.csv --policy whole --gpu H100-SXM5-80GB --gpus-per-node 8 \
    --slo 'jobs.queue_s.p99<=600,jobs.jct_s.p99<=14400' $wa --out "$D/plan-$w" >/dev/null 2>&1
  t1=$(date +%s.%N)
  S="$D/plan-$w/search.json"
  printf "  width %-8s %6.2f s wall  %s rounds, %s counts run, %s in the evidence (width %s)\n" "$w" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(val rounds "$S")" "$(val counts_run "$S")" "$(val counts_in_evidence "$S")" \
    "$(val width "$S")"
done
