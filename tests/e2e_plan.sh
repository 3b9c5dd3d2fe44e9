#!/bin/sh
# e2e_plan.sh - plans a buyer can sign: no failed run passes, impossible is
# said at once, several cards and cluster templates with prices and their
# sources, --mig on run, warnings, compare's failure and cost rows, and
# dynmig using the cards without MIG as the MIG share grows; --tp and --dtype
# (auto: the cheapest serving configuration, then the runners-up).
# Usage: tests/e2e_plan.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
DAY=workloads/examples/day.csv
# jkey FILE KEY [N]: the value on the Nth line holding "KEY": (gpusim writes one key per line),
# quotes and the trailing comma removed; plan.json lists an entry's own keys before its "prices"
# and "points", so the first "gpus" is the answer and the next ones are the price groups'
jkey() {
  awk -v k="\"$2\":" -v n="${3:-1}" 'index($0, k) { c++; if (c == n) { sub(/^[^:]*:[ \t]*/, "");
    sub(/,[ \t]*$/, ""); gsub(/"/, ""); print; exit } }' "$1"
}
# jafter FILE KEY1 KEY2: the first KEY2 value after the first line holding "KEY1":
jafter() {
  awk -v a="\"$2\":" -v k="\"$3\":" 'index($0, a) { on = 1 } on && index($0, k) { sub(/^[^:]*:[ \t]*/, "");
    sub(/,[ \t]*$/, ""); print; exit }' "$1"
}
# prio_means REPORT: "priority mean_queue_s" per class of jobs.by_priority
prio_means() {
  awk '/"by_priority"/ { on = 1 } on && /"priority":/ { p = $2; sub(/,$/, "", p); q = 0 }
    on && /"queue_s":/ { q = 1 } on && q && /"mean":/ { v = $2; sub(/,$/, "", v); print p, v; q = 0 }' "$1"
}
# tenfold BASE NOW: 0 when some class of NOW has a mean queue over 10 x max(its BASE mean, 1 s)
tenfold() {
  prio_means "$1" >"$T/pm.base"; prio_means "$2" >"$T/pm.now"
  awk 'NR == FNR { b[$1] = $2; next } ($1 in b) { m = b[$1] > 1 ? b[$1] : 1; if ($2 > 10 * m) bad = 1 }
       END { exit bad ? 0 : 1 }' "$T/pm.base" "$T/pm.now"
}

# {==== impossible is said at once ====}
# 18 rows of the example day ask for H100s: no count of A100s serves them
expect plan_impossible_names_rows 1 'train-00141: gpu_model' \
  "$G" plan --trace $DAY --policy whole --gpu A100-SXM4-80GB --slo 'queue_p99<=1800' --out "$T/imp" --jobs 2
if has "$T/out" '18 of 905 rows' && [ ! -d "$T/imp/runs" ]; then ok plan_impossible_runs_nothing
else no plan_impossible_runs_nothing "$T/out"; fi
expect plan_allow_rejected_sets_aside 0 '18 of 905 rows.*set aside' \
  "$G" plan --trace $DAY --policy whole --gpu A100-SXM4-80GB --slo 'queue_p99<=1800' --allow-rejected \
  --min-gpus 64 --max-gpus 64 --out "$T/imp2" --jobs 2
# several candidates: one impossible, one answering: exit 0, both in the table
printf 'id,submit,duration,gpus,gpu_model\np,0,10,1,H100-SXM5-80GB\nq,1,10,1,\n' >"$T/pin.csv"
if check_rc plan_some_impossible 0 "$G" plan --trace "$T/pin.csv" --policy whole --gpu A100-SXM4-80GB,H100-SXM5-80GB \
     --slo 'queue_p99<=1' --set ref_gpu=H100-SXM5-80GB --out "$T/pin"; then
  if grep -q '^whole  *A100-SXM4-80GB  *-  *-  *-  *impossible: 1 row no count' "$T/out" && grep -q '^whole  *H100-SXM5-80GB  *2  *2  *1 ' "$T/out"
  then ok plan_some_impossible_others_answer; else no plan_some_impossible_others_answer "$T/out"; fi
