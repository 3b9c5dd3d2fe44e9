#!/bin/sh
# merge_traces.sh A.csv B.csv OUT.csv - one trace from two (format v1, columns by name): the union
# of their columns (A's first, then B's new ones, empty where a row has none) and every row, in
# submit order. The sort is stable, so rows with one submit time keep their file order (a session
# before its bursts). Traces with quoted fields (a comma inside a value) are refused: split by
# commas here, they would come out wrong. Used by `make demo` for the example day plus the agents.
set -e
[ $# -eq 3 ] || { echo "usage: $0 A.csv B.csv OUT.csv" >&2; exit 2; }
if grep -q '"' "$1" "$2"; then echo "$0: quoted fields are not supported" >&2; exit 3; fi
tmp="$3.rows.$$"
awk -F, -v OFS=, '
FNR == 1 { f++; for (i = 1; i <= NF; i++) { col[f, i] = $i; if (!($i in pos)) { pos[$i] = ++n; name[n] = $i } } next }
{ r++; for (i = 1; i <= NF; i++) cell[r, pos[col[f, i]]] = $i }
END {
  h = name[1]; for (i = 2; i <= n; i++) h = h OFS name[i]; print h
  for (k = 1; k <= r; k++) { line = cell[k, 1]; for (i = 2; i <= n; i++) line = line OFS cell[k, i]; print line > "/dev/stderr" }
}' "$1" "$2" 2>"$tmp" >"$3.tmp.$$"
sort -s -t, -k2,2g "$tmp" >>"$3.tmp.$$"
rm -f "$tmp"
mv "$3.tmp.$$" "$3"
