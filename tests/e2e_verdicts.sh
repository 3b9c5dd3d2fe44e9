#!/bin/sh
# e2e_verdicts.sh - no silent wrong answer from plan, compare, check and
# run: a misspelled metric is a usage error before anything runs, an SLO
# takes a time with its unit, plan answers on several seeds with its margin,
# a term the start-up transient decides is said to be, card models are
# compared only for the same work (ref_gpu), TTFT and TPOT
# only for requests with token counts, a trace in milliseconds gets a hint,
# a statistic of nothing prints "-", replicas.min is the configured minimum,
# a term on a job class names one of the trace's and sizes for that class, a
# MIG profile is one the catalog has, failed jobs say their causes.
# Usage: tests/e2e_verdicts.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
DAY=workloads/examples/day.csv
need_file day_trace "$DAY" || { finish; exit; }
printf 'id,submit,duration,gpus\nj1,0,10,1\nj2,5,10,2\n' >"$T/small.csv"

# {==== a misspelled metric: exit 2 up front, the nearest names ====}
expect plan_slo_alias_misspelled 2 "--slo: no metric 'queue_p99x' (nearest: queue_p99" \
  "$G" plan --trace "$T/small.csv" --policy whole --gpu H100-SXM5-80GB --slo 'queue_p99x<=600' --out "$T/p1"
if [ ! -d "$T/p1" ]; then ok plan_slo_misspelled_runs_nothing; else no plan_slo_misspelled_runs_nothing; fi
expect plan_slo_statistic_misspelled 2 "no metric 'jobs.queue_s.p999' (nearest: jobs.queue_s.p99" \
  "$G" plan --trace "$T/small.csv" --policy whole --gpu H100-SXM5-80GB --slo 'jobs.queue_s.p999<=600' --out "$T/p2"
expect compare_slo_misspelled 2 "no metric 'jbos.queue_s.p99' (nearest: jobs.queue_s.p99" \
  "$G" compare --trace "$T/small.csv" --policies whole --slo 'jbos.queue_s.p99<=600' --out "$T/c1"
expect compare_metrics_misspelled 2 "--metrics: no metric 'gpu.busy_ration' (nearest: gpu.busy_ratio" \
  "$G" compare --trace "$T/small.csv" --policies whole --metrics gpu.busy_ration --out "$T/c2"
if [ ! -d "$T/c2" ]; then ok compare_metrics_misspelled_runs_nothing; else no compare_metrics_misspelled_runs_nothing; fi
# a policy's own section: the first report says
expect plan_policy_section_misspelled 2 "no metric 'policy.hibernate.wakes_faild' in the report (nearest: policy.hibernate.wakes_failed" \
  "$G" plan --trace workloads/examples/agents.csv --policy whole+hibernate --gpu H100-SXM5-80GB \
  --slo 'policy.hibernate.wakes_faild<=0' --min-gpus 64 --max-gpus 64 --out "$T/p3"
"$G" run --trace "$T/small.csv" --policy whole --out "$T/r1" >/dev/null 2>&1
expect check_tolerance_misspelled 2 "--tolerance: no metric 'jobs.queue_sx' in the baseline (nearest: " \
  "$G" check "$T/r1" --baseline "$T/r1/report.json" --tolerance jobs.queue_sx=0.05
expect check_tolerance_prefix_ok 0 "0 regressed" \
  "$G" check "$T/r1" --baseline "$T/r1/report.json" --tolerance jobs.queue_s=0.05,gpu=0.01,default=0.02

# {==== an SLO in seconds takes a unit, as --set does ====}
if check_rc slo_duration_units 0 "$G" plan --trace "$T/small.csv" --policy whole --gpu H100-SXM5-80GB \
     --slo 'queue_p99<=30m,jct_p99<=1.5h,queue_p50<=500ms' --out "$T/p4"; then
  if grep -q '"value":[[:space:]]*1800$' "$T/p4/plan.json" && grep -q '"value":[[:space:]]*5400$' "$T/p4/plan.json" &&
     grep -q '"value":[[:space:]]*0.5$' "$T/p4/plan.json"; then ok slo_duration_units
  else no slo_duration_units "$T/p4/plan.json"; fi
