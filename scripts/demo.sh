#!/bin/sh
# demo.sh - `make demo`: run the main job on the shipped example day and say
# where the report and the plot are.
set -e
echo "== gpusim run --trace workloads/examples/day.csv --policy whole (cluster: workloads/examples/cluster.json)"
./gpusim run --trace workloads/examples/day.csv --policy whole --out results/day.whole
gpus=$(grep -m1 '"gpus"' results/day.whole/report.json | sed 's/[^0-9]//g')
if sh scripts/plot.sh results/day.whole "$gpus"; then
  echo "plot: results/day.whole/timeseries.png"
fi
echo
echo "== the same day with strict head-of-line order (--set queue=fifo)"
./gpusim run --trace workloads/examples/day.csv --policy whole --set queue=fifo --out results/day.whole-fifo | sed -n '2,6p'
echo "report: results/day.whole-fifo/report.json"

# Priorities and preemption (issue 10): the seed article's 70B training job
# (140 GB checkpoint) and a 13B one against four "inference surges", which
# stand in as bursts of short high-priority non-preemptible jobs until
# inference services exist. Same trace with preemption off and on.
echo
echo "== preemption: workloads/examples/preempt.csv on workloads/examples/cluster-preempt.json (16 GPUs)"
for p in off on; do
  echo "-- --set preempt=$p"
  ./gpusim run --trace workloads/examples/preempt.csv --cluster workloads/examples/cluster-preempt.json \
    --policy whole --set preempt=$p --out results/preempt.$p | grep -E '^  (prio|preempt|tenant)'
done
# the 13B job made non-preemptible, so that every preemption hits the 70B job
sed 's/^\(train-13b,[^,]*,[^,]*,[^,]*,[^,]*\),1,/\1,0,/' workloads/examples/preempt.csv >results/preempt-70b-only.csv
echo "-- only the 70B job preemptible (preempt=on): what it paid (prio 0 = both training jobs)"
./gpusim run --trace results/preempt-70b-only.csv --cluster workloads/examples/cluster-preempt.json \
  --policy whole --set preempt=on --out results/preempt.70b | grep -E '^  (prio 0|preempt)'
echo "reports: results/preempt.off/report.json results/preempt.on/report.json results/preempt.70b/report.json"
