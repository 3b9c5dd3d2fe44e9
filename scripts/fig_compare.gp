# fig_compare.gp - bar chart comparing policies: utilization, queue p99,
# JCT p99 and cost per completed job, each bar with its 95% interval over seeds. Data: IN (gs_in),
# tab separated, a header, then per policy: label, then mean,lo,hi for each
# of the four panels ("?" when absent). Labels are read as data.
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
unset title
set multiplot layout 2,2 title gs_title noenhanced
set title "utilization (alloc_ratio)"
plot infile using 0:2:xticlabels(1) skip 1 with boxes, '' using 0:2:3:4 skip 1 with yerrorbars lc rgb "black" pt 0
set title "queue p99 (s)"
plot infile using 0:5:xticlabels(1) skip 1 with boxes, '' using 0:5:6:7 skip 1 with yerrorbars lc rgb "black" pt 0
set title "JCT p99 (s)"
plot infile using 0:8:xticlabels(1) skip 1 with boxes, '' using 0:8:9:10 skip 1 with yerrorbars lc rgb "black" pt 0
set title "cost per completed job (USD)"
plot infile using 0:11:xticlabels(1) skip 1 with boxes, '' using 0:11:12:13 skip 1 with yerrorbars lc rgb "black" pt 0
unset multiplot
