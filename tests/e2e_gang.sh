#!/bin/sh
# e2e_gang.sh - jobs across nodes end to end: a rejected row says why on stderr and in the report,
# jobs.by_size is written beside a gang and a `plan` term on it is met only from a large enough
# cluster, and the timeseries gains largest_gang.
# Usage: tests/e2e_gang.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
printf 'id,submit,duration,gpus\nA,0,100,16\nB,10,50,16\nC,20,30,8\nD,30,10,64\n' >"$T/g.csv"
expect gang/rejection_warned 0 "warning: 1 job rejected: needs 64 GPUs, the cluster has 24 (H100-SXM5-80GB) ('D')" \
  "$G" run --trace "$T/g.csv" --policy whole --gpus H100-SXM5-80GB:24 --out "$T/r"
if python3 -c "
import json, sys
r = json.load(open('$T/r/report.json'))
j = r['jobs']
assert j['rejected_reasons']['needs 64 GPUs, the cluster has 24 (H100-SXM5-80GB)'] == {'count': 1, 'ids': ['D']}
assert j['by_size']['9-64']['count'] == 3 and j['by_size']['9-64']['queue_s']['max'] > 89
" 2>"$T/py" && head -1 "$T/r/timeseries.csv" | grep -q ',largest_gang$'; then ok gang/report_by_size_and_column
else no gang/report_by_size_and_column "$T/py"; fi
# B waits 90 s for two whole nodes on 24 GPUs; from 32 GPUs on it starts at once
expect gang/plan_term_by_size 0 'whole  *H100-SXM5-80GB  *32 ' \
  "$G" plan --trace "$T/g.csv" --policy whole --gpu H100-SXM5-80GB --slo 'jobs.by_size.9-64.queue_s.p99<=60' \
  --allow-rejected --min-gpus 16 --max-gpus 64 --jobs 1 --out "$T/p"
finish
