# fig_plan.gp - each SLO metric (worst seed) against the card count tried
# by `gpusim plan`, one line per policy, the SLO threshold dashed.
# Data: IN (gs_in) is a prefix, PREFIX<p>.tsv per policy: header "cards<TAB>label
# ..." (the label read as data), then cards and one column per term.
# -e: npol, nterm (1..4), thr1..thr4, logy1..logy4 (1: the metric spans
# over two decades, drawn on a log axis).  args 6..9: panel titles.
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator "\t"
set datafile missing "?"
set key top right
set xlabel "cards"
prefix = gs_in
unset title
if (nterm > 1) { set multiplot layout (nterm+1)/2,2 title gs_title noenhanced }
do for [t=1:nterm] {
    if (nterm > 1) { set title value(sprintf("gs_t%d", t)) noenhanced } else { set title gs_title." - ".gs_t1 noenhanced }
    thr = value(sprintf("thr%d", t))
    if (value(sprintf("logy%d", t))) { set logscale y } else { unset logscale y }
    plot for [p=0:npol-1] sprintf("%s%d.tsv", prefix, p) using 1:(column(t+1)) with linespoints lw 2 title columnheader(t+1), \
         thr with lines dt 2 lc rgb "red" title "SLO"
}
if (nterm > 1) { unset multiplot }
