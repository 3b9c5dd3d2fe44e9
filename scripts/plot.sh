#!/bin/sh
# plot.sh RESULT_DIR GPUS - draw RESULT_DIR/timeseries.png with gnuplot.
# Paths with quote or backslash characters are refused rather than passed to
# gnuplot, which would read them as code.
dir=$1; gpus=$2
case "$dir" in *\'*|*\"*|*\\*|*\`*) echo "plot: refusing a path with quotes: $dir" >&2; exit 2;; esac
case "$gpus" in ''|*[!0-9]*) echo "plot: GPU count must be a number" >&2; exit 2;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "plot: gnuplot not installed" >&2; exit 1; }
gnuplot -e "infile='$dir/timeseries.csv'; outfile='$dir/timeseries.png.tmp'; gpus=$gpus" scripts/plot_timeseries.gp &&
  mv "$dir/timeseries.png.tmp" "$dir/timeseries.png"
