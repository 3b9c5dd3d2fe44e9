#!/bin/sh
# fgd_table.sh - the FGD fill-up table on the 17 openb traces the paper ran:
# gpusim's paper-compatible mode against the published figures (FGD,
# BestFit, DotProd, Random), gpusim's exact default beside it, and gpusim's
# own strategy (fgdfit) against paper-mode FGD with its seed spread and
# placements per second side by side. Minutes, not a unit test: `make
# fgd-table TRACES=DIR`.
#
# usage: scripts/fgd_table.sh TRACE_DIR [OUT_DIR]
#   TRACE_DIR  a folder with openb_node_list_gpu_node.csv and the
#              openb_pod_list_<trace>.csv files (Alibaba clusterdata,
#              cluster-trace-gpu-v2023/csv/); a missing trace is reported.
#   OUT_DIR    default results/fgd; gets runs.csv, seeds.csv, table.md.
# env: GPUSIM (default ./gpusim), SEEDS (default 42..51), TRACES_ONLY (a
#      space-separated subset of the 17 names, for a quick look), PARTS
#      ("repro own" by default; one of them reruns that part only and reuses
#      the other's runs.csv or seeds.csv from OUT_DIR).
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
PARTS=${PARTS:-repro own}
# gpusim's own strategy, as documented in policies/README.md
OWN="--set gpu_select=fgdfit --set frag_model=paper"
BASE="--mode fill --fill-to 1.3 --policy vgpu --set split_count=20"

[ -x "$GPUSIM" ] || { echo "fgd_table: $GPUSIM not found (make gpusim)" >&2; exit 2; }
[ -f "$REF" ] || { echo "fgd_table: $REF not found (run from the repository root)" >&2; exit 2; }
[ -f "$DIR/openb_node_list_gpu_node.csv" ] || { echo "fgd_table: $DIR/openb_node_list_gpu_node.csv not found" >&2; exit 3; }

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"
lo=${SEEDS%..*}
hi=${SEEDS#*..}

# one line per run: trace,mode,strategy,seeds,unalloc_pct_at_100,sd,frag_pct_at_100,placements_per_s
echo "trace,mode,strategy,seeds,unalloc_pct_at_100,unalloc_sd,frag_pct_at_100,placements_per_s" > "$W/runs.csv"
echo "trace,strategy,seed,unalloc_pct_at_100,placements_per_s" > "$W/seeds.csv"
: > "$W/missing"

summary() { # report.json -> "unalloc,sd,frag,pps"
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
f = r["fill"]
print("%.4f,%.4f,%.4f,%.0f" % (100 - f["alloc_pct_at_100"], f["alloc_pct_at_100_sd"], f["frag_pct_at_100"], r["sim"]["placements_per_s"]))' "$1"
}

first=1
for t in $TRACES; do
    pods="$DIR/openb_pod_list_$t.csv"
    if [ ! -f "$pods" ]; then
        echo "$t" >> "$W/missing"
        echo "fgd_table: $pods missing, skipped" >&2
        continue
    fi
    if [ $first = 1 ]; then
        "$GPUSIM" import openb "$pods" --nodes "$DIR/openb_node_list_gpu_node.csv" --out-trace "$W/$t.csv" \
            --out-cluster "$W/cluster.json" > /dev/null
        first=0
    else
        "$GPUSIM" import openb "$pods" --out-trace "$W/$t.csv" > /dev/null
    fi
    case " $PARTS " in *" repro "*) modes="paper exact" ;; *) modes="" ;; esac
    for mode in $modes; do
        for s in fgd bestfit dotprod random; do
            # random scores nothing: its exact run is its paper-mode run
            [ $mode = exact ] && [ $s = random ] && continue
            # shellcheck disable=SC2086
            "$GPUSIM" run $BASE --seeds "$SEEDS" --trace "$W/$t.csv" --cluster "$W/cluster.json" \
                --set gpu_select=$s --set frag_model=$mode --out "$W/o" > /dev/null
            echo "$t,$mode,$s,$SEEDS,$(summary "$W/o/report.json")" >> "$W/runs.csv"
        done
    done
    # head to head, seed by seed: paper-mode FGD and gpusim's own
    seed=$lo
    case " $PARTS " in *" own "*) ;; *) seed=$((hi + 1)) ;; esac
    while [ "$seed" -le "$hi" ]; do
        for s in fgd own; do
            if [ $s = fgd ]; then args="--set gpu_select=fgd --set frag_model=paper"; else args=$OWN; fi
            # shellcheck disable=SC2086
            "$GPUSIM" run $BASE --seeds "$seed..$seed" --trace "$W/$t.csv" --cluster "$W/cluster.json" $args \
                --out "$W/o" > /dev/null
            echo "$t,$s,$seed,$(summary "$W/o/report.json" | cut -d, -f1,4)" >> "$W/seeds.csv"
        done
        seed=$((seed + 1))
    done
    echo "fgd_table: $t done" >&2
