#!/bin/sh
# demo.sh - `make demo`: run the main job on the shipped example day, compare
# the policies, and end with the plots and the HTML report.
#
# Sections comparing further policies go above the last section; the last
# section (plots and report) stays last. POLICIES lists what the compare at
# the end runs: add a policy (or a parameter variant NAME[key=value]) there.
set -e
echo "== gpusim run --trace workloads/examples/day.csv --policy whole (cluster: workloads/examples/cluster.json)"
./gpusim run --trace workloads/examples/day.csv --policy whole --out results/day.whole
echo
echo "== the same day with strict head-of-line order (--set queue=fifo)"
./gpusim run --trace workloads/examples/day.csv --policy whole --set queue=fifo --out results/day.whole-fifo | sed -n '2,6p'
echo "report: results/day.whole-fifo/report.json"

# {==== last section: compare, plan, plots and the HTML report (issue 6) ====}
POLICIES=${POLICIES:-'whole,whole[queue=fifo]'}
echo
echo "== gpusim compare --policies '$POLICIES'"
./gpusim compare --trace workloads/examples/day.csv --policies "$POLICIES" --out results/day.compare
echo
echo "== gpusim plan: fewest H100s for queue p99 <= 30 min on the example day"
./gpusim plan --trace workloads/examples/day.csv --policies "$POLICIES" --gpu H100-SXM5-80GB --gpus-per-node 8 \
  --slo 'jobs.queue_s.p99<=1800' --min-gpus 8 --out results/day.plan | sed -n '1,6p'
echo
echo "== gpusim check results/day.whole --baseline results/baseline/day.whole.json (the CI gate)"
./gpusim check results/day.whole --baseline results/baseline/day.whole.json | tail -1
echo
echo "== gpusim plot: figures (PNG + SVG) and one self-contained HTML report"
./gpusim plot results/day.whole results/day.compare results/day.plan --out results/day.report
echo
echo "open in a browser: results/day.report/report.html"
