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
# a GPU total past the limits (once a signed overflow and an 18 EB allocation)
printf '{"nodes": [' >"$T/huge.json"
for i in 1 2 3; do printf '{"model": "H100-SXM5-80GB", "count": 10000000, "gpus": 64},' >>"$T/huge.json"; done
printf '{"model": "H100-SXM5-80GB", "count": 10000000, "gpus": 64}]}\n' >>"$T/huge.json"
expect cluster_gpu_total_limit 3 "exceed the limit of 4000000 nodes and 16000000 GPUs" \
  "$G" run --trace "$T/small.csv" --policy whole --cluster "$T/huge.json" --out "$T/o6"
spec=H100-SXM5-80GB:100000000; for i in $(seq 21); do spec="$spec,H100-SXM5-80GB:100000000"; done
expect gpus_spec_total_limit 3 "exceed the limit of" \
  "$G" run --trace "$T/small.csv" --policy whole --gpus "$spec" --out "$T/o7"
printf '{"nodes": [\n {"model": "H100-SXM5-80GB", "count": "N",}]}' >"$T/tpl.json"
expect cluster_template_syntax_line_column 3 "cluster template '$T/tpl.json' line 2, column 43: unexpected '}'" \
  "$G" plan --trace "$T/small.csv" --policy whole --cluster-template "$T/tpl.json" --slo 'jobs.queue_s.p99<=600' \
  --out "$T/o8"

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

# {==== traces ====}
printf '\357\273\277id,submit,duration,gpus\nj1,0,10,1\n' >"$T/bom.csv"
expect trace_bom_accepted 0 "arrived 1" "$G" run --trace "$T/bom.csv" --policy whole --out "$T/t1"
printf 'id,submit,duration,gpus\nj1,0,1\00000,1\n' >"$T/nul.csv"
expect trace_nul_byte_line_column 3 "trace '$T/nul.csv' line 2, column 3: NUL byte" \
  "$G" run --trace "$T/nul.csv" --policy whole --out "$T/t2"
printf 'id,submit,duration,gpus,cpu\nj1,0,10,1,0x10\n' >"$T/hex.csv"
expect trace_hex_number 3 "line 2, column 5 ('cpu'): expected a non-negative number of cores, found '0x10'" \
  "$G" run --trace "$T/hex.csv" --policy whole --out "$T/t3"
# a column no layer of the run reads is left unread (its values not checked) and named; the shipped
# cluster limits CPU (above: read), --gpus does not; --check-all-columns reads it as before
expect trace_unread_column_runs 0 "columns this run does not read (their values not checked): cpu" \
  "$G" run --trace "$T/hex.csv" --policy whole --gpus A100-SXM4-80GB:8 --out "$T/u1"
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["inputs"]["unread_columns"] != ["cpu"])' \
     "$T/u1/report.json" 2>/dev/null; then ok trace_unread_column_in_report
else no trace_unread_column_in_report "$T/out"; fi
if "$G" plot --no-svg "$T/u1" >"$T/msg" 2>&1 && grep -q "does not read (their values not checked): cpu" "$T/u1/report.html"; then
  ok trace_unread_column_in_report_html
else no trace_unread_column_in_report_html "$T/msg"; fi
expect trace_check_all_columns_reads_it 3 "trace '$T/hex.csv' line 2, column 5 ('cpu'): expected a non-negative" \
  "$G" run --trace "$T/hex.csv" --policy whole --gpus A100-SXM4-80GB:8 --check-all-columns --out "$T/u2"
# preemptible: read when preemption is on, unread without it
printf 'id,submit,duration,gpus,preemptible\nj1,0,10,1,yes\n' >"$T/pre.csv"
expect trace_preemptible_unread_without_preemption 0 "not checked): preemptible" \
  "$G" run --trace "$T/pre.csv" --policy whole --gpus A100-SXM4-80GB:8 --out "$T/u3"
expect trace_preemptible_read_with_preemption 3 "line 2, column 5 ('preemptible'): expected 0 or 1, found 'yes'" \
  "$G" run --trace "$T/pre.csv" --policy whole --gpus A100-SXM4-80GB:8 --set preempt=on --out "$T/u4"
