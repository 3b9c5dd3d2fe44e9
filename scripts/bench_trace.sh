#!/bin/sh
# bench_trace.sh - `make bench`: the trace readers, printed (never asserted in tests).
#  1. columns: one M/M/16 replay (TRACE_JOBS, default 300,000 jobs at load 0.8, whole on 16 A100s)
#     written nine ways, from the generator's four columns through layouts users write, one with two
#     ignored columns (--allow-extra-columns), every job column workloads/README.md documents in its
#     order and reversed, to those bytes with all but four columns ignored (what the bytes alone cost):
#     sim.cpu_s (the event loop, the reading of the trace included), best of BENCH_REPS rounds (default 5; each round runs every
#     layout once), and the ratio to the four columns (goal: within 1.3x). Every layout replays the
#     same jobs (the columns added change no figure of `whole` on one model), checked by their mean wait.
#     Beside it the reader alone (bench_reader: the rows read, no simulation), best of the same rounds,
#     and the rest, the engine's: what the layout costs to read, apart from the work its columns switch on.
#     Then each column of the full layout alone after id,submit,kind,duration,gpus: the reader's ns a row
#     for it (best of BENCH_REPS), so no one column's cost hides in a sum.
#  2. against SimPy 2: the M/M/64 replay of bench_simpy.py (SIMPY_JOBS, default 200,000 at utilization
#     0.9), both on the four-column layout and both on the full job layout, whole-process CPU of each
#     (bench_cpu.py, median of SIMPY_REPEAT and GPUSIM_REPEAT runs; goal >= 50x on both).
#  3. readers at scale, each at a size and four times it (per-row cost at both: linear if about equal):
#     the full job layout (150,000 and 600,000 rows), the cluster file (2,500 and 10,000 nodes, listed
#     one by one as an importer writes them), a Mooncake-style request trace (50,000 and 200,000
#     requests with token counts and hash_ids, 8 replicas on 64 H100s), and `gpusim import mooncake`
#     on JSON Lines of 32 and 128 MB. TRACE_BENCH_BIG=1: four times each (the import on 256 MB and 1 GB);
#     TRACE_IMPORT_MB="256 1024" sets the import's sizes alone (inputs of 256 MB and more are removed after).
#     Rate in rows/s and MB/s of the file (CPU seconds: the event loop's for a replay; the process's,
#     against a one-row baseline, for the cluster file and the import; best of 3) and peak RSS (the
#     report's, or GNU time's).
# BENCH_DIR (default build/bench) receives the inputs; GPUSIM (default ./gpusim) is the binary.
set -e
D=${BENCH_DIR:-build/bench}
GS=${GPUSIM:-./gpusim}
RD=${BENCH_READER:-build/release/bench_reader}
mkdir -p "$D"
REPS=${BENCH_REPS:-5}
TJ=${TRACE_JOBS:-300000}
MODEL=A100-SXM4-80GB
. scripts/bench_lib.sh # val

# full_layout: a generated trace (id,submit,duration,gpus) on stdin with every job column the README
# documents, each with a value on every row that a whole-card job on MODEL may state without changing
# its replay under whole (its own card as ref_gpu, a speedup table naming it at 1, priority 0, no
# quotas or host limits in the cluster), varied from row to row where a real trace varies
full_layout() {
  awk 'BEGIN { FS = OFS = "," }
  NR == 1 {
    print "id,submit,kind,duration,gpus,gpumem,gpucores,mig,priority,preemptible,checkpoint_gib,params_b,tenant," \
          "gpu_model,cpu,mem_gib,gpumem_pct,util,ref_gpu,mem_bound,speedup,gpus_per_node,time_limit,comm,topology," \
          "class,tier,observed_start"
    next
  }
  { printf "%s,%s,job,%s,%s,81920,100,7g.80gb,0,%d,%.1f,%d,team-%d,A100-SXM4-80GB|H100-SXM5-80GB,%d,%d,100,1," \
           "A100-SXM4-80GB,0.%d,A100-SXM4-80GB:1|H100-SXM5-80GB:3.2,%s,%.6f,0.%d,rack,%s,%s,%.6f\n",
      $1, $2, $3, $4, NR % 2, 10 + NR % 50, 7 + NR % 3, NR % 8, 2 + NR % 8, 16 + NR % 64, 1 + NR % 8, $4,
      2 * $3 + 60, NR % 9, (NR % 5 ? "training" : "notebook"), (NR % 3 ? "any" : "no-spot"), $2 + (NR % 7) * 0.25 }'
}
# reversed: the same file with its columns in the opposite order
reversed() { awk 'BEGIN { FS = OFS = "," } { for (i = NF; i > 1; i--) printf "%s,", $i; print $1 }'; }