fi
expect slo_unit_on_a_ratio_refused 2 "'utilization>=50%': expected a number after >=" \
  "$G" plan --trace "$T/small.csv" --policy whole --gpu H100-SXM5-80GB --slo 'utilization>=50%' --out "$T/p5"

# {==== plan: several seeds by default, the answer with its margin ====}
# an M/M/8-like load: the mean wait meets 0.5 s from 8 cards, utilization >= 0.6 holds up to 10:
# the search answers 8, the margin probes 9, 10, 12, 16 find 12 and 16 failing
"$G" gen mmc --jobs 4000 --servers 8 --util 0.8 --seed 3 --out "$T/mmc.csv" >/dev/null
if check_rc plan_margin_window 0 "$G" plan --trace "$T/mmc.csv" --policy whole --gpu H100-SXM5-80GB --gpus-per-node 1 \
     --slo 'queue_mean<=0.5,utilization>=0.6' --out "$T/pw"; then
  if python3 - "$T/pw/plan.json" >"$T/msg" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); e = d["policies"][0]
print(d["seeds"], e["gpus"], e["stable_from_gpus"], e["non_monotone"], e.get("failed_above_answer"))
probes = [p["gpus"] for p in e["points"] if p.get("margin")]
print("margin probes", probes)
sys.exit(0 if d["seeds"] == 5 and e["gpus"] == 8 and e["stable_from_gpus"] is None and e["non_monotone"]
         and e["failed_above_answer"] == [12, 16] and probes == [9, 10, 12, 16] else 1)
PY
  then
    if has "$T/out" '^whole  *H100-SXM5-80GB  *8  *- !' && has "$T/out" '16 .*<- fails above the answer'; then
      ok plan_margin_window; else no plan_margin_window "$T/out"; fi
  else no plan_margin_window "$T/msg"; fi
fi
# monotone: the answer is stable, the probes met
if check_rc plan_margin_stable 0 "$G" plan --trace "$T/mmc.csv" --policy whole --gpu H100-SXM5-80GB --gpus-per-node 1 \
     --seeds 2 --slo 'queue_mean<=0.5' --out "$T/ps"; then
  if has "$T/out" '^whole  *H100-SXM5-80GB  *8  *8  ' && grep -q '"non_monotone":[[:space:]]*false' "$T/ps/plan.json"
  then ok plan_margin_stable; else no plan_margin_stable "$T/out"; fi
fi

# {==== card models: sized for the same work, or refused ====}
printf 'id,submit,duration,gpus\na,0,100,1\nb,10,100,1\nc,20,100,2\n' >"$T/noref.csv"
expect plan_models_without_ref_refused 2 "give --set ref_gpu=MODEL.*or a ref_gpu column" \
  "$G" plan --trace "$T/noref.csv" --policy whole --gpu H100-SXM5-80GB,A100-SXM4-80GB --slo 'queue_p99<=1' --out "$T/ref1"
if [ ! -d "$T/ref1" ] && has "$T/out" "3 rows state no ref_gpu (the first at line 2)"; then ok plan_models_without_ref_runs_nothing
else no plan_models_without_ref_runs_nothing "$T/out"; fi
expect plan_models_with_ref_set 0 "^whole  *A100-SXM4-80GB " \
  "$G" plan --trace "$T/noref.csv" --policy whole --gpu H100-SXM5-80GB,A100-SXM4-80GB --slo 'queue_p99<=1' \
  --set ref_gpu=H100-SXM5-80GB --seeds 1 --out "$T/ref2"
sed 's/$/,H100-SXM5-80GB/; 1s/H100-SXM5-80GB$/ref_gpu/' "$T/noref.csv" >"$T/ref.csv"
expect plan_models_with_ref_column 0 "^whole  *A100-SXM4-80GB " \
  "$G" plan --trace "$T/ref.csv" --policy whole --gpu H100-SXM5-80GB,A100-SXM4-80GB --slo 'queue_p99<=1' --seeds 1 \
  --out "$T/ref3"
expect plan_one_model_needs_no_ref 0 "^whole  *H100-SXM5-80GB " \
  "$G" plan --trace "$T/noref.csv" --policy whole --gpu H100-SXM5-80GB --slo 'queue_p99<=1' --seeds 1 --out "$T/ref4"