printf 'id,submit,duration,gpus,tenant,tier\nj1,0,10,1,a,spot\n' >"$T/tier.csv"
expect trace_policy_that_says_nothing_reads_all 3 "column 6 ('tier'): expected any or no-spot" \
  "$G" run --trace "$T/tier.csv" --policy vgpu --gpus A100-SXM4-80GB:8 --out "$T/u5"
# unread columns change no figure: the same report (but the field) and timeseries with every column
# read, on the full job layout and on random values in every column a run may leave unread (no kind
# column: no service rows), under configurations that read more or fewer of them
"$G" gen mmc --jobs 3000 --servers 16 --util 0.9 --seed 3 --out "$T/mmc.csv" >/dev/null 2>&1
eval "$(sed -n '/^full_layout()/,/^}/p' scripts/bench_trace.sh)"
full_layout <"$T/mmc.csv" >"$T/full.csv"
awk 'BEGIN { FS = OFS = ","; srand(7) }
  NR == 1 { print "id,submit,duration,gpus,priority,gpumem,gpucores,gpumem_pct,preemptible,checkpoint_gib," \
                  "params_b,tenant,cpu,mem_gib,time_limit,tier"; next }
  { print $1, $2, $3, $4, int(rand() * 3), 1 + int(rand() * 81920), 1 + int(rand() * 100), 1 + int(rand() * 100),
          int(rand() * 2), rand() < 0.5 ? "" : int(rand() * 2000), rand() < 0.5 ? "" : int(rand() * 400),
          "team-" int(rand() * 5), int(rand() * 300), int(rand() * 3000), 1 + int(rand() * 1e5),
          rand() < 0.5 ? "any" : "no-spot" }' "$T/mmc.csv" >"$T/rand.csv"
printf '{"nodes": [{"model": "A100-SXM4-80GB", "count": 2, "gpus": 8}], "tenants": [{"name": "team-1", "gpus": 4}]}' \
  >"$T/quota.json"
same_unread() { # name, args: the run with unread columns and with --check-all-columns alike
  n=$1; shift
  "$G" run "$@" --out "$T/ua" >/dev/null 2>&1 && "$G" run "$@" --check-all-columns --out "$T/ub" >/dev/null 2>&1 &&
  python3 - "$T/ua/report.json" "$T/ub/report.json" >"$T/msg" 2>&1 <<'PY' && cmp -s "$T/ua/timeseries.csv" "$T/ub/timeseries.csv"
import json, sys
T = {"wall_s", "setup_s", "cpu_s", "events_per_s", "peak_rss_mib"}
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in T}
    return [strip(v) for v in o] if isinstance(o, list) else o
a, b = (json.load(open(p)) for p in sys.argv[1:])
unread = a["inputs"].pop("unread_columns", [])
assert unread and "unread_columns" not in b["inputs"], (unread, b["inputs"])
assert strip(a) == strip(b), "reports differ"
PY
  if [ $? = 0 ]; then ok "trace_unread_columns_change_no_figure_$n"; else no "trace_unread_columns_change_no_figure_$n" "$T/msg"; fi
}
same_unread full_layout --trace "$T/full.csv" --policy whole --gpus A100-SXM4-80GB:16
same_unread random --trace "$T/rand.csv" --policy whole --gpus A100-SXM4-80GB:16
same_unread random_backfill --trace "$T/rand.csv" --policy whole --gpus A100-SXM4-80GB:16 --set queue=backfill
same_unread random_host_limits --trace "$T/rand.csv" --policy whole
same_unread random_quota --trace "$T/rand.csv" --policy whole --cluster "$T/quota.json"
same_unread random_preempt --trace "$T/rand.csv" --policy whole --gpus A100-SXM4-80GB:16 --set preempt=on --set min_runtime=0
same_unread random_failures --trace "$T/rand.csv" --policy whole --gpus A100-SXM4-80GB:16 --set failures=on
printf 'id,submit,duration,gpus,util\nj1,0,10,1,nan\n' >"$T/nan.csv"
expect trace_nan_number 3 "line 2, column 5 ('util')" "$G" run --trace "$T/nan.csv" --policy whole --out "$T/t4"
expect trace_directory_named 3 "trace '$T' is a directory" "$G" run --trace "$T" --policy whole --out "$T/t5"

