#!/bin/sh
# e2e_hostile_import.sh - the importers read numbers, dates and text as the
# trace reader does (base/gs_num.h): hex, blanks, 25:00:00, duplicate keys, a
# second JSON object on a line, a carriage return in an id and values the
# trace reader would refuse are each an input error naming the input file,
# line and column (exit 3), never a silent conversion or a trace that `run`
# refuses later; nothing to convert is an error; nothing is written on
# failure.
# Usage: tests/e2e_hostile_import.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
export GPUSIM_MODELS="$PWD/models/gpu" # the runs below start in the scratch directory
cd "$T" || exit 1

# no_output NAME FILE: the failed import left neither FILE nor a temporary
no_output() {
  if [ ! -e "$2" ] && ! ls -a | grep -q '\.tmp\.'; then ok "$1"; else ls -a >"$T/msg"; no "$1" "$T/msg"; fi
}

# {==== sd: Alibaba GenAI Stable Diffusion ====}
SDH=gmt_create,predict_type,predict_status,exec_time_seconds,groupId,prompt_length,negative_prompt_length,num_images_per_prompt,num_inference_steps,checkpoint_model_version_id,num_lora
sdrow() { printf '%s,TXT_2_IMG,%s,%s,G0,63.0,26.0,1.0,30.0,%s,%s\n' "$1" "$2" "$3" "$4" "$5"; }
{ echo "$SDH"; sdrow "2024-11-15 16:57:50" SUCCEED 32.0 M0 0; sdrow "2024-11-15 16:57:51" SUCCEED 0x20 M0 0; } >sd_hex.csv
expect sd_hex_number 3 "sd_hex.csv' line 3, column 4 ('exec_time_seconds'): expected a number of seconds 0..1e7, found '0x20'" \
  "$G" import sd sd_hex.csv --out-trace sd_hex.out
no_output sd_hex_writes_nothing sd_hex.out
# blanks strtod skips and CSV does not trim (spaces and tabs around a field are trimmed, as in a trace)
{ echo "$SDH"; sdrow "2024-11-15 16:57:50" SUCCEED "$(printf '\v32')" M0 0; } >sd_blank.csv
expect sd_blank_number 3 "line 2, column 4 ('exec_time_seconds'): expected a number of seconds 0..1e7, found '$(printf '\v')32'" \
  "$G" import sd sd_blank.csv --out-trace sd_blank.out
{ echo "$SDH"; sdrow "2024-11-15 16:57:50" SUCCEED 32 M0 "$(printf '"\n1"')"; } >sd_lora.csv
expect sd_blank_integer 3 "line 3, column 11 ('num_lora'): expected a whole number of adapters 0..1000, found '" \
  "$G" import sd sd_lora.csv --out-trace sd_lora.out
{ echo "$SDH"; sdrow "2024-11-15 25:00:00" SUCCEED 32 M0 0; } >sd_hour.csv
expect sd_hour_25_refused 3 "line 2, column 1 ('gmt_create'): expected a date and time YYYY-MM-DD HH:MM:SS, found '2024-11-15 25:00:00'" \
  "$G" import sd sd_hour.csv --out-trace sd_hour.out
{ echo "$SDH"; sdrow "2024-02-30 10:00:00" SUCCEED 32 M0 0; } >sd_feb.csv
expect sd_february_30_refused 3 "line 2, column 1 ('gmt_create')" "$G" import sd sd_feb.csv --out-trace sd_feb.out
{ echo "$SDH"; sdrow "2024-11-15 16:57:50" SUCCEED 32 "$(printf '"M0\r"')" 0; } >sd_cr.csv
expect sd_cr_in_id 3 "line 2, column 10 ('checkpoint_model_version_id'): expected a model id without commas, quotes or control characters" \
  "$G" import sd sd_cr.csv --out-trace sd_cr.out
