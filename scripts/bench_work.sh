#!/bin/sh
# bench_work.sh - `make bench`: the newer engine work on the scale table's sizes, printed (never
# asserted in tests). One series each on WORK_SIZES GPUs (default 1,024, 8,192 and 65,536; H100 nodes
# of 8), WORK_JOBS jobs (default 50,000) at a fixed count per size, under whole:
#   gangs      jobs of 1 to 8 GPUs and, one in twenty, gangs of 16 to 1,024 GPUs across nodes
#              (bench_gang.sh's mix), load 0.75
#   backfill   queue=backfill on an overloaded day of 1-8 GPU jobs (load 1.1, bench_backfill.sh's mix)
#   failures   failures=on at the H100 rates, 1-8 GPU jobs with 50 GiB checkpoints every hour, load 0.75
#   autoscale  three quarters of the nodes reserved, the rest an on-demand group a cluster autoscaler
#              adds for pending jobs (7 min provisioning, 10 idle minutes), 1-8 GPU jobs at load 0.75
#   llm        one llama-3.1-8b service (the LLM speed model from the catalog model's shape) with a
#              replica per GPU and WORK_REQUESTS generated requests (default 200,000; 512 tokens in,
#              128 out, 2 a second per replica after the cold start)
# Per series and size: events, us/event of the event loop in CPU seconds (sim.cpu_s), peak RSS, and
# us/event as a ratio to 1,024 GPUs (goal: within 2x). Best of BENCH_REPS rounds (default 3), the
# sizes in turn within each (bench_lib.sh's in_turn).
set -e
D=${BENCH_DIR:-build/bench}
GS=${GPUSIM:-./gpusim}
mkdir -p "$D"
JOBS=${WORK_JOBS:-50000}
REQS=${WORK_REQUESTS:-200000}
SIZES=${WORK_SIZES:-1024 8192 65536}
SERIES=${WORK_SERIES:-gangs backfill failures autoscale llm}
TMO=${WORK_TIMEOUT:-300}
REPS=${BENCH_REPS:-3}
MODEL=H100-SXM5-80GB
. scripts/bench_lib.sh
BL_JSON=$D/work.json

# jobs KIND GPUS LOAD -> trace on stdout: Poisson arrivals at LOAD of GPUS, durations exponential
# with a mean of 1 h; sizes 1, 2, 4, 8, and for KIND gang one job in twenty of 16 .. 1,024 doubling,
# each half as likely as the one below; KIND ckpt adds a 50 GiB checkpoint column
jobs() {
  awk -v kind="$1" -v c="$2" -v load="$3" -v n="$JOBS" 'BEGIN {
    srand(7); k = 0
    for (g = 1; g <= 8; g *= 2) { sz[k] = g; w[k] = (kind == "gang" ? 0.95 : 1) / 4; k++ }
    if (kind == "gang") {
      tot = 0; for (g = 16; g <= 1024; g *= 2) tot += 1 / g
      for (g = 16; g <= 1024; g *= 2) { sz[k] = g; w[k] = 0.05 * (1 / g) / tot; k++ }
    }
    mean = 0; for (i = 0; i < k; i++) mean += w[i] * sz[i]
    rate = load * c / (mean * 3600)
    print "id,submit,duration,gpus" (kind == "ckpt" ? ",checkpoint_gib" : "")
    t = 0
    for (i = 0; i < n; i++) {
      t += -log(1 - rand()) / rate
      u = rand(); a = 0; for (j = 0; j < k; j++) { a += w[j]; if (u <= a) break }
      if (j == k) j = k - 1
      printf "j%d,%.3f,%.3f,%d%s\n", i, t, -3600 * log(1 - rand()) + 1, sz[j], (kind == "ckpt" ? ",50" : "")
    }
  }'
}
autoscale_cluster() { # GPUS -> a cluster file: 3/4 of the nodes reserved, 1/4 on demand
  n=$(($1 / 8))
  printf '{"name": "work-autoscale-%d", "nodes": [\n' "$1"
  printf '  {"name": "base", "model": "%s", "count": %d, "gpus": 8, "tier": "reserved"},\n' "$MODEL" $((n * 3 / 4))
  printf '  {"name": "burst", "model": "%s", "gpus": 8, "tier": "on-demand",\n' "$MODEL"
  printf '   "autoscale": {"min": 0, "max": %d, "provision_s": 420, "idle_s": 600}}]}\n' $((n - n * 3 / 4))
}
llm_trace() { # GPUS -> one service, a replica a GPU, REQS requests after its ~53 s cold start
  awk -v g="$1" -v n="$REQS" 'BEGIN { r = 2 * g
    print "id,submit,duration,gpus,kind,model,tp,replicas_min,replicas_max,replicas_init,rate,input_tokens,output_tokens"
    printf "svc,0,%.3f,1,service,llama-3.1-8b,1,%d,%d,%d,%d,512,128\n", 60 + n / r, g, g, g, r }'
}
for g in $SIZES; do
  [ -s "$D/work-gang-$JOBS-$g.csv" ] || jobs gang "$g" 0.75 >"$D/work-gang-$JOBS-$g.csv"
  [ -s "$D/work-over-$JOBS-$g.csv" ] || jobs single "$g" 1.1 >"$D/work-over-$JOBS-$g.csv"
  [ -s "$D/work-ckpt-$JOBS-$g.csv" ] || jobs ckpt "$g" 0.75 >"$D/work-ckpt-$JOBS-$g.csv"
  [ -s "$D/work-single-$JOBS-$g.csv" ] || jobs single "$g" 0.75 >"$D/work-single-$JOBS-$g.csv"
  autoscale_cluster "$g" >"$D/work-autoscale-$g.json"
  llm_trace "$g" >"$D/work-llm-$REQS-$g.csv"
done

run() { timeout "$TMO" "$GS" run --policy whole --sample-s 0 --out "$D/work-run" --json "$@" >"$BL_JSON" 2>/dev/null; }
run_gangs() { run --trace "$D/work-gang-$JOBS-$1.csv" --gpus "$MODEL:$1"; }
run_backfill() { run --trace "$D/work-over-$JOBS-$1.csv" --gpus "$MODEL:$1" --set queue=backfill; }
run_failures() { run --trace "$D/work-ckpt-$JOBS-$1.csv" --gpus "$MODEL:$1" --set failures=on; }
run_autoscale() { run --trace "$D/work-single-$JOBS-$1.csv" --cluster "$D/work-autoscale-$1.json"; }
run_llm() { run --trace "$D/work-llm-$REQS-$1.csv" --gpus "$MODEL:$1"; }

echo "bench: new work at scale, $JOBS jobs ($REQS requests for llm) per size, $MODEL nodes of 8, whole,"
echo "  best of $REPS rounds; us/event: CPU seconds of the event loop; goal within 2x of 1,024 GPUs"
printf "  %-10s %8s %10s %10s %10s %8s\n" series GPUs events us/event "RSS MiB" "x 1k"
for series in $SERIES; do
  # shellcheck disable=SC2086
  in_turn "run_$series" $SIZES
  base=""
  for g in $SIZES; do
    if bl_size "$g"; then
      awk -v s="$series" -v g="$g" -v ev="$ev" -v us="$us" -v r="$rss" -v b="$base" \
        'BEGIN {printf "  %-10s %8d %10d %10.3f %10.1f %8.2f\n", s, g, ev, us, r, us / b}'
    else
      printf "  %-10s %8d %10s\n" "$series" "$g" "timeout (> ${TMO} s) or error"
    fi
  done
done
