#!/bin/sh
# e2e_import_site.sh - `gpusim import k8s` and `gpusim import sacct` as a
# user runs them on the fixtures (tests/fixtures/k8s/, tests/fixtures/slurm/):
# the summary counts every pod and job by reason, the outputs are written
# atomically (nothing on a refused input), usage errors exit 2 and input
# errors 3, and `gpusim run` replays what was written.
# Usage: tests/e2e_import_site.sh [GPUSIM]   (default build/test/gpusim)
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-build/test/gpusim}
K=tests/fixtures/k8s
S=tests/fixtures/slurm

# {==== the importer table ====}
if check_rc import_help 0 "$G" import --help; then
  n=0
  for f in azure-llm mooncake sd dlrm openb k8s sacct; do grep -q "^  $f " "$T/out" && n=$((n + 1)); done
  [ "$n" -eq 7 ] && ok import_help_lists_every_family || no import_help_lists_every_family "$T/out"
fi
expect import_unknown_format 2 "unknown import format 'slurm' (formats: azure-llm, mooncake, sd, dlrm, openb, k8s, sacct)" \
  "$G" import slurm x

# {==== k8s ====}
if check_rc k8s_import 0 "$G" import k8s --nodes $K/nodes.json --pods $K/pods.json --pods $K/pods-later.json \
     --priority-classes $K/priorityclasses.json --quotas $K/quotas.json --events $K/events.json \
     --service inference/llama=rate=2,svc_mean_ms=800,slo_ms=2000 --out-trace "$T/k.csv" --out-cluster "$T/k.json"; then
  if has "$T/out" "88 pod objects in 2 snapshot(s), 43 copies of a pod in a later snapshot: 45 pods, 30 converted" &&
     has "$T/out" "4 replicas of 1 services (0 --service with no pod), 11 skipped, written to $T/k.csv" &&
     has "$T/out" "skipped: 1 x phase Unknown" && has "$T/out" "trace time 0 = 2024-05-01T08:00:00Z" &&
     has "$T/out" "1 pods named by events are in no snapshot" && has "$T/out" "1 control-plane left out"; then
    ok k8s_summary_counts_by_reason
  else no k8s_summary_counts_by_reason "$T/out"; fi
  [ "$(($(wc -l <"$T/k.csv") - 1))" -eq 31 ] && ok k8s_rows_written || no k8s_rows_written "$T/k.csv"
  # the imported day replays on the imported cluster
  if "$G" run --trace "$T/k.csv" --cluster "$T/k.json" --policy vgpu --allow-extra-columns --json --out "$T/kr" \
       >"$T/kr.json" 2>"$T/err"; then
    # 30 pods as jobs, and the service's generated requests
    grep -q '"arrived":[[:space:]]*30,' "$T/kr.json" && ok k8s_trace_replays || no k8s_trace_replays "$T/kr.json"
  else no k8s_trace_replays "$T/err"; fi
fi
expect k8s_needs_nodes_and_pods 2 "give --nodes NODES.json and --pods PODS.json" "$G" import k8s --pods $K/pods.json
expect k8s_no_positional 2 "unexpected argument 'pods.json' (the inputs are options)" \
  "$G" import k8s --nodes $K/nodes.json pods.json
expect k8s_bad_service 2 "--service: 'rate' : expected KEY=VALUE\|--service: 'speed=2': expected KEY=VALUE" \
  "$G" import k8s --nodes $K/nodes.json --pods $K/pods.json --service inference/llama=speed=2
expect k8s_bad_product_map 2 "--gpu-product: unknown model 'H999'" \
  "$G" import k8s --nodes $K/nodes.json --pods $K/pods.json --gpu-product NVIDIA-X=H999
# an unknown product is an input error naming the node, with the mapping that fixes it; nothing is written
sed 's/NVIDIA-L4-SHARED/NVIDIA-L5/' $K/nodes.json >"$T/n5.json"
expect k8s_unknown_product 3 "(gpu-l4-0): metadata.labels.nvidia.com/gpu.product: unknown GPU product 'NVIDIA-L5'" \
  "$G" import k8s --nodes "$T/n5.json" --pods $K/pods.json --out-trace "$T/k5.csv" --out-cluster "$T/k5.json"
if [ ! -e "$T/k5.csv" ] && [ ! -e "$T/k5.json" ] && ! ls "$T" | grep -q tmp; then ok k8s_refused_writes_nothing
else ls "$T" >"$T/msg"; no k8s_refused_writes_nothing "$T/msg"; fi
if check_rc k8s_product_mapped 0 "$G" import k8s --nodes "$T/n5.json" --pods $K/pods.json --gpu-product NVIDIA-L5=L4-24GB \
     --priority-classes $K/priorityclasses.json --out-trace "$T/k6.csv" --out-cluster "$T/k6.json"; then
  grep -q '"model":[[:space:]]*"L4-24GB"' "$T/k6.json" && ok k8s_product_mapping_applies || no k8s_product_mapping_applies "$T/k6.json"
