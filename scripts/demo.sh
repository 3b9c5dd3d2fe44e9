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
# issue 8: agent sessions, with and without the hibernate time policy
echo "== agent sessions (workloads/examples/agents.csv): whole vs whole+hibernate"
./gpusim run --trace workloads/examples/agents.csv --policy whole --out results/agents.whole | sed -n '2,6p'
./gpusim run --trace workloads/examples/agents.csv --policy whole+hibernate --out results/agents.hibernate | sed -n '2,6p'
python3 - <<'PY' 2>/dev/null || grep -A4 '"given_back"' results/agents.hibernate/report.json
import json
h = json.load(open("results/agents.hibernate/report.json"))["policy"]["hibernate"]
for k in ("held_without_policy", "held", "used", "given_back"):
    v = h[k]
    print(f"  {k:<20} {v['cpu_core_hours']:10.0f} core-h {v['mem_gib_hours']:10.0f} GiB-h {v['gpu_hours']:8.1f} GPU-h")
w = h["wake_latency_s"]
print(f"  pauses {h['pauses']:.0f}  wakes {h['wakes']:.0f} (waited {h['wakes_waited']:.0f}, failed {h['wakes_failed']:.0f})"
      f"  wake latency mean {w['mean']:.2f} s  p99 {w['p99']:.2f} s  max {w['max']:.2f} s")
d = h["density"]
print(f"  sandboxes per node: peak {d['peak_sandboxes_per_node']:.0f}, mean {d['mean_sandboxes_per_node']:.2f}")
PY
echo "reports: results/agents.whole/report.json results/agents.hibernate/report.json"
