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
