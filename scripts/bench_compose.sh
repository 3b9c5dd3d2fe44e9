#!/bin/sh
# bench_compose.sh - `make bench`: per-event cost of space policies composed with the time policies
# and core mechanisms, at 1,024, 8,192 and 65,536 GPUs (printed, never asserted in tests).
# Each size replays the same number of rows (about the same number of events); what grows with the
# cluster is the number of nodes, and the arrivals (or services) that keep it as loaded:
#   cpumem     M/M/c rows (COMPOSE_JOBS, default 50,000) with cpu and mem_gib columns on nodes of 8
#              cards, 64 cores and 512 GiB (CPU binds before the cards do), at load 0.5
#   hibernate  agent sessions (COMPOSE_SESSIONS, default 20,000; `gpusim gen agents`: 16 cores,
#              64 GiB, a card for one session in four) arriving so that about 0.75 of the CPU is
#              held, on nodes of 8 cards, 128 cores and 1,024 GiB; policy SPACE+hibernate
#   dualpod    one long-tail model service (replicas 0..1, rates Zipf over the models) per 32 GPUs,
#              COMPOSE_REQUESTS requests in all (default 50,000) over 4 hours; SPACE+dualpod
#   preempt    COMPOSE_JOBS rows: preemptible priority-0 training (1-8 cards) that fills the
#              cards (1.05 x of them asked in the first minute, never ending on the run's scale),
#              then priority-100 inference (1-2 cards, 600 s mean) at 0.3 of the cards, each one
#              preempting; an "inference" tenant capped at half the cards; --set preempt=on
#              min_runtime=0
# For each: events/s and us/event of the event loop in CPU seconds (the report's sim.cpu_s: reading
# the trace and every event; CPU time moves less than wall time on a loaded shared machine), us/event
# as a ratio to 1,024 GPUs (goal: within 2x), and beside them setup s (sim.setup_s, wall: building the
# nodes, cards and policy state before the first event, paid once per run).
# COMPOSE_POLICIES (default "whole vgpu timeslice") names the space policies, COMPOSE_SIZES the
# sizes; a run past COMPOSE_TIMEOUT seconds (default 120) prints "timeout".
# Each figure is the best of BENCH_REPS runs (default 5), the sizes run in turn within each round, on a
# shared machine: compare ratios, not absolutes.
set -e
JOBS=${COMPOSE_JOBS:-50000}
SESS=${COMPOSE_SESSIONS:-20000}
REQS=${COMPOSE_REQUESTS:-50000}
# one folder per trace size: traces made for other sizes are never reused
D=build/bench/compose-$JOBS-$SESS-$REQS
mkdir -p "$D"
TMO=${COMPOSE_TIMEOUT:-120}
REPS=${BENCH_REPS:-5}
SIZES=${COMPOSE_SIZES:-1024 8192 65536}
POLICIES=${COMPOSE_POLICIES:-whole vgpu timeslice}
MODEL=A100-SXM4-80GB
. scripts/bench_lib.sh
BL_JSON=$D/run.json

# cluster NAME GPUS CPU MEM [TENANT_CAP] -> a cluster file of 8-card nodes on stdout
cluster() {
  printf '{"name": "%s-%d", "nodes": [{"name": "n", "model": "%s", "count": %d, "gpus": 8' \
    "$1" "$2" "$MODEL" $(($2 / 8))
  [ "$3" = - ] || printf ', "cpu": %s, "mem_gib": %s' "$3" "$4"
  printf '}]'
  [ -z "$5" ] || printf ', "tenants": [{"name": "inference", "gpus": %d}]' "$5"
  printf '}\n'
}