# --- 1. columns ---
B="$D/trace-cols-$TJ"
[ -s "$B-4.csv" ] || "$GS" gen mmc --jobs "$TJ" --servers 16 --util 0.8 --seed 1 --out "$B-4.csv"
awk -F, 'BEGIN { OFS = "," } NR == 1 { print "id,kind,submit,duration,gpus"; next } { print $1, "job", $2, $3, $4 }' \
  "$B-4.csv" >"$B-kind.csv"
awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0 ",ref_gpu"; next } { print $0, "A100-SXM4-80GB" }' "$B-4.csv" >"$B-ref.csv"
awk -F, 'BEGIN { OFS = "," } NR == 1 { print "id,kind,submit,duration,gpus,ref_gpu"; next }
  { print $1, "job", $2, $3, $4, "A100-SXM4-80GB" }' "$B-4.csv" >"$B-kindref.csv"
awk -F, 'BEGIN { OFS = "," } NR == 1 { print "id,kind,submit,duration,gpus,ref_gpu,mem_bound,priority,tenant,cpu,mem_gib"; next }
  { print $1, "job", $2, $3, $4, "A100-SXM4-80GB", "0.3", 0, "team-" NR % 8, 4, 32 }' "$B-4.csv" >"$B-ten.csv"
awk -F, 'BEGIN { OFS = "," } NR == 1 { print "id,kind,submit,note,duration,gpus,ref_gpu,owner,tenant"; next }
  { print $1, "job", $2, "run " NR % 5, $3, $4, "A100-SXM4-80GB", "u" NR % 13, "team-" NR % 8 }' "$B-4.csv" >"$B-extra.csv"
full_layout <"$B-4.csv" >"$B-full.csv"
reversed <"$B-full.csv" >"$B-rev.csv"
# the full layout's bytes, kind moved after gpus and the 24 columns past the four renamed (ignored): what
# finding their ends costs, with no value parsed and no work switched on (the generated layout's path)
awk 'BEGIN { FS = OFS = "," } { t = $3; $3 = $4; $4 = $5; $5 = t }
  NR == 1 { for (i = 5; i <= NF; i++) $i = "x" i } 1' "$B-full.csv" >"$B-bytes.csv"
LAYOUTS="4 kind ref kindref ten extra full rev bytes"
for l in $LAYOUTS; do eval "best_$l=''; wait_$l=''; read_$l=''"; done
r=0
while [ "$r" -lt "$REPS" ]; do
  r=$((r + 1))
  for l in $LAYOUTS; do
    "$GS" run --trace "$B-$l.csv" --policy whole --gpus "$MODEL:16" --sample-s 0 --out "$D/trace-cols-run" --json \
      --allow-extra-columns >"$D/trace-cols.json" 2>/dev/null # the unread-columns notice
    c=$(val cpu_s "$D/trace-cols.json")
    eval "b=\$best_$l"
    if [ -z "$b" ] || awk -v a="$b" -v c="$c" 'BEGIN {exit !(c + 0 < a + 0)}'; then eval "best_$l=$c"; fi
    c=$("$RD" "$B-$l.csv" 1 | awk '{ print $1 }')
    eval "b=\$read_$l"
    if [ -z "$b" ] || awk -v a="$b" -v c="$c" 'BEGIN {exit !(c + 0 < a + 0)}'; then eval "read_$l=$c"; fi
    eval "wait_$l=\$(awk '/\"queue_s\"/ { q = 1 } q && /\"mean\"/ { sub(/.*:[[:space:]]*/, \"\"); sub(/,\$/, \"\"); print; exit }' \"$D/trace-cols-run/report.json\")"
  done
