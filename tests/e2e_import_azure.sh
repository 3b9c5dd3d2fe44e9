#!/bin/sh
# e2e_import_azure.sh - the Azure LLM importer's defaults: the service row
# carries the named model's weights (Llama2-70B: 70e9 x 2 bytes = 130.385 GiB),
# MLPerf's TTFT/TPOT SLOs, max_batch 64 and a warm-up before the first
# request; the run reports attainment of each SLO and of both. The old
# defaults (16 GiB, a 1 s end-to-end SLO) gave 1.3% attainment on this trace.
# Usage: tests/e2e_import_azure.sh [GPUSIM]
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-build/test/gpusim}
AZ=workloads/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv   # the first 600 rows (--limit)
if need_file import_azure_defaults "$AZ"; then
  if check_rc import_azure_defaults 0 "$G" import azure-llm "$AZ" --limit 600 --out-trace "$T/az.csv"; then
    if grep -q '^llm,0,8,service,,,,2,4,130.385,2000,200,64$' "$T/az.csv" &&
       grep -q '^q0,180.000000,,request,llm,374,44,' "$T/az.csv"; then ok import_azure_service_row_defaults
    else no import_azure_service_row_defaults "$T/az.csv"; fi
  fi
  # the first request comes after the cold start (5 + 10 + 130.385 GiB / 2 GB/s + 20 + 10 = 115 s < 180 s):
  # no request waits for weights, so TTFT stays far below its 2 s SLO
  if "$G" run --trace "$T/az.csv" --gpus H100-SXM5-80GB:32 --policy whole --json --out "$T/r" >"$T/r.json" 2>"$T/err"; then
    if grep -q '"slo_ttft_ms":[[:space:]]*2000' "$T/r.json" && grep -q '"slo_tpot_ms":[[:space:]]*200' "$T/r.json" &&
       grep -q '"slo_attainment_ttft":[[:space:]]*1,' "$T/r.json" && grep -q '"slo_attainment_tpot":' "$T/r.json" &&
       grep -q '"slo_attainment_both":' "$T/r.json" && grep -q '"served":[[:space:]]*600' "$T/r.json" &&
       ! grep -q '"slo_ms"' "$T/r.json"; then ok import_azure_reports_token_slos
    else no import_azure_reports_token_slos "$T/r.json"; fi
  else no import_azure_reports_token_slos "$T/err"; fi
  if check_rc import_azure_options 0 "$G" import azure-llm "$AZ" --limit 600 --weights-gib 16 --slo-ttft-ms 500 --slo-tpot-ms 50 \
       --max-batch 16 --warmup-s 0 --replicas 1:4 --out-trace "$T/az2.csv"; then
    grep -q '^llm,0,8,service,,,,1,4,16,500,50,16$' "$T/az2.csv" && grep -q '^q0,0.000000,' "$T/az2.csv" &&
      ok import_azure_options_override || no import_azure_options_override "$T/az2.csv"
  fi
fi
expect import_azure_bad_option 2 "slo-ttft-ms: expected a number" "$G" import azure-llm "$AZ" --slo-ttft-ms fast
finish