fi
# a service replica wider than a node (a job that wide spans nodes)
printf 'id,submit,duration,gpus,kind\nwide,0,10,8,service\n' >"$T/wide.csv"
expect plan_job_wider_than_node 1 'needs 8 GPUs on one node; the largest node has 4' \
  "$G" plan --trace "$T/wide.csv" --policy whole --gpu H100-SXM5-80GB --gpus-per-node 4 --slo 'queue_p99<=1' --out "$T/w"
# a MIG profile the card lacks, under dynmig
printf 'id,submit,duration,gpus,mig\nm,0,10,1,1g.10gb\n' >"$T/mig.csv"
expect plan_mig_profile_missing 1 'MIG profile 1g.10gb' \
  "$G" plan --trace "$T/mig.csv" --policy dynmig --gpu L40S-48GB --slo 'queue_p99<=1' --out "$T/m"

# {==== no failed run passes ====}
printf 'id,submit,duration,gpus\na,0,100,1\nb,0,100,1\n' >"$T/two.csv"
if check_rc plan_implicit_terms 0 "$G" plan --trace "$T/two.csv" --policy whole --gpu H100-SXM5-80GB \
     --slo 'queue_p99<=1' --out "$T/p2"; then
  if has "$T/out" 'jobs.failed<=0 (--allow-failed)' && has "$T/out" 'derived.requests_dropped<=0 (--allow-dropped)' &&
     has "$T/out" 'derived.replicas_unplaceable<=0 (--allow-unplaceable)' && has "$T/out" 'jobs.rejected<=0 (--allow-rejected)'
  then ok plan_implicit_terms_printed; else no plan_implicit_terms_printed "$T/out"; fi
fi
# timeslice packing tenants (node_policy=binpack) OOM-kills jobs at any size: never an answer, and the
# search stops on the plateau
if check_rc plan_failed_jobs 0 "$G" plan --trace $DAY --policy timeslice --set node_policy=binpack --gpu H100-SXM5-80GB \
     --min-gpus 64 --slo 'queue_p99<=1800' --out "$T/ts" --jobs 2; then
  v=$(jkey "$T/ts/plan.json" verdict)
  n=$(grep -c '"seeds_met"' "$T/ts/plan.json")
  if [ "$v" = "not met: plateau" ] && [ "$n" -le 4 ]; then ok plan_failed_jobs_never_pass
  else echo "    verdict '$v', $n counts tried" >"$T/msg"; no plan_failed_jobs_never_pass "$T/msg"; fi
fi
# a service every request of which is dropped (1 card, the replica needs 8): latency is absent, not met
printf 'id,submit,duration,gpus,kind,service,replicas_min,replicas_max,output_tokens\nllm,0,,8,service,,1,1,\nq,1,,,request,llm,,,10\n' >"$T/svc.csv"
if check_rc plan_dropped 0 "$G" plan --trace "$T/svc.csv" --policy whole --gpu H100-SXM5-80GB --gpus-per-node 8 \
     --slo 'latency_p99<=100' --max-gpus 4 --out "$T/sv"; then
  # the first point's terms in order: latency, rejected, failed, dropped, unplaceable
  w=$(jkey "$T/sv/plan.json" worst 1); d=$(jkey "$T/sv/plan.json" worst 4)
  if [ "$w" = "null" ] && [ "$d" = "1" ] && has "$T/out" 'absent' && has "$T/out" 'not met up to 4'; then
    ok plan_absent_metric_not_met; else echo "    latency worst $w, dropped $d" >"$T/msg"; no plan_absent_metric_not_met "$T/msg"; fi
