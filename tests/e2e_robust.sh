#!/bin/sh
# e2e_robust.sh - malformed input as a new user (or a fuzzer) makes it: every
# case exits 2 or 3 with a message naming the file and where in it (line and
# column, the key path, or the parameter and its range), or runs correctly.
# Never a crash, a hang, an exit 0 on nonsense, or a half-written result.
# Usage: tests/e2e_robust.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
DAY=workloads/examples/day.csv
CL=workloads/examples/cluster.json
need_file day_trace "$DAY" || { finish; exit; }
printf 'id,submit,duration,gpus\nj1,0,10,1\nj2,5,10,2\n' >"$T/small.csv"

# {==== JSON files: one reader, line and column ====}
printf '{"nodes": [\n  {"model": "H100-SXM5-80GB", "gpus": 8,}\n]}\n' >"$T/syntax.json"
expect cluster_syntax_error_line_column 3 "cluster '$T/syntax.json' line 2, column 41: unexpected '}'" \
  "$G" run --trace "$T/small.csv" --policy whole --cluster "$T/syntax.json" --out "$T/o1"
printf '{"nodes": [{"model": "H100-SXM5-80GB", "gpus": 8, "gpus": 4}]}\n' >"$T/dup.json"
expect cluster_duplicate_key_named 3 "duplicate key 'nodes\[0\].gpus'" \
  "$G" run --trace "$T/small.csv" --policy whole --cluster "$T/dup.json" --out "$T/o2"
printf '{"nodes": [{"model": "H100-SXM5-80GB", "gpus": 8}]}\n{"x": 1}\n' >"$T/trail.json"
expect cluster_trailing_value 3 "line 2, column 1: unexpected '{' after the JSON value" \
  "$G" run --trace "$T/small.csv" --policy whole --cluster "$T/trail.json" --out "$T/o3"
printf '\357\273\277{"nodes": [{"model": "H100-SXM5-80GB", "gpus": 8}]}\n' >"$T/bom.json"
expect cluster_bom_accepted 0 "report:" \
  "$G" run --trace "$T/small.csv" --policy whole --cluster "$T/bom.json" --out "$T/o4"
expect cluster_directory_named 3 "cluster '$T' is a directory" \
  "$G" run --trace "$T/small.csv" --policy whole --cluster "$T" --out "$T/o5"

# {==== report.json is valid UTF-8 whatever the trace holds ====}
printf 'id,submit,duration,gpus\nj\377\351x,0,10,1\n' >"$T/latin1.csv"
if check_rc report_valid_utf8 0 "$G" run --trace "$T/latin1.csv" --policy whole --out "$T/u" &&
   python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' \
     "$T/u/report.json" >"$T/msg" 2>&1; then ok report_valid_utf8
else no report_valid_utf8 "$T/msg"; fi

# {==== plot and check agree on what a report is ====}
"$G" run --trace "$T/small.csv" --policy whole --out "$T/good" >/dev/null 2>&1
mkdir -p "$T/cmp" "$T/noin"
echo '{"kind":"compare"}' >"$T/cmp/compare.json"
expect plot_compare_without_members 3 "compare '$T/cmp/compare.json': trace: missing" "$G" plot --no-svg "$T/cmp"
if [ "$(ls "$T/cmp")" = compare.json ]; then ok plot_bad_compare_writes_nothing
else ls "$T/cmp" >"$T/msg"; no plot_bad_compare_writes_nothing "$T/msg"; fi
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); del r["inputs"]; json.dump(r, open(sys.argv[2], "w"))' \
  "$T/good/report.json" "$T/noin/report.json"
cp "$T/good/timeseries.csv" "$T/noin/"
expect plot_report_without_inputs 3 "report '$T/noin/report.json': inputs: missing, expected an object" \
  "$G" plot --no-svg "$T/noin"
if [ "$(ls "$T/noin" | tr '\n' ' ')" = "report.json timeseries.csv " ]; then ok plot_bad_report_writes_nothing
else ls "$T/noin" >"$T/msg"; no plot_bad_report_writes_nothing "$T/msg"; fi
expect check_report_without_inputs 3 "inputs: missing" "$G" check "$T/noin" --baseline "$T/good/report.json"
# a bad second directory: nothing is drawn into the good first one either
mkdir -p "$T/good2" && cp "$T/good/report.json" "$T/good2/"
expect plot_second_dir_bad 3 "trace: missing" "$G" plot --no-svg "$T/good2" "$T/cmp"
if [ "$(ls "$T/good2")" = report.json ]; then ok plot_bad_second_dir_writes_nothing
else ls "$T/good2" >"$T/msg"; no plot_bad_second_dir_writes_nothing "$T/msg"; fi
echo '{"kind":"plan","trace":"t","gpu":"g","slo":[{"path":"x","op":"<="}],"policies":[]}' >"$T/cmp/plan.json"
rm "$T/cmp/compare.json"
expect plot_plan_missing_value 3 "slo\[0\].value: missing" "$G" plot --no-svg "$T/cmp"
printf '{"kind":"compare",\n"trace": "t" "x"}' >"$T/cmp/compare.json"
expect plot_compare_syntax_line_column 3 "line 2, column 14: unexpected '\"': expected ',' or '}'" \
  "$G" plot --no-svg "$T/cmp"

finish
