#!/bin/sh
# e2e.sh - the command line end to end, as a user runs it: the example, bad
# input, bad usage, determinism of the written report, atomic output.
# Usage: tests/e2e.sh [GPUSIM]   (default build/test/gpusim, the sanitized build)
# Prints [ok]/[FAIL] per check and ends with "N passed, N failed".
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
FX=tests/fixtures

# 1. the example runs and every row is accounted for
if check_rc example_run 0 "$G" run --trace workloads/examples/day.csv --policy whole --out "$T/ex" --json; then
  rows=$(grep -c . workloads/examples/day.csv); rows=$((rows - 1))
  r="$T/ex/report.json"
  get() { grep "\"$1\":" "$r" | head -1 | sed 's/.*:[[:space:]]*//; s/,$//'; }
  a=$(get arrived); c=$(get completed); ru=$(get running); q=$(get queued); rj=$(get rejected); tr=$(get trace_rows)
  svc=$(grep -c ',service,' workloads/examples/day.csv)
  # every row: job rows arrived (and ended somewhere), service rows declared the services
  if [ -s "$r" ] && [ -s "$T/ex/timeseries.csv" ] && [ "$tr" = "$rows" ] && [ $((a + svc)) -eq "$rows" ] &&
     [ $((c + ru + q + rj)) -eq "$a" ] && has "$r" '"services":' &&
     has "$T/out" '"alloc_ratio"' && has "$r" '"p99"'; then ok example_run_accounts_every_row
  else echo "    arrived=$a rows=$rows completed=$c running=$ru queued=$q rejected=$rj" >"$T/msg"; no example_run_accounts_every_row "$T/msg"; fi
fi

# 2. same inputs, same report, byte for byte (timing fields aside)
"$G" run --trace workloads/examples/day.csv --policy whole --out "$T/ex2" >/dev/null 2>&1
strip() { grep -v -e '"wall_s"' -e '"setup_s"' -e '"cpu_s"' -e '"events_per_s"' -e '"peak_rss_mib"' "$1"; }
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
printf 'x1,99999,1,2000000\n' >>"$T/late.csv"
if check_rc late_error 3 "$G" run --trace "$T/late.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/late"; then
  if has "$T/out" "line 2002, column 4 ('gpus')" && [ ! -e "$T/late" ]; then ok late_error_leaves_nothing
  else ls -A "$T/late" >>"$T/out"; no late_error_leaves_nothing "$T/out"; fi
fi

# 5. unknown policy: exit 2 and the valid names
if check_rc unknown_policy 2 "$G" run --trace workloads/examples/day.csv --policy nosuch; then
  if has "$T/out" "unknown space policy 'nosuch' (valid: whole" ; then ok unknown_policy_exit2_lists_valid
  else no unknown_policy_exit2_lists_valid "$T/out"; fi
fi

# 6. unknown model, unknown --set key, bad option: exit 2
# (A10-24GB, added for openb, sorts first)
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
  if has "$T/out" "nodes\[0\].gpus"; then ok bad_cluster_exit3; else no bad_cluster_exit3 "$T/out"; fi
fi

# 8. unwritable output: exit 4
if check_rc unwritable 4 "$G" run --trace workloads/examples/day.csv --policy whole --out /proc/gpusim-cannot; then ok unwritable_output_exit4; fi

# 9. help, policies, models
expect help_exit0 0 "run" "$G" --help
expect run_help_exit0 0 "--gpus-per-node" "$G" run --help
expect policies_list_params 0 "queue=skip" "$G" policies
expect models_list 0 "H200-SXM5-141GB" "$G" models

