#!/bin/sh
# e2e_verdicts.sh - no silent wrong answer from plan, compare and check: a
# misspelled metric is a usage error before anything runs, an SLO takes a
# time with its unit.
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

finish
