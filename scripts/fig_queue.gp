# fig_queue.gp - requests queued over simulated time, from timeseries.csv.
# -e: queued_col, peak_queued (from the report: an all-zero queue still gets an axis).  args: COMMON OUT TERM TITLE IN
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator ","
set key top left
set xlabel "simulated time (hours)"
set ylabel "requests queued"
set yrange [0:(peak_queued > 0 ? peak_queued * 1.1 : 1)]
plot gs_in using ($1/3600):queued_col skip 1 with steps lw 2 title "queued"
