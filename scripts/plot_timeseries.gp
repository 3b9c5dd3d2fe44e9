# plot_timeseries.gp - allocated GPUs and queue length over time from one
# run's timeseries.csv. Called as:
#   gnuplot -e "infile='DIR/timeseries.csv'; outfile='DIR/timeseries.png'; gpus=64" scripts/plot_timeseries.gp
# The caller (scripts/plot.sh) passes only paths it has checked to hold no
# quote characters, so nothing from user input reaches gnuplot as code.
set terminal pngcairo size 1000,500 font ",10"
set output outfile
set datafile separator ","
set key top left
set xlabel "simulated time (hours)"
set ylabel "GPUs allocated"
set y2label "requests queued"
set ytics nomirror
set y2tics
set yrange [0:gpus*1.05]
set y2range [0:*]
set grid
set title "allocated GPUs and queue length"
plot infile using ($1/3600):2 skip 1 with steps lw 2 title "GPUs allocated", \
     infile using ($1/3600):4 skip 1 axes x1y2 with steps lw 1 title "queued"