# {==== importers: nothing to convert is an error, never an empty success ====}
FXO=workloads/traces/alibaba-openb-gpu-v2023/openb_pod_list_default.csv
if need_file openb_pods "$FXO"; then
  head -1 "$FXO" >"$T/pods_header.csv"
  expect import_openb_header_only 3 "'$T/pods_header.csv': no pod rows after the header" \
    "$G" import openb "$T/pods_header.csv" --out-trace "$T/i1.csv"
fi
expect import_openb_directory 3 "'$T' is a directory" "$G" import openb "$T" --out-trace "$T/i2.csv"
: >"$T/empty.csv"
expect import_azure_empty 3 "'$T/empty.csv': empty file (expected the header TIMESTAMP" \
  "$G" import azure-llm "$T/empty.csv" --out-trace "$T/i3.csv"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n' >"$T/az_header.csv"
expect import_azure_header_only 3 "no request rows after the header" \
  "$G" import azure-llm "$T/az_header.csv" --out-trace "$T/i4.csv"
expect import_azure_directory 3 "'$T' is a directory" "$G" import azure-llm "$T" --out-trace "$T/i5.csv"
if [ ! -e "$T/i1.csv" ] && [ ! -e "$T/i3.csv" ] && [ ! -e "$T/i4.csv" ]; then ok import_failure_writes_nothing
else ls "$T" >"$T/msg"; no import_failure_writes_nothing "$T/msg"; fi
expect import_mooncake_empty 3 "no request lines" "$G" import mooncake "$T/empty.csv" --out-trace "$T/i6.csv"
expect import_mooncake_directory 3 "'$T' is a directory" "$G" import mooncake "$T" --out-trace "$T/i7.csv"
expect import_azure_gpus_banana 2 "--gpus: expected a whole number from 1 to 64, found 'banana'" \
  "$G" import azure-llm "$T/az_header.csv" --gpus banana

# {==== flags ====}
expect seed_overflow 2 "--seed: expected an integer 0..18446744073709551615" \
  "$G" run --trace "$T/small.csv" --policy whole --seed 99999999999999999999999 --out "$T/f1"
expect gen_seed_overflow 2 "--seed: expected an integer 0..18446744073709551615" \
  "$G" gen mmc --jobs 10 --servers 2 --util 0.5 --seed 99999999999999999999999
expect gen_agents_seed_overflow 2 "--seed: expected an integer" "$G" gen agents --sessions 2 --seed -1
expect seed_negative 2 "--seed: expected" "$G" run --trace "$T/small.csv" --policy whole --seed -1 --out "$T/f2"
expect seed_max_accepted 0 "report:" \
  "$G" run --trace "$T/small.csv" --policy whole --seed 18446744073709551615 --out "$T/f3"
expect seeds_overflow 2 "--seeds: expected A..B" \
  "$G" run --trace "$T/small.csv" --policy whole --mode fill --seeds 1..99999999999999999999 --out "$T/f4"
expect fill_to_needs_fill_mode 2 "--fill-to need --mode fill" \
  "$G" run --trace "$T/small.csv" --policy whole --fill-to 1.3 --out "$T/f5"
expect compare_slo_unknown_metric 2 "--slo: no metric 'nosuch' (nearest: " \
  "$G" compare --trace "$T/small.csv" --policies whole --slo 'nosuch<=1' --jobs 1 --out "$T/f6"
if check_rc plan_no_price 0 "$G" plan --trace "$T/small.csv" --policy whole --gpu A10-24GB \
     --slo 'jobs.queue_s.p99<=600' --jobs 1 --out "$T/f7"; then
  if has "$T/out" "no price" && ! has "$T/out" nan; then ok plan_no_price; else no plan_no_price "$T/out"; fi
fi

# {==== outputs committed as one unit ====}
"$G" run --trace "$T/small.csv" --policy whole --out "$T/unit" >/dev/null 2>&1
echo mine >"$T/unit/notes.txt"
if check_rc sample0_removes_stale_timeseries 0 "$G" run --trace "$T/small.csv" --policy whole --sample-s 0 --out "$T/unit"; then
  if [ ! -e "$T/unit/timeseries.csv" ] && [ -s "$T/unit/report.json" ] && [ "$(cat "$T/unit/notes.txt")" = mine ] &&
     [ -z "$(ls -d "$T"/unit.tmp.* 2>/dev/null)" ]; then ok sample0_removes_stale_timeseries
  else ls -la "$T" "$T/unit" >"$T/msg"; no sample0_removes_stale_timeseries "$T/msg"; fi