# 10. gen mmc is deterministic, and --until accounts rows never reached
"$G" gen mmc --jobs 500 --servers 4 --util 0.9 --seed 3 --out "$T/g1.csv"
"$G" gen mmc --jobs 500 --servers 4 --util 0.9 --seed 3 >"$T/g2.csv"
cmp -s "$T/g1.csv" "$T/g2.csv" && [ "$(wc -l <"$T/g1.csv")" -eq 501 ] && ok gen_mmc_deterministic || no gen_mmc_deterministic
if check_rc until 0 "$G" run --trace "$T/g1.csv" --policy whole --gpus H100-SXM5-80GB:4 --until 50 --json --out "$T/o"; then
  n=$(grep '"not_arrived"' "$T/out" | sed 's/[^0-9]//g'); a=$(grep '"arrived"' "$T/out" | sed 's/[^0-9]//g')
  [ $((n + a)) -eq 500 ] && [ "$n" -gt 0 ] && has "$T/out" '"end_s":[[:space:]]*50' && ok until_accounts_not_arrived || no until_accounts_not_arrived "$T/out"
fi

# 11. shared cards: vgpu and timeslice on the example day, the same
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
if check_rc unknown_service 3 "$G" run --trace "$T/req.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/req"; then
  has "$T/out" "line 2: request 'r' names service 'ghost'" && ok unknown_service_exit3 || no unknown_service_exit3 "$T/out"
fi
AZ=workloads/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv
if need_file import_azure_and_serve "$AZ"; then
  if check_rc import_azure 0 "$G" import azure-llm "$AZ" --limit 500 --out-trace "$T/az.csv"; then
    if has "$T/out" "500 requests converted" && [ "$(grep -c ',request,llm,' "$T/az.csv")" -eq 500 ] &&
       "$G" run --trace "$T/az.csv" --policy whole --gpus H100-SXM5-80GB:32 --json --out "$T/o" >"$T/azr" 2>&1 &&
       grep -q '"served":[[:space:]]*500' "$T/azr"; then ok import_azure_and_serve
    else no import_azure_and_serve "$T/out"; fi
  fi
fi

# {==== capacity planning workflow: compare, plan, plot, check, progress ====}

# 13. check passes on the committed baselines of the example runs (deterministic: equal)
"$G" run --trace workloads/examples/day.csv --policy whole --set queue=fifo --out "$T/exf" >/dev/null 2>&1
if check_rc check_baseline_whole 0 "$G" check "$T/ex" --baseline results/baseline/day.whole.json; then
  has "$T/out" "check: [0-9]* metrics, 0 regressed" && has "$T/out" "jobs.queue_s.p99 .* ok" && ok check_baseline_whole_equal ||
    no check_baseline_whole_equal "$T/out"
fi
check_rc check_baseline_fifo 0 "$G" check "$T/exf" --baseline results/baseline/day.whole-fifo.json && ok check_baseline_fifo_equal
"$G" run --trace workloads/examples/day.csv --policy vgpu --out "$T/exv" >/dev/null 2>&1
check_rc check_baseline_vgpu 0 "$G" check "$T/exv" --baseline results/baseline/day.vgpu.json && ok check_baseline_vgpu_equal
"$G" run --trace workloads/examples/inference.csv --policy whole --out "$T/exi" >/dev/null 2>&1
if check_rc check_baseline_inference 0 "$G" check "$T/exi" --baseline results/baseline/inference.whole.json; then
  has "$T/out" "services.1.latency_s.p99 .* ok" && ok check_baseline_inference_equal_per_service ||
    no check_baseline_inference_equal_per_service "$T/out"
fi

# 14. check fails on a regressed metric (queue p99 doubled), names it; a tolerance or an improvement passes
mkdir -p "$T/reg"
awk '/"p99":/ && !done { sub(/[0-9.e+]+,$/, ($2 * 2) ","); done = 1 } { print }' "$T/ex/report.json" >"$T/reg/report.json"
if check_rc check_regressed 1 "$G" check "$T/reg" --baseline results/baseline/day.whole.json; then
  has "$T/out" "jobs.queue_s.p99 .*REGRESSED" && has "$T/out" "1 regressed" && ok check_regressed_metric_exit1 ||
    no check_regressed_metric_exit1 "$T/out"
fi
check_rc check_tolerance 0 "$G" check "$T/reg" --baseline results/baseline/day.whole.json --tolerance jobs.queue_s.p99=1.5 &&
  ok check_tolerance_allows
