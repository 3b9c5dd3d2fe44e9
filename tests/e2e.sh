#!/bin/sh
# e2e.sh - the command line end to end, as a user runs it: the example, bad
# input, bad usage, determinism of the written report, atomic output.
# Usage: tests/e2e.sh [GPUSIM]   (default build/test/gpusim, the sanitized build)
# Prints [ok]/[FAIL] per check and ends with "N passed, N failed".
G=${1:-build/test/gpusim}
T=$(mktemp -d /tmp/gpusim-e2e-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "[ok]   e2e/$1"; }
no() { fail=$((fail + 1)); echo "[FAIL] e2e/$1"; [ -n "$2" ] && sed 's/^/    /' "$2" | head -20; }
# check NAME EXPECTED_RC CMD... : runs CMD, output in $T/out, compares rc
check_rc() {
  name=$1; want=$2; shift 2
  "$@" >"$T/out" 2>&1; rc=$?
  if [ "$rc" -eq "$want" ]; then return 0; fi
  echo "    exit $rc, expected $want: $*" >>"$T/out"; no "$name" "$T/out"; return 1
}
has() { grep -q -- "$2" "$1"; }

# 1. the example runs and every row is accounted for
if check_rc example_run 0 "$G" run --trace workloads/examples/day.csv --policy whole --out "$T/ex" --json; then
  rows=$(grep -c . workloads/examples/day.csv); rows=$((rows - 1))
  r="$T/ex/report.json"
  get() { grep "\"$1\":" "$r" | head -1 | sed 's/.*:[[:space:]]*//; s/,$//'; }
  a=$(get arrived); c=$(get completed); ru=$(get running); q=$(get queued); rj=$(get rejected)
  if [ -s "$r" ] && [ -s "$T/ex/timeseries.csv" ] && [ "$a" = "$rows" ] && [ $((c + ru + q + rj)) -eq "$a" ] &&
     has "$T/out" '"alloc_ratio"' && has "$r" '"p99"'; then ok example_run_accounts_every_row
  else echo "    arrived=$a rows=$rows completed=$c running=$ru queued=$q rejected=$rj" >"$T/msg"; no example_run_accounts_every_row "$T/msg"; fi
fi

# 2. same inputs, same report, byte for byte (timing fields aside)
"$G" run --trace workloads/examples/day.csv --policy whole --out "$T/ex2" >/dev/null 2>&1
strip() { grep -v -e '"wall_s"' -e '"events_per_s"' -e '"peak_rss_mib"' "$1"; }
if strip "$T/ex/report.json" >"$T/a" && strip "$T/ex2/report.json" >"$T/b" && cmp -s "$T/a" "$T/b" &&
   cmp -s "$T/ex/timeseries.csv" "$T/ex2/timeseries.csv"; then ok report_byte_identical
else diff "$T/a" "$T/b" >"$T/msg"; no report_byte_identical "$T/msg"; fi

# 3. malformed trace: exit 3, names file, line and column, writes nothing
printf 'id,submit,duration,gpus\na,0,10,1\nb,1,ten,1\n' >"$T/bad.csv"
if check_rc malformed_trace 3 "$G" run --trace "$T/bad.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/bad"; then
  if has "$T/out" "bad.csv' line 3, column 3 ('duration')" && [ ! -e "$T/bad/report.json" ] &&
     [ -z "$(ls "$T/bad" 2>/dev/null)" ]; then ok malformed_trace_exit3_line_column_no_output
  else no malformed_trace_exit3_line_column_no_output "$T/out"; fi
fi

# 4. an error late in the trace (after much work was simulated) leaves no report and no temp files
"$G" gen mmc --jobs 2000 --servers 8 --util 0.8 --out "$T/late.csv" >/dev/null
printf 'x1,99999,1,99\n' >>"$T/late.csv"
if check_rc late_error 3 "$G" run --trace "$T/late.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/late"; then
  if has "$T/out" "line 2002, column 4 ('gpus')" && [ -z "$(ls -A "$T/late" 2>/dev/null)" ]; then ok late_error_leaves_nothing
  else ls -A "$T/late" >>"$T/out"; no late_error_leaves_nothing "$T/out"; fi