no_output sd_cr_writes_nothing sd_cr.out
echo "$SDH" >sd_header.csv
expect sd_header_only 3 "sd_header.csv': no request rows after the header" "$G" import sd sd_header.csv --out-trace sd_h.out
{ echo "$SDH"; sdrow "2024-11-15 16:57:50" FAILED 32 M0 0; sdrow "2024-11-15 16:57:51" PENDING 0 M0 0; } >sd_skip.csv
expect sd_all_skipped 3 "sd_skip.csv': none of the 2 rows can be converted" "$G" import sd sd_skip.csv --out-trace sd_s.out
no_output sd_all_skipped_writes_nothing sd_s.out

# {==== dlrm: Alibaba DLRM instances ====}
DH=instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time
drow() { printf '%s,%s,app_0,%s,12,1,1,25,25,120.0,120.0,640.0,800.0,8,%s,,\n' "$1" "$2" "$3" "$4"; }
{ echo "$DH"; drow i0 HN 12 10; drow i1 HN 0x20 10; } >dl_hex.csv
expect dlrm_hex_number 3 "dl_hex.csv' line 3, column 4 ('cpu_request'): expected a number of vCPUs 0..1e6, found '0x20'" \
  "$G" import dlrm dl_hex.csv --out-trace dl_hex.out
no_output dlrm_hex_writes_nothing dl_hex.out
{ echo "$DH"; drow i0 HN 12 "$(printf '\f10')"; } >dl_blank.csv
expect dlrm_blank_number 3 "line 2, column 15 ('creation_time'): expected empty or seconds 0..1e12, found '$(printf '\f')10'" \
  "$G" import dlrm dl_blank.csv --out-trace dl_blank.out
{ echo "$DH"; drow "$(printf '"i0\r"')" HN 12 10; } >dl_cr.csv
expect dlrm_cr_in_id 3 "line 2, column 1 ('instance_sn'): expected an instance id without commas, quotes or control characters" \
  "$G" import dlrm dl_cr.csv --out-trace dl_cr.out
echo "$DH" >dl_header.csv
expect dlrm_header_only 3 "dl_header.csv': no instance rows after the header" "$G" import dlrm dl_header.csv --out-trace dl_h.out
{ echo "$DH"; drow i0 CN 12 10; drow i1 CN 4 20; } >dl_cn.csv
expect dlrm_all_skipped 3 "dl_cn.csv': none of the 2 rows can be converted (each skipped: 2 by role" \
  "$G" import dlrm dl_cn.csv --roles HN --out-trace dl_s.out
no_output dlrm_all_skipped_writes_nothing dl_s.out

# {==== mooncake: JSON Lines through the one JSON reader ====}
printf '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n{"timestamp": 5, "input_length": 10, "output_length": 5, "hash_ids": [0]} {"timestamp": 6, "input_length": 10, "output_length": 5, "hash_ids": [0]}\n' >mc_two.jsonl
expect mooncake_two_objects_on_a_line 3 "mc_two.jsonl' line 2, column 75: unexpected '{' after the JSON value" \
  "$G" import mooncake mc_two.jsonl --out-trace mc_two.out
no_output mooncake_two_objects_writes_nothing mc_two.out
printf '{"timestamp": 0, "input_length": 10, "output_length": 5, "output_length": 9, "hash_ids": [0]}\n' >mc_dup.jsonl
expect mooncake_duplicate_key 3 "mc_dup.jsonl' line 1: duplicate key 'output_length'" \
  "$G" import mooncake mc_dup.jsonl --out-trace mc_dup.out
printf '{"timestamp": 0, "input_length": 20000000, "output_length": 5, "hash_ids": []}\n' >mc_big.jsonl
expect mooncake_tokens_trace_refuses 3 "mc_big.jsonl' line 1, column 18 ('input_length'): expected an integer number of tokens 0..10000000" \
  "$G" import mooncake mc_big.jsonl --out-trace mc_big.out