done
echo "bench: columns, M/M/16 $TJ jobs at load 0.8 on $MODEL under whole, the same jobs in each layout;"
echo "  sim.cpu_s (the event loop, reading the trace included), best of $REPS rounds; goal within 1.3x of 4 columns;"
echo "  the reader alone (bench_reader), best of as many, and the rest: the engine's (cpu s - reader s)"
printf "  %-58s %9s %7s %9s %9s %7s %10s\n" layout "cpu s" "x 4col" "reader s" "engine s" "x 4col" "mean wait"
for l in $LAYOUTS; do
  case $l in
    4) name="id,submit,duration,gpus" ;; kind) name="+ kind" ;; ref) name="+ ref_gpu" ;; kindref) name="+ kind, ref_gpu" ;;
    ten) name="+ kind, ref_gpu, mem_bound, priority, tenant, cpu, mem_gib" ;;
    extra) name="+ kind, ref_gpu, tenant, two ignored (note, owner)" ;;
    full) name="every job column (28)" ;; rev) name="every job column, reversed order" ;;
    bytes) name="every job column's bytes, 24 of them ignored" ;;
  esac
  eval "c=\$best_$l; w=\$wait_$l; rd=\$read_$l"
  awk -v n="$name" -v c="$c" -v b="$best_4" -v w="$w" -v r="$rd" -v r4="$read_4" 'BEGIN {
    printf "  %-58s %9.3f %7.2f %9.4f %9.4f %7.2f %10.6f\n", n, c, c / b, r, c - r, (c - r) / (b - r4), w }'
done

# --- 1b. per column: the reader alone on id,submit,kind,duration,gpus and one more column of the full
# layout (its values as there: varied where a real trace varies), best of REPS; what that column adds a row
K="$D/trace-col5.csv"
cut -d, -f1-5 "$B-full.csv" >"$K"
best_read() { # file -> the least reader CPU seconds of REPS
  r=0 b=""
  while [ "$r" -lt "$REPS" ]; do
    r=$((r + 1))
    c=$("$RD" "$1" 1 | awk '{ print $1 }')
    if [ -z "$b" ] || awk -v a="$b" -v c="$c" 'BEGIN {exit !(c + 0 < a + 0)}'; then b=$c; fi
  done
  echo "$b"
}
k0=$(best_read "$K")
echo "bench: columns one at a time, the reader alone (bench_reader, best of $REPS): ns a row each column adds"
echo "  to id,submit,kind,duration,gpus ($(awk -v c="$k0" -v n="$TJ" 'BEGIN { printf "%.0f", 1e9 * c / n }') ns a row)"
ncol=$(head -n 1 "$B-full.csv" | awk -F, '{ print NF }')
i=6
while [ "$i" -le "$ncol" ]; do
  cut -d, -f1-5,"$i" "$B-full.csv" >"$D/trace-col.csv"
  c=$(best_read "$D/trace-col.csv")
  awk -v n="$(head -n 1 "$D/trace-col.csv" | cut -d, -f6)" -v c="$c" -v b="$k0" -v r="$TJ" \
    'BEGIN { printf "  %-16s %6.0f ns\n", n, 1e9 * (c - b) / r }'
  i=$((i + 1))
done
rm -f "$D/trace-col.csv" "$K"

# --- 2. against SimPy 2 (Debian's python3-simpy): the same M/M/c replay, CPU seconds side by side ---
# Both sides are measured the same way (scripts/bench_cpu.py): user + system CPU of the whole process
# from wait4, median of SIMPY_REPEAT runs (gpusim: GPUSIM_REPEAT). SimPy's own figure (time.process_time
# inside the script, without the interpreter's start) is printed beside it. Each layout is one file
# both replay: the four columns, then every job column of the README (the same jobs; SimPy's csv
# module reads every field of a row, gpusim's reader parses and checks them).
SJ=${SIMPY_JOBS:-200000}
SR=${SIMPY_REPEAT:-3}
GR=${GPUSIM_REPEAT:-9}
if /usr/bin/python3 -c 'import sys; sys.path.append("/usr/lib/python3/dist-packages"); import SimPy.Simulation' \
     2>/dev/null; then
  T="$D/simpy-$SJ.csv"
  [ -s "$T" ] || "$GS" gen mmc --jobs "$SJ" --servers 64 --util 0.9 --seed 1 --out "$T"
  full_layout <"$T" >"$D/simpy-full.csv"
  cpu() { /usr/bin/python3 scripts/bench_cpu.py "$@"; }
  s=$(cpu --out "$D/simpy.txt" "$SR" /usr/bin/python3 scripts/bench_simpy.py "$T" 64)
  sf=$(cpu --out "$D/simpy-full.txt" "$SR" /usr/bin/python3 scripts/bench_simpy.py "$D/simpy-full.csv" 64)
  g=$(cpu "$GR" "$GS" run --trace "$T" --policy whole --gpus "$MODEL:64" --sample-s 0 --out "$D/simpy-run")
  gw=$(awk '/"queue_s"/ { q = 1 } q && /"mean"/ { sub(/.*:[[:space:]]*/, ""); sub(/,$/, ""); print; exit }' "$D/simpy-run/report.json")
  gf=$(cpu "$GR" "$GS" run --trace "$D/simpy-full.csv" --policy whole --gpus "$MODEL:64" --sample-s 0 --out "$D/simpy-run")
  gfw=$(awk '/"queue_s"/ { q = 1 } q && /"mean"/ { sub(/.*:[[:space:]]*/, ""); sub(/,$/, ""); print; exit }' "$D/simpy-run/report.json")
  echo "bench: M/M/64, $SJ jobs at utilization 0.9: gpusim (whole) against SimPy 2, CPU seconds of each"
  echo "  process (median of $SR and $GR runs; goal >= 50x on both layouts)"
  echo "$s $g $sf $gf" | awk -v in_py="$(cat "$D/simpy.txt")" -v in_pyf="$(cat "$D/simpy-full.txt")" -v gw="$gw" \
    -v gfw="$gfw" '{
    split(in_py, p, " "); split(in_pyf, pf, " ")
    printf "  id,submit,duration,gpus:\n"
    printf "    simpy      %8.3f s  (%.3f s inside the script; mean wait %s s)\n", $1, p[4], p[6]
    printf "    gpusim     %8.3f s  = %.0fx faster (mean wait %.6f s)\n", $3, ($3 > 0 ? $1 / $3 : 0), gw
    printf "  every job column (the same jobs):\n"
    printf "    simpy      %8.3f s  (%.3f s inside the script; mean wait %s s)\n", $5, pf[4], pf[6]
    printf "    gpusim     %8.3f s  = %.0fx faster (mean wait %.6f s)\n", $7, ($7 > 0 ? $5 / $7 : 0), gfw
  }'