fi

# 5. unknown policy: exit 2 and the valid names
if check_rc unknown_policy 2 "$G" run --trace workloads/examples/day.csv --policy nosuch; then
  if has "$T/out" "unknown space policy 'nosuch' (valid: whole" ; then ok unknown_policy_exit2_lists_valid
  else no unknown_policy_exit2_lists_valid "$T/out"; fi
fi

# 6. unknown model, unknown --set key, bad option: exit 2
# (issue 7 added A10-24GB, which sorts first)
if check_rc unknown_model 2 "$G" run --trace workloads/examples/day.csv --policy whole --gpus V100:8; then
  if has "$T/out" "unknown GPU model 'V100' (known: A10-24GB, A100-SXM4-40GB"; then ok unknown_model_exit2_lists_known
  else no unknown_model_exit2_lists_known "$T/out"; fi
fi
check_rc unknown_set 2 "$G" run --trace workloads/examples/day.csv --policy whole --set colour=red && ok unknown_set_key_exit2
check_rc bad_option 2 "$G" run --trace workloads/examples/day.csv --policy whole --frobnicate && ok unknown_option_exit2
check_rc no_command 2 "$G" && ok no_command_exit2

# 7. missing trace file and bad cluster file: exit 3
check_rc missing_trace 3 "$G" run --trace "$T/none.csv" --policy whole && ok missing_trace_exit3
printf '{"nodes":[{"model":"H100-SXM5-80GB","gpus":"eight"}]}' >"$T/cl.json"
if check_rc bad_cluster 3 "$G" run --trace workloads/examples/day.csv --policy whole --cluster "$T/cl.json"; then
  has "$T/out" "nodes\[0\].gpus" && ok bad_cluster_exit3 || no bad_cluster_exit3 "$T/out"
fi

# 8. unwritable output: exit 4
if check_rc unwritable 4 "$G" run --trace workloads/examples/day.csv --policy whole --out /proc/gpusim-cannot; then ok unwritable_output_exit4; fi

# 9. help, policies, models
check_rc help 0 "$G" --help && has "$T/out" "run" && ok help_exit0
check_rc run_help 0 "$G" run --help && has "$T/out" "--gpus-per-node" && ok run_help_exit0
check_rc policies 0 "$G" policies && has "$T/out" "queue=skip" && ok policies_list_params
check_rc models 0 "$G" models && has "$T/out" "H200-SXM5-141GB" && ok models_list

# 10. gen mmc is deterministic, and --until accounts rows never reached
"$G" gen mmc --jobs 500 --servers 4 --util 0.9 --seed 3 --out "$T/g1.csv"
"$G" gen mmc --jobs 500 --servers 4 --util 0.9 --seed 3 >"$T/g2.csv"
cmp -s "$T/g1.csv" "$T/g2.csv" && [ "$(wc -l <"$T/g1.csv")" -eq 501 ] && ok gen_mmc_deterministic || no gen_mmc_deterministic
if check_rc until 0 "$G" run --trace "$T/g1.csv" --policy whole --gpus H100-SXM5-80GB:4 --until 50 --json; then
  n=$(grep '"not_arrived"' "$T/out" | sed 's/[^0-9]//g'); a=$(grep '"arrived"' "$T/out" | sed 's/[^0-9]//g')
  [ $((n + a)) -eq 500 ] && [ "$n" -gt 0 ] && has "$T/out" '"end_s":[[:space:]]*50' && ok until_accounts_not_arrived || no until_accounts_not_arrived "$T/out"
fi

# 11. shared cards (issue 3): vgpu and timeslice on the example day, the same
# report twice (swap mode, so the swap figures are exercised), bad parameters
for p in vgpu timeslice; do
  if check_rc "share_$p" 0 "$G" run --trace workloads/examples/day.csv --policy $p --set oom_retry=1 \
      --out "$T/$p" --json; then
    has "$T/out" '"busy_ratio"' && has "$T/out" '"mem_alloc_ratio"' && has "$T/out" '"oom_killed"' &&
      ok "share_${p}_reports_sharing_fields" || no "share_${p}_reports_sharing_fields" "$T/out"
  fi
