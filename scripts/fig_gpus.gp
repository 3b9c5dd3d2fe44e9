# fig_gpus.gp - allocated GPUs (and busy GPUs, when a sharing policy writes a
# gpus_busy column) over simulated time, from a run's timeseries.csv.
# -e: alloc_col, busy_col (0: absent), total_gpus.  args: COMMON OUT TERM TITLE IN
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator ","
set key top left opaque box
set xlabel "simulated time (hours)"
set ylabel "GPUs"
set yrange [0:total_gpus*1.15]
infile = gs_in
if (busy_col > 0) {
    plot infile using ($1/3600):alloc_col skip 1 with steps lw 2 title "allocated", \
         infile using ($1/3600):busy_col skip 1 with steps lw 1 title "busy", \
         total_gpus with lines dt 2 lc rgb "gray40" title "capacity"
} else {
    plot infile using ($1/3600):alloc_col skip 1 with steps lw 2 title "allocated", \
         total_gpus with lines dt 2 lc rgb "gray40" title "capacity"
}
