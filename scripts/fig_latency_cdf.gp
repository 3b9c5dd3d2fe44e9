# fig_latency_cdf.gp - per service, the distribution of end-to-end latency,
# and for token services of time to first token (TTFT) and time per output
# token (TPOT), one panel each (a panel only when some service has its
# data), each service's SLO marked where its trace row states one: an
# impulse at the SLO up to the share of requests that met it.
# Data: IN (gs_in) is a prefix; PREFIX<k>.<i>.tsv is service i of panel k
# (0 latency, 1 TTFT, 2 TPOT), a header holding the service id (read as data
# for the key) then seconds and cumulative share; PREFIX<k>.slo.tsv holds
# the markers (seconds, share met), a header first.
# -e: n0, n1, n2 (services per panel), s0, s1, s2 (markers per panel),
# fig_h (height).
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator "\t"
set key outside right top vertical
set rmargin at screen 0.7
set ylabel "share of requests (cumulative)"
set logscale x
set yrange [0:1.02]
prefix = gs_in
panels = (n0 > 0) + (n1 > 0) + (n2 > 0)
unset title
if (panels > 1) { set multiplot layout panels,1 title gs_title noenhanced }
do for [k=0:2] {
    nk = value(sprintf("n%d", k))
    sk = value(sprintf("s%d", k))
    if (nk > 0) {
        what = k == 0 ? "end-to-end latency" : (k == 1 ? "time to first token (TTFT)" : "time per output token (TPOT)")
        if (panels > 1) { set title what } else { set title gs_title." - ".what noenhanced }
        set xlabel what." (s, log scale)"
        if (sk > 0) {
            plot for [i=0:nk-1] sprintf("%s%d.%d.tsv", prefix, k, i) using 1:2 with linespoints lw 2 title columnheader(2), \
                 sprintf("%s%d.slo.tsv", prefix, k) using 1:2 skip 1 with impulses dt 2 lw 2 lc rgb "red" title "SLO (height: share met)", \
                 sprintf("%s%d.slo.tsv", prefix, k) using 1:2 skip 1 with points pt 7 ps 1.2 lc rgb "red" notitle
        } else {
            plot for [i=0:nk-1] sprintf("%s%d.%d.tsv", prefix, k, i) using 1:2 with linespoints lw 2 title columnheader(2)
        }
    }
}
if (panels > 1) { unset multiplot }
