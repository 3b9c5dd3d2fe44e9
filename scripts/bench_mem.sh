#!/bin/sh
# bench_mem.sh - `make bench`: memory per job in flight and per fill-mode row, printed (never
# asserted in tests; tests/test_job_mem.c holds the job's slot to its bound).
#  1. a cluster of MEM_GPUS (default 1,048,576) GPUs filled with 1-GPU jobs that all arrive at 0
#     and run at once, policy whole: the run's peak RSS (report sim.peak_rss_mib) and, against
#     the same cluster with one job, the bytes each job in flight costs (its slot, its id, its
#     completion event). Goal: under 300 MB. Then the same under each shared-card policy
#     (MEM_POLICIES, default vgpu timeslice mps: a job there also holds the policy's task
#     record, and under timeslice four tenants share a card, so their rates change as they
#     join and each leaves void completion events in the heap), beside whole.
#  2. fill mode (`run --mode fill`) on FILL_ROWS (default 1,000,000) trace rows against 1,000 rows,
#     64 GPUs under vgpu (few tasks placed: the rows kept dominate): the process's peak RSS
#     (GNU time) and the bytes each trace row costs.
# One run each on a shared machine: RSS is steady from run to run, times are not reported.
# BENCH_DIR (default build/bench) receives traces and runs; GPUSIM (default ./gpusim) is the binary.
set -e
D=${BENCH_DIR:-build/bench}
GS=${GPUSIM:-./gpusim}
mkdir -p "$D"
G=${MEM_GPUS:-1048576}
R=${FILL_ROWS:-1000000}
MODEL=A100-SXM4-80GB
. scripts/bench_lib.sh # val

T="$D/mem-full-$G.csv"
[ -s "$T" ] || awk -v n="$G" 'BEGIN { print "id,submit,duration,gpus"; for (i = 0; i < n; i++) printf "j%d,0,1000,1\n", i }' >"$T"
awk 'NR <= 2' "$T" >"$D/mem-one.csv"
"$GS" run --trace "$D/mem-one.csv" --policy whole --gpus "$MODEL:$G" --sample-s 0 --out "$D/mem-run" --json \
  >"$D/mem-one.json"
"$GS" run --trace "$T" --policy whole --gpus "$MODEL:$G" --sample-s 0 --out "$D/mem-run" --json >"$D/mem-full.json"
one=$(val peak_rss_mib "$D/mem-one.json"); full=$(val peak_rss_mib "$D/mem-full.json")
echo "bench: memory, $G GPUs ($MODEL) filled with $G 1-GPU jobs running at once, policy whole"
awk -v o="$one" -v f="$full" -v n="$G" 'BEGIN {
  mb = f * 1048576 / 1e6
  goal = n == 1048576 ? sprintf("; goal < 300 MB: %s", mb < 300 ? "met" : "MISSED") : ""
  printf "  peak RSS     %.1f MiB = %.0f MB (the cluster alone, one job: %.1f MiB%s)\n", f, mb, o, goal
  printf "  per job      %.0f bytes in flight (slot, id, completion event)\n", (f - o) * 1048576 / n
}'
echo "bench: memory per job in flight by policy, the same cluster and jobs (against the cluster with one job)"
printf '  %-10s %7s %14s %14s\n' policy bytes 'peak RSS MiB' 'one job MiB'
printf '  %-10s %7.0f %14.1f %14.1f\n' whole "$(awk -v o="$one" -v f="$full" -v n="$G" 'BEGIN { print (f - o) * 1048576 / n }')" \
  "$full" "$one"
for p in ${MEM_POLICIES-vgpu timeslice mps}; do
  "$GS" run --trace "$D/mem-one.csv" --policy "$p" --gpus "$MODEL:$G" --sample-s 0 --out "$D/mem-run" --json \
    >"$D/mem-one-$p.json"
  "$GS" run --trace "$T" --policy "$p" --gpus "$MODEL:$G" --sample-s 0 --out "$D/mem-run" --json >"$D/mem-full-$p.json"
  po=$(val peak_rss_mib "$D/mem-one-$p.json"); pf=$(val peak_rss_mib "$D/mem-full-$p.json")
  awk -v p="$p" -v o="$po" -v f="$pf" -v n="$G" 'BEGIN { printf "  %-10s %7.0f %14.1f %14.1f\n", p, (f - o) * 1048576 / n, f, o }'
done

F="$D/mem-fill-$R.csv"
[ -s "$F" ] || awk -v n="$R" 'BEGIN { srand(7); print "id,submit,duration,gpus,gpucores,gpumem_pct"
  for (i = 0; i < n; i++) printf "t%07d,0,100,1,%d,%d\n", i, 10 + int(rand() * 90), 10 + int(rand() * 90) }' >"$F"
awk 'NR <= 1001' "$F" >"$D/mem-fill-1k.csv"
if [ -x /usr/bin/time ]; then
  rss() { /usr/bin/time -f "%M" -o "$D/time.txt" "$GS" run --trace "$1" --policy vgpu --gpus "$MODEL:64" \
            --mode fill --out "$D/mem-fill-run" >/dev/null 2>&1; cat "$D/time.txt"; }
  small=$(rss "$D/mem-fill-1k.csv"); big=$(rss "$F")
  echo "bench: fill mode, $R trace rows (1-GPU shares) on 64 GPUs, policy vgpu"
  awk -v s="$small" -v b="$big" -v n="$R" 'BEGIN {
    printf "  peak RSS     %.1f MiB (1,000 rows: %.1f MiB)\n", b / 1024, s / 1024
    printf "  per row      %.0f bytes kept\n", (b - s) * 1024 / (n - 1000)
  }'
else
  echo "bench: fill-mode memory skipped (GNU time, /usr/bin/time, not installed)"
fi
