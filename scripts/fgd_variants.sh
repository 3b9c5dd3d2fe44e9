#!/bin/sh
# fgd_variants.sh - the FGD fill-up experiment on generated openb variants:
# paper-mode FGD against gpusim's own strategies on pod lists that
# `gpusim gen openb-variant` builds from the committed default list the way
# the paper's variants were (cpu, gpushare, multigpu, gpuspec families), so
# it needs no outside data. Minutes, not a unit test: `make fgd-variants`.
#
# usage: scripts/fgd_variants.sh [OUT_DIR]
#   OUT_DIR  default results/fgd; gets variants.csv and variants.md.
# env: GPUSIM (default ./gpusim), SEEDS (fill-up seeds, default 42..51),
#      SETS ("tune test", default both; "published" adds the paper's 17
#      lists from TRACES=DIR, as scripts/fgd_table.sh reads them), OWN (space-separated gpu_select
#      values compared with fgd, default "fgdfit fgdhost"), JOBS (parallel
#      runs, default 2), RUN (0: only rebuild variants.md from variants.csv).
#
# The two sets (family:percent:generator seed). tune: the variants the
# strategies were developed on (two families only). test: 40 variants, four
# per family at levels the published lists do not have plus levels beyond
# them, generator seeds 2001..2040, scored once after the strategy was fixed.
set -eu

OUT=${1:-results/fgd}
GPUSIM=${GPUSIM:-./gpusim}
SEEDS=${SEEDS:-42..51}
SETS=${SETS:-tune test}
OWN=${OWN:-fgdfit fgdhost}
JOBS=${JOBS:-2}
BASE_PODS=workloads/traces/alibaba-openb-gpu-v2023/openb_pod_list_default.csv
NODES=workloads/traces/alibaba-openb-gpu-v2023/openb_node_list_gpu_node.csv
TUNE="cpu:10:1001 cpu:17.5:1002 cpu:30:1003 cpu:40:1004 gpushare:20:1005 gpushare:50:1006 gpushare:70:1007
gpushare:90:1008"
TEST="cpu:2.5:2001 cpu:7.5:2002 cpu:12.5:2003 cpu:15:2004 cpu:17.5:2005 cpu:22.5:2006 cpu:27.5:2007 cpu:32.5:2008
cpu:35:2009 cpu:40:2010 gpushare:10:2011 gpushare:25:2012 gpushare:30:2013 gpushare:35:2014 gpushare:45:2015
gpushare:50:2016 gpushare:55:2017 gpushare:65:2018 gpushare:70:2019 gpushare:90:2020 multigpu:10:2021
multigpu:15:2022 multigpu:25:2023 multigpu:35:2024 multigpu:45:2025 multigpu:55:2026 multigpu:60:2027
multigpu:65:2028 multigpu:70:2029 multigpu:75:2030 gpuspec:2:2031 gpuspec:8:2032 gpuspec:15:2033 gpuspec:30:2034
gpuspec:40:2035 gpuspec:45:2036 gpuspec:50:2037 gpuspec:60:2038 gpuspec:75:2039 gpuspec:100:2040"

PUBLISHED="cpu050 cpu100 cpu200 cpu250 default gpushare40 gpushare60 gpushare80 gpushare100 gpuspec10 gpuspec20
gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50"

[ -f "$BASE_PODS" ] || { echo "fgd_variants: $BASE_PODS not found (run from the repository root)" >&2; exit 2; }
mkdir -p "$OUT"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

