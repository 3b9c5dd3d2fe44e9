#!/bin/sh
# e2e_plan_width.sh - plan runs several card counts a round when it has
# workers to spare, and what it prints and writes does not depend on how
# many: the text and plan.json are byte-identical at --width 1, 2 and 4; the
# evidence is exactly the counts the serial search (doubling, then
# bisection) visits and the margin probes above its answer, replayed here
# from the evidence's own met column; the run directories are the counts
# search.json says were run; wider rounds take fewer of them; the default
# width is --jobs over --seeds.
# Usage: tests/e2e_plan_width.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
case $G in /*) ;; *) G=$(pwd)/$G ;; esac
. "$(dirname "$0")/lib_e2e.sh"
# the GPU models shipped in the repository (read only): the plans start in the temp dir
GPUSIM_MODELS=$(cd "$(dirname "$0")/.." && pwd)/models/gpu
export GPUSIM_MODELS
# jnum FILE KEY: the first numeric value of "KEY": in FILE (one key per line, as gpusim writes JSON)
jnum() { grep -m1 "\"$2\":" "$1" | tr -dc 0-9; }

"$G" gen mmc --jobs 3000 --servers 10 --util 0.6 --mean-s 1 --seed 1 --out "$T/mmc.csv" >/dev/null 2>&1
need_file plan_width_trace "$T/mmc.csv" || { finish; exit; }
# each width in its own directory with the same relative --out, so the run paths plan.json names match
plan_at() { # DIR ARGS...: plan in $T/DIR, output in $T/DIR/out and err
  d=$T/$1; shift
  mkdir -p "$d" && (cd "$d" && "$G" plan --trace ../mmc.csv --policy whole --gpu H100-SXM5-80GB \
    --gpus-per-node 1 --slo 'queue_mean<=0.04' --seeds 1 --out p "$@" >out 2>err)
}
for w in 1 2 4; do
  plan_at w$w --jobs 2 --width "$w"; echo $? >"$T/w$w/rc"
done
if [ "$(cat "$T/w1/rc" "$T/w2/rc" "$T/w4/rc" | tr -d '\n')" = 000 ] && cmp -s "$T/w1/out" "$T/w2/out" &&
   cmp -s "$T/w1/out" "$T/w4/out" && cmp -s "$T/w1/p/plan.json" "$T/w2/p/plan.json" &&
   cmp -s "$T/w1/p/plan.json" "$T/w4/p/plan.json" && has "$T/w1/out" '^evidence for whole'; then
  ok plan_width_same_text_and_plan_json
else
  for w in 2 4; do diff "$T/w1/out" "$T/w$w/out"; diff "$T/w1/p/plan.json" "$T/w$w/p/plan.json"; done >"$T/msg" 2>&1
  cat "$T/w1/err" "$T/w4/err" >>"$T/msg"; no plan_width_same_text_and_plan_json "$T/msg"
fi

# the serial search replayed on the evidence table (cards = the count here: one card a node):
# doubling from 1 until a count meets, then bisection of (last failed, first met); every count it
# needs must be in the evidence, and the evidence must hold nothing else but the margin probes
# answer+1, +2, +4, +8 (those the search did not visit, each marked "margin")
awk '/^evidence for/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { met[$1] = ($3 == "yes"); mg[$1] = / margin$/; n++ }
  END {
    bad = 0; good = 0; c = 1; seen = 0
    while (!good) {
      if (!(c in met) || mg[c]) { print "doubling needs " c ", not in the evidence"; exit 1 }
      seen++; visit[c] = 1; if (met[c]) good = c; else { bad = c; c *= 2 }
      if (c > 65536) { print "never met"; exit 1 }
    }
    while (good - bad > 1) {
      x = bad + int((good - bad) / 2)
      if (!(x in met) || mg[x]) { print "bisection needs " x ", not in the evidence"; exit 1 }
      seen++; visit[x] = 1; if (met[x]) good = x; else bad = x
    }
    nm = 0
    for (s = 1; s <= 8; s *= 2)
      if (!((good + s) in visit)) { if (!mg[good + s]) { print "margin probe " good + s " missing"; exit 1 } nm++ }
    if (seen + nm != n) { print "evidence has " n " counts, the search visits " seen " and probes " nm; exit 1 }
    print n, seen, nm
  }' "$T/w1/out" >"$T/walk" 2>&1
read -r nev nwalk nmargin <"$T/walk"
if [ -n "$nev" ] && [ "$nev" -ge 5 ] 2>/dev/null && [ "$nmargin" -ge 1 ]; then ok plan_evidence_is_the_serial_search
else no plan_evidence_is_the_serial_search "$T/walk"; fi

# runs: at width 1 one round per count and nothing speculative; wider, the run directories are
# search.json's counts_run (evidence plus speculative), in fewer rounds
good=1
: >"$T/msg"
for w in 1 2 4; do
  S=$T/w$w/p/search.json
  run=$(jnum "$S" counts_run); evc=$(jnum "$S" counts_in_evidence); rounds=$(jnum "$S" rounds)
  dirs=$(ls "$T/w$w/p/runs" 2>/dev/null | grep -c .)
  eval "r$w=$rounds"
  echo "width $w: $run counts run, $evc in evidence, $rounds rounds, $dirs run directories" >>"$T/msg"
  [ -n "$run" ] && [ "$evc" = "$nev" ] && [ "$dirs" = "$run" ] && [ "$(jnum "$S" width)" = "$w" ] || good=0
  [ "$w" = 1 ] && { [ "$run" = "$nev" ] && [ "$rounds" = "$nev" ] || good=0; }
  [ "$w" != 1 ] && { [ "$run" -ge "$nev" ] && [ "$run" -le $((rounds * w)) ] || good=0; }
done
[ "$good" = 1 ] && [ "$r2" -lt "$r1" ] && [ "$r4" -lt "$r2" ] || good=0
if [ "$good" = 1 ]; then ok plan_width_runs_as_the_search_says
else no plan_width_runs_as_the_search_says "$T/msg"; fi

# the default width: --jobs over --seeds (the online cores when --jobs is not given), at most 15
plan_at d42 --jobs 4 --seeds 2
plan_at d1 --seeds 1
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$cores" -gt 15 ] && cores=15
wd=$(jnum "$T/d42/p/search.json" width); wc=$(jnum "$T/d1/p/search.json" width)
if [ "$wd" = 2 ] && [ "$wc" = "$cores" ] && has "$T/d1/err" "at width $cores "; then ok plan_width_default_from_cores
else echo "    --jobs 4 --seeds 2: width $wd (want 2); default: $wc (want $cores)" >"$T/msg"
  cat "$T/d1/err" >>"$T/msg"; no plan_width_default_from_cores "$T/msg"; fi

finish