fi
# a metric that stays absent although everything was served stops the search (busy_ratio comes
# from sharing policies; whole never writes it)
printf 'id,submit,duration,gpus\na,0,100,1\n' >"$T/one.csv"
if check_rc plan_absent_stop 0 "$G" plan --trace "$T/one.csv" --policy whole --gpu H100-SXM5-80GB --slo 'busy_ratio>=0.1' \
     --seeds 1 --out "$T/ab"; then
  n=$(grep -c '"seeds_met"' "$T/ab/plan.json")
  if [ "$n" = 1 ] && has "$T/out" "metric absent: 'gpu.busy_ratio'"; then ok plan_absent_metric_stops
  else no plan_absent_metric_stops "$T/out"; fi
fi

# {==== several cards, prices and their sources ====}
"$G" gen mmc --jobs 3000 --servers 8 --util 0.6 --seed 5 --out "$T/mmc.csv" >/dev/null 2>&1
# the durations stated on H100s: an A100 runs them slower and needs more cards (16 against 6 here)
if check_rc plan_two_cards 0 "$G" plan --trace "$T/mmc.csv" --policy whole --gpu H100-SXM5-80GB,A100-SXM4-80GB \
     --gpus-per-node 4 --slo 'queue_mean<=0.5' --set ref_gpu=H100-SXM5-80GB --out "$T/two" --jobs 2; then
  # the cheaper answer (H100: fewer, dearer cards) comes first
  first=$(grep -A2 "buyer's table" "$T/out" | tail -1 | awk '{print $2}')
  if [ "$first" = H100-SXM5-80GB ]; then ok plan_table_sorted_by_cost; else no plan_table_sorted_by_cost "$T/out"; fi
fi
if check_rc plan_price_flag 0 "$G" plan --trace "$T/mmc.csv" --policy whole --gpu H100-SXM5-80GB,A100-SXM4-80GB \
     --gpus-per-node 4 --slo 'queue_mean<=0.5' --set ref_gpu=H100-SXM5-80GB --price A100-SXM4-80GB=0.5 --out "$T/two2" \
     --jobs 2; then
  first=$(grep -A2 "buyer's table" "$T/out" | tail -1 | awk '{print $2}')
  # the A100 entry is the second in plan.json (candidates in the order given)
  src=$(jkey "$T/two2/plan.json" source 2); ph=$(jkey "$T/two2/plan.json" price_per_gpu_hour_usd 3)
  if [ "$first" = A100-SXM4-80GB ] && [ "$src" = "--price" ] && [ "$ph" = 0.5 ]; then ok plan_price_override_and_source
  else echo "    first $first, source $src, price $ph" >"$T/msg"; no plan_price_override_and_source "$T/msg"; fi
fi

# {==== cluster templates ====}
cat >"$T/tpl.json" <<'EOF'
{"name": "t", "nodes": [
  {"name": "a", "model": "H100-SXM5-80GB", "count": "N*3/4", "gpus": 4, "price_per_gpu_hour_usd": 2},
  {"name": "b", "model": "A100-SXM4-80GB", "count": "N/4", "gpus": 4, "cpu": 64, "mem_gib": 512},
  {"name": "login", "model": "L4-24GB", "count": 1, "gpus": 1}]}
