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

echo
echo "== inference services: a day of two model deployments (workloads/examples/inference.csv), policy whole"
./gpusim run --trace workloads/examples/inference.csv --policy whole --out results/inference.whole | sed -n '6,10p'
echo "report: results/inference.whole/report.json (per service under \"services\")"