done
S="--trace workloads/examples/day.csv --policy vgpu --set mem_scaling=1.5 --set oversub=swap"
"$G" run $S --out "$T/sw1" >/dev/null 2>&1
"$G" run $S --out "$T/sw2" >/dev/null 2>&1
if strip "$T/sw1/report.json" >"$T/a" && strip "$T/sw2/report.json" >"$T/b" && cmp -s "$T/a" "$T/b" &&
   has "$T/a" '"swap"' && has "$T/a" '"thrash_s"'; then ok share_vgpu_swap_report_byte_identical
else diff "$T/a" "$T/b" >"$T/msg" 2>&1; no share_vgpu_swap_report_byte_identical "$T/msg"; fi
if check_rc share_bad_param 2 "$G" run --trace workloads/examples/day.csv --policy vgpu --set core_policy=sometimes; then
  has "$T/out" "expected default, force or disable" && ok share_bad_core_policy_exit2 || no share_bad_core_policy_exit2 "$T/out"
fi
printf 'id,submit,duration,gpus,util\na,0,1,1,1.5\n' >"$T/u.csv"
if check_rc share_bad_util 3 "$G" run --trace "$T/u.csv" --policy timeslice; then
  has "$T/out" "line 2, column 5 ('util')" && ok share_bad_util_exit3 || no share_bad_util_exit3 "$T/out"
fi

# 12. inference: a request to an undeclared service is bad input; the azure importer streams a real trace
printf 'id,submit,kind,service,output_tokens\nr,0,request,ghost,5\n' >"$T/req.csv"
if check_rc unknown_service 3 "$G" run --trace "$T/req.csv" --policy whole --gpus H100-SXM5-80GB:8; then
  has "$T/out" "line 2: request 'r' names service 'ghost'" && ok unknown_service_exit3 || no unknown_service_exit3 "$T/out"
fi
AZ=../shared/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv
if [ -f "$AZ" ]; then
  if check_rc import_azure 0 "$G" import azure-llm "$AZ" --limit 500 --out-trace "$T/az.csv"; then
    if has "$T/out" "500 requests converted" && [ "$(grep -c ',request,llm,' "$T/az.csv")" -eq 500 ] &&
       "$G" run --trace "$T/az.csv" --policy whole --gpus H100-SXM5-80GB:32 --json >"$T/azr" 2>&1 &&
       grep -q '"served":[[:space:]]*500' "$T/azr"; then ok import_azure_and_serve
    else no import_azure_and_serve "$T/out"; fi
  fi
fi