# plan on one template of two models: one reference at every count, said loudly (stderr, table, plan.json)
TPL=workloads/examples/cluster-template-a100-h100pod.json
if check_rc plan_mixed_template_warns 0 "$G" plan --trace "$T/noref.csv" --policy whole --cluster-template "$TPL" \
     --slo 'queue_p99<=1' --seeds 1 --margin 0 --out "$T/ref7"; then
  if has "$T/out" "^gpusim: warning: cluster 'a100-with-h100-pod' has 2 card models and 3 rows .* measured on H100-SXM5-80GB" &&
     has "$T/out" "^warning: cluster 'a100-with-h100-pod' has 2 card models" && grep -q '"warnings":' "$T/ref7/plan.json" &&
     has "$T/out" "^whole  *a100-with-h100-pod "
  then ok plan_mixed_template_warns; else no plan_mixed_template_warns "$T/out"; fi
fi
if check_rc plan_mixed_template_ref_set 0 "$G" plan --trace "$T/noref.csv" --policy whole --cluster-template "$TPL" \
     --slo 'queue_p99<=1' --seeds 1 --margin 0 --set ref_gpu=A100-SXM4-80GB --out "$T/ref8"; then
  if ! has "$T/out" "warning: cluster" && ! grep -q '"warnings":[[:space:]]*\["cluster' "$T/ref8/plan.json"
  then ok plan_mixed_template_ref_set; else no plan_mixed_template_ref_set "$T/out"; fi
fi
# compare on a cluster of two models: one reference for every column, said loudly
if check_rc compare_mixed_cluster_warns 0 "$G" compare --trace "$T/noref.csv" --policies whole \
     --gpus H100-SXM5-80GB:8,A100-SXM4-80GB:8 --out "$T/ref5"; then
  if has "$T/out" "^warning: the cluster has 2 card models .* measured on H100-SXM5-80GB" &&
     has "$T/out" "^gpusim: warning: the cluster has 2 card models" && grep -q '"warnings"' "$T/ref5/compare.json"
  then ok compare_mixed_cluster_warns; else no compare_mixed_cluster_warns "$T/out"; fi
fi
if check_rc compare_mixed_cluster_ref_set 0 "$G" compare --trace "$T/noref.csv" --policies whole \
     --gpus H100-SXM5-80GB:8,A100-SXM4-80GB:8 --set ref_gpu=A100-SXM4-80GB --out "$T/ref6"; then
  if ! has "$T/out" "warning" && ! grep -q '"warnings"' "$T/ref6/compare.json"; then ok compare_mixed_cluster_ref_set
  else no compare_mixed_cluster_ref_set "$T/out"; fi
fi

# {==== TTFT and TPOT need token counts: an input error naming the row, never another SLO ====}
printf 'id,submit,duration,gpus,kind,service,replicas_min,replicas_max,slo_ttft_ms,svc_mean_ms\nsvc,0,100,1,service,,1,1,500,50\nr1,1,,,request,svc,,,,\n' \
  >"$T/ttft.csv"
expect run_ttft_slo_without_tokens 3 "line 3: a request to service 'svc' carries no output_tokens, but the service (line 2) states slo_ttft_ms" \
  "$G" run --trace "$T/ttft.csv" --policy whole --gpus H100-SXM5-80GB:1 --out "$T/t1"
# generated traffic (rate) with svc_mean_ms: token-less, so the same
printf 'id,submit,duration,gpus,kind,replicas_min,replicas_max,slo_ttft_ms,slo_tpot_ms,rate,svc_mean_ms\nchat8b,0,3600,1,service,1,4,1000,50,3,200\n' \
  >"$T/ttftgen.csv"
expect run_ttft_slo_generated_without_tokens 3 "line 2: service 'chat8b' states slo_ttft_ms or slo_tpot_ms, but the requests it generates carry no token counts" \
  "$G" run --trace "$T/ttftgen.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/t0"
expect plan_ttft_slo_without_tokens 3 "line 2: service 'svc' states slo_ttft_ms or slo_tpot_ms, but its requests carry no token counts" \
  "$G" plan --trace "$T/ttft.csv" --policy whole --gpu H100-SXM5-80GB --slo 'latency_p99<=1' --out "$T/t2"
printf 'id,submit,duration,gpus,kind,service,replicas_min,replicas_max,svc_mean_ms\nsvc,0,100,1,service,,1,1,50\nr1,1,,,request,svc,,,\n' \
  >"$T/notok.csv"