else
  echo "bench: SimPy comparison skipped (Debian's python3-simpy not installed)"
fi

# --- 3. readers at scale ---
X=1
[ -z "${TRACE_BENCH_BIG:-}" ] || X=4
R3=3
mb() { awk -v b="$(wc -c <"$1")" 'BEGIN { printf "%.1f", b / 1e6 }'; }
# best_cpu N CMD...: the least whole-process CPU seconds of N runs of CMD (bench_cpu.py's minimum)
best_cpu() { /usr/bin/python3 scripts/bench_cpu.py "$@" | awk '{ print $2 }'; }
rss_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
echo "bench: readers at scale, each at a size and 4x it (per-row cost at both: linear if about equal)"
printf "  %-34s %10s %8s %9s %12s %8s %9s %9s\n" reader rows MB "cpu s" "rows/s" "MB/s" "us/row" "RSS MiB"
row() { # name rows file cpu_s rss_mib
  awk -v n="$1" -v r="$2" -v m="$(mb "$3")" -v c="$4" -v k="$5" 'BEGIN {
    printf "  %-34s %10d %8.1f %9.3f %12.0f %8.1f %9.3f %9.1f\n", n, r, m, c, r / c, m / c, 1e6 * c / r, k }'
}
# the full job layout, replayed
for n in $((150000 * X)) $((600000 * X)); do
  F="$D/trace-full-$n.csv"
  if [ ! -s "$F" ]; then
    "$GS" gen mmc --jobs "$n" --servers 16 --util 0.8 --seed 1 | full_layout >"$F"
  fi
  bc=""
  i=0
  while [ "$i" -lt "$R3" ]; do
    i=$((i + 1))
    "$GS" run --trace "$F" --policy whole --gpus "$MODEL:16" --sample-s 0 --out "$D/trace-full-run" --json >"$D/tf.json" 2>/dev/null
    c=$(val cpu_s "$D/tf.json")
    if [ -z "$bc" ] || awk -v a="$bc" -v c="$c" 'BEGIN {exit !(c + 0 < a + 0)}'; then bc=$c; rss=$(val peak_rss_mib "$D/tf.json"); fi
  done
  row "trace, every job column" "$n" "$F" "$bc" "$rss"
