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

# issue 4: MIG. The same trace under whole, mig (static layouts stated in the
# cluster file) and dynmig (HAMi dynamic MIG, three start strategies), side by side.
mig_row() { # LABEL TRACE CLUSTER OUT POLICY [--set K=V]
  label=$1; trace=$2; cluster=$3; out=$4; shift 4
  ./gpusim run --trace "$trace" --cluster "$cluster" --policy "$@" --out "$out" >"$out.txt" || return 1
  awk -v l="$label" '$1 == "queue" { qm = $2; qp = $5 } $1 == "gpu" { ar = $3 }
    END { printf "  %-22s %10s %10s %8s", l, qm, qp, ar }' "$out.txt"
  r="$out/report.json"
  if grep -q '"slice_util"' "$r"; then
    tr -d ' \t\n' <"$r" | sed 's/.*"slice_util":{"memory":\([^,]*\),"compute":\([^,]*\),.*"blocked_by_layout":{"requests":\([^,]*\),.*"waited_beside_idle_instances":{"requests":\([^,]*\),.*/\1 \2 \3 \4/' |
      awk '{ printf " %8.3f %8.3f %8s %8s", $1, $2, $3, $4 }'
  fi
  echo
  rm -f "$out.txt"
}
mig_table() { # TRACE CLUSTER TAG
  echo "  policy                 queue mean  queue p99    alloc  slice-mem slice-cmp blocked  beside-idle"
  mig_row whole "$1" "$2" "results/$3.whole" whole
  mig_row mig "$1" "$2" "results/$3.mig" mig
  for st in first bestfit demand; do
    mig_row "dynmig strategy=$st" "$1" "$2" "results/$3.dynmig-$st" dynmig --set strategy=$st
  done
}
echo
echo "== MIG: workloads/examples/day.csv on workloads/examples/cluster-mig.json (3 of the 8 A100 nodes MIG-enabled)"
mig_table workloads/examples/day.csv workloads/examples/cluster-mig.json day-mig
echo
echo "== MIG: workloads/examples/mig-mix.csv (single-card MIG requests on the A100s), same cluster"
mig_table workloads/examples/mig-mix.csv workloads/examples/cluster-mig.json mig-mix
echo
echo "== MIG layout schedule (workloads/examples/cluster-mig-schedule.json) under mig, the example day"
./gpusim run --trace workloads/examples/day.csv --cluster workloads/examples/cluster-mig-schedule.json --policy mig \
  --out results/day.mig-schedule | sed -n '2,6p'
tr -d ' \t\n' <results/day.mig-schedule/report.json | sed 's/.*"layout_switches":\({[^}]*}\).*/  layout switches: \1/'
echo
echo "reports: results/day-mig.*/ results/mig-mix.*/ results/day.mig-schedule/"