expect plan_ttft_term_without_tokens 3 "'requests.ttft_s.p99' is measured only for requests with token counts, and service 'svc' (trace '.*' line 2) has none" \
  "$G" plan --trace "$T/notok.csv" --policy whole --gpu H100-SXM5-80GB --slo 'ttft_p99<=1' --out "$T/t3"
expect compare_ttft_metric_without_tokens 3 "--metrics: 'services.svc.ttft_s.p99' is measured only" \
  "$G" compare --trace "$T/notok.csv" --policies whole --gpus H100-SXM5-80GB:1 --metrics services.svc.ttft_s.p99 --out "$T/t4"
expect plan_service_by_id_unknown 2 "has no service 'sv' (its services, by id or index from 0: svc)" \
  "$G" plan --trace "$T/notok.csv" --policy whole --gpu H100-SXM5-80GB --slo 'services.sv.latency_s.p99<=1' --out "$T/t5"
expect plan_service_by_id 0 "^whole  *H100-SXM5-80GB  *1 " \
  "$G" plan --trace "$T/notok.csv" --policy whole --gpu H100-SXM5-80GB --slo 'services.svc.latency_s.p99<=2m' --seeds 1 \
  --out "$T/t6"

# {==== a term the start-up transient decides, not capacity ====}
# traffic from t=0 (svc_warmup_s=0) while the first replica cold-starts (45 s and its weights) puts
# more than 1% of an hour's requests over 5 s at any count; with replicas starting at once the same
# count meets it
printf 'id,submit,duration,gpus,kind,replicas_min,replicas_max,rate,svc_mean_ms,weights_gib\nsvc,0,3600,1,service,1,4,2,50,16\n' \
  >"$T/warm.csv"
if check_rc plan_start_up_transient 0 "$G" plan --trace "$T/warm.csv" --policy whole --gpu H100-SXM5-80GB \
     --slo 'services.svc.latency_s.p99<=5' --set svc_warmup_s=0 --seeds 2 --out "$T/w1"; then
  if has "$T/out" "not met: decided by replica start-up, not capacity" &&
     python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["policies"][0]
sys.exit(not (e["verdict"] == "not met: start-up transient" and e["decided_by"] == "start-up transient"
              and e["warm_probe"]["met"] and e["gpus"] is None))' "$T/w1/plan.json"
  then ok plan_start_up_transient; else no plan_start_up_transient "$T/out"; fi
fi
# a term capacity decides: no such verdict
if check_rc plan_capacity_not_transient 0 "$G" plan --trace "$T/warm.csv" --policy whole --gpu H100-SXM5-80GB \
     --slo 'services.svc.latency_s.p50<=5' --set svc_warmup_s=0 --seeds 2 --out "$T/w2"; then
  if ! has "$T/out" "decided by replica start-up" && ! grep -q warm_probe "$T/w2/plan.json"; then ok plan_capacity_not_transient
  else no plan_capacity_not_transient "$T/out"; fi
fi

# {==== impossible covers every policy's limits: the policy record says what a task is given ====}
# 40 GiB a card is above an MPS client's 20 GiB (replicas=4 on 80 GB): never served under mps, at any count
printf 'id,submit,duration,gpus,gpumem\na,0,100,1,40960\nb,10,100,1,8192\n' >"$T/mps.csv"
if check_rc plan_mps_limit_impossible 0 timeout 120 "$G" plan --trace "$T/mps.csv" --policies mps,whole \
     --gpu H100-SXM5-80GB --slo 'queue_p99<=1' --seeds 1 --out "$T/i1"; then
  if has "$T/out" "line 2 a: under mps no card gives its task memory (40960 MiB a GPU asked" &&
     has "$T/out" "^mps  *H100-SXM5-80GB  *-  *-  *-  *impossible: 1 row" && has "$T/out" "^whole  *H100-SXM5-80GB  *2 " &&
     ! grep -q '"gpus":[[:space:]]*65536' "$T/i1/plan.json"
  then ok plan_mps_limit_impossible; else no plan_mps_limit_impossible "$T/out"; fi
