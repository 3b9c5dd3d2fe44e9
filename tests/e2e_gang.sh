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
# the trace's multi-node columns reach the core: gpus_per_node spreads an 8-GPU job over 4 nodes (a span,
# so jobs.by_size appears), comm slows a job across racks by 1/((1-comm) + comm x 900/100), a required rack
# that no rack can hold is a rejection with its reason
printf '{"nodes": [{"model": "H100-SXM5-80GB", "count": 8, "gpus": 8}], "topology": {"levels": ["rack"], "sizes": [4], "bw_gbps": [100]}}\n' >"$T/c.json"
printf 'id,submit,duration,gpus,gpus_per_node,comm,topology\nA,0,100,8,2,,\nB,0,100,16,,,\nC,1000,100,48,,0.5,\nD,2000,100,48,,0.5,rack\nE,3000,100,48,,0,\n' >"$T/cols.csv"
expect gang/columns_rejection_warned 0 "topology 'rack' required" \
  "$G" run --trace "$T/cols.csv" --cluster "$T/c.json" --policy whole --out "$T/rc"
if python3 -c "
import json
j = json.load(open('$T/rc/report.json'))['jobs']
assert j['by_size']['2-8']['count'] == 1 and j['by_size']['9-64']['count'] == 4, j['by_size']  # D counted, rejected
assert abs(j['jct_s']['mean'] - 200) < 1e-6 and abs(j['jct_s']['max'] - 500) < 1e-6, j['jct_s']
assert list(j['rejected_reasons'].values()) == [{'count': 1, 'ids': ['D']}]
" 2>"$T/py"; then ok gang/columns_gpus_per_node_comm_topology
else no gang/columns_gpus_per_node_comm_topology "$T/py"; fi
finish