EOF
if check_rc plan_template 0 "$G" plan --trace "$T/mmc.csv" --policy whole --cluster-template "$T/tpl.json" \
     --slo 'queue_mean<=0.5' --out "$T/tp" --jobs 2; then
  # the answer's cards = 4 ceil(3N/4) + 4 ceil(N/4) + 1 and its cost = the groups' cards x their prices
  P=$T/tp/plan.json
  n=$(jkey "$P" scale); g=$(jkey "$P" gpus); want=$((4 * ((3 * n + 3) / 4) + 4 * ((n + 3) / 4) + 1))
  # cost = sum over the three groups of cards x price (price occurrences 2..4 are the groups')
  chk=$(awk -v c="$(jkey "$P" cost_per_hour_usd)" -v g1="$(jkey "$P" gpus 2)" -v g2="$(jkey "$P" gpus 3)" \
        -v g3="$(jkey "$P" gpus 4)" -v p1="$(jkey "$P" price_per_gpu_hour_usd 2)" \
        -v p2="$(jkey "$P" price_per_gpu_hour_usd 3)" -v p3="$(jkey "$P" price_per_gpu_hour_usd 4)" \
        'BEGIN { d = c - (g1 * p1 + g2 * p2 + g3 * p3); print (d < 1e-6 && d > -1e-6 && p1 == 2) ? "yes" : "no" }')
  inst=$(ls "$T/tp/clusters" | head -1)
  if [ "$g" = "$want" ] && [ "$chk" = yes ] && [ "$(jkey "$P" source 1)" = "cluster template" ] &&
     [ "$(jkey "$P" source 2)" = "model file" ] && [ -n "$inst" ]; then ok plan_template_sizes_groups_and_prices
  else no plan_template_sizes_groups_and_prices "$T/tp/plan.json"; fi
fi
expect cluster_file_rejects_template 3 'cluster template' \
  "$G" run --trace "$T/one.csv" --policy whole --cluster "$T/tpl.json" --out "$T/x"
# a template's CPU per node constrains sessions: 100 cores never fit 64-core nodes
printf 'id,submit,duration,gpus,kind,cpu\ns,0,10,1,session,100\n' >"$T/sess.csv"
cat >"$T/tpl2.json" <<'EOF'
{"nodes": [{"model": "A100-SXM4-80GB", "count": "N", "gpus": 8, "cpu": 64, "mem_gib": 512}]}
EOF
expect plan_template_cpu_constrains 1 'needs 100 CPU cores' \
  "$G" plan --trace "$T/sess.csv" --policy whole --cluster-template "$T/tpl2.json" --slo 'queue_p99<=1' --out "$T/t2"

# {==== run and compare ====}
expect run_mig_warning 0 'warning: policy dynmig: the cluster .* has no MIG-enabled cards' \
  "$G" run --trace workloads/examples/mig-mix.csv --policy dynmig --gpus A100-SXM4-80GB:8 --out "$T/w1"
if has "$T/w1/report.json" '"warnings"'; then ok run_mig_warning_in_report; else no run_mig_warning_in_report "$T/w1/report.json"; fi
expect run_mig_layout_flag 0 'rejected 0' \
  "$G" run --trace workloads/examples/mig-mix.csv --policy dynmig --gpus A100-SXM4-80GB:16 --mig dynamic --out "$T/w2"
expect run_mig_dynamic_not_for_mig 2 "is for --policy dynmig" \
  "$G" run --trace workloads/examples/mig-mix.csv --policy mig --gpus A100-SXM4-80GB:16 --mig dynamic --out "$T/w3"
expect run_summary_failed_suspended 0 'failed [0-9]*  suspended [0-9]*' \
  "$G" run --trace $DAY --policy timeslice --out "$T/ts1"
if check_rc compare_rows 0 "$G" compare --trace $DAY --policies 'whole,timeslice[node_policy=binpack]' --out "$T/cmp" --jobs 2; then
  if grep -q '^failed  *0  *1$' "$T/out" && has "$T/out" '^dropped_requests' && has "$T/out" '^cost_per_day_usd' &&
     has "$T/out" '^cost_per_completed_job_usd' && has "$T/out" '^cost_per_million_requests_usd'
  then ok compare_failed_dropped_unit_costs; else no compare_failed_dropped_unit_costs "$T/out"; fi
fi

