#!/bin/sh
# e2e_tables.sh - the CLI's tables say what their rows are: compare's and
# plan's columns stay aligned with a policy label longer than the default
# column; a MIG policy on a candidate without MIG-enabled cards is "not
# applicable" (never searched, never the answer: it would run as whole
# cards under a MIG name), listed under the buyer's table, never a row of
# it, and in report.html under the answer table; --jobs-csv writes a row per job with its outcome.
# Usage: tests/e2e_tables.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
H=H100-SXM5-80GB
LONG='vgpu[split_count=20,gpu_select=fgd,mem_scaling=1.5]'
printf 'id,submit,duration,gpus\na,0,100,1\nb,10,100,1\nc,20,100,2\n' >"$T/t.csv"

# {==== alignment: each value ends where its column's header ends ====}
# colend FILE HEADER_PATTERN HEADER_FIELD ROW_FIELD: every row after the header (to the first blank
# line) has its field ROW_FIELD ending in the column where the header's field HEADER_FIELD ends
colend() {
  awk -v pat="$2" -v hf="$3" -v rf="$4" '
    function end_of(line, k,   i, n, e) { i = 1; n = 0
      while (match(substr(line, i), /[^ ]+/)) { e = i + RSTART + RLENGTH - 2; if (++n == k) return e; i = e + 1 }
      return -1 }
    $0 ~ pat { want = end_of($0, hf); on = 1; next }
    on && (NF == 0 || /^runs / || /^cards: /) { exit }  # plan: its footer follows the rows
    on { rows++; if (end_of($0, rf) != want) bad = 1 }
    END { exit bad || !rows }' "$1"
}
if check_rc compare_long_label 0 "$G" compare --trace "$T/t.csv" --gpus $H:4 --policies "whole,$LONG" --out "$T/c"; then
  # the long label's column: header field 3, a row's value field 3
  if colend "$T/out" '^metric ' 3 3; then ok compare_long_label_aligned; else no compare_long_label_aligned "$T/out"; fi
fi
if check_rc plan_long_label 0 "$G" plan --trace "$T/t.csv" --policies "whole,$LONG" --gpu $H --slo 'queue_p99<=1' \
     --out "$T/p"; then
  # "cards" is the header's 5th word ("card or cluster" is three), a row's 3rd field
  if colend "$T/out" '^policy ' 5 3; then ok plan_long_label_aligned; else no plan_long_label_aligned "$T/out"; fi
fi

# {==== a MIG policy without MIG cards: not applicable ====}
if check_rc plan_mig_without_mig_cards 0 "$G" plan --trace "$T/t.csv" --policies whole,dynmig --gpu $H \
     --slo 'queue_p99<=1' --out "$T/m"; then
  if ! grep -q '^dynmig  ' "$T/out" &&
     grep -q '^not in the table: dynmig on H100-SXM5-80GB is not applicable: no MIG-enabled cards' "$T/out" &&
     grep -q '"verdict":[[:space:]]*"not applicable"' "$T/m/plan.json" && [ ! -d "$T/m/runs/p1-dynmig" ] &&
     ! ls "$T/m/runs" 2>/dev/null | grep -q dynmig; then
    ok plan_mig_without_mig_cards_not_applicable
  else no plan_mig_without_mig_cards_not_applicable "$T/out"; fi
fi
# with --mig dynamic the same cards are MIG-enabled: searched as usual
if check_rc plan_mig_with_mig_layout 0 "$G" plan --trace "$T/t.csv" --policies dynmig --gpu $H --mig dynamic \
     --slo 'queue_p99<=5' --out "$T/m2"; then
  grep -q '"verdict":[[:space:]]*"met"' "$T/m2/plan.json" && ok plan_mig_with_mig_layout_searched || no plan_mig_with_mig_layout_searched "$T/out"
fi

# {==== --jobs-csv ====}
printf 'id,submit,duration,gpus,gpu_model\na,0,100,1,\nb,10,100,1,\nwide,20,100,9,\n"x,y",30,50,1,\nlast,5000,100,1,\n' \
  >"$T/j.csv"
if check_rc jobs_csv 0 "$G" run --trace "$T/j.csv" --gpus $H:1 --policy whole --jobs-csv --until 4000 --out "$T/j"; then
  # a completed row, the rejected one with its reason, the quoted id, nothing for the row past --until;
  # b waited for a (queue 90 s) and ran 100 s
  if grep -q '^b,job,,10.000000,100.000000,200.000000,90.000000,190.000000,1,H100-SXM5-80GB,0,1,0,0,,,completed,$' "$T/j/jobs.csv" &&
     grep -q '^wide,job,,20.000000,,20.000000,,,9,,,,0,0,,,rejected,"needs 9 GPUs, the cluster has 1' "$T/j/jobs.csv" &&
     grep -q '^"x,y",job,' "$T/j/jobs.csv" && ! grep -q '^last,' "$T/j/jobs.csv" &&
     [ "$(wc -l <"$T/j/jobs.csv")" -eq 5 ] && grep -q '"jobs_csv":[[:space:]]*"jobs.csv"' "$T/j/report.json"; then
    ok jobs_csv_rows
  else no jobs_csv_rows "$T/j/jobs.csv"; fi
fi
# a job across two nodes: both named
printf 'id,submit,duration,gpus\ng,0,10,16\n' >"$T/g.csv"
if check_rc jobs_csv_gang 0 "$G" run --trace "$T/g.csv" --gpus $H:16 --gpus-per-node 8 --policy whole --jobs-csv \
     --out "$T/g"; then
  grep -q '^g,job,,0.000000,0.000000,10.000000,0.000000,10.000000,16,H100-SXM5-80GB,0|1,' "$T/g/jobs.csv" &&
    ok jobs_csv_gang_nodes || no jobs_csv_gang_nodes "$T/g/jobs.csv"
fi
# without the flag: no file, no mention in the report
if check_rc jobs_csv_off 0 "$G" run --trace "$T/j.csv" --gpus $H:1 --policy whole --out "$T/j0"; then
  [ ! -e "$T/j0/jobs.csv" ] && ! grep -q jobs_csv "$T/j0/report.json" && ok jobs_csv_only_when_asked ||
    no jobs_csv_only_when_asked "$T/out"
fi
expect jobs_csv_not_in_fill 2 'jobs-csv is not used by --mode fill' \
  "$G" run --trace "$T/j.csv" --gpus $H:1 --policy whole --jobs-csv --mode fill --out "$T/jf"
finish
