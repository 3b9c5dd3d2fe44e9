# fig_compare.gp - bars comparing policies on what differs between them:
# utilization, GPU-hours allocated, queue p99, JCT p99 and, when the trace
# has requests, SLO attainment and TTFT p99; each bar with its 95% interval
# over seeds. Data: IN (gs_in), tab separated, a header, then per policy:
# its label (read as data), then mean, lo, hi of each of the six metrics
# ("?" when absent). -e: show1..show6 (1: the metric has a value), fig_h.
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator "\t"
set datafile missing "?"
set style fill solid 0.6 border -1
set boxwidth 0.6
set key off
set xtics rotate by -20
set yrange [0:*]
infile = gs_in
names = "utilization|GPU-hours allocated (GPU-h)|job queue p99 (s)|JCT p99 (s)|request SLO attainment (share)|TTFT p99 (s)"
n = show1 + show2 + show3 + show4 + show5 + show6
unset title
set multiplot layout (n + 1) / 2, 2 title gs_title noenhanced
do for [k=1:6] {
    if (value(sprintf("show%d", k))) {
        s = names
        do for [j=1:k-1] { s = s[strstrt(s, "|") + 1:] }
        e = strstrt(s, "|")
        set title (e > 0 ? s[1:e - 1] : s)
        c = 3 * k - 1
        plot infile using 0:c:xticlabels(1) skip 1 with boxes, '' using 0:c:(column(c + 1)):(column(c + 2)) skip 1 with yerrorbars lc rgb "black" pt 0
    }
}
unset multiplot
