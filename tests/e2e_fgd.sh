#!/bin/sh
# e2e_fgd.sh - the FGD fill-up experiment on the committed default openb trace
# (workloads/traces/alibaba-openb-gpu-v2023) and the paper's figures
# (tests/fixtures/openb): gpusim's paper-compatible mode (--set
# frag_model=paper) against the paper's published figures, and the ordering
# of the strategies.
#
# usage: sh tests/e2e_fgd.sh   (run from the repository root, after make)
#
# Seeds 42..44, compared with the mean of the paper's seeds 42..51 at 100%
# arrived, within 0.5 points. Why 3 seeds are enough for that tolerance:
# the seed-to-seed sd of unallocated GPUs on this trace is at most 0.38
# points (random; 0.07 fgd, 0.16 bestfit, 0.32 dotprod, measured over 10
# seeds), so a 3-seed mean is within 0.22 of its own 10-seed mean (one sd),
# and the 10-seed means differ from the paper by at most 0.16 (README
# table). A scoring or tie-break regression moves these figures by 0.6 to
# 3 points (the exact model's FGD and DotProd are 0.9 and 2.4 off).
# The fill-up figures take minutes under the sanitizers: this script runs the
# release binary that `make test` builds beside the sanitized one (the
# fragmentation code itself runs sanitized in tests/test_paper.c and
# test_select.c). $1, the sanitized binary, is not used.
G=./gpusim
. "$(dirname "$0")/lib_e2e.sh"
FX=tests/fixtures/openb
OB=workloads/traces/alibaba-openb-gpu-v2023
need_file fgd_release_binary "$G" || { finish; exit 1; }

# paper's mean at 100% arrived for STRATEGY, as unallocated percent (or frag percent with a 2nd arg)
paper() {
    awk -F, -v s="$1" -v col="${2:-4}" 'NR > 1 && $1 == "default" && $2 == s { t += $col; n++ }
        END { if (col == 4) printf "%.4f", 100 - t / n; else printf "%.4f", t / n }' "$FX/fgd_paper_figures.csv"
}
# gpusim's unallocated (or frag) percent at 100% arrived from a fill.csv
ours() { awk -F, -v col="${2:-4}" '$1 == 100 { print $col }' "$1"; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }

if "$G" import openb "$OB/openb_pod_list_default.csv" --nodes "$OB/openb_node_list_gpu_node.csv" \
     --out-trace "$T/ob.csv" --out-cluster "$T/ob.json" >"$T/out" 2>&1 &&
   grep -q "8152 converted" "$T/out" && grep -q "6212 GPUs" "$T/out"; then
    ok fgd_fixture_imports
else
    no fgd_fixture_imports "$T/out"
fi

for s in fgd bestfit dotprod random; do
    "$G" run --mode fill --fill-to 1.0 --seeds 42..44 --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu \
        --set split_count=20 --set gpu_select=$s --set frag_model=paper --out "$T/p-$s" >"$T/p-$s.out" 2>&1
    g=$(ours "$T/p-$s/fill.csv")
    p=$(paper $s)
    echo "    paper mode $s: unallocated at 100% arrived ${g:-?} (paper $p)"
    if [ -n "$g" ] && within "$g" "$p" 0.5; then
        ok "fgd_paper_mode_${s}_within_half_a_point"
    else
        echo "gpusim ${g:-none}, paper $p" >>"$T/p-$s.out"
        no "fgd_paper_mode_${s}_within_half_a_point" "$T/p-$s.out"
    fi
    eval "u_$s=\$g"
done

# the fragmentation the paper plots (its measure, percent of capacity) for FGD at 100% arrived
g=$(ours "$T/p-fgd/fill.csv" 5)
p=$(paper fgd 6)
if [ -n "$g" ] && within "$g" "$p" 0.5; then
    ok fgd_paper_mode_fragmentation_within_half_a_point
else
    echo "gpusim frag ${g:-none}, paper $p" >"$T/msg"
    no fgd_paper_mode_fragmentation_within_half_a_point "$T/msg"
fi

# the paper's ordering: FGD < BestFit < DotProd < Random (unallocated GPUs)
if [ -n "$u_fgd" ] && [ -n "$u_random" ] &&
   awk -v a="$u_fgd" -v b="$u_bestfit" -v c="$u_dotprod" -v d="$u_random" 'BEGIN { exit !(a < b && b < c && c < d) }'; then
    ok fgd_paper_mode_ordering_fgd_bestfit_dotprod_random
else
    echo "fgd $u_fgd bestfit $u_bestfit dotprod $u_dotprod random $u_random" >"$T/msg"
    no fgd_paper_mode_ordering_fgd_bestfit_dotprod_random "$T/msg"
fi

# gpusim's own fgdfit ahead of paper-mode FGD on the same seeds (arrival and tie order): 4.64 vs
# 4.82 over seeds 42..51, ahead on each of the 10 (README table); 4.65 vs 4.81 on 42..44
"$G" run --mode fill --fill-to 1.0 --seeds 42..44 --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu \
    --set split_count=20 --set gpu_select=fgdfit --set frag_model=paper --out "$T/p-fgdfit" >"$T/f.out" 2>&1
u_fgdfit=$(ours "$T/p-fgdfit/fill.csv")
echo "    fgdfit: unallocated at 100% arrived ${u_fgdfit:-?} (paper-mode fgd $u_fgd)"
if [ -n "$u_fgdfit" ] && [ -n "$u_fgd" ] && awk -v a="$u_fgdfit" -v b="$u_fgd" 'BEGIN { exit !(a < b) }'; then
    ok fgd_own_fgdfit_ahead_of_paper_fgd
else
    echo "fgdfit ${u_fgdfit:-none}, fgd $u_fgd" >>"$T/f.out"
    no fgd_own_fgdfit_ahead_of_paper_fgd "$T/f.out"
fi

# gpusim's exact default model keeps FGD ahead of BestFit and Random
"$G" run --mode fill --fill-to 1.0 --seeds 42..44 --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu \
    --set split_count=20 --set gpu_select=fgd --out "$T/e-fgd" >"$T/e.out" 2>&1
e=$(ours "$T/e-fgd/fill.csv")
if [ -n "$e" ] && awk -v a="$e" -v b="$u_bestfit" 'BEGIN { exit !(a < b) }'; then
    ok fgd_exact_model_ahead_of_paper_bestfit
else
    echo "exact fgd ${e:-none}, paper-mode bestfit $u_bestfit" >>"$T/e.out"
    no fgd_exact_model_ahead_of_paper_bestfit "$T/e.out"
fi

# a bad frag_model is a usage error naming the parameter
"$G" run --mode fill --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu --set frag_model=artifact \
    --out "$T/bad" >"$T/out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "frag_model='artifact': expected exact or paper" "$T/out"; then
    ok fgd_bad_frag_model_exit2
else
    echo "exit $rc" >>"$T/out"
    no fgd_bad_frag_model_exit2 "$T/out"
fi

finish
