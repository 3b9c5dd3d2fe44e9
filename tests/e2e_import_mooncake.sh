#!/bin/sh
# e2e_import_mooncake.sh - the Mooncake importer on the head of the public
# conversation trace: counts, hash_ids carried, timestamps spread (seeded,
# deterministic) or kept, a bad line named by line and column, nothing
# written on failure; the converted trace served with and without the prefix
# cache, reuse lowering the mean TTFT.
# Usage: tests/e2e_import_mooncake.sh [GPUSIM]
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-build/test/gpusim}
MC=tests/fixtures/mooncake/conversation_trace.head300.jsonl
if need_file import_mooncake "$MC"; then
  if check_rc import_mooncake 0 "$G" import mooncake "$MC" --out-trace "$T/mc.csv"; then
    if has "$T/out" "300 lines read, 300 requests converted (8490 prefix blocks; 35 timestamps, at most 16 requests at one" &&
       grep -q '^llm,0,8,service,,,,8,8,130.385,2000,200,320,$' "$T/mc.csv" &&
       grep -q '^mc1,180\.[0-9]*,,request,llm,6758,500,,,,,,,0|1|2|3|4|5|6|7|8|9|10|11|12|13$' "$T/mc.csv"; then
      ok import_mooncake_counts_and_rows
    else no import_mooncake_counts_and_rows "$T/out"; fi
  fi
  "$G" import mooncake "$MC" --out-trace "$T/mc2.csv" 2>/dev/null
  "$G" import mooncake "$MC" --seed 2 --out-trace "$T/mc3.csv" 2>/dev/null
  "$G" import mooncake "$MC" --bursts --out-trace "$T/mcb.csv" 2>/dev/null
  # spread: same seed same bytes, another seed other times; bursts: every submit the line's own timestamp (whole ms)
  if cmp -s "$T/mc.csv" "$T/mc2.csv" && ! cmp -s "$T/mc.csv" "$T/mc3.csv" &&
     [ "$(grep -c ',request,' "$T/mcb.csv")" -eq 300 ] && ! grep ',request,' "$T/mcb.csv" | cut -d, -f2 | grep -qv '000$' &&
     awk -F, 'NR > 2 && $2 + 0 < last { bad = 1 } NR > 2 { last = $2 + 0 } END { exit bad }' "$T/mc.csv"; then
    ok import_mooncake_spread_seeded_sorted_or_bursts
  else no import_mooncake_spread_seeded_sorted_or_bursts; fi
  ok_runs=1
  for pc in on off; do
    "$G" run --trace "$T/mc.csv" --gpus H100-SXM5-80GB:64 --policy whole --set prefix_cache=$pc --json --out "$T/r.$pc" \
      >"$T/r.$pc.json" 2>"$T/err" && grep -q '"served":[[:space:]]*300' "$T/r.$pc.json" || ok_runs=0
  done
  # TTFT mean (the first "mean" after "ttft_s") with reuse below the one without; hits only with the cache on
  m_on=$(grep -A3 '"ttft_s"' "$T/r.on.json" | grep -m1 '"mean"' | tr -dc '0-9.e-')
  m_off=$(grep -A3 '"ttft_s"' "$T/r.off.json" | grep -m1 '"mean"' | tr -dc '0-9.e-')
  if [ "$ok_runs" -eq 1 ] && grep -q '"hit_blocks":[[:space:]]*[1-9]' "$T/r.on.json" &&
     grep -q '"hit_blocks":[[:space:]]*0,' "$T/r.off.json" && awk -v a="$m_on" -v b="$m_off" 'BEGIN { exit !(a < b) }'; then
    ok import_mooncake_serves_reuse_lowers_ttft
  else echo "ttft mean on $m_on off $m_off" >"$T/msg"; cat "$T/err" >>"$T/msg"; no import_mooncake_serves_reuse_lowers_ttft "$T/msg"; fi
fi
printf '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0]}\n{"timestamp": 3000, "input_length": 10, "output_length": "x", "hash_ids": [0]}\n' >"$T/bad.jsonl"
expect import_mooncake_bad_line_names_line_and_column 3 "line 3, column 41 ('output_length'): expected an integer number of tokens 1..10000000" \
  "$G" import mooncake "$T/bad.jsonl" --out-trace "$T/bad.csv"
[ ! -e "$T/bad.csv" ] && ok import_mooncake_bad_input_writes_nothing || no import_mooncake_bad_input_writes_nothing
head -2 "$T/bad.jsonl" >"$T/skip.jsonl"
expect import_mooncake_hash_count_skipped 0 "1 x hash_ids count is not ceil(input_length / block tokens)" \
  "$G" import mooncake "$T/skip.jsonl" --out-trace "$T/skip.csv"
printf 'id,submit,duration,gpus,kind,hash_ids\nj,0,5,1,job,1|2\n' >"$T/h.csv"
expect trace_hash_ids_only_on_requests 3 "column 6 ('hash_ids'): only request rows carry prefix-block ids" \
  "$G" run --trace "$T/h.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/h"
printf 'id,submit,gpus,kind,service,output_tokens,hash_ids\nm,0,8,service,,,\nr,1,,request,m,5,1|x\n' >"$T/h2.csv"
expect trace_hash_ids_checked 3 "line 3, column 7 ('hash_ids'): expected prefix-block ids" \
  "$G" run --trace "$T/h2.csv" --policy whole --gpus H100-SXM5-80GB:8 --out "$T/h2"
# gpusim check: a baseline recorded before the prefix-cache parameters existed still matches a run
# with them at their defaults; a run that changes one differs in its inputs
"$G" run --trace workloads/examples/inference.csv --policy whole --set prefix_cache=on --out "$T/exn" >/dev/null 2>&1
expect check_new_param_at_default_no_difference 0 "check: [0-9]* metrics, 0 regressed$" \
  "$G" check "$T/exn" --baseline results/baseline/inference.whole.json
"$G" run --trace workloads/examples/inference.csv --policy whole --set prefix_cache=off --out "$T/exo" >/dev/null 2>&1
expect check_new_param_changed_inputs_differ 1 "0 regressed, inputs differ" \
  "$G" check "$T/exo" --baseline results/baseline/inference.whole.json
# a whole-number option given a fraction says so (it used to exit 2 in silence)
expect import_mooncake_fraction_for_whole_number 2 "block-tokens: expected a whole number" \
  "$G" import mooncake "$T/none.jsonl" --block-tokens 1.5
finish
