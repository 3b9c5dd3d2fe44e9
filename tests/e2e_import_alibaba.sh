#!/bin/sh
# e2e_import_alibaba.sh - the Alibaba Stable Diffusion and DLRM importers on
# fixtures cut from the public files (tests/fixtures/README.md): counts,
# skipped rows by reason, sorted output, bounded-memory sort, bad rows named
# by line and column, nothing written on failure, and the converted traces run.
# Usage: tests/e2e_import_alibaba.sh [GPUSIM]
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-build/test/gpusim}
FX=tests/fixtures

# {==== Stable Diffusion ====}
SD=$FX/alibaba-sd/lora_request_trace.head400.csv
if need_file import_sd "$SD"; then
  if check_rc import_sd 0 "$G" import sd "$SD" --out-trace "$T/sd.csv"; then
    # 400 rows: 393 SUCCEED (21 base models), 7 FAILED; the first LoRA row (line 24, exec 49 s, 1 adapter) -> 52 s
    if has "$T/out" "400 rows read, 393 requests converted (34 with LoRA adapters, 34 adapters) to 21 model services, 7 skipped" &&
       has "$T/out" "skipped: 7 x predict_status FAILED" && has "$T/out" "line 202: predict_status FAILED; row skipped" &&
       [ "$(grep -c ',service,,' "$T/sd.csv")" -eq 21 ] && [ "$(grep -c ',request,' "$T/sd.csv")" -eq 393 ] &&
       grep -q '^sd24,7654,52.000000,,request,M0003,G0003,' "$T/sd.csv"; then ok import_sd_counts_and_mapping
    else no import_sd_counts_and_mapping "$T/out"; fi
  fi
  if check_rc import_sd_lora0 0 "$G" import sd "$SD" --lora-load-s 0 --out-trace "$T/sd0.csv"; then
    grep -q '^sd24,7654,49.000000,' "$T/sd0.csv" && ok import_sd_lora_load_is_a_parameter || no import_sd_lora_load_is_a_parameter "$T/sd0.csv"
  fi
  # scale-to-zero against dual-pod on the converted trace: every request served, dual-pod holds no more GPU-hours
  ok_runs=1
  for m in scale-to-zero dualpod; do
    "$G" run --trace "$T/sd.csv" --gpus H100-SXM5-80GB:24 --policy whole+dualpod --set dualpod_mode=$m --json \
      --out "$T/sd.$m" >"$T/sd.$m.json" 2>"$T/err" && grep -q '"served":[[:space:]]*393' "$T/sd.$m.json" || ok_runs=0
  done
  [ "$ok_runs" -eq 1 ] && ok import_sd_runs_under_dualpod_modes || no import_sd_runs_under_dualpod_modes "$T/err"
fi
H='gmt_create,predict_type,predict_status,exec_time_seconds,groupId,prompt_length,negative_prompt_length,num_images_per_prompt,num_inference_steps,checkpoint_model_version_id,num_lora'
printf '%s\n2024-11-15 16:57:50,TXT_2_IMG,SUCCEED,32.0,G0,63.0,26.0,1.0,30.0,M0,0\n2024-11-15 16:57:51,TXT_2_IMG,PENDING,0.0,G0,,,,,,0\n2024-11-15 16:57:52,TXT_2_IMG,PROCESSING,0.0,G0,,,,,,0\n2024-11-15 16:57:53,TXT_2_IMG,SUCCEED,20.0,G1,63.0,26.0,1.0,30.0,,0\n2024-11-15 16:57:40,TXT_2_IMG,SUCCEED,20.0,G1,63.0,26.0,1.0,30.0,M0,0\n' "$H" >"$T/sdq.csv"
if check_rc import_sd_reasons 0 "$G" import sd "$T/sdq.csv" --out-trace "$T/sdq.out"; then
  has "$T/out" "1 requests converted" && has "$T/out" "1 x predict_status PENDING" && has "$T/out" "1 x predict_status PROCESSING" &&
    has "$T/out" "1 x no checkpoint_model_version_id" && has "$T/out" "1 x gmt_create earlier than the row before" &&
    ok import_sd_skips_counted_by_reason || no import_sd_skips_counted_by_reason "$T/out"