# the cluster as configured costs the same per day under every policy: 24 x its cost per hour
cph=$(jkey "$T/cmp/runs/p0-whole.s1/report.json" cost_per_hour_usd)
day=$(awk -v c="$cph" 'BEGIN { printf "%.4g", c * 24 }')
if grep -q "^cost_per_day_usd  *$day  *$day\$" "$T/out"; then ok compare_cost_per_day_is_the_clusters
else echo "    expected $day for both entries" >>"$T/out"; no compare_cost_per_day_is_the_clusters "$T/out"; fi
# --price sets a model's price for the cost rows, and the report says where it came from
if check_rc compare_price 0 "$G" compare --trace "$T/two.csv" --policies whole --gpus H100-SXM5-80GB:8 \
     --price H100-SXM5-80GB=2.5 --out "$T/cp"; then
  if grep -q '^cost_per_day_usd  *480$' "$T/out" && has "$T/cp/runs/p0-whole.s1/report.json" '"price_source":[[:space:]]*"--price"'
  then ok compare_price_flag_and_source; else no compare_price_flag_and_source "$T/out"; fi
fi
# the default --out names the cluster: two clusters of one trace do not overwrite each other
R=$(pwd); case $G in /*) GA=$G ;; *) GA=$R/$G ;; esac
if (cd "$T" && "$GA" run --trace "$R/$DAY" --policy whole --gpus H100-SXM5-80GB:64 --models "$R/models/gpu" >/dev/null 2>&1 &&
    "$GA" run --trace "$R/$DAY" --policy whole --gpus H100-SXM5-80GB:72 --models "$R/models/gpu" >/dev/null 2>&1) &&
   [ -s "$T/results/day.H100-SXM5-80GB_64.whole/report.json" ] && [ -s "$T/results/day.H100-SXM5-80GB_72.whole/report.json" ]
then ok run_default_out_names_the_cluster; else ls -R "$T/results" >"$T/msg" 2>&1; no run_default_out_names_the_cluster "$T/msg"; fi

# {==== dynmig uses the whole cluster ====}
# one whole A100 and one MIG A100; three 40,000 MiB requests of 1000 s: the MIG card holds two
# 3g.40gb instances, the third runs at once on the card without MIG (mig-only: waits ~1000 s)
cat >"$T/mix.json" <<'EOF'
{"nodes": [{"model": "A100-SXM4-80GB", "count": 1, "gpus": 1},
           {"model": "A100-SXM4-80GB", "count": 1, "gpus": 1, "mig": "dynamic"}]}
EOF
printf 'id,submit,duration,gpus,gpumem\na,0,1000,1,40000\nb,0,1000,1,40000\nc,0,1000,1,40000\n' >"$T/mix.csv"
"$G" run --trace "$T/mix.csv" --cluster "$T/mix.json" --policy dynmig --out "$T/mf" >/dev/null 2>&1
"$G" run --trace "$T/mix.csv" --cluster "$T/mix.json" --policy dynmig --set mem_route=mig-only --out "$T/mo" >/dev/null 2>&1
a=$(jafter "$T/mf/report.json" queue_s max); b=$(jafter "$T/mo/report.json" queue_s max)
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a != "" && b != "" && a <= 5 && b >= 900) }'; then ok dynmig_memory_request_falls_back_to_whole_card
else echo "    queue max mig-first $a, mig-only $b" >"$T/msg"; no dynmig_memory_request_falls_back_to_whole_card "$T/msg"; fi
# the example day on 10 H100 nodes, k of them MIG (dynamic): no priority class's mean queue
# grows tenfold over k=0 (floor 1 s); mig-only at k=1 does (the behaviour mem_route replaces)
cl() { printf '{"nodes": [{"model": "H100-SXM5-80GB", "count": %d, "gpus": 8, "cpu": 192, "mem_gib": 2048}' $((10 - $1))
       [ "$1" -gt 0 ] && printf ', {"model": "H100-SXM5-80GB", "count": %d, "gpus": 8, "cpu": 192, "mem_gib": 2048, "mig": "dynamic"}' "$1"
       printf ']}\n'; }
printf 'MIG nodes of 10: priority class and mean queue (s), mem_route=mig-first\n' >"$T/share"
okshare=1
for k in 0 1 2 3 5; do
  cl $k >"$T/c$k.json"
  "$G" run --trace $DAY --cluster "$T/c$k.json" --policy dynmig --out "$T/s$k" >/dev/null 2>&1
  echo "k=$k" >>"$T/share"; prio_means "$T/s$k/report.json" >>"$T/share"
  [ "$(prio_means "$T/s$k/report.json" | wc -l)" -ge 2 ] || okshare=0
  if [ $k -gt 0 ] && tenfold "$T/s0/report.json" "$T/s$k/report.json"; then okshare=0; fi
done
if [ $okshare = 1 ]; then ok dynmig_queue_as_mig_share_grows; else no dynmig_queue_as_mig_share_grows "$T/share"; fi
"$G" run --trace $DAY --cluster "$T/c1.json" --policy dynmig --set mem_route=mig-only --out "$T/so1" >/dev/null 2>&1
if tenfold "$T/s0/report.json" "$T/so1/report.json"; then ok dynmig_mig_only_shows_the_old_queue
else prio_means "$T/so1/report.json" >>"$T/share"; no dynmig_mig_only_shows_the_old_queue "$T/share"; fi
# {==== serving configurations: --tp, --dtype ====}
# a 70B model: in fp8 at TP 1 it needs 66.3 GiB per card, more than an L40S's 40.5 usable: impossible
# with the reason, never run; at TP 2 it fits and gets an answer
printf 'id,submit,duration,kind,rate,input_tokens,output_tokens,model,replicas_min,replicas_max,slo_ms\nchat,0,600,service,0.5,500,50,llama-3.1-70b,1,8,60000\n' >"$T/svc70.csv"
expect plan_tp_impossible_says_why 0 'impossible: service .chat. .llama-3.1-70b fp8, tp 1.: needs 66.3 GiB per GPU' \
  "$G" plan --trace "$T/svc70.csv" --policy whole --gpu L40S-48GB --tp 1,2 --dtype fp8 --slo 'slo_attainment>=0.5' --out "$T/tp" --jobs 2
if grep -q '"verdict":[[:space:]]*"met"' "$T/tp/plan.json" && ! ls "$T/tp/runs" 2>/dev/null | grep -q 'svc_tp_1'; then ok plan_tp_two_met_one_never_run
else no plan_tp_two_met_one_never_run "$T/tp/plan.json"; fi
# --tp auto tries 1, 2, 4 and 8: the cheapest that fits and meets first (TP 2), the runners-up after it
# in price order, TP 1 impossible with the reason
"$G" plan --trace "$T/svc70.csv" --policy whole --gpu L40S-48GB --tp auto --dtype fp8 --slo 'slo_attainment>=0.5' \
  --out "$T/tpa" --jobs 2 >"$T/tpa.out" 2>&1
if sed -n '/^buyer/,/^cards/p' "$T/tpa.out" | grep '^whole' | sed 's/ .*//' | tr '\n' ' ' |
   grep -q '^whole\[svc_tp=2,svc_dtype=fp8\] whole\[svc_tp=4,svc_dtype=fp8\] whole\[svc_tp=8,svc_dtype=fp8\] whole\[svc_tp=1,svc_dtype=fp8\] $' &&
   grep -q 'svc_tp=1,svc_dtype=fp8.*impossible: .*needs 66.3 GiB' "$T/tpa.out"; then ok plan_tp_auto_cheapest_then_runners_up
else no plan_tp_auto_cheapest_then_runners_up "$T/tpa.out"; fi
expect plan_tp_bad_list 2 "--tp: expected auto or TP degrees 1..64" \
  "$G" plan --trace "$T/svc70.csv" --policy whole --gpu L40S-48GB --tp 3x --slo 'slo_attainment>=0.5' --out "$T/tpb"
finish