fi
cp "$T/unit/report.json" "$T/unit.before"
expect failed_run_keeps_old_output 3 "column 5 ('cpu')" "$G" run --trace "$T/hex.csv" --policy whole --out "$T/unit"
if cmp -s "$T/unit/report.json" "$T/unit.before" && [ -z "$(ls -d "$T"/unit.tmp.* 2>/dev/null)" ]; then
  ok failed_run_leaves_old_report_and_no_temporary
else ls -la "$T" >"$T/msg"; no failed_run_leaves_old_report_and_no_temporary "$T/msg"; fi
expect failed_run_makes_no_directory 3 "NUL byte" "$G" run --trace "$T/nul.csv" --policy whole --out "$T/never/made"
if [ ! -e "$T/never/made" ] && [ -z "$(ls -d "$T"/never/made.tmp.* 2>/dev/null)" ]; then ok failed_run_no_output_dir
else ls -laR "$T/never" >"$T/msg"; no failed_run_no_output_dir "$T/msg"; fi
# a signal while the run waits on its trace (a FIFO whose writer stays open)
for sig in TERM INT; do
  mkdir -p "$T/sig$sig" && mkfifo "$T/sig$sig/f"
  ( printf 'id,submit,duration,gpus\nj1,0,10,1\n'; sleep 3 ) >"$T/sig$sig/f" &
  wpid=$!
  "$G" run --trace "$T/sig$sig/f" --policy whole --out "$T/sig$sig/out" >/dev/null 2>&1 &
  pid=$!
  n=0; while [ -z "$(ls -d "$T/sig$sig"/out.tmp.* 2>/dev/null)" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
  kill -$sig $pid; wait $pid 2>/dev/null; rc=$?; kill $wpid 2>/dev/null
  if [ $n -lt 100 ] && [ "$(ls "$T/sig$sig")" = f ] && [ $rc -gt 128 ]; then ok "signal_${sig}_removes_temporaries"
  else { echo "rc $rc waited $n"; ls -laR "$T/sig$sig"; } >"$T/msg"; no "signal_${sig}_removes_temporaries" "$T/msg"; fi
done
# SIGBUS, what reading a mapped trace file truncated under the run raises: an input error (exit 3,
# a message), temporaries removed. Sent while the run waits on a FIFO: the same handler, no race.
mkdir -p "$T/sigBUS" && mkfifo "$T/sigBUS/f"
( printf 'id,submit,duration,gpus\nj1,0,10,1\n'; sleep 3 ) >"$T/sigBUS/f" &
wpid=$!
"$G" run --trace "$T/sigBUS/f" --policy whole --out "$T/sigBUS/out" >/dev/null 2>"$T/sigBUS.err" &
pid=$!
n=0; while [ -z "$(ls -d "$T/sigBUS"/out.tmp.* 2>/dev/null)" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
kill -BUS $pid; wait $pid 2>/dev/null; rc=$?; kill $wpid 2>/dev/null
if [ $n -lt 100 ] && [ "$(ls "$T/sigBUS")" = f ] && [ $rc -eq 3 ] &&
  grep -q "input file became shorter while it was being read" "$T/sigBUS.err"; then ok signal_BUS_is_an_input_error
else { echo "rc $rc waited $n"; cat "$T/sigBUS.err"; ls -laR "$T/sigBUS"; } >"$T/msg"; no signal_BUS_is_an_input_error "$T/msg"; fi

# {==== typed parameters ====}
expect set_banana 2 "--set svc_util_high='banana': expected number 0..1e+06" \
  "$G" run --trace "$DAY" --policy whole --set svc_util_high=banana --out "$T/p1"
expect set_abc 2 "--set svc_slo_ms='abc': expected number" \
  "$G" run --trace "$DAY" --policy whole --set svc_slo_ms=abc --out "$T/p2"
expect scale_period_floor 2 "svc_scale_period_s='1e-9': expected duration 0.1..86400 s" \
  "$G" run --trace "$DAY" --policy whole --set svc_scale_period_s=1e-9 --out "$T/p3"
if [ -z "$(ls -d "$T"/p3* 2>/dev/null)" ]; then ok scale_period_no_temporary
else ls -la "$T" >"$T/msg"; no scale_period_no_temporary "$T/msg"; fi
expect scale_period_units 0 "report:" \
  "$G" run --trace "$T/small.csv" --policy whole --set svc_scale_period_s=500ms --out "$T/p4"
if check_rc policies_show_types 0 "$G" policies; then
  if has "$T/out" 'svc_scale_period_s=15.\[duration 0.1..86400 s' && has "$T/out" 'queue=skip.\[skip or fifo\]' &&
     has "$T/out" 'pause_after=900.\[duration 0..1e+09 s (units us, ms, s, m, h) or off\]'; then ok policies_show_types
  else no policies_show_types "$T/out"; fi
fi

# {==== bounded work ====}
expect sample_s_floor 2 "--sample-s: expected 0 (no timeseries) or seconds from 0.001" \
  "$G" run --trace "$T/small.csv" --policy whole --sample-s 0.000001 --out "$T/b1"
printf 'id,submit,duration,gpus\nj1,0,10,1\nj2,9000000000000,10,1\n' >"$T/far.csv"
if check_rc far_submit_bounded 0 "$G" run --trace "$T/far.csv" --policy whole --out "$T/b2"; then
  rows=$(($(wc -l <"$T/b2/timeseries.csv") - 1))
  if [ "$rows" -le 100000 ] && has "$T/b2/report.json" '"timeseries_step_s"' &&
     grep -q "\"timeseries_rows\":.*$rows," "$T/b2/report.json"; then ok far_submit_bounded
  else echo "rows $rows" >"$T/msg"; grep timeseries "$T/b2/report.json" >>"$T/msg"; no far_submit_bounded "$T/msg"; fi
fi

# a 100 s service asking 5000 (and 100,000) replicas of 16 GPUs: the replicas
# stop at its end (those busy finish the batch in hand, well under a second
# here): 16 cold starts, about 100 s simulated, at most 16 GPUs x that in
# GPU-hours (0.44; it was 74.6, with 5000 cold starts and 16,820 s); and the
# work does not grow with the replicas still waiting for GPUs
for n in 5000 100000; do
  printf 'id,submit,duration,gpus,kind,replicas_min,replicas_max,rate,svc_mean_ms\nsvc,0,100,1,service,%d,%d,1000,50\n' \
    "$n" "$n" >"$T/rep$n.csv"
  if check_rc "replicas_${n}_stop_at_end" 0 timeout 60 "$G" run --trace "$T/rep$n.csv" --policy whole \
       --gpus H100-SXM5-80GB:16 --sample-s 0 --out "$T/rep$n"; then
    if python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
gh, cold, end = r["gpu"]["gpu_hours"], r["services"][0]["replicas"]["cold_starts"], r["sim"]["end_s"]
print("gpu_hours", gh, "cold_starts", cold, "end_s", end)
sys.exit(0 if gh <= 16 * end / 3600 + 1e-9 and cold == 16 and 100 <= end < 101 else 1)' "$T/rep$n/report.json" >"$T/msg" 2>&1
    then ok "replicas_${n}_stop_at_end"; else no "replicas_${n}_stop_at_end" "$T/msg"; fi
  fi
done

# {==== one option table: run, compare and plan check a shared option alike ====}
# (compare took --gpus-per-node 100, plan handed '--set noeq' to its runs)
for cmd in run compare plan; do
  case $cmd in
    run) args="--policy whole --gpus H100-SXM5-80GB:8" ;;
    compare) args="--policies whole --gpus H100-SXM5-80GB:8" ;;
    plan) args="--policy whole --gpu H100-SXM5-80GB --slo queue_p99<=1" ;;
  esac
  # shellcheck disable=SC2086
  expect "${cmd}_gpus_per_node_bounded" 2 "--gpus-per-node: expected an integer 1..64, found '100'" \
    "$G" $cmd --trace "$T/small.csv" --out "$T/opt.$cmd" $args --gpus-per-node 100
  # shellcheck disable=SC2086
  expect "${cmd}_set_needs_key_value" 2 "^gpusim: error: --set: expected KEY=VALUE, found 'noeq'" \
    "$G" $cmd --trace "$T/small.csv" --out "$T/opt.$cmd" $args --set noeq
  # shellcheck disable=SC2086
  expect "${cmd}_until_positive" 2 "^gpusim: error: --until: expected a number in (0, 9e+12\], found '-5'" \
    "$G" $cmd --trace "$T/small.csv" --out "$T/opt.$cmd" $args --until -5
done

finish
