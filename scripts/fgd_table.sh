#!/bin/sh
# fgd_table.sh - the FGD fill-up table on the 17 openb traces the paper ran:
# gpusim's paper-compatible mode against the published figures (FGD,
# BestFit, DotProd, Random), gpusim's exact default beside it, and gpusim's
# own strategies (fgdfit, fgdhost) against paper-mode FGD with their seed
# spread and placements per second side by side; then the generated set
# (scripts/fgd_variants.sh, GEN=0 skips it). Minutes, not a unit test:
# `make fgd-table TRACES=DIR`.
#
# usage: scripts/fgd_table.sh TRACE_DIR [OUT_DIR]
#   TRACE_DIR  a folder with openb_node_list_gpu_node.csv and the
#              openb_pod_list_<trace>.csv files (Alibaba clusterdata,
#              cluster-trace-gpu-v2023/csv/); a missing trace is reported.
#   OUT_DIR    default results/fgd; gets runs.csv, seeds.csv, table.md.
# env: GPUSIM (default ./gpusim), SEEDS (default 42..51), TRACES_ONLY (a
#      space-separated subset of the 17 names), EXACT_ALL (1: the exact
#      model's bestfit and dotprod on every trace, not only on
#      EXACT_TRACES), RUN (0: only rebuild table.md from OUT_DIR's csv
#      files, e.g. after running subsets side by side and concatenating),
#      OWN_ONLY (1: rerun only the head to head, keeping OUT_DIR's runs.csv),
#      OWN_S (gpusim's strategies in the head to head, default "fgdfit fgdhost"),
#      GEN (0: not the generated set).
#
# Runs per trace: FGD (paper mode) and fgdfit seed by seed (the head to
# head), BestFit, DotProd and Random in paper mode over the seeds, FGD in
# the exact model over the seeds; BestFit and DotProd in the exact model on
# EXACT_TRACES (Random scores nothing: one run serves both models).
set -eu

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: scripts/fgd_table.sh TRACE_DIR [OUT_DIR]  (TRACE_DIR holds the openb csv files)" >&2
    exit 2
fi
DIR=$1
OUT=${2:-results/fgd}
GPUSIM=${GPUSIM:-./gpusim}
SEEDS=${SEEDS:-42..51}
REF=tests/fixtures/openb/fgd_paper_figures.csv
ALL="cpu050 cpu100 cpu200 cpu250 default gpushare40 gpushare60 gpushare80 gpushare100 gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50"
TRACES=${TRACES_ONLY:-$ALL}
EXACT_TRACES=${EXACT_TRACES:-default gpushare100 gpuspec33 multigpu50}
[ "${EXACT_ALL:-0}" = 1 ] && EXACT_TRACES=$ALL
# gpusim's own strategies, as documented in policies/README.md
OWN_S=${OWN_S:-fgdfit fgdhost}
BASE="--mode fill --fill-to 1.3 --policy vgpu --set split_count=20"