fi
# under mig on cards that all have MIG: a whole-card job where no layout has a full-card instance, memory
# no profile of the layout holds (40 GiB above balanced's 3g.40gb): impossible at once, never searched
printf 'id,submit,duration,gpus,gpumem\na,0,100,1,\nb,10,100,1,8192\n' >"$T/migw.csv"
if check_rc plan_mig_whole_card_impossible 0 timeout 120 "$G" plan --trace "$T/migw.csv" --policies mig,whole \
     --gpu H100-SXM5-80GB --mig all-1g.10gb --slo 'queue_p99<=1' --seeds 1 --out "$T/i4"; then
  if has "$T/out" "line 2 a: under mig no card is given to it whole (every card has MIG" &&
     has "$T/out" "^mig  *H100-SXM5-80GB  *-  *-  *-  *impossible: 1 row" && ! grep -q '"gpus":[[:space:]]*65536' "$T/i4/plan.json"
  then ok plan_mig_whole_card_impossible; else no plan_mig_whole_card_impossible "$T/out"; fi
fi
expect plan_mig_memory_impossible 0 "line 2 a: under mig no card gives its task memory (40960 MiB a GPU asked" \
  timeout 120 "$G" plan --trace "$T/mps.csv" --policies mig,whole --gpu H100-SXM5-80GB --mig balanced --slo 'queue_p99<=1' \
  --seeds 1 --out "$T/i5"
# a MIG profile no card of the catalog offers: an input error naming the column, under every policy
printf 'id,submit,duration,gpus,mig\na,0,100,1,\nb,10,100,1,banana\n' >"$T/banana.csv"
for p in whole mig; do
  expect "run_mig_unknown_profile_$p" 3 "line 3, column 5 ('mig'): expected a MIG profile a card of the catalog offers.*found 'banana'" \
    "$G" run --trace "$T/banana.csv" --policy $p --gpus H100-SXM5-80GB:8 --mig balanced --out "$T/i6"
done
expect plan_mig_unknown_profile 3 "line 3, column 5 ('mig'): expected a MIG profile" \
  "$G" plan --trace "$T/banana.csv" --policy whole --gpu H100-SXM5-80GB --slo 'queue_p99<=1' --out "$T/i7"
[ ! -d "$T/i7" ] && ok plan_mig_unknown_profile_runs_nothing || no plan_mig_unknown_profile_runs_nothing
expect plan_mps_split_off_serves 0 "^mps.replicas=0.  *H100-SXM5-80GB  *1 " \
  "$G" plan --trace "$T/mps.csv" --policy 'mps[replicas=0]' --gpu H100-SXM5-80GB --slo 'queue_p99<=1' --seeds 1 --out "$T/i2"
expect plan_bad_parameter_up_front 2 "replicas" \
  "$G" plan --trace "$T/mps.csv" --policy 'mps[replicas=99]' --gpu H100-SXM5-80GB --slo 'queue_p99<=1' --out "$T/i3"

# {==== units, empty statistics, the configured minimum ====}
printf 'id,submit,duration,gpus\na,0,3600000,1\nb,60000,5400000,1\nc,120000,1800000,1\n' >"$T/ms.csv"
expect run_milliseconds_hint 0 "^gpusim: hint: the median job duration in '.*ms.csv' is 41.7 days (3600000 s, over 3 job rows): if its durations are milliseconds, divide them by 1000" \
  "$G" run --trace "$T/ms.csv" --policy whole --gpus H100-SXM5-80GB:1 --out "$T/u1"
expect run_seconds_no_hint 0 "report:" "$G" run --trace "$T/small.csv" --policy whole --out "$T/u2"
if has "$T/out" "hint"; then no run_seconds_no_hint_said "$T/out"; else ok run_seconds_no_hint_said; fi
printf 'id,submit,duration,gpus,kind,replicas_min,replicas_max,rate,svc_mean_ms\nsvc,0,100,1,service,1,2,0.001,50\n' >"$T/svc.csv"
if check_rc empty_statistics_print_dash 0 "$G" run --trace "$T/svc.csv" --policy whole --gpus H100-SXM5-80GB:1 --out "$T/u3"; then
  if has "$T/out" '^  queue  *-  *-  *-  *-  *-$' && has "$T/out" '^  latency  *-  *-  *-  *-  *-$' &&
     has "$T/out" 'SLO attainment -$' && grep -q '"count":[[:space:]]*0' "$T/u3/report.json"
  then ok empty_statistics_print_dash; else no empty_statistics_print_dash "$T/out"; fi
  if python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["services"][0]["replicas"]["min"] != 1)' \
       "$T/u3/report.json"; then ok replicas_min_is_configured; else no replicas_min_is_configured "$T/u3/report.json"; fi