# the baseline itself is the "now" and the regressed one the baseline: p99 halved is better, not a regression
if check_rc check_better 0 "$G" check "$T/ex" --baseline "$T/reg/report.json"; then
  has "$T/out" "jobs.queue_s.p99 .* better" && ok check_improvement_passes || no check_improvement_passes "$T/out"
fi
check_rc check_other_inputs 1 "$G" check "$T/exf" --baseline results/baseline/day.whole.json && has "$T/out" "inputs differ" &&
  ok check_different_inputs_fail
check_rc check_usage 2 "$G" check "$T/ex" && ok check_without_baseline_exit2

# 15. compare: both entries, 2 seeds (interval columns); its runs are the real runs. The day's jobs only:
# their figures do not depend on the seed (the services' generated traffic does), so every seed agrees
grep -v ',service,' workloads/examples/day.csv >"$T/dayjobs.csv"
"$G" run --trace "$T/dayjobs.csv" --policy whole --out "$T/exj" >/dev/null 2>&1
"$G" run --trace "$T/dayjobs.csv" --policy whole --set queue=fifo --out "$T/exjf" >/dev/null 2>&1
if check_rc compare 0 "$G" compare --trace "$T/dayjobs.csv" --policies 'whole,whole[queue=fifo]' --seeds 2 \
    --format csv --out "$T/cmp"; then
  q99=$(awk '/"p99":/ { gsub(/[^0-9.e+-]/, "", $2); printf "%.6g", $2; exit }' "$T/exj/report.json")
  if has "$T/out" '^metric,"whole",lo,hi,"whole\[queue=fifo\]",lo,hi$' && has "$T/out" "^queue_p99_s,$q99,$q99,$q99," &&
     [ -s "$T/cmp/compare.json" ] &&
     "$G" check "$T/cmp/runs/p1-whole_queue_fifo.s1" --baseline "$T/exjf/report.json" >/dev/null; then
    ok compare_table_and_runs
  else no compare_table_and_runs "$T/out"; fi
fi
expect compare_unknown_policy_exit2 2 "unknown space policy 'nosuch'" \
  "$G" compare --trace workloads/examples/day.csv --policies 'whole,nosuch' --out "$T/cmpbad"

# 16. plot: every figure as a PNG 900 px wide (500 high, taller with several panels) and an SVG,
# report.html self-contained
"$G" gen mmc --jobs 3000 --servers 6 --util 0.7 --seed 2 --out "$T/mmc.csv" >/dev/null
"$G" plan --trace "$T/mmc.csv" --policies 'whole,whole[queue=fifo]' --gpu H100-SXM5-80GB --gpus-per-node 2 \
  --slo 'queue_mean<=0.2,jobs.queue_s.p99<=3' --out "$T/plan" >"$T/plan.out" 2>&1 || no plan_runs "$T/plan.out"
