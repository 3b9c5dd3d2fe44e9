#!/bin/sh
# e2e_bench_mem.sh - scripts/bench_mem.sh (the `make bench` memory figures) runs to the end on a
# small cluster and prints its figures: bytes per job in flight (whole, and beside it vgpu,
# timeslice and mps) and per fill-mode row. The figures themselves are not asserted (memory of
# a sanitized build, a shared machine).
# Usage: tests/e2e_bench_mem.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
expect bench_mem/prints_bytes_per_job 0 'per job  *[0-9-][0-9]* bytes in flight' \
  env BENCH_DIR="$T/bench" GPUSIM="$G" MEM_GPUS=2048 FILL_ROWS=3000 sh scripts/bench_mem.sh
if has "$T/out" 'peak RSS .* MiB = .* MB' &&
  { has "$T/out" 'per row  *[0-9-][0-9]* bytes kept' || has "$T/out" 'fill-mode memory skipped'; }; then
  ok bench_mem/prints_peak_and_fill_row
else no bench_mem/prints_peak_and_fill_row "$T/out"; fi
# the shared-card policies' lines beside whole's (bytes a job: the task record included)
missing=
for p in whole vgpu timeslice mps; do
  grep -Eq "^  $p +[0-9-][0-9]* +[0-9.]+ +[0-9.]+\$" "$T/out" || missing="$missing $p"
done
if [ -z "$missing" ]; then ok bench_mem/prints_each_share_policy
else echo "no line for:$missing" >>"$T/out"; no bench_mem/prints_each_share_policy "$T/out"; fi
finish
