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

# --- shared cards (issue 3): whole cards vs HAMi-style vgpu on the same day ---
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
  w=$(awk -v k="$k" '$1 == k { print $2 }' results/day.whole/flat.txt)
  v=$(awk -v k="$k" '$1 == k { print $2 }' results/day.vgpu/flat.txt)
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

echo
echo "== issue 7: Alibaba openb (the FGD paper's traces): import, then the fill-up experiment per strategy"
OB=../shared/traces/alibaba-openb-gpu-v2023
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
  echo "  (../shared/traces/alibaba-openb-gpu-v2023 not found: skipped)"
fi