has "$T/plan/plan.json" '"path":[[:space:]]*"jobs.queue_s.mean"' && ok plan_slo_short_names || no plan_slo_short_names "$T/plan.out"
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }'; }
if check_rc plot 0 "$G" plot "$T/ex" "$T/cmp" "$T/plan" --out "$T/html"; then
  good=1
  for f in "$T/ex/fig_gpus" "$T/ex/fig_queue" "$T/ex/fig_latency_cdf" "$T/cmp/fig_compare" "$T/plan/fig_plan"; do
    sz=$(png_size "$f.png"); h=${sz#900x}
    [ "$h" != "$sz" ] && [ "$h" -ge 500 ] && [ "$h" -le 3000 ] && [ "$(head -c 4 "$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] &&
      grep -q '<svg' "$f.svg" || { good=0; echo "    bad figure $f: $(png_size "$f.png")" >>"$T/out"; }
  done
  n=$(grep -o 'data:image/png;base64,' "$T/html/report.html" | wc -l)
  # the example day has services: its latency CDF is drawn (the compare and plan dirs have none)
  [ "$n" -eq 5 ] && ! grep -q 'src="[^d]' "$T/html/report.html" || good=0
  [ "$good" = 1 ] && ok plot_png_svg_html || no plot_png_svg_html "$T/out"
fi

# 16b. a report with services gets a latency CDF per service (ids read as data, never as code)
mkdir -p "$T/svc"
# (the example's own services replaced: a report holds one "services" key)
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["services"] = [{"id": "chat `touch SV`", "latency_s": {"p50": 0.1, "p95": 0.3, "p99": 0.5}},
                 {"id": "batch", "latency_s": {"p50": 1, "p99": 4, "max": 9}}]
json.dump(r, open(sys.argv[2], "w"), indent=1)' "$T/ex/report.json" "$T/svc/report.json"
if check_rc plot_services 0 "$G" plot "$T/svc" --no-svg; then
  [ "$(png_size "$T/svc/fig_latency_cdf.png")" = 900x500 ] && [ ! -e SV ] && [ ! -e "$T/svc/SV" ] &&
    [ "$(wc -l <"$T/svc/fig_latency_cdf.p0.0.tsv")" -eq 4 ] && [ "$(tail -1 "$T/svc/fig_latency_cdf.p0.1.tsv")" = "$(printf '9\t1')" ] &&
    has "$T/svc/fig_latency_cdf.p0.0.tsv" 'chat `touch SV`' && ok plot_latency_cdf_per_service || no plot_latency_cdf_per_service "$T/out"
fi

# 17. names from user input never run in gnuplot: a trace named with quotes, backquotes and system()
mkdir -p "$T/inj" && cd "$T/inj" || exit 1
evil='q'\''"`touch BQ`$(touch SH)system("touch SY")'\''.csv'
cp "$OLDPWD/workloads/examples/day.csv" "$evil"
"$OLDPWD/$G" run --trace "$evil" --policy whole --cluster "$OLDPWD/workloads/examples/cluster.json" \
  --models "$OLDPWD/models/gpu" --out run >/dev/null 2>&1
"$OLDPWD/$G" compare --trace "$evil" --policies 'whole,whole[queue=fifo]' --cluster "$OLDPWD/workloads/examples/cluster.json" \
  --models "$OLDPWD/models/gpu" --out cmp >/dev/null 2>&1
"$OLDPWD/$G" plot run cmp >"$T/out" 2>&1; rc=$?
cd "$OLDPWD" || exit 1
if [ "$rc" -eq 0 ] && [ -s "$T/inj/run/fig_gpus.png" ] && [ -s "$T/inj/cmp/fig_compare.png" ] &&
   [ -z "$(find "$T/inj" . -maxdepth 2 \( -name BQ -o -name SH -o -name SY \) 2>/dev/null)" ] &&
   has "$T/inj/run/report.html" 'q&#39;&quot;`touch BQ`' && ! has "$T/inj/run/report.html" 'system("touch'; then
  ok plot_hostile_names_run_nothing
else no plot_hostile_names_run_nothing "$T/out"; fi

# 18. progress: on stderr when it is a terminal (via script(1)); when it is not, nothing for a run
# shorter than the 10 s between log lines (e2e_hostile_run.sh checks the lines of a longer one)
"$G" gen mmc --jobs 140000 --servers 16 --util 0.8 --out "$T/long.csv" >/dev/null
"$G" run --trace "$T/long.csv" --policy whole --gpus H100-SXM5-80GB:16 --out "$T/long" >/dev/null 2>"$T/err"
if [ ! -s "$T/err" ]; then ok no_progress_when_not_a_terminal; else no no_progress_when_not_a_terminal "$T/err"; fi
if ! command -v script >/dev/null 2>&1; then
  echo "    script(1) (Debian bsdutils) is missing" >"$T/msg"; no progress_on_a_terminal "$T/msg"
else
  script -qc "$G run --trace $T/long.csv --policy whole --gpus H100-SXM5-80GB:16 --out $T/long >/dev/null" "$T/tty" \
    >/dev/null 2>&1 </dev/null
  grep -q 'simulated [0-9.]* h, [0-9]* events, [0-9]* events/s' "$T/tty" && ok progress_on_a_terminal ||
    no progress_on_a_terminal "$T/tty"
fi
# 11. gen agents is deterministic and streams rows in submit order;
# whole+hibernate on it gives back resources and accounts every row
"$G" gen agents --sessions 60 --hours 2 --seed 5 --out "$T/ag1.csv"
"$G" gen agents --sessions 60 --hours 2 --seed 5 >"$T/ag2.csv"
if cmp -s "$T/ag1.csv" "$T/ag2.csv" && [ "$(grep -c ',session,,,$' "$T/ag1.csv")" -eq 60 ] &&
   grep -q ',scheduled,' "$T/ag1.csv" && grep -q ',user,' "$T/ag1.csv"; then ok gen_agents_deterministic
else no gen_agents_deterministic "$T/ag1.csv"; fi
if check_rc agents_run 0 "$G" run --trace "$T/ag1.csv" --policy whole+hibernate --json --out "$T/o"; then
  rows=$(($(wc -l <"$T/ag1.csv") - 1))
  tr=$(grep '"trace_rows"' "$T/out" | sed 's/[^0-9]//g')
  if [ "$tr" = "$rows" ] && has "$T/out" '"given_back"' && has "$T/out" '"wake_latency_s"' &&
     has "$T/out" '"peak_sandboxes_per_node"'; then ok agents_hibernate_report
  else no agents_hibernate_report "$T/out"; fi
fi
"$G" run --trace "$T/ag1.csv" --policy whole+hibernate --set warm_pool=1 --out "$T/h1" >/dev/null 2>&1
"$G" run --trace "$T/ag1.csv" --policy whole+hibernate --set warm_pool=1 --out "$T/h2" >/dev/null 2>&1
if strip "$T/h1/report.json" >"$T/a" && strip "$T/h2/report.json" >"$T/b" && cmp -s "$T/a" "$T/b" &&
   has "$T/a" '"hibernate"'; then ok hibernate_report_byte_identical
else no hibernate_report_byte_identical "$T/a"; fi
expect hibernate_bad_param_exit2 2 "probe_period" \
  "$G" run --trace "$T/ag1.csv" --policy whole+hibernate --set probe_period=soon --out "$T/o"
expect unknown_time_policy_exit2 2 "valid: hibernate" "$G" run --trace "$T/ag1.csv" --policy whole+nosuch --out "$T/o"
check_rc agents_bad_gen 2 "$G" gen agents --sessions 5 --scheduled 2 && ok gen_agents_bad_usage_exit2
# gen training: deterministic, atomic --out, bad options exit 2 naming the option
"$G" gen training --jobs 300 --seed 4 --out "$T/tr1.csv"
"$G" gen training --jobs 300 --seed 4 >"$T/tr2.csv"
if cmp -s "$T/tr1.csv" "$T/tr2.csv" && [ "$(grep -c ',training$' "$T/tr1.csv")" -eq 300 ] &&
   head -1 "$T/tr1.csv" | grep -qx 'id,submit,duration,gpus,gpus_per_node,time_limit,class'; then
  ok gen_training_deterministic
else no gen_training_deterministic "$T/tr1.csv"; fi
# its class column reaches the report: one class, so its figures are the run's own, and a summary line
if "$G" run --trace "$T/tr1.csv" --policy whole --gpus H100-SXM5-80GB:256 --set queue=backfill --json --out "$T/trr" \
     >"$T/trr.json" 2>"$T/err" && "$G" run --trace "$T/tr1.csv" --policy whole --gpus H100-SXM5-80GB:256 \
     --set queue=backfill --out "$T/trr2" >"$T/trr.out" 2>&1 &&
   python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))["jobs"]; c = j["class"]