done

case " $PARTS " in *" repro "*) ;; *) cp "$OUT/runs.csv" "$W/runs.csv" ;; esac
case " $PARTS " in *" own "*) ;; *) cp "$OUT/seeds.csv" "$W/seeds.csv" ;; esac
python3 - "$W/runs.csv" "$W/seeds.csv" "$REF" "$W/missing" "$SEEDS" > "$W/table.md" <<'EOF'
import csv, statistics as st, sys
from collections import defaultdict
runs = list(csv.DictReader(open(sys.argv[1])))
seeds = list(csv.DictReader(open(sys.argv[2])))
ref = defaultdict(list)
for r in csv.DictReader(open(sys.argv[3])):
    ref[(r["trace"], r["strategy"])].append(100 - float(r["alloc_pct_at_100"]))
missing = open(sys.argv[4]).read().split()
run = {(r["trace"], r["mode"], r["strategy"]): r for r in runs}
traces = []
for r in runs:
    if r["trace"] not in traces:
        traces.append(r["trace"])
S = ["fgd", "bestfit", "dotprod", "random"]
out = print
out("## Paper-compatible mode (`--set frag_model=paper`) vs the published figures\n")
out("Unallocated GPUs (%% of 6,212) at 100%% arrived, means of seeds %s; paper: mean of its seeds 42..51." % sys.argv[5])
out("Cell: gpusim / paper (difference).\n")
out("| trace | " + " | ".join(S) + " |")
out("|---|" + "---|" * len(S))
worst = 0
for t in traces:
    cells = []
    for s in S:
        g = float(run[(t, "paper", s)]["unalloc_pct_at_100"])
        p = st.mean(ref[(t, s)])
        worst = max(worst, abs(g - p))
        cells.append("%.2f / %.2f (%+.2f)" % (g, p, g - p))
    out("| %s | %s |" % (t, " | ".join(cells)))
out("\nLargest difference: %.2f points over %d traces x %d strategies.\n" % (worst, len(traces), len(S)))
out("## gpusim's exact default (`frag_model=exact`) beside the paper mode\n")
out("Unallocated GPUs at 100% arrived; cell: exact / paper mode (exact minus paper mode).\n")
out("| trace | " + " | ".join(S) + " |")
out("|---|" + "---|" * len(S))
for t in traces:
    cells = []
    for s in S:
        if (t, "exact", s) not in run:
            cells.append("same run (scores nothing)")
            continue
        e = float(run[(t, "exact", s)]["unalloc_pct_at_100"])
        g = float(run[(t, "paper", s)]["unalloc_pct_at_100"])
        cells.append("%.2f / %.2f (%+.2f)" % (e, g, e - g))
    out("| %s | %s |" % (t, " | ".join(cells)))
out("\n## gpusim's own strategy (`gpu_select=fgdfit`) vs paper-mode FGD\n")
out("Unallocated GPUs at 100% arrived: mean (sd) [min..max] over the seeds, each seed run separately;")
out("wins = seeds where fgdfit leaves fewer GPUs unallocated than FGD on the same seed; placements/s of")
out("the same runs (all tasks of all seeds over the placement time).\n")
out("| trace | FGD (paper mode) | fgdfit | difference | wins | FGD placements/s | fgdfit placements/s |")
out("|---|---|---|---|---|---|---|")
beat = []
for t in traces:
    v = {s: {int(r["seed"]): float(r["unalloc_pct_at_100"]) for r in seeds if r["trace"] == t and r["strategy"] == s}
         for s in ("fgd", "own")}
    pps = {s: st.mean(float(r["placements_per_s"]) for r in seeds if r["trace"] == t and r["strategy"] == s)
           for s in ("fgd", "own")}
    a, b = list(v["fgd"].values()), list(v["own"].values())
    wins = sum(1 for k in v["fgd"] if v["own"][k] < v["fgd"][k])
    d = st.mean(b) - st.mean(a)
    if d < 0:
        beat.append(t)
    sd = lambda x: st.stdev(x) if len(x) > 1 else 0
    out("| %s | %.2f (%.2f) [%.2f..%.2f] | %.2f (%.2f) [%.2f..%.2f] | %+.2f | %d/%d | %.0f | %.0f |" %
        (t, st.mean(a), sd(a), min(a), max(a), st.mean(b), sd(b), min(b), max(b), d, wins, len(a),
         pps["fgd"], pps["own"]))
lost = [t for t in traces if t not in beat]
out("\nfgdfit leaves fewer GPUs unallocated than paper-mode FGD on %d of %d traces%s." %
    (len(beat), len(traces), "" if not lost else "; not on: " + ", ".join(lost)))
if missing:
    out("\nTraces not found in the trace folder (not run): " + ", ".join(missing) + ".")
EOF
cp "$W/runs.csv" "$W/seeds.csv" "$W/table.md" "$OUT/"
cat "$OUT/table.md"