fi

# {==== failed jobs: the causes and their counts in the summary and the report ====}
if check_rc run_failed_causes 0 "$G" run --trace "$DAY" --policy vgpu --set mem_scaling=1.5 --out "$T/f1"; then
  n=$(sed -n 's/^  failed    by cause: oom \([0-9][0-9]*\), co-tenant fault 0; .*/\1/p' "$T/out")
  if [ -n "$n" ] && [ "$n" -gt 0 ] && has "$T/out" "^  warning   vgpu: jobs failed by OOM, memory overcommitted (mem_scaling=1.5)" &&
     python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))["jobs"]
sys.exit(not (j["failed"] == int(sys.argv[2]) == j["failed_by_cause"]["oom"]))' "$T/f1/report.json" "$n"
  then ok run_failed_causes; else no run_failed_causes "$T/out"; fi
fi

# {==== per-class terms: jobs.class.<name> from the trace's class column ====}
# A day of 12 training jobs (8 GPUs, 1 h) among 1,440 CPU-only notebooks that never wait for a card:
# the pooled queue p99 is the notebooks', met by one node while training queues for hours; training's
# own p99 asks for six nodes.
awk 'BEGIN { print "id,submit,duration,gpus,cpu,class"
             for (t = 0; t < 7200; t += 5) { if (t % 600 == 0) print "t" t "," t ",3600,8,8,training"
                                               print "n" t "," t ",600,0,1,notebook" } }' >"$T/mix.csv"
expect plan_class_unknown 2 "--slo: 'jobs.class.trainig.queue_s.p99': trace '.*' has no job class 'trainig' (its classes: training, notebook)" \
  "$G" plan --trace "$T/mix.csv" --policy whole --gpu H100-SXM5-80GB --slo 'jobs.class.trainig.queue_s.p99<=60' --out "$T/k1"
[ ! -d "$T/k1" ] && ok plan_class_unknown_runs_nothing || no plan_class_unknown_runs_nothing
expect compare_class_no_column 2 "--metrics: 'jobs.class.training.queue_s.p99': trace '.*' has no class column" \
  "$G" compare --trace "$T/small.csv" --policies whole --metrics jobs.class.training.queue_s.p99 --out "$T/k2"
if check_rc plan_pooled_queue 0 "$G" plan --trace "$T/mix.csv" --policy whole --gpu H100-SXM5-80GB --slo 'queue_p99<=60' \
     --seeds 1 --margin 0 --out "$T/k3"; then
  pooled=$(awk '$1 == "whole" { print $3 }' "$T/out")
  if check_rc plan_class_queue 0 "$G" plan --trace "$T/mix.csv" --policy whole --gpu H100-SXM5-80GB \
       --slo 'jobs.class.training.queue_s.p99<=60' --seeds 1 --margin 0 --out "$T/k4"; then
    cls=$(awk '$1 == "whole" { print $3 }' "$T/out")
    # the class's answer is a count at which training itself waits at most a minute; the pooled one is not
    if [ "$pooled" -lt "$cls" ] 2>/dev/null && "$G" run --trace "$T/mix.csv" --policy whole --gpus "H100-SXM5-80GB:$pooled" \
         --json --out "$T/k5" >"$T/k5.json" 2>/dev/null &&
       python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["jobs"]["class"]
sys.exit(not (c["training"]["queue_s"]["p99"] > 60 and c["notebook"]["queue_s"]["p99"] <= 60))' "$T/k5.json"
    then ok plan_class_term_sizes_the_class; else echo "pooled $pooled class $cls" >"$T/msg"; no plan_class_term_sizes_the_class "$T/msg"; fi
  fi
fi
if check_rc run_class_summary 0 "$G" run --trace "$T/mix.csv" --policy whole --gpus H100-SXM5-80GB:48 --out "$T/k6"; then
  has "$T/out" "^  class training     queue mean .* (12 jobs, 12 completed)" &&
    has "$T/out" "^  class notebook     queue mean 0.0 p99 0.0 s, jct mean 600.0 " && ok run_class_summary_lines ||
    no run_class_summary_lines "$T/out"
fi

finish
