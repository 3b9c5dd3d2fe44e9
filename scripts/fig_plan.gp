# fig_plan.gp - `gpusim plan`'s terms against the cards tried, worst seed:
# a panel per term (at most five an image), one line per candidate and
# policy, the term's threshold dashed, the key beside the panel.
# Data: IN (gs_in) is a prefix, PREFIX<p>.tsv per entry: header "cards<TAB>
# label..." (the label, read as data, names the key), then cards and one
# column per term of plan.json's slo[].
# -e: npol, npanel (1..5), xmax (the card axis' end), fig_h; per panel k:
# colk (its data column), thrk (threshold), logyk (1: log axis), missk (1:
# drawn as 1 - value, the share missing a ratio that must stay high), unitk
# (0 none, 1 s, 2 ratio, 3 jobs, 4 requests, 5 GPU-h, 6 USD, 7 replicas).
# Panel titles: the term of panel 1 is TITLE (ARG4), of panels 2..5 ARG6..9.
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator "\t"
set datafile missing "?"
set key outside right top vertical
set rmargin at screen 0.7
set xlabel "cards"
set xrange [0:xmax]
prefix = gs_in
units = "none s ratio jobs requests GPU-h USD replicas"
unset title
if (npanel > 1) { set multiplot layout npanel,1 }
do for [k=1:npanel] {
    if (k == 1) { set title gs_title noenhanced } else { set title value(sprintf("gs_t%d", k - 1)) noenhanced }
    col = value(sprintf("col%d", k))
    thr = value(sprintf("thr%d", k))
    miss = value(sprintf("miss%d", k))
    u = value(sprintf("unit%d", k))
    ulabel = u > 0 ? word(units, u + 1) : ""
    if (miss) {
        set ylabel "share missing it (1 - ".ulabel."), log"
    } else {
        set ylabel (u > 0 ? ulabel : "value")
    }
    if (value(sprintf("logy%d", k))) { set logscale y } else { unset logscale y }
    if (miss) {
        plot for [p=0:npol-1] sprintf("%s%d.tsv", prefix, p) using 1:(1 - column(col)) with linespoints lw 2 title columnheader(col), \
             thr with lines dt 2 lc rgb "red" title "SLO"
    } else {
        plot for [p=0:npol-1] sprintf("%s%d.tsv", prefix, p) using 1:(column(col)) with linespoints lw 2 title columnheader(col), \
             thr with lines dt 2 lc rgb "red" title "SLO"
    }
}
if (npanel > 1) { unset multiplot }