sys.exit(not (list(c) == ["training"] and c["training"]["arrivals"] == j["arrived"] == 300 and
              c["training"]["completed"] == j["completed"] and c["training"]["queue_s"] == j["queue_s"] and
              c["training"]["jct_s"] == j["jct_s"]))' "$T/trr.json" &&
   grep -q "^  class training     queue mean .* (300 jobs, $(grep -o '"completed":[[:space:]]*[0-9]*' "$T/trr.json" | head -1 | grep -o '[0-9]*$') completed)$" "$T/trr.out"
then ok gen_training_class_figures
else cat "$T/err" "$T/trr.out" >"$T/msg" 2>/dev/null; no gen_training_class_figures "$T/msg"; fi
expect gen_training_bad_mix_exit2 2 "--mix" "$G" gen training --mix mars
expect gen_training_bad_overask_exit2 2 "--overask" "$G" gen training --overask 0.5

# 19. MIG. A bad layout is exit 3 naming the file and node group;
# the MIG example runs under mig and dynmig, deterministic, every row accounted
printf '{"nodes":[{"model":"A100-SXM4-40GB","gpus":1,"mig":[{"profile":"3g.20gb","start":2}]}]}' >"$T/mig.json"
if check_rc bad_mig_layout 3 "$G" run --trace workloads/examples/mig-mix.csv --policy mig --cluster "$T/mig.json"; then
  has "$T/out" "mig.json': nodes\[0\].mig (A100-SXM4-40GB): \[0\]: 3g.20gb cannot start at slice 2 (legal starts: 0,4)" &&
    ok bad_mig_layout_exit3_names_group || no bad_mig_layout_exit3_names_group "$T/out"
