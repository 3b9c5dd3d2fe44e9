# fig_common.gp - terminal, output and title for every gpusim figure.
# Loaded first by each fig_*.gp script, which `gpusim plot` runs as
#   gnuplot -e 'NUMBERS' -c scripts/fig_X.gp COMMON OUT TERM TITLE IN [T1..T4]
# Every text that may come from user input (paths, trace and policy names,
# SLO terms, service ids) arrives as a -c argument (the string variables
# ARG1..ARG9, copied to gs_* variables) or in a data file, never as gnuplot source text: gnuplot
# expands backquotes and runs system() only in commands it parses, not in a
# string value it holds, so nothing a user names can run. The -e text holds
# only numbers that gpusim formats itself; fig_h, when it gives one, is the
# height in pixels (default 500; a figure of several panels is taller).
if (!exists("fig_h")) { fig_h = 500 }
if (gs_term eq "svg") {
    set terminal svg size 900,fig_h font "sans,11" background rgb "white"
} else {
    set terminal pngcairo size 900,fig_h font "sans,10"
}
set output gs_out
set termoption noenhanced
set title gs_title noenhanced
set grid
