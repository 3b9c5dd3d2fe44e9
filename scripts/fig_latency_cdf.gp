# fig_latency_cdf.gp - latency CDF per service, one data file per service
# (IN, gs_in, is a prefix: PREFIX0.tsv, PREFIX1.tsv, ...); each file's header
# holds the service id, read as data for the key.  -e: nsvc
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator "\t"
set key bottom right
set xlabel "latency (s)"
set ylabel "fraction of requests"
set logscale x
set yrange [0:1.02]
prefix = gs_in
plot for [i=0:nsvc-1] sprintf("%s%d.tsv", prefix, i) using 1:2 with linespoints lw 2 title columnheader(2)