done
# the cluster file: nodes one by one, against a one-node file (the catalog and the run around it)
printf 'id,submit,duration,gpus\nj0,0,10,1\n' >"$D/one-row.csv"
cluster() { # n -> a cluster file of n 8-GPU nodes, three of four H100, one A100
  awk -v n="$1" 'BEGIN { printf "{\"name\": \"big\", \"nodes\": [\n"
    for (i = 0; i < n; i++)
      printf "  {\"name\": \"node-%06d\", \"model\": \"%s\", \"gpus\": 8, \"cpu\": 128, \"mem_gib\": 1024}%s\n", i,
        (i % 4 ? "H100-SXM5-80GB" : "A100-SXM4-80GB"), (i < n - 1 ? "," : "")
    print "]}" }'
}
cluster 1 >"$D/cluster-1.json"
base=$(best_cpu "$R3" "$GS" run --cluster "$D/cluster-1.json" --trace "$D/one-row.csv" --policy whole --sample-s 0 --out "$D/cl-run")
for n in $((2500 * X)) $((10000 * X)); do
  cluster "$n" >"$D/cluster-$n.json"
  c=$(best_cpu "$R3" "$GS" run --cluster "$D/cluster-$n.json" --trace "$D/one-row.csv" --policy whole --sample-s 0 --out "$D/cl-run")
  k=$(rss_kb "$GS" run --cluster "$D/cluster-$n.json" --trace "$D/one-row.csv" --policy whole --sample-s 0 --out "$D/cl-run")
  row "cluster file, nodes" "$n" "$D/cluster-$n.json" "$(awk -v a="$c" -v b="$base" 'BEGIN { d = a - b; print (d > 1e-6 ? d : 1e-6) }')" \
    "$(awk -v k="$k" 'BEGIN { print k / 1024 }')"
done
# a Mooncake-style request trace: JSON Lines written here, then `import mooncake` (the importer row below
# reads the same kind of file); the replay of its 8 replicas on 64 H100s
mooncake() { # n -> n JSON lines: ~3 s timestamp buckets, prompts of 500-16k tokens, a shared system
  # block and per-conversation blocks reused by later turns
  awk -v n="$1" 'BEGIN { srand(5); nid = 1
    for (i = 0; i < n; i++) {
      in_len = 500 + int(rand() * 15500); out_len = 1 + int(rand() * 800); nb = int((in_len + 511) / 512)
      conv = int(rand() * 2000); s = "0"
      for (b = 1; b < nb; b++) s = s ", " (b < nb / 2 ? 1000000 + conv * 64 + b : nid++)
      printf "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [%s]}\n",
        int(i / 40) * 3000, in_len, out_len, s
    } }'
}
for n in $((50000 * X)) $((200000 * X)); do
  J="$D/mooncake-$n.jsonl"
  [ -s "$J" ] || mooncake "$n" >"$J"
  F="$D/requests-$n.csv"
  [ -s "$F" ] || "$GS" import mooncake "$J" --out-trace "$F" 2>/dev/null
  bc=""
  i=0
  while [ "$i" -lt "$R3" ]; do
    i=$((i + 1))
    "$GS" run --trace "$F" --policy whole --gpus H100-SXM5-80GB:64 --sample-s 0 --out "$D/req-run" --json >"$D/req.json"
    c=$(val cpu_s "$D/req.json")
    if [ -z "$bc" ] || awk -v a="$bc" -v c="$c" 'BEGIN {exit !(c + 0 < a + 0)}'; then bc=$c; rss=$(val peak_rss_mib "$D/req.json"); fi
  done
  row "requests, tokens and hash_ids" "$((n + 1))" "$F" "$bc" "$rss"
done
# an importer: import mooncake on JSON Lines of two sizes (about 222 bytes a line)
SIZES_MB="$((32 * X * 2)) $((128 * X * 2))"
[ -n "${TRACE_BENCH_BIG:-}" ] || SIZES_MB="32 128"
SIZES_MB=${TRACE_IMPORT_MB:-$SIZES_MB}
head -n 1 "$D/mooncake-$((50000 * X)).jsonl" >"$D/mooncake-1.jsonl"
ib=$(best_cpu "$R3" "$GS" import mooncake "$D/mooncake-1.jsonl" --out-trace "$D/imp-1.csv")
for m in $SIZES_MB; do
  lines=$((m * 1000000 / 222))
  J="$D/import-$m.jsonl"
  [ -s "$J" ] || mooncake "$lines" >"$J"
  n=$(wc -l <"$J")
  c=$(best_cpu 3 "$GS" import mooncake "$J" --out-trace "$D/imp.csv")
  k=$(rss_kb "$GS" import mooncake "$J" --out-trace "$D/imp.csv")
  row "import mooncake, lines" "$n" "$J" "$(awk -v a="$c" -v b="$ib" 'BEGIN { d = a - b; print (d > 1e-6 ? d : 1e-6) }')" \
    "$(awk -v k="$k" 'BEGIN { print k / 1024 }')"
  rm -f "$D/imp.csv"
  [ "$m" -lt 256 ] || rm -f "$J" # a large input is made again next time, not kept
done