fi
for p in mig dynmig; do
  "$G" run --trace workloads/examples/mig-mix.csv --cluster workloads/examples/cluster-mig.json --policy $p --out "$T/m1" >/dev/null 2>&1
  "$G" run --trace workloads/examples/mig-mix.csv --cluster workloads/examples/cluster-mig.json --policy $p --out "$T/m2" >"$T/out" 2>&1
  rows=$(($(grep -c . workloads/examples/mig-mix.csv) - 1))
  if strip "$T/m1/report.json" >"$T/a" && strip "$T/m2/report.json" >"$T/b" && cmp -s "$T/a" "$T/b" &&
     grep -q "arrived $rows  completed $rows" "$T/out" && has "$T/a" '"slice_util"'; then ok "mig_example_${p}_deterministic_all_done"
  else no "mig_example_${p}_deterministic_all_done" "$T/out"; fi
done
# 11. preemption scenario: inference-like jobs wait less with
# preempt=on, the training class pays lost work; reports are deterministic;
# core parameters are validated and listed in inputs.params.
PA="--trace workloads/examples/preempt.csv --cluster workloads/examples/cluster-preempt.json --policy whole"
if check_rc preempt_on 0 "$G" run $PA --set preempt=on --out "$T/pon" && check_rc preempt_off 0 "$G" run $PA --out "$T/poff"; then
  "$G" run $PA --set preempt=on --out "$T/pon2" >/dev/null 2>&1
  sed '/"wall_s"\|"setup_s"\|"cpu_s"\|"events_per_s"\|"peak_rss_mib"/d' "$T/pon/report.json" >"$T/a.json"
  sed '/"wall_s"\|"setup_s"\|"cpu_s"\|"events_per_s"\|"peak_rss_mib"/d' "$T/pon2/report.json" >"$T/b.json"
  cmp -s "$T/a.json" "$T/b.json" && ok preempt_report_deterministic || no preempt_report_deterministic
  has "$T/pon/report.json" '"preempt":[[:space:]]*"on"' && has "$T/pon/report.json" '"min_runtime":[[:space:]]*"1800"' &&
    has "$T/pon/report.json" '"lost_gpu_hours"' && has "$T/pon/report.json" '"quota_blocked"' &&
    ok preempt_report_fields || no preempt_report_fields "$T/pon/report.json"
fi
expect preempt_bad_value_exit2 2 "expected on or off" "$G" run $PA --set preempt=yes --out "$T/o"
# every space policy takes preempt=on and the cluster's tenant
# quotas; on this whole-card scenario each preempts exactly as whole does
# (timeslice with one task per card).
PB="--trace workloads/examples/preempt.csv --cluster workloads/examples/cluster-preempt.json --set preempt=on --json --out $T/o"
"$G" run $PB --policy whole >"$T/pw.json" 2>/dev/null
for p in vgpu "timeslice --set replicas=1" mig dynmig; do
  n=$(echo "$p" | cut -d' ' -f1)
  if check_rc "preempt_under_$n" 0 "$G" run $PB --policy $p; then
    for k in preemptions lost_gpu_hours quota_blocked; do
      a=$(grep -m1 "\"$k\"" "$T/pw.json"); b=$(grep -m1 "\"$k\"" "$T/out")
      [ -n "$a" ] && [ "$a" = "$b" ] || { no "preempt_under_${n}_same_as_whole" "$T/out"; continue 2; }
    done
    ok "preempt_under_${n}_same_as_whole"
  fi