fi
# racks and blocks from Kueue-style labels: the cluster file's topology, read back by run
if check_rc k8s_topology 0 "$G" import k8s --nodes $K/nodes.json --pods $K/pods.json --priority-classes $K/priorityclasses.json \
     --topology-label cloud.google.com/gce-topology-block --topology-label cloud.google.com/gce-topology-subblock \
     --topology-bw-gbps 50,200 --out-trace "$T/kt.csv" --out-cluster "$T/kt.json"; then
  if tr -d ' \t\n' <"$T/kt.json" | grep -q '"topology":{"levels":\["block","rack"\],"sizes":\[2,4\],"bw_gbps":\[50,200\]}' &&
     "$G" run --trace "$T/kt.csv" --cluster "$T/kt.json" --policy whole --allow-extra-columns --out "$T/ktr" >"$T/ktr.out" 2>&1
  then ok k8s_topology_cluster_runs
  else cat "$T/kt.json" "$T/ktr.out" >"$T/msg" 2>/dev/null; no k8s_topology_cluster_runs "$T/msg"; fi
fi
expect k8s_topology_needs_bw 2 "--topology-bw-gbps gives 0 bandwidths for 1 --topology-label levels" \
  "$G" import k8s --nodes $K/nodes.json --pods $K/pods.json --topology-label cloud.google.com/gce-topology-block
printf '{"items": [{"kind": "Pod", "metadata": {"name": "p"' >"$T/cut.json"
expect k8s_cut_list 3 "pod list '$T/cut.json' line 1, column 52: unexpected end of input inside the value that starts at line 1, column 12" \
  "$G" import k8s --nodes $K/nodes.json --pods "$T/cut.json" --out-trace "$T/k7.csv"

# {==== sacct ====}
if check_rc sacct_import 0 "$G" import sacct $S/sacct.txt --nodes $S/nodes-scontrol.txt --gpu-type h100=H100-SXM5-80GB \
     --out-trace "$T/s.csv" --out-cluster "$T/s.json"; then
  if has "$T/out" "34 job lines read, 24 converted" && has "$T/out" "10 skipped, written to $T/s.csv" &&
     has "$T/out" "skipped: 2 x CANCELLED before it started" && has "$T/out" "multi-node: 3" &&
     has "$T/out" "16 nodes read: 14 with GPUs (104 GPUs)"; then ok sacct_summary_counts_by_reason
  else no sacct_summary_counts_by_reason "$T/out"; fi
  if "$G" run --trace "$T/s.csv" --cluster "$T/s.json" --policy whole --allow-extra-columns --json --out "$T/sr" \
       >"$T/sr.json" 2>"$T/err"; then
    # every job, the gangs across nodes included, runs
    grep -q '"arrived":[[:space:]]*24,' "$T/sr.json" && grep -q '"completed":[[:space:]]*24,' "$T/sr.json" &&
      grep -q '"rejected":[[:space:]]*0,' "$T/sr.json" && ok sacct_trace_replays || no sacct_trace_replays "$T/sr.json"
  else no sacct_trace_replays "$T/err"; fi
fi
expect sacct_unmapped_type 3 "GPU type 'h100' names no \`gpusim models\` model or alias; map it with --gpu-type 'h100=MODEL'" \
  "$G" import sacct $S/sacct.txt --nodes $S/nodes-scontrol.txt --out-trace "$T/s2.csv"
[ ! -e "$T/s2.csv" ] && ok sacct_refused_writes_nothing || no sacct_refused_writes_nothing
expect sacct_cluster_needs_nodes 2 "--out-cluster needs --nodes NODES.txt" \
  "$G" import sacct $S/sacct.txt --out-cluster "$T/s3.json"
expect sacct_one_input 2 "give one input accounting file SACCT.txt" "$G" import sacct --nodes $S/nodes-sinfo.txt
printf 'JobID|Submit|Start|End|State|AllocTRES|NNodes\n1|2024-05-01T00:00:00|2024-05-01T00:00:01|2024-05-01T00:00:02|DONE|gres/gpu=1|1\n' >"$T/bad.txt"
expect sacct_bad_state 3 "accounting '$T/bad.txt' line 2, field 5 (State): expected a job state" \
  "$G" import sacct "$T/bad.txt" --out-trace "$T/s4.csv"
finish
