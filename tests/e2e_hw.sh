#!/bin/sh
# e2e_hw.sh [GPUSIM] - the card decides, end to end: `gpusim models` shows
# speed figures (BF16, FP8, FP4, NVLink, network) and unverified marks, the
# LLM catalog (--llm) and the speed model's validation (--validate); bad reference names are usage or input
# errors naming the parameter or column; a job on a slower card takes the
# TFLOPS ratio longer and the report lists the figures relied on; a service
# whose weights fit no card is warned about, reported and never served; run warns
# on an extrapolated speed; compare runs aggregated against disaggregated serving.
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-./gpusim}

expect models_speed_columns 0 'H100-SXM5-80GB  *989.4  *1979  *-  *3350' "$G" models
expect models_links 0 'B200-180GB  *2250.0  *4500  *9000 .* 1800x8  *50' "$G" models
expect models_llm_catalog 0 'deepseek-v3  *mla  *61  *7168 .* 256 routed, 8 per token, 1 shared' "$G" models --llm
expect models_validate_held_out 0 'held out: decode [0-9.]*%, prefill [0-9.]*%' "$G" models --validate
# the vendor table (TensorRT-LLM v0.5.0, H200 FP8): the README's 0.41-1.10 of the published throughput
"$G" models --validate >"$T/val.out" 2>&1
if [ "$(awk -F'|' '$3 ~ /H200/ && $10 + 0 >= 0.41 && $10 + 0 <= 1.10 { n++ } END { print n + 0 }' "$T/val.out")" = 4 ]; then
  ok models_validate_vendor_ratios
else no models_validate_vendor_ratios "$T/val.out"; fi
expect models_bad_option 2 "models: unexpected argument '--lm'" "$G" models --lm
# a catalog model on a card no measurement covers: the report says extrapolated, and run warns
printf 'id,submit,duration,kind,model,tp,replicas_min,replicas_max,service,input_tokens,output_tokens\nx,0,100,service,llama-3.1-70b,4,1,1,,,\n' \
  >"$T/l40.csv"
expect run_warns_on_extrapolation 0 "warning   service 'x' on L40S-48GB: its speed is an extrapolation (a card no measurement" \
  "$G" run --trace "$T/l40.csv" --gpus L40S-48GB:8 --policy whole --out "$T/l40"
# aggregated against disaggregated at the same GPUs and SLO: compare runs both, the second reports its pools
printf 'id,submit,duration,kind,model,tp,replicas_min,replicas_max,rate,input_tokens,output_tokens,slo_ttft_ms\n%s\n' \
  's,0,120,service,llama-3.1-8b,1,2,2,4,1000,50,2000' >"$T/pd.csv"
if check_rc compare_aggregated_disaggregated 0 "$G" compare --trace "$T/pd.csv" --gpus H100-SXM5-80GB:2 \
     --policies 'whole[svc_pd=none],whole[svc_pd=1:1]' --out "$T/pdc"; then
  if has "$T/out" 'ttft_p99_s' && has "$T/pdc/runs/p1-whole_svc_pd_1_1.s1/report.json" '"kv_transferred_gib"' &&
     ! has "$T/pdc/runs/p0-whole_svc_pd_none.s1/report.json" '"kv_transferred_gib"'; then ok compare_aggregated_disaggregated
  else no compare_aggregated_disaggregated "$T/out"; fi
fi
expect models_unverified_marked 0 'H100-NVL-94GB.*unverified:.*mem_bw_gbps' "$G" models

printf 'id,submit,duration,gpus,mem_bound\nj,0,100,1,0\n' >"$T/job.csv"
expect ref_gpu_param_unknown_exit2 2 'parameter ref_gpu' \
  "$G" run --trace "$T/job.csv" --gpus A100-SXM4-80GB:1 --policy whole --set ref_gpu=Z80 --out "$T/r0"
printf 'id,submit,duration,gpus,ref_gpu\nj,0,100,1,Z80\n' >"$T/badref.csv"
expect ref_gpu_column_unknown_exit3 3 "line 2, column 5 ('ref_gpu')" \
  "$G" run --trace "$T/badref.csv" --gpus A100-SXM4-80GB:1 --policy whole --out "$T/r1"

# 100 s of compute-bound work stated on the H100 takes 100 x 989.4 / 312 = 317.115 s on an A100
if check_rc a100_compute_bound_ratio 0 "$G" run --trace "$T/job.csv" --gpus A100-SXM4-80GB:1 --policy whole \
     --set ref_gpu=H100-SXM5-80GB --json --out "$T/r2"; then
  if has "$T/out" '"end_s":[[:space:]]*317.115' && has "$T/out" '"model":[[:space:]]*"A100-SXM4-80GB"'; then
    ok a100_compute_bound_ratio
  else no a100_compute_bound_ratio "$T/out"; fi
fi

# the example day on its mixed cluster: A100-placed jobs run slower than on the H100 reference
expect day_a100_jobs_slower 0 'speed     vs H100-SXM5-80GB: A100-SXM4-80GB 0.369x' \
  "$G" run --trace workloads/examples/day.csv --policy whole --out "$T/day"

printf 'id,submit,duration,gpus,kind,weights_gib,rate,output_tokens,input_tokens\nbig,0,100,1,service,140,1,50,100\n' \
  >"$T/svc.csv"
if check_rc unplaceable_service_warned 0 "$G" run --trace "$T/svc.csv" --gpus T4-16GB:2 --policy whole --out "$T/r3"; then
  if has "$T/out" "warning: service 'big' fits no card" && has "$T/r3/report.json" '"unplaceable_reason":[[:space:]]*"needs' &&
     has "$T/r3/report.json" '"served":[[:space:]]*0,' && has "$T/r3/report.json" '"services_unplaceable":[[:space:]]*1'; then
    ok unplaceable_service_warned
  else no unplaceable_service_warned "$T/out"; fi
fi
finish
