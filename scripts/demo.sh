#!/bin/sh
# demo.sh - `make demo`: run the main job on the shipped example day, compare
# the policies, and end with the plots and the HTML report.
#
# Sections comparing further policies go above the compare section; the
# report (plot) stays last, over every result the demo made. POLICIES lists
# what the compare runs: add a policy (or a parameter variant
# NAME[key=value]) there.
set -e
echo "== gpusim run --trace workloads/examples/day.csv --policy whole (cluster: workloads/examples/cluster.json)"
./gpusim run --trace workloads/examples/day.csv --policy whole --out results/day.whole
echo
echo "== the same day with strict head-of-line order (--set queue=fifo)"
./gpusim run --trace workloads/examples/day.csv --policy whole --set queue=fifo --out results/day.whole-fifo | sed -n '2,6p'
echo "report: results/day.whole-fifo/report.json"

# --- shared cards: whole cards vs HAMi-style vgpu on the same day ---
# flat KEY VALUE pairs (jobs.queue_s.p99 0.5) from a report.json as cJSON
# prints it (one key per line, objects opened by "key": {)
flat() {
  awk '{ line = $0; gsub(/[[:space:]"]/, "", line) }
       line ~ /^[^:{}]+:\{$/ { sub(/:\{$/, "", line); k[++n] = line; next }
       line ~ /^[^:{}]+:[^{}]*$/ { sub(/,$/, "", line); split(line, kv, ":"); p = ""
         for (i = 1; i <= n; i++) if (k[i] != "") p = p k[i] "."; print p kv[1], kv[2]; next }
       { for (i = 1; i <= length(line); i++) { c = substr(line, i, 1)
           if (c == "{") k[++n] = ""; else if (c == "}") n-- } }' "$1"
}
echo
echo "== shared cards: the same day under whole and vgpu (HAMi defaults: split_count=10, node binpack, card spread)"
./gpusim run --trace workloads/examples/day.csv --policy vgpu --out results/day.vgpu >/dev/null
flat results/day.whole/report.json >results/day.whole/flat.txt
flat results/day.vgpu/report.json >results/day.vgpu/flat.txt
printf '%-24s %12s %12s\n' figure whole vgpu
for k in jobs.completed jobs.failed jobs.oom_killed jobs.queue_s.mean jobs.queue_s.p99 jobs.jct_s.mean \
         jobs.slowdown.mean jobs.slowdown.p99 gpu.alloc_ratio gpu.gpu_hours gpu.mem_alloc_ratio gpu.busy_ratio; do
  w=$(awk -v k="$k" '$1 == k { print $2; exit }' results/day.whole/flat.txt)
  v=$(awk -v k="$k" '$1 == k { print $2; exit }' results/day.vgpu/flat.txt)
  printf '%-24s %12.4g %12.4g\n' "$k" "${w:-0}" "${v:-0}"
done
echo "(whole has no sharing fields: shown as 0; reports: results/day.whole, results/day.vgpu)"
echo
echo "== inference services: a day of two model deployments (workloads/examples/inference.csv), policy whole"
./gpusim run --trace workloads/examples/inference.csv --policy whole --out results/inference.whole | sed -n '6,10p'
echo "report: results/inference.whole/report.json (per service under \"services\")"

echo
echo "== inference next to training on one shared card (vgpu): the seed article's P99 claim"
W="--set svc_pod_start_s=0 --set svc_import_s=0 --set svc_compile_s=0 --set svc_graph_s=0"
./gpusim run --trace workloads/examples/contention-alone.csv --policy vgpu --gpus A100-SXM4-80GB:1 $W \
  --out results/contention-alone.vgpu >/dev/null
./gpusim run --trace workloads/examples/contention.csv --policy vgpu --gpus A100-SXM4-80GB:1 $W \
  --out results/contention.vgpu >/dev/null
p99() { awk '/"latency_s"/ {f=1} f && /"p99"/ {gsub(/[^0-9.e+-]/, "", $2); print $2; exit}' "$1"; }
a=$(p99 results/contention-alone.vgpu/report.json); b=$(p99 results/contention.vgpu/report.json)
awk -v a="$a" -v b="$b" 'BEGIN { printf "  inference P99 alone %.3f s, next to a training task %.3f s: %+.0f%%\n", a, b, 100 * (b / a - 1) }'
echo "  (reports: results/contention-alone.vgpu, results/contention.vgpu)"

# MIG. The same trace under whole, mig (static layouts stated in the
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

# dual-pod model actuation. Sixteen long-tail models (a request every
# minute down to one every three hours) on 8 H100s (2 nodes x 4) for 8 hours,
# under the three modes of whole+dualpod side by side (flat: the helper above).
echo
echo "== dual-pod actuation: workloads/examples/longtail.csv (16 long-tail models) on 8 H100s, whole+dualpod"
echo "  mode           served dropped  GPU-h held  always-on  first p50 s  first p99 s  hot rate  evictions  host peak GiB"
for m in always-on scale-to-zero dualpod; do
  ./gpusim run --trace workloads/examples/longtail.csv --gpus H100-SXM5-80GB:8 --gpus-per-node 4 --policy whole+dualpod \
    --set dualpod_mode=$m --out results/longtail.$m >/dev/null
  flat results/longtail.$m/report.json | awk -v m=$m '{ v[$1] = $2 }
    END { D = "policy.dualpod."; F = D "first_request_latency_s.all."
      printf "  %-14s %6d %7d %11.1f %10.1f %12.2f %12.2f %9.2f %10d %14.0f\n", m, v["requests.served"],
        v["requests.dropped_timeout"] + v["requests.dropped_queue_full"], v[D "gpu_hours.held"], v[D "gpu_hours.always_on"],
        v[F "p50"], v[F "p99"], v[D "activations.hot_hit_rate"], v[D "evictions.total"], v[D "host_memory.sleeping_weights_gib_peak"] }'
done
echo "  (always-on keeps one replica per model: 8 cards host 8 of the 16 models, the others' requests time out;"
echo "   always-on column: GPU-hours if every model held its card all day)"
echo "reports: results/longtail.{always-on,scale-to-zero,dualpod}/ (policy.dualpod: activations and latency by path)"

echo
# agent sessions, with and without the hibernate time policy
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

echo
echo "== Alibaba openb (the FGD paper's traces): import, then the fill-up experiment per strategy"
OB=workloads/traces/alibaba-openb-gpu-v2023
if [ -d "$OB" ]; then
  ./gpusim import openb "$OB/openb_pod_list_default.csv" --nodes "$OB/openb_node_list_gpu_node.csv" \
    --out-trace results/openb.csv --out-cluster results/openb.json
  for sel in fgd bestfit dotprod random; do
    ./gpusim run --mode fill --fill-to 1.3 --seeds 42..44 --trace results/openb.csv --cluster results/openb.json \
      --policy vgpu --set split_count=20 --set gpu_select=$sel --out results/openb.fill.$sel | sed -n '3,4p' |
      sed "s/^/  $sel: /"
  done
  echo "  (curves: results/openb.fill.<strategy>/fill.csv)"
else
  echo "  (workloads/traces/alibaba-openb-gpu-v2023 not found: skipped)"
fi

# Priorities and preemption: the seed article's 70B training job
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


# {==== compare, plan and check (the report is drawn at the end) ====}
POLICIES=${POLICIES:-'whole,whole[queue=fifo],vgpu,timeslice'}
echo
echo "== gpusim compare --policies '$POLICIES'"
./gpusim compare --trace workloads/examples/day.csv --policies "$POLICIES" --out results/day.compare
echo
echo "== gpusim plan: fewest H100s for queue p99 <= 30 min on the example day (cards per policy)"
./gpusim plan --trace workloads/examples/day.csv --policies "$POLICIES" --gpu H100-SXM5-80GB --gpus-per-node 8 \
  --slo 'jobs.queue_s.p99<=1800' --min-gpus 8 --out results/day.plan | sed '/^evidence/,$d'
echo
echo "== gpusim check results/day.whole --baseline results/baseline/day.whole.json (the CI gate)"
./gpusim check results/day.whole --baseline results/baseline/day.whole.json | tail -1

# {==== the buyer's table: H100 vs A100, whole cards vs dynamic MIG with MIG nodes ====}
echo
echo "== gpusim plan: the buyer's table for the example day plus the agent sessions (queue p99 <= 30 min;"
echo "   cheapest first). Candidates: H100 and A100 cards (CPU and memory unlimited), and two cluster"
echo "   templates (workloads/examples/cluster-template-*.json, CPU and memory per node): H100 nodes a"
echo "   quarter MIG, and A100 nodes a quarter MIG beside a fixed pod of 4 H100 nodes."
echo "   The day's durations and service times are stated on the H100 (--set ref_gpu): an A100 runs them at"
echo "   its roofline speed (policies/README.md, \"The card decides\"), a MIG instance at its share of the card."
sh scripts/merge_traces.sh workloads/examples/day.csv workloads/examples/agents.csv results/day-agents.csv
./gpusim plan --trace results/day-agents.csv --policies 'whole,dynmig+hibernate' \
  --gpu H100-SXM5-80GB,A100-SXM4-80GB \
  --cluster-template workloads/examples/cluster-template-h100-mig.json \
  --cluster-template workloads/examples/cluster-template-a100-h100pod.json \
  --set ref_gpu=H100-SXM5-80GB --slo 'jobs.queue_s.p99<=1800' --min-gpus 8 --out results/day.buyer 2>results/day.buyer.impossible.txt |
  sed '/^evidence/,$d'
echo "(why A100 alone is impossible: results/day.buyer.impossible.txt; evidence: results/day.buyer/plan.json)"

# {==== the report: the answer first, then every run's verdict and figures ====}
echo
echo "== gpusim plot: one self-contained HTML report (the plans' answers first, each run's verdict, who pays)"
./gpusim plot results/day.buyer results/day.plan results/day.whole results/inference.whole results/day.compare \
  --slo 'jobs.queue_s.p99<=1800' --out results/day.report
if command -v chromium >/dev/null 2>&1; then # a picture of the page at 1400 px, as the tests render it
  prof=$(mktemp -d)
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
    --window-size=1400,2400 --screenshot="$PWD/results/day.report/report.png" \
    "file://$PWD/results/day.report/report.html" >/dev/null 2>&1 && echo "screenshot: results/day.report/report.png"
  rm -rf "$prof"
fi
echo
echo "open in a browser: results/day.report/report.html"
