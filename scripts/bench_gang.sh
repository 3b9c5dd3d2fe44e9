#!/bin/sh
# bench_gang.sh - `make bench`: jobs across nodes, printed (never asserted in tests). On GANG_SIZES
# GPUs (default 1,024, 4,096 and 16,384; nodes of 8 H100s) three series of GANG_JOBS jobs each
# (default 50,000, about 100,000 events) at load 0.75 under whole, skip order: single-node jobs (1 to
# 8 GPUs), the same with gangs up to GANG_MAX GPUs (default 1,024; a job of 16 GPUs or more is one in
# twenty, sizes doubling, each size half as likely as the one below it), and those gangs on a cluster
# file with racks of 16 nodes in blocks of 8 racks (the topology index at every take and give). Per
# series: events/s and us/event of the event loop in CPU seconds (sim.cpu_s), and us/event as a ratio
# to the single-node series of the same size (goal: within 2x). Best of BENCH_REPS runs (default 5).
set -e
D=build/bench
mkdir -p "$D"
JOBS=${GANG_JOBS:-50000}
SIZES=${GANG_SIZES:-1024 4096 16384}
GMAX=${GANG_MAX:-1024}
TMO=${GANG_TIMEOUT:-300}
REPS=${BENCH_REPS:-5}
. scripts/bench_lib.sh
BL_JSON=$D/gang.json

# gen KIND GPUS -> trace on stdout. Sizes: 1, 2, 4, 8 (single-node) and, for gangs, 16 .. GMAX
# doubling, each half as likely as the last, one job in twenty of them; durations exponential with a
# mean of 1 h; Poisson arrivals at load 0.75 of the cluster.
gen() {
  awk -v kind="$1" -v c="$2" -v n="$JOBS" -v gmax="$GMAX" 'BEGIN {
    srand(7); k = 0
    for (g = 1; g <= 8; g *= 2) { sz[k] = g; w[k] = (kind == "gang" ? 0.95 : 1) / 4; k++ }
    if (kind == "gang") {
      tot = 0; for (g = 16; g <= gmax; g *= 2) tot += 1 / g
      for (g = 16; g <= gmax; g *= 2) { sz[k] = g; w[k] = 0.05 * (1 / g) / tot; k++ }
    }
    mean = 0; for (i = 0; i < k; i++) mean += w[i] * sz[i]
    rate = 0.75 * c / (mean * 3600)
    print "id,submit,duration,gpus"
    t = 0
    for (i = 0; i < n; i++) {
      t += -log(1 - rand()) / rate
      u = rand(); a = 0; for (j = 0; j < k; j++) { a += w[j]; if (u <= a) break }
      if (j == k) j = k - 1
      printf "j%d,%.3f,%.3f,%d\n", i, t, -3600 * log(1 - rand()) + 1, sz[j]
    }
  }'
}
topo() { # GPUS -> a cluster file of 8-GPU nodes in racks of 16, blocks of 8 racks
  printf '{"name": "gang-bench-%d", "nodes": [{"model": "H100-SXM5-80GB", "count": %d, "gpus": 8}],\n' "$1" $(($1 / 8))
  printf ' "topology": {"levels": ["block", "rack"], "sizes": [8, 16], "bw_gbps": [50, 200]}}\n'
}
for g in $SIZES; do
  [ -s "$D/gang-single-$JOBS-$g.csv" ] || gen single "$g" >"$D/gang-single-$JOBS-$g.csv"
  [ -s "$D/gang-gang-$JOBS-$GMAX-$g.csv" ] || gen gang "$g" >"$D/gang-gang-$JOBS-$GMAX-$g.csv"
  topo "$g" >"$D/gang-topo-$g.json"
done

echo "bench: jobs across nodes, $JOBS jobs at load 0.75 per size, H100 nodes of 8, whole (skip), best of $REPS runs;"
echo "  gangs up to $GMAX GPUs (one job in twenty of 16 or more); us/event: CPU seconds of the event loop"
printf "  %-16s %8s %12s %10s %14s\n" series GPUs events/s us/event "x single-node"
run_single() { timeout "$TMO" ./gpusim run --trace "$D/gang-single-$JOBS-$1.csv" --policy whole \
                 --gpus "H100-SXM5-80GB:$1" --sample-s 0 --out "$D/gang-run" --json >"$BL_JSON" 2>/dev/null; }
run_gang() { timeout "$TMO" ./gpusim run --trace "$D/gang-gang-$JOBS-$GMAX-$1.csv" --policy whole \
               --gpus "H100-SXM5-80GB:$1" --sample-s 0 --out "$D/gang-run" --json >"$BL_JSON" 2>/dev/null; }
run_topo() { timeout "$TMO" ./gpusim run --trace "$D/gang-gang-$JOBS-$GMAX-$1.csv" --policy whole \
               --cluster "$D/gang-topo-$1.json" --sample-s 0 --out "$D/gang-run" --json >"$BL_JSON" 2>/dev/null; }
for g in $SIZES; do
  single=""
  for series in single gang topo; do
    in_turn "run_$series" "$g"
    base=""
    if bl_size "$g"; then
      [ "$series" = single ] && single=$us
      awk -v s="$series" -v g="$g" -v e="$eps" -v us="$us" -v b="$single" \
        'BEGIN {printf "  %-16s %8d %12.0f %10.3f %14.2f\n", s, g, e, us, (b > 0 ? us / b : 0)}'
    else
      printf "  %-16s %8d %12s\n" "$series" "$g" "timeout (> ${TMO} s) or error"
    fi
  done
done
