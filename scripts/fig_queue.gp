# fig_queue.gp - trace jobs waiting in the queue over simulated time, from
# timeseries.csv's "queued" column (jobs and sessions; inference requests
# wait in their service's queue, not here). A count: integer ticks.
# -e: queued_col, peak_queued (from the report: an all-zero queue still gets
# an axis), ytic (the tick step, a whole number).  args: COMMON OUT TERM TITLE IN
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator ","
set key top left opaque box
set xlabel "simulated time (hours)"
set ylabel "jobs queued"
set yrange [0:(peak_queued > 0 ? ceil(peak_queued * 1.1) : 1)]
set ytics 0, ytic
set format y "%.0f"
unset mytics
plot gs_in using ($1/3600):queued_col skip 1 with steps lw 2 title "jobs queued"
