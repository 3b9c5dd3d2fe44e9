# fig_sensitivity.gp - `plan --sensitivity` as a tornado: per assumption a
# bar from the answer's $/hour at one end of its range to the other (the
# winner's there, when another entry wins), widest first, the base answer's
# $/hour dashed, a red point at an end where the winner changes.
# Data: IN (gs_in), tab separated, a header, then per assumption: its name
# (read as data), $/hour at the low end, at the high end, 1 when the winner
# changes at the low end, at the high end. -e: n (assumptions), base.
# the -c arguments, copied before `load` (which has its own ARGn)
gs_out = ARG2; gs_term = ARG3; gs_title = ARG4; gs_in = ARG5
gs_t1 = ARG6; gs_t2 = ARG7; gs_t3 = ARG8; gs_t4 = ARG9
common = ARG1
load common
set datafile separator "\t"
set datafile missing "?"
set key outside below
set xlabel "the winner's $/hour at the two ends of each assumption's range"
set yrange [n - 0.5:-0.5]
set ytics nomirror
set style fill solid 0.5 border -1
set arrow 1 from base, graph 0 to base, graph 1 nohead dt 2 lc rgb "gray30"
infile = gs_in
plot infile using (($2 + $3) / 2):0:($2 < $3 ? $2 : $3):($2 < $3 ? $3 : $2):($0 - 0.3):($0 + 0.3):ytic(1) skip 1 \
         with boxxyerror lc rgb "steelblue" title "the answer's $/hour over the range", \
     infile using ($4 > 0 ? $2 : NaN):0 skip 1 with points pt 7 ps 1.5 lc rgb "red" title "another entry wins there", \
     infile using ($5 > 0 ? $3 : NaN):0 skip 1 with points pt 7 ps 1.5 lc rgb "red" notitle, \
     NaN with lines dt 2 lc rgb "gray30" title "the answer as planned"