done
printf '{"nodes": [{"model": "H100-SXM5-80GB", "gpus": 8}], "tenants": [{"name": "a", "gpux": 1}]}' >"$T/tq.json"
expect quota_bad_key_exit3 3 "tenants\[0\]: unknown key 'gpux'" \
  "$G" run --trace workloads/examples/preempt.csv --policy whole --cluster "$T/tq.json" --out "$T/o"

# 20. openb: every shipped pod and node list imports, with row accounting that adds up
# the default pod list and the paper's node list ship in workloads/traces/; the
# other pod lists' heads and the all-nodes list are test fixtures
OB=workloads/traces/alibaba-openb-gpu-v2023
if need_file import_openb_every_file_rows_add_up "$OB/openb_pod_list_default.csv" &&
   need_file import_openb_every_file_rows_add_up "$OB/openb_node_list_gpu_node.csv"; then
  bad=""
  n=$(ls "$OB"/openb_pod_list_*.csv "$FX"/openb/head300/openb_pod_list_*.csv | wc -l)
  [ "$n" -eq 20 ] || bad="$bad (found $n of the 20 pod lists)"
  for f in "$OB"/openb_pod_list_*.csv "$FX"/openb/head300/openb_pod_list_*.csv; do
    rows=$(($(grep -c . "$f") - 1))
    if "$G" import openb "$f" --out-trace "$T/ob.csv" >"$T/out" 2>&1; then
      set -- $(sed -n 's/^import openb: \([0-9]*\) pod rows read, \([0-9]*\) converted.*, \([0-9]*\) skipped.*/\1 \2 \3/p' "$T/out")
      out=$(($(grep -c . "$T/ob.csv") - 1))
      [ "${1:-x}" = "$rows" ] && [ $(($2 + $3)) -eq "$rows" ] && [ "$out" -eq "$2" ] || bad="$bad $(basename "$f")"
    else bad="$bad $(basename "$f")"; fi
  done
  for f in "$OB"/openb_node_list_*.csv "$FX"/openb/openb_node_list_*.csv; do
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
  has "$T/out" "line 3, column 2 ('cpu_milli'): expected an integer >= 0, at most 1000000000, found 'x'" &&
    has "$T/out" "line 2: num_gpu and gpu_milli inconsistent" && ok import_openb_bad_row_exit3_line_column ||
    no import_openb_bad_row_exit3_line_column "$T/out"
fi

# the long-tail example under whole+dualpod: deterministic, reports
# activations by path and first-request latency; the three modes run; a bad
# mode is a usage error naming the key
LT="--trace workloads/examples/longtail.csv --gpus H100-SXM5-80GB:8 --gpus-per-node 4 --policy whole+dualpod"
"$G" run $LT --out "$T/d1" >/dev/null 2>&1
"$G" run $LT --out "$T/d2" >"$T/out" 2>&1
if strip "$T/d1/report.json" >"$T/a" && strip "$T/d2/report.json" >"$T/b" && cmp -s "$T/a" "$T/b" &&
   has "$T/a" '"hot_hit_rate"' && has "$T/a" '"first_request_latency_s"' && has "$T/a" '"sleeping_weights_gib_peak"'; then
  ok dualpod_longtail_deterministic
else no dualpod_longtail_deterministic "$T/out"; fi
for m in always-on scale-to-zero; do
  if check_rc "dualpod_$m" 0 "$G" run $LT --set dualpod_mode=$m --json --out "$T/o"; then
    grep -q "\"mode\":[[:space:]]*\"$m\"" "$T/out" && ok "dualpod_mode_$m" || no "dualpod_mode_$m" "$T/out"
  fi
done
expect dualpod_bad_mode_exit2 2 "dualpod_mode" "$G" run $LT --set dualpod_mode=never --out "$T/o"

finish