# traces for one size: $1 GPUs
make_traces() {
  g=$1
  T="$D/cpumem-$g.csv"
  [ -s "$T" ] || ./gpusim gen mmc --jobs "$JOBS" --servers "$g" --util 0.5 --seed 1 |
    awk -F, 'BEGIN {srand(7)} NR == 1 {print $0 ",cpu,mem_gib"; next}
      {printf "%s,%d,%d\n", $0, 2 + int(rand() * 20), 8 + int(rand() * 150)}' >"$T"
  cluster cpumem "$g" 64 512 >"$D/cpumem-$g.json"
  # sessions hold 16 of 128 cores for about 7,200 s: 0.75 x 16 g cores held needs g x 0.75 sessions
  T="$D/hibernate-$g.csv"
  hours=$(awk -v s="$SESS" -v g="$g" 'BEGIN {printf "%.6f", s * 7200 / (0.75 * g) / 3600}')
  [ -s "$T" ] || ./gpusim gen agents --sessions "$SESS" --hours "$hours" --cpu 16 --mem-gib 64 \
    --gpu-share 0.25 --seed 1 --out "$T"
  cluster hibernate "$g" 128 1024 >"$D/hibernate-$g.json"
  T="$D/dualpod-$g.csv"
  [ -s "$T" ] || awk -v n=$((g / 32)) -v r="$REQS" 'BEGIN {
    print "id,submit,duration,gpus,kind,replicas_min,replicas_max,replicas_init,max_batch,slo_ms,weights_gib,rate,pattern,svc_mean_ms"
    split("16 16 30 16 60 8 16 30", w, " ")
    for (i = 0; i < n; i++) z += 1 / (i + 1)
    for (i = 0; i < n; i++)
      printf "model-%05d,0,14400,1,service,0,1,0,8,5000,%s,%.9g,poisson,1500\n", i, w[i % 8 + 1], r / 14400 / z / (i + 1)
  }' >"$T"
  cluster dualpod "$g" - - >"$D/dualpod-$g.json"
  T="$D/preempt-$g.csv"
  [ -s "$T" ] || awk -v n="$JOBS" -v g="$g" 'BEGIN {
    srand(3); print "id,submit,duration,gpus,priority,preemptible,tenant"
    split("1 2 4 8", k, " ")
    nt = int(1.05 * g / 3.75) # 3.75 cards a training row on average
    for (i = 0; i < nt; i++)
      printf "t%d,%.3f,%.3f,%d,0,1,training\n", i, i * 60.0 / nt, 1e7, k[int(rand() * 4) + 1]
    lam = 0.3 * g / (1.5 * 600); t = 60
    for (; i < n; i++) {
      t += -log(1 - rand()) / lam
      printf "i%d,%.3f,%.3f,%d,100,0,inference\n", i, t, -600 * log(1 - rand()) + 1, 1 + int(rand() * 2)
    }
  }' >"$T"
  cluster preempt "$g" - - $((g / 2)) >"$D/preempt-$g.json"
}

for g in $SIZES; do make_traces "$g"; done

# runs KIND POLICY [--set ...]: every size in turn (in_turn), then one row per size
series() { # sh has no locals: names of its own
  r_kind=$1; r_pol=$2; shift 2
  r_run() { # shellcheck disable=SC2086
    timeout "$TMO" ./gpusim run --trace "$D/$r_kind-$1.csv" --cluster "$D/$r_kind-$1.json" --policy "$r_pol" \
      --sample-s 0 --out "$D/run" --json $r_set >"$BL_JSON" 2>/dev/null
  }
  r_set="$*"
  # shellcheck disable=SC2086
  in_turn r_run $SIZES
  base=""
  for r_g in $SIZES; do
    if bl_size "$r_g"; then
      awk -v k="$r_kind" -v p="$r_pol" -v g="$r_g" -v n="$ev" -v e="$eps" -v us="$us" -v b="$base" -v su="$setup" \
        'BEGIN {printf "  %-10s %-20s %8d %10d %12.0f %10.3f %8.2f %8.3f\n", k, p, g, n, e, us, us / b, su}'
    else
      printf "  %-10s %-20s %8d %s\n" "$r_kind" "$r_pol" "$r_g" "timeout (> ${TMO} s) or error"
    fi
  done
}

echo "bench: compositions at each size, same rows per size, $MODEL, best of $REPS runs;"
echo "  events/s and us/event: CPU seconds of the event loop; setup s (the best run's, wall) builds the cluster before it"
printf "  %-10s %-20s %8s %10s %12s %10s %8s %8s\n" trace policy GPUs events events/s us/event "x 1k" "setup s"
for pol in $POLICIES; do
  for kind in cpumem hibernate dualpod preempt; do
    case $kind in
      cpumem) series "$kind" "$pol" ;;
      hibernate | dualpod) series "$kind" "$pol+$kind" ;;
      preempt) series "$kind" "$pol" --set preempt=on --set min_runtime=0 ;;
    esac
  done
done