fi
printf '%s\n2024-11-15 16:57:50,TXT_2_IMG,SUCCEED,32.0,G0,63.0,26.0,1.0,30.0,M0,0\n2024-11-15 16:57:51,TXT_2_IMG,SUCCEED,fast,G0,63.0,26.0,1.0,30.0,M0,0\n' "$H" >"$T/sdbad.csv"
expect import_sd_bad_row_names_line_and_column 3 "line 3, column 4 ('exec_time_seconds'): expected a number of seconds 0..1e7, found 'fast'" \
  "$G" import sd "$T/sdbad.csv" --out-trace "$T/sdbad.out"
[ ! -e "$T/sdbad.out" ] && ! ls "$T" | grep -q '\.tmp\.' && ok import_sd_bad_input_writes_nothing ||
  no import_sd_bad_input_writes_nothing
expect import_sd_unwritable_output_exit4 4 "cannot write" "$G" import sd "$T/sdq.csv" --out-trace "$T/no/such/dir/x.csv"

# {==== DLRM ====}
DL=$FX/alibaba-dlrm/disaggregated_DLRM_trace.apps-1-3-6-8-11.csv
if need_file import_dlrm "$DL"; then
  if check_rc import_dlrm 0 "$G" import dlrm "$DL" --out-trace "$T/dl.csv"; then
    if has "$T/out" "398 rows read, 398 instances converted (182 GPU-node HN with 182 GPUs, 216 CPU-node CN; 130 existed before the trace, 144 alive at its end" &&
       has "$T/out" "not modeled: RDMA share on 398 instances, instances-per-node cap on 287 instances" &&
       awk -F, 'NR > 1 && $2 + 0 < last { bad = 1 } NR > 1 { last = $2 + 0 } END { exit bad }' "$T/dl.csv"; then
      ok import_dlrm_counts_sorted
    else no import_dlrm_counts_sorted "$T/out"; fi
  fi
  # a sort in batches of 7 rows (57 runs in temporary files) gives the same bytes
  if check_rc import_dlrm_runs 0 "$G" import dlrm "$DL" --sort-lines 7 --out-trace "$T/dl7.csv"; then
    cmp -s "$T/dl.csv" "$T/dl7.csv" && ok import_dlrm_external_sort_same_output || no import_dlrm_external_sort_same_output
  fi
  if check_rc import_dlrm_hn 0 "$G" import dlrm "$DL" --roles HN --out-trace "$T/dlhn.csv"; then
    has "$T/out" "182 instances converted" && has "$T/out" "216 x role not selected" && ok import_dlrm_roles ||
      no import_dlrm_roles "$T/out"
  fi
  printf '{"name": "hn", "nodes": [{"model": "A100-SXM4-80GB", "count": 8, "gpus": 8, "cpu": 128, "mem_gib": 1024, "mig": "whole"}]}\n' >"$T/c.json"
  ok_runs=1
  for p in whole vgpu dynmig; do
    "$G" run --trace "$T/dlhn.csv" --cluster "$T/c.json" --policy $p --json --out "$T/dl.$p" >"$T/dl.$p.json" 2>"$T/err" &&
      grep -q '"completed":[[:space:]]*182' "$T/dl.$p.json" || ok_runs=0
  done
  [ "$ok_runs" -eq 1 ] && ok import_dlrm_runs_under_whole_vgpu_dynmig || no import_dlrm_runs_under_whole_vgpu_dynmig "$T/err"
fi
printf 'instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\ni0,HN,a,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\ni1,XN,a,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n' >"$T/dlbad.csv"
expect import_dlrm_bad_row_names_line_and_column 3 "line 3, column 2 ('role'): expected HN (GPU node) or CN (CPU node), found 'XN'" \
  "$G" import dlrm "$T/dlbad.csv" --out-trace "$T/dlbad.out"
printf 'instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\ni0,HN,a,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,100,100,50\ni1,HN,a,12,12,0.5,1,25,25,120.0,120.0,640.0,800.0,-1,10,10,\n' >"$T/dlq.csv"
if check_rc import_dlrm_quirks 0 "$G" import dlrm "$T/dlq.csv" --end 500 --out-trace "$T/dlq.out"; then
  has "$T/out" "1 x deletion_time before creation_time" && grep -q '^i1,10.000000,490.000000,1,50,50,12,120,a$' "$T/dlq.out" &&
    ok import_dlrm_fraction_and_end || no import_dlrm_fraction_and_end "$T/dlq.out"
fi
finish
