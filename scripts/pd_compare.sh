#!/bin/sh
# pd_compare.sh [GPUSIM] - aggregated against disaggregated (prefill/decode)
# serving of the Azure LLM inference conversation trace (2023, workloads/
# traces/azure-llm-inference-2023), Llama-2-70B at TP 4 on H100s (its
# measured Splitwise profile), at one SLO (TTFT 2 s, TPOT 200 ms: the
# importer's MLPerf targets) and one GPU budget per line: R aggregated
# replicas against every P:D with P + D = R. Prints the markdown table of
# sim/service/README.md. Scratch files in a mktemp directory, removed.
G=${1:-./gpusim}
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$G" import azure-llm workloads/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv \
    --out-trace "$T/az.csv" >/dev/null 2>&1
echo "| GPUs | serving | SLO attainment (TTFT and TPOT) | TTFT p50 s | TTFT p99 s | TPOT attainment | latency p99 s | prefill busy | decode busy |"
echo "|---|---|---|---|---|---|---|---|---|"
for R in 2 4 6; do
    # the service row: Llama-2-70B, TP 4, R replicas; every other row two empty columns more
    awk -F, -v r="$R" 'BEGIN { OFS = "," } NR == 1 { print $0 ",model,tp"; next }
        $4 == "service" { $3 = 4; $8 = r; $9 = r; $10 = ""; print $0 ",llama-2-70b,4"; next } { print $0 ",," }' \
        "$T/az.csv" >"$T/az$R.csv"
    pols="whole[svc_pd=none]"
    p=1
    while [ $p -lt $R ]; do pols="$pols,whole[svc_pd=$p:$((R - p))]"; p=$((p + 1)); done
    "$G" compare --trace "$T/az$R.csv" --policies "$pols" --gpus "H100-SXM5-80GB:$((4 * R))" --out "$T/c$R" \
        --format json >/dev/null 2>&1
    for d in "$T/c$R"/runs/*/; do
        python3 - "$d/report.json" "$((4 * R))" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["services"][0]
pd = s.get("pd")
mode = r["inputs"]["params"].get("svc_pd", "none")
label = "aggregated, %d replicas" % s["replicas"]["max"] if not pd else "disaggregated %s" % mode
busy = lambda k: "%.2f" % pd[k]["busy_ratio"] if pd else "-"
print("| %s | %s | %.4f | %.3f | %.2f | %.4f | %.1f | %s | %s |" % (sys.argv[2], label, s["slo_attainment"],
      s["ttft_s"]["p50"], s["ttft_s"]["p99"], s["slo_attainment_tpot"], s["latency_s"]["p99"], busy("prefill"),
      busy("decode")))
EOF
    done
done