# 13. openb (issue 7): every shipped pod and node list imports, with row accounting that adds up
OB=../shared/traces/alibaba-openb-gpu-v2023
if [ -d "$OB" ]; then
  bad=""
  for f in "$OB"/openb_pod_list_*.csv; do
    rows=$(($(grep -c . "$f") - 1))
    if "$G" import openb "$f" --out-trace "$T/ob.csv" >"$T/out" 2>&1; then
      set -- $(sed -n 's/^import openb: \([0-9]*\) pod rows read, \([0-9]*\) converted.*, \([0-9]*\) skipped.*/\1 \2 \3/p' "$T/out")
      out=$(($(grep -c . "$T/ob.csv") - 1))
      [ "${1:-x}" = "$rows" ] && [ $(($2 + $3)) -eq "$rows" ] && [ "$out" -eq "$2" ] || bad="$bad $(basename "$f")"
    else bad="$bad $(basename "$f")"; fi
  done
  for f in "$OB"/openb_node_list_*.csv; do
    rows=$(($(grep -c . "$f") - 1))
    gpus=$(awk -F, 'NR > 1 { s += $4 } END { print s }' "$f")
    if "$G" import openb "$OB/openb_pod_list_default.csv" --nodes "$f" --out-trace "$T/ob.csv" \
         --out-cluster "$T/ob.json" >"$T/out" 2>&1 &&
       has "$T/out" "$rows node rows read, $rows converted ($gpus GPUs" &&
       "$G" run --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu --set split_count=20 --until 1 \
         --sample-s 0 --out "$T/obr" >/dev/null 2>&1; then :
    else bad="$bad $(basename "$f")"; fi
  done
  [ -z "$bad" ] && ok import_openb_every_file_rows_add_up || { echo "failed:$bad" >"$T/msg"; no import_openb_every_file_rows_add_up "$T/msg"; }

  # the fill-up experiment on the default trace (FGD protocol): allocation at 100% arrived per
  # strategy, fgd >= bestfit > random (measured 94.4 / 91.6 / 86.1 with seed 42)
  "$G" import openb "$OB/openb_pod_list_default.csv" --nodes "$OB/openb_node_list_gpu_node.csv" \
    --out-trace "$T/ob.csv" --out-cluster "$T/ob.json" >/dev/null 2>&1
  for sel in fgd bestfit random; do
    "$G" run --mode fill --fill-to 1.0 --seeds 42 --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu \
      --set split_count=20 --set gpu_select=$sel --out "$T/fill-$sel" >"$T/fill-$sel.out" 2>&1
    eval "a_$sel=\$(awk -F, '\$1 == 100 { print \$2 }' \"\$T/fill-$sel/fill.csv\")"
  done
  echo "    fill-up at 100% arrived, seed 42: fgd ${a_fgd:-?}% bestfit ${a_bestfit:-?}% random ${a_random:-?}%"
  if [ -n "$a_fgd" ] && [ -n "$a_bestfit" ] && [ -n "$a_random" ] &&
     awk -v f="$a_fgd" -v b="$a_bestfit" -v r="$a_random" 'BEGIN { exit !(f >= b && b > r + 1 && f < 100) }'; then
    ok fill_openb_fgd_ge_bestfit_gt_random
  else cat "$T/fill-fgd.out" >"$T/msg"; no fill_openb_fgd_ge_bestfit_gt_random "$T/msg"; fi
  # same seed, same report (wall time aside); --seeds average and bad usage
  "$G" run --mode fill --fill-to 1.0 --seeds 42 --trace "$T/ob.csv" --cluster "$T/ob.json" --policy vgpu \
    --set split_count=20 --set gpu_select=fgd --out "$T/fill-fgd2" >/dev/null 2>&1
  if strip "$T/fill-fgd/report.json" | grep -v placements_per_s >"$T/a" &&
     strip "$T/fill-fgd2/report.json" | grep -v placements_per_s >"$T/b" && cmp -s "$T/a" "$T/b" &&
     cmp -s "$T/fill-fgd/fill.csv" "$T/fill-fgd2/fill.csv" && has "$T/a" '"alloc_pct_at_100"'; then
    ok fill_report_byte_identical
  else diff "$T/a" "$T/b" >"$T/msg" 2>&1; no fill_report_byte_identical "$T/msg"; fi
fi
if check_rc fill_bad_seeds 2 "$G" run --mode fill --seeds 9..3 --trace workloads/examples/day.csv --policy vgpu; then
  has "$T/out" "expected A..B" && ok fill_bad_seeds_exit2 || no fill_bad_seeds_exit2 "$T/out"
fi
if check_rc fill_without_mode 2 "$G" run --fill-to 1.2 --trace workloads/examples/day.csv --policy vgpu; then
  has "$T/out" "need --mode fill" && ok fill_options_need_mode_exit2 || no fill_options_need_mode_exit2 "$T/out"
fi
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1000,1024,1,1500\np2,x,1,1,100\n' >"$T/badpods.csv"
if check_rc import_openb_bad 3 "$G" import openb "$T/badpods.csv"; then
  has "$T/out" "line 3, column 2 ('cpu_milli'): expected an integer >= 0, found 'x'" &&
    has "$T/out" "line 2: num_gpu and gpu_milli inconsistent" && ok import_openb_bad_row_exit3_line_column ||
    no import_openb_bad_row_exit3_line_column "$T/out"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
