#!/bin/sh
# bench.sh - `make bench`: performance figures, printed (never asserted in tests).
#  1. M/M/c, 1,000,000 jobs on 1,024 GPUs at utilization 0.9, policy whole:
#     gpusim events/s, wall seconds, peak RSS (from its report);
#  2. the floor: a bare binary-heap M/M/c loop of the same size (bench_heap);
#  3. gpusim's events/s as a fraction of the floor. Goals: >= 25%, RSS < 100 MiB.
set -e
JOBS=${JOBS:-1000000}
GPUS=${GPUS:-1024}
UTIL=${UTIL:-0.9}
D=build/bench
mkdir -p "$D"
T="$D/mmc-$JOBS-$GPUS-$UTIL.csv"
[ -s "$T" ] || ./gpusim gen mmc --jobs "$JOBS" --servers "$GPUS" --util "$UTIL" --seed 1 --out "$T"
best_floor=0
for i in 1 2 3; do
  f=$(build/release/bench_heap "$JOBS" "$GPUS" "$UTIL" | awk '{print $3}')
  best_floor=$(awk -v a="$best_floor" -v b="$f" 'BEGIN {print (b > a ? b : a)}')
done
best=0; wall=0; rss=0; events=0
val() { grep "\"$1\"" "$D/report.json" | head -1 | sed 's/.*:[[:space:]]*//; s/,$//'; }
for i in 1 2 3; do
  ./gpusim run --trace "$T" --policy whole --gpus "H100-SXM5-80GB:$GPUS" --sample-s 0 --out "$D/run" --json >"$D/report.json"
  eps=$(val events_per_s)
  if awk -v a="$eps" -v b="$best" 'BEGIN {exit !(a > b)}'; then
    best=$eps
    wall=$(val wall_s)
    rss=$(val peak_rss_mib)
    events=$(val events)
  fi
done
awk -v e="$events" -v w="$wall" -v eps="$best" -v fl="$best_floor" -v rss="$rss" -v j="$JOBS" -v g="$GPUS" -v u="$UTIL" 'BEGIN {
  printf "bench: M/M/c %d jobs, %d GPUs, utilization %s, policy whole (best of 3)\n", j, g, u
  printf "  gpusim       %d events in %.3f s wall = %.0f events/s, peak RSS %.1f MiB\n", e, w, eps, rss
  printf "  floor        bare binary-heap loop, same workload: %.0f events/s\n", fl
  r = eps / fl
  printf "  ratio        gpusim / floor = %.1f%%  (goal >= 25%%: %s)\n", 100 * r, (r >= 0.25 ? "met" : "MISSED")
  printf "  memory       peak RSS %.1f MiB (goal < 100 MiB: %s)\n", rss, (rss < 100 ? "met" : "MISSED")
}'

# --- the fill-up experiment on the default openb trace (FGD protocol) ---
# Placements per second per gpu_select strategy of vgpu: the default pod list on the 1,213-node GPU
# node list, fill to 1.3 x 6,212 GPUs (about 10,800 placements), seeds 42..44, wall time of the
# placement loop only (import and setup excluded).
OB=workloads/traces/alibaba-openb-gpu-v2023
if [ -d "$OB" ]; then
  ./gpusim import openb "$OB/openb_pod_list_default.csv" --nodes "$OB/openb_node_list_gpu_node.csv" \
    --out-trace "$D/openb.csv" --out-cluster "$D/openb.json" 2>/dev/null
  echo "bench: fill-up, openb default trace, 6212 GPUs, fill to 130%, seeds 42..44, policy vgpu split_count=20"
  for sel in hami bestfit dotprod random fgd; do
    ./gpusim run --mode fill --fill-to 1.3 --seeds 42..44 --trace "$D/openb.csv" --cluster "$D/openb.json" \
      --policy vgpu --set split_count=20 --set gpu_select=$sel --out "$D/fill-$sel" --json >"$D/fill.json"
    awk -v sel="$sel" -F: '
      /"placements_per_s"/ { gsub(/[ ,]/, "", $2); pps = $2 }
      /"alloc_pct_at_100"/ { gsub(/[ ,]/, "", $2); a100 = $2 }
      /"alloc_pct_end"/    { gsub(/[ ,]/, "", $2); aend = $2 }
      END { printf "  %-8s %8.0f placements/s   alloc at 100%% arrived %.2f%%, at 130%% %.2f%%\n", sel, pps, a100, aend }' "$D/fill.json"
  done
fi