[ -f "$REF" ] || { echo "fgd_table: $REF not found (run from the repository root)" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"
lo=${SEEDS%..*}
hi=${SEEDS#*..}

if [ "${RUN:-1}" = 1 ]; then
    [ -x "$GPUSIM" ] || { echo "fgd_table: $GPUSIM not found (make gpusim)" >&2; exit 2; }
    [ -f "$DIR/openb_node_list_gpu_node.csv" ] || { echo "fgd_table: $DIR/openb_node_list_gpu_node.csv not found" >&2; exit 3; }
    echo "trace,mode,strategy,seeds,unalloc_pct_at_100,unalloc_sd,frag_pct_at_100,placements_per_s" > "$W/runs.csv"
    echo "trace,strategy,seed,unalloc_pct_at_100,frag_pct_at_100,placements_per_s" > "$W/seeds.csv"
    summary() { # report.json -> "unalloc,sd,frag,pps"
        python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
f = r["fill"]
print("%.4f,%.4f,%.4f,%.0f" % (100 - f["alloc_pct_at_100"], f["alloc_pct_at_100_sd"], f["frag_pct_at_100"], r["sim"]["placements_per_s"]))' "$1"
    }
    "$GPUSIM" import openb "$DIR/openb_pod_list_default.csv" --nodes "$DIR/openb_node_list_gpu_node.csv" \
        --out-trace "$W/probe.csv" --out-cluster "$W/cluster.json" > /dev/null
    for t in $TRACES; do
        pods="$DIR/openb_pod_list_$t.csv"
        if [ ! -f "$pods" ]; then
            echo "fgd_table: $pods missing, skipped" >&2
            continue
        fi
        "$GPUSIM" import openb "$pods" --out-trace "$W/$t.csv" > /dev/null
        run() { # MODE STRATEGY SEEDS
            # shellcheck disable=SC2086
            "$GPUSIM" run $BASE --seeds "$3" --trace "$W/$t.csv" --cluster "$W/cluster.json" \
                --set gpu_select=$2 --set frag_model=$1 --out "$W/o" > /dev/null
            summary "$W/o/report.json"
        }
        [ "${OWN_ONLY:-0}" = 1 ] && EXACT_TRACES= # nothing but the head to head below
        for s in bestfit dotprod random; do
            [ "${OWN_ONLY:-0}" = 1 ] && break
            echo "$t,paper,$s,$SEEDS,$(run paper $s "$SEEDS")" >> "$W/runs.csv"
        done
        [ "${OWN_ONLY:-0}" = 1 ] || echo "$t,exact,fgd,$SEEDS,$(run exact fgd "$SEEDS")" >> "$W/runs.csv"
        case " $EXACT_TRACES " in *" $t "*)
            for s in bestfit dotprod; do
                echo "$t,exact,$s,$SEEDS,$(run exact $s "$SEEDS")" >> "$W/runs.csv"
            done ;;
        esac
        seed=$lo
        while [ "$seed" -le "$hi" ]; do # head to head on the same seed
            echo "$t,fgd,$seed,$(run paper fgd "$seed..$seed" | cut -d, -f1,3,4)" >> "$W/seeds.csv"
            for o in $OWN_S; do
                echo "$t,$o,$seed,$(run paper "$o" "$seed..$seed" | cut -d, -f1,3,4)" >> "$W/seeds.csv"
            done
            seed=$((seed + 1))
        done
        echo "fgd_table: $t done" >&2
    done
    [ "${OWN_ONLY:-0}" = 1 ] || cp "$W/runs.csv" "$OUT/"
    cp "$W/seeds.csv" "$OUT/"
fi

python3 - "$OUT/runs.csv" "$OUT/seeds.csv" "$REF" "$SEEDS" "$ALL" > "$W/table.md" <<'EOF'
import csv, statistics as st, sys
from collections import defaultdict
runs = list(csv.DictReader(open(sys.argv[1])))
seeds = list(csv.DictReader(open(sys.argv[2])))
ref, reff = defaultdict(list), defaultdict(list)
for r in csv.DictReader(open(sys.argv[3])):
    ref[(r["trace"], r["strategy"])].append(100 - float(r["alloc_pct_at_100"]))
    reff[(r["trace"], r["strategy"])].append(float(r["frag_pct_at_100"]))
run = {(r["trace"], r["mode"], r["strategy"]): r for r in runs}
per = defaultdict(dict) # (trace, strategy) -> seed -> (unalloc, frag, pps)
for r in seeds:
    per[(r["trace"], r["strategy"])][int(r["seed"])] = tuple(float(r[k]) for k in
                                                              ("unalloc_pct_at_100", "frag_pct_at_100", "placements_per_s"))
have = {r["trace"] for r in runs}
traces = [t for t in sys.argv[5].split() if t in have]
missing = [t for t in sys.argv[5].split() if t not in have]
sd = lambda x: st.stdev(x) if len(x) > 1 else 0.0
def ours(t, mode, s, col=0):
    if mode == "paper" and s == "fgd":
        return st.mean(v[col] for v in per[(t, "fgd")].values())
    if (t, mode, s) not in run:
        return None
    return float(run[(t, mode, s)]["frag_pct_at_100" if col else "unalloc_pct_at_100"])
S = ["fgd", "bestfit", "dotprod", "random"]
out = print
out("#### Paper-compatible mode (`--set frag_model=paper`) vs the published figures\n")
out("Unallocated GPUs (%% of 6,212) at 100%% arrived, means of seeds %s; paper: the mean of its seeds 42..51" % sys.argv[4])
out("(the artifact's cached results). Cell: gpusim / paper (difference).\n")
out("| trace | " + " | ".join(S) + " |")
out("|---|" + "---|" * len(S))
worst, diffs = 0, []
for t in traces:
    cells = []
    for s in S:
        g, p = ours(t, "paper", s), st.mean(ref[(t, s)])
        worst = max(worst, abs(g - p))
        diffs.append(abs(g - p))
        cells.append("%.2f / %.2f (%+.2f)" % (g, p, g - p))
    out("| %s | %s |" % (t, " | ".join(cells)))
out("\nLargest difference %.2f points, mean %.2f, over %d traces x %d strategies." %
    (worst, st.mean(diffs), len(traces), len(S)))
fg = [(ours(t, "paper", s, 1), st.mean(reff[(t, s)])) for t in traces for s in S]
out("Fragmentation at 100%% arrived (the paper's measure, %% of capacity) is within %.2f points of the paper's"
    " for all of them (mean %.2f).\n" % (max(abs(a - b) for a, b in fg), st.mean(abs(a - b) for a, b in fg)))
out("#### gpusim's exact default (`frag_model=exact`) beside the paper mode\n")
out("Unallocated GPUs at 100% arrived; cell: exact / paper mode (exact minus paper mode); blank: not run")
out("(the exact BestFit and DotProd on a subset). Random scores nothing: the same run in both models.\n")
out("| trace | fgd | bestfit | dotprod |")
out("|---|---|---|---|")
for t in traces:
    cells = []
    for s in S[:3]:
        e, g = ours(t, "exact", s), ours(t, "paper", s)
        cells.append("" if e is None else "%.2f / %.2f (%+.2f)" % (e, g, e - g))
    out("| %s | %s |" % (t, " | ".join(cells)))
for own in sorted({s for (_, s) in per} - {"fgd"}):
  out("\n#### gpusim's own strategy (`gpu_select=%s`) vs paper-mode FGD\n" % own)
  out("Unallocated GPUs at 100% arrived: mean (sd) [min..max] over the seeds, each seed run separately for")
  out("both; wins: seeds where %s leaves fewer GPUs unallocated than FGD on the same seed (same arrival" % own)
  out("order and tie order); placements/s: mean over those runs.\n")
  out("| trace | FGD (paper mode) | %s | difference | wins | FGD placements/s | %s placements/s |" % (own, own))
  out("|---|---|---|---|---|---|---|")
  beat, lost = [], []
  for t in traces:
    a, b = per[(t, "fgd")], per[(t, own)]
    ks = sorted(set(a) & set(b))
    x, y = [a[k][0] for k in ks], [b[k][0] for k in ks]
    d = st.mean(y) - st.mean(x)
    (beat if d < 0 else lost).append(t)
    wins = sum(1 for k in ks if b[k][0] < a[k][0])
    out("| %s | %.2f (%.2f) [%.2f..%.2f] | %.2f (%.2f) [%.2f..%.2f] | %+.2f | %d/%d | %.0f | %.0f |" %
        (t, st.mean(x), sd(x), min(x), max(x), st.mean(y), sd(y), min(y), max(y), d, wins, len(ks),
         st.mean(a[k][2] for k in ks), st.mean(b[k][2] for k in ks)))
  out("\n%s leaves fewer GPUs unallocated than paper-mode FGD on %d of %d traces%s." %
      (own, len(beat), len(traces), "" if not lost else "; not on: " + ", ".join(lost)))
if missing:
    out("\nTraces not run (not in the trace folder or not selected): " + ", ".join(missing) + ".")
EOF
if [ "${GEN:-1}" = 1 ]; then # the generated set, its table after the published one
    [ "${RUN:-1}" = 1 ] && GPUSIM=$GPUSIM SEEDS=$SEEDS OWN=$OWN_S sh scripts/fgd_variants.sh "$OUT" > /dev/null
    [ -f "$OUT/variants.md" ] && { echo; cat "$OUT/variants.md"; } >> "$W/table.md"
fi
cp "$W/table.md" "$OUT/"
cat "$OUT/table.md"
