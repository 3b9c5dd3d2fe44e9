#!/bin/sh
# bench_backfill.sh - `make bench`: the cost of queue=backfill (EASY backfilling) beside fifo and skip,
# printed (never asserted in tests).
#  An overloaded day of single-node jobs (BF_JOBS rows, default 100,000; sizes 1, 2, 4 and 8 GPUs in
#  Helios Saturn's shares, 68/3/8/21%; lognormal run times of median 1,000 s; Poisson arrivals at 1.1
#  times the cards) on 1,024, 4,096 and 16,384 GPUs (BF_SIZES) in nodes of 8, policy whole, under each
#  discipline: us/event (CPU seconds of the event loop, best of BENCH_REPS runs, default 5, the sizes
#  in turn), the ratio to skip at the same size, the ratio to the smallest size (goal: within 2x), and
#  the backfill counts (starts past a reserved head, reservations made).
#  Then gangs: BF_GANG_JOBS rows (default 100,000) of `gen training` (Helios Saturn's mix: jobs across
#  nodes above 8 GPUs, up to BF_GANG_MAX GPUs, default 64, the trace reader's bound) on 16,384 GPUs,
#  the same figures.
set -e
D=build/bench
mkdir -p "$D"
JOBS=${BF_JOBS:-100000}
SIZES=${BF_SIZES:-1024 4096 16384}
REPS=${BENCH_REPS:-5}
TMO=${BF_TIMEOUT:-300}
MODEL=H100-SXM5-80GB
. scripts/bench_lib.sh
BL_JSON=$D/backfill.json

mix() { # $1 GPUs -> trace on stdout
  awk -v n="$JOBS" -v gpus="$1" 'BEGIN {
    srand(7); print "id,submit,duration,gpus"
    meang = 0.68 + 0.03 * 2 + 0.08 * 4 + 0.21 * 8; meand = 1000 * exp(0.125)
    gap = meand * meang / (gpus * 1.1); t = 0
    for (i = 0; i < n; i++) {
      u = rand(); g = u < 0.68 ? 1 : u < 0.71 ? 2 : u < 0.79 ? 4 : 8
      z = sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand())
      t += -gap * log(1 - rand()); printf "j%d,%.6f,%.6f,%d\n", i, t, exp(log(1000) + 0.5 * z), g
    } }'
}
for g in $SIZES; do
  [ -s "$D/bf-$JOBS-$g.csv" ] || mix "$g" >"$D/bf-$JOBS-$g.csv"
done
echo "bench: queue disciplines, an overloaded day of $JOBS single-node jobs (1-8 GPUs, load 1.1), whole,"
echo "  $MODEL in nodes of 8, best of $REPS runs; us/event: CPU seconds of the event loop"
printf "  %-9s %8s %10s %9s %8s %11s %13s\n" queue GPUs us/event "x skip" "x 1k" backfilled reservations
for q in skip fifo backfill; do
  bf_run() { timeout "$TMO" ./gpusim run --trace "$D/bf-$JOBS-$1.csv" --policy whole --gpus "$MODEL:$1" \
               --set queue="$q" --sample-s 0 --out "$D/bf-run" --json >"$BL_JSON" 2>/dev/null &&
             cp "$BL_JSON" "$D/bf-$q-$1.json"; }
  # shellcheck disable=SC2086
  in_turn bf_run $SIZES
  base=""
  for g in $SIZES; do
    if bl_size "$g"; then
      [ "$q" = skip ] && eval "skip_us_$g=$us"
      eval "s=\$skip_us_$g"
      bfd=$(val backfilled "$D/bf-$q-$g.json"); res=$(val reservations "$D/bf-$q-$g.json")
      awk -v q="$q" -v g="$g" -v us="$us" -v s="$s" -v b="$base" -v bfd="${bfd:--}" -v res="${res:--}" \
        'BEGIN {printf "  %-9s %8d %10.3f %9.2f %8.2f %11s %13s\n", q, g, us, us / s, us / b, bfd, res}'
    else
      printf "  %-9s %8d %10s\n" "$q" "$g" "timeout (> ${TMO} s) or error"
    fi
  done
done

# --- gangs: a training day of gen training's Helios Saturn mix on 16,384 GPUs (BF_GANG_GPUS), jobs
# across nodes up to BF_GANG_MAX GPUs, under each discipline: us/event, ratio to skip
GG=${BF_GANG_GPUS:-16384}
GMAX=${BF_GANG_MAX:-64}
GJ=${BF_GANG_JOBS:-100000}
GT="$D/bf-gang-$GJ-$GMAX.csv"
# the reader takes jobs of at most 64 GPUs and the four core columns: sizes above are cut to GMAX
[ -s "$GT" ] || ./gpusim gen training --jobs "$GJ" --max-gpus 65 --seed 3 |
  awk -F, -v m="$GMAX" 'NR == 1 {print "id,submit,duration,gpus"; next} {g = $4 > m ? m : $4; print $1 "," $2 "," $3 "," g}' >"$GT"
echo "bench: queue disciplines, a training day of $GJ jobs (gen training, Saturn's mix, at most $GMAX GPUs, across"
echo "  nodes of 8 above 8) on $GG GPUs, whole, best of $REPS runs"
printf "  %-9s %8s %10s %9s %11s %13s\n" queue GPUs us/event "x skip" backfilled reservations
for q in skip fifo backfill; do
  g_run() { timeout "$TMO" ./gpusim run --trace "$GT" --policy whole --gpus "$MODEL:$1" --set queue="$q" \
              --sample-s 0 --out "$D/bf-run" --json >"$BL_JSON" 2>/dev/null && cp "$BL_JSON" "$D/bf-gang-$q.json"; }
  in_turn g_run "$GG"
  base=""
  if bl_size "$GG"; then
    [ "$q" = skip ] && gskip=$us
    bfd=$(val backfilled "$D/bf-gang-$q.json"); res=$(val reservations "$D/bf-gang-$q.json")
    awk -v q="$q" -v g="$GG" -v us="$us" -v s="$gskip" -v bfd="${bfd:--}" -v res="${res:--}" \
      'BEGIN {printf "  %-9s %8d %10.3f %9.2f %11s %13s\n", q, g, us, us / s, bfd, res}'
  else
    printf "  %-9s %8d %10s\n" "$q" "$GG" "timeout (> ${TMO} s) or error"
  fi
done