printf '{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}\n{"timestamp": 0x20, "input_length": 10}\n' >mc_hex.jsonl
expect mooncake_hex_number 3 "mc_hex.jsonl' line 2, column 16: unexpected 'x'" \
  "$G" import mooncake mc_hex.jsonl --out-trace mc_hex.out
printf '{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}\n' >mc_ok.jsonl
expect mooncake_service_cr_refused 2 "--service: a name without commas, quotes or control characters" \
  "$G" import mooncake mc_ok.jsonl --service "$(printf 'llm\rx')" --out-trace mc_cr.out
no_output mooncake_service_cr_writes_nothing mc_cr.out

# {==== azure-llm ====}
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 25:15:46.6805900,374,44\n' >az_hour.csv
expect azure_hour_25_refused 3 "az_hour.csv' line 2, column 1 ('TIMESTAMP'): expected YYYY-MM-DD HH:MM:SS.f, found '2023-11-16 25:15:46.6805900'" \
  "$G" import azure-llm az_hour.csv --out-trace az_hour.out
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,0x20,44\n' >az_hex.csv
expect azure_hex_tokens 3 "line 2, column 2 ('ContextTokens'): expected an integer 0..10000000, found '0x20'" \
  "$G" import azure-llm az_hex.csv --out-trace az_hex.out
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,20000000\n' >az_big.csv
expect azure_tokens_trace_refuses 3 "line 2, column 3 ('GeneratedTokens'): expected an integer 1..10000000, found '20000000'" \
  "$G" import azure-llm az_big.csv --out-trace az_big.out
no_output azure_writes_nothing az_big.out

# {==== openb ====}
OH=name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
{ echo "$OH"; echo "p0,12000,16384,1,1000,,LS,Running,0,100,0"; printf '"p1\r",12000,16384,1,1000,,LS,Running,0,100,0\n'; } >ob_cr.csv
expect openb_cr_in_name 3 "ob_cr.csv' line 3, column 1 ('name'): expected a name under 64 characters without commas, quotes or control characters" \
  "$G" import openb ob_cr.csv --out-trace ob_cr.out
{ echo "$OH"; echo "p0,+12000,16384,1,1000,,LS,Running,0,100,0"; } >ob_plus.csv
expect openb_plus_number 3 "line 2, column 2 ('cpu_milli'): expected an integer >= 0, at most 1000000000, found '+12000'" \
  "$G" import openb ob_plus.csv --out-trace ob_plus.out
{ echo "$OH"; echo "p0,12000,16384,1,1000,,LS,Running,0,99999999999999,0"; } >ob_far.csv
expect openb_time_trace_refuses 3 "line 2, column 10 ('deletion_time'): expected an integer >= 0, at most 1000000000000" \
  "$G" import openb ob_far.csv --out-trace ob_far.out
{ echo "$OH"; echo "p0,12000,16384,1,1000,|||,LS,Running,0,100,0"; } >ob_bars.csv
expect openb_model_bars_refused 3 "ob_bars.csv' line 2, column 6 ('gpu_spec'): expected model names separated by '|'" \
  "$G" import openb ob_bars.csv --out-trace ob_bars.out
# gen openb-variant reads its base list's times as the importer will: what it writes imports
{ echo "$OH"; echo "p0,12000,16384,1,1000,,LS,Running,0,$(printf '\261')00,0"; } >ob_time.csv
expect openb_variant_time_refused 3 "ob_time.csv' line 2, column 10 ('deletion_time'): expected empty or seconds, an integer 0..1e12" \
  "$G" gen openb-variant --pods ob_time.csv --family cpu --pct 0 --out ob_var.out
no_output openb_variant_writes_nothing ob_var.out
printf 'id,submit,duration,gpus,gpu_model\nj1,0,10,1,|||\n' >bars.csv
expect gpu_model_bars_refused_by_run 3 "column 5 ('gpu_model'): expected '|'-separated GPU model names, found '|||'" \
  "$G" run --trace bars.csv --policy whole --out ob_run
no_output openb_writes_nothing ob_cr.out

finish