if [ "${RUN:-1}" = 1 ]; then
    [ -x "$GPUSIM" ] || { echo "fgd_variants: $GPUSIM not found (make gpusim)" >&2; exit 2; }
    "$GPUSIM" import openb "$BASE_PODS" --nodes "$NODES" --out-trace "$W/probe.csv" --out-cluster "$W/cluster.json" \
        > /dev/null
    : > "$W/jobs"
    for set in $SETS; do
        case $set in
        tune) list=$TUNE ;;
        test) list=$TEST ;;
        published) list=$PUBLISHED ;;
        *) echo "fgd_variants: unknown set '$set' (tune, test, published)" >&2; exit 2 ;;
        esac
        for v in $list; do
            fam=${v%%:*}; rest=${v#*:}; pct=${rest%%:*}; gseed=${rest#*:}
            if [ "$set" = published ]; then
                name=$v; fam=$v; pct=; gseed=
                pods="${TRACES:?fgd_variants: SETS=published needs TRACES=DIR}/openb_pod_list_$v.csv"
                [ -f "$pods" ] || { echo "fgd_variants: $pods missing, skipped" >&2; continue; }
            else
                name="$fam$pct-s$gseed"
                pods="$W/$name.pods.csv"
                "$GPUSIM" gen openb-variant --pods "$BASE_PODS" --family "$fam" --pct "$pct" --seed "$gseed" \
                    --out "$pods"
            fi
            "$GPUSIM" import openb "$pods" --out-trace "$W/$name.csv" > /dev/null
            for s in fgd $OWN; do
                echo "$set $fam ${pct:--} ${gseed:--} $name $s" >> "$W/jobs"
            done
        done
    done
    # one fill-up run per (variant, strategy) over the seeds: its mean and sd at 100% arrived
    export GPUSIM SEEDS W
    # shellcheck disable=SC2016
    xargs -P "$JOBS" -L 1 sh -c '
        "$GPUSIM" run --mode fill --fill-to 1.3 --policy vgpu --set split_count=20 --set frag_model=paper \
            --set gpu_select="$6" --seeds "$SEEDS" --trace "$W/$5.csv" --cluster "$W/cluster.json" \
            --out "$W/o-$5-$6" > /dev/null
        python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))[\"fill\"]
print(\"%s,%.4f,%.4f\" % (sys.argv[2], 100 - f[\"alloc_pct_at_100\"], f[\"alloc_pct_at_100_sd\"]))" \
            "$W/o-$5-$6/report.json" "$1,$2,$3,$4,$5,$6" > "$W/r-$5-$6"
        rm -rf "$W/o-$5-$6"' sh < "$W/jobs"
    echo "set,family,pct,gen_seed,trace,strategy,unalloc_pct_at_100,unalloc_sd" > "$W/variants.csv"
    cat "$W"/r-* | sort -t, -k1,1r -k2,2 -k3,3n -k6,6 >> "$W/variants.csv" # tune, test, published
    cp "$W/variants.csv" "$OUT/"
fi

python3 - "$OUT/variants.csv" "$SEEDS" > "$W/variants.md" <<'EOF'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
u = {(r["trace"], r["strategy"]): float(r["unalloc_pct_at_100"]) for r in rows}
own = sorted({r["strategy"] for r in rows} - {"fgd"})
traces, meta = [], {}
for r in rows:
    if r["trace"] not in meta:
        traces.append(r["trace"])
        meta[r["trace"]] = r
print("#### Paper-mode FGD vs gpusim's own strategies on the published lists and generated variants\n")
print("Unallocated GPUs (%% of 6,212) at 100%% arrived, mean over fill-up seeds %s (their sd in variants.csv);"
      " diff: own minus FGD (negative: fewer GPUs left unallocated). Variant F P S: `gpusim gen"
      " openb-variant --family F --pct P --seed S` from the default pod list.\n" % sys.argv[2])
print("| set | trace | FGD | " + " | ".join("%s | diff" % s for s in own) + " |")
print("|---|---|---|" + "---|---|" * len(own))
wins = defaultdict(lambda: [0, 0])
for t in traces:
    m = meta[t]
    if (t, "fgd") not in u:
        continue
    f = u[(t, "fgd")]
    cells = []
    for s in own:
        if (t, s) not in u:
            cells.append(" | ")
            continue
        g = u[(t, s)]
        cells.append("%.2f | %+.2f" % (g, g - f))
        w = wins[(m["set"], s)]
        w[1] += 1
        w[0] += g < f
    name = t if m["set"] == "published" else "%s %s %s" % (m["family"], m["pct"], m["gen_seed"])
    print("| %s | %s | %.2f | %s |" % (m["set"], name, f, " | ".join(cells)))
print()
for (st, s), (a, n) in sorted(wins.items(), key=lambda kv: ("tune", "test", "published").index(kv[0][0])):
    print("%s set: %s leaves fewer GPUs unallocated than FGD on %d of %d traces." % (st, s, a, n))
EOF
cp "$W/variants.md" "$OUT/"
cat "$OUT/variants.md"
