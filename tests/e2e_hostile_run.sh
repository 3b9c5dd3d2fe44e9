#!/bin/sh
# e2e_hostile_run.sh - what the audit found inside runs and around them:
# times past the microsecond clock (a long job on a slow card, a checkpoint
# at 1e-9 GB/s, a batch of 1e7 tokens at 1e11 ms a step, a service's end
# past int64) are input errors naming the row; a replica no card admits is
# reported, never retried forever; `--out ''`, a time policy named twice, a
# baseline metric stored as a string, a model alias naming another model,
# hex and blanks in option values, manifest and spec numbers past a cast are
# refused with a message; plot survives a service that served nothing and a
# full file system (exit 4, no cut image). Each bounded by `timeout`: a hang
# is a failure.
# Usage: tests/e2e_hostile_run.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
R=$(cd "$(dirname "$0")/.." && pwd)
export GPUSIM_MODELS="$R/models/gpu"
cd "$T" || exit 1
H=H100-SXM5-80GB
TO="timeout 60"
printf 'id,submit,duration,gpus\nj1,0,10,1\nj2,5,10,2\n' >small.csv

# {==== the clock: every time from inputs range-checked ====}
printf 'id,submit,duration,gpus,ref_gpu\nlong1,0,9000000000000,1,%s\n' $H >long.csv
expect clock_long_job_slow_card 3 "row 'long1': its 'duration' (9e+12 s of work left) at 0.139 of full speed ends .* past the simulator's clock" \
  $TO "$G" run --trace long.csv --policy whole --gpus A10-24GB:1 --out o_long
printf 'id,submit,duration,gpus\nlate,9000000000000,9000000000000,1\n' >late.csv
expect clock_submit_plus_duration 3 "row 'late': its 'duration' (9e+12 s of work left) at 1 of full speed ends 9e+12 s after 9000000000000.000000 s, past the simulator's clock" \
  $TO "$G" run --trace late.csv --policy whole --gpus $H:8 --out o_late
printf 'id,submit,duration,gpus,priority,preemptible,checkpoint_gib\ntrain,0,14400,8,0,1,10000\nsurge,600,900,8,100,0,\n' >ck.csv
expect clock_checkpoint_write 3 "row 'surge': the checkpoint write of 10737.4 GB at ckpt_write_gbps 1e-09 for its preemption ends" \
  $TO "$G" run --trace ck.csv --policy whole --gpus $H:8 --set preempt=on --set ckpt_write_gbps=1e-9 --out o_ck
printf 'id,submit,duration,gpus,kind,service,input_tokens,output_tokens,decode_ms_per_seq,weights_gib,replicas_min,replicas_max\nsvc,0,100000,1,service,,,,100000000000,10,1,1\nr1,1,,,request,svc,10,10000000,,,,\n' >dec.csv
expect clock_decode_block 3 "row 'svc': a batch of 10000000 tokens at 1e+11 ms a step" \
  $TO "$G" run --trace dec.csv --policy whole --gpus $H:8 --out o_dec
printf 'id,submit,duration,gpus,kind,weights_gib,rate,svc_mean_ms,replicas_min,replicas_max\nsvc,1000000000000,9000000000000,1,service,10,1,100,1,1\n' >far.csv
expect clock_service_end 3 "far.csv' line 2 ('duration'): service 'svc' declared at 1000000000000.000000 s for 9000000000000.000000 s ends past" \
  $TO "$G" run --trace far.csv --policy whole --gpus $H:8 --out o_far
printf 'id,submit,duration,gpus,kind,service,input_tokens,output_tokens,kv_kib_per_token,weights_gib,replicas_min,replicas_max,hash_ids\nsvc,0,100,1,service,,,,1e-300,10,1,1,\nr1,1,,,request,svc,600,5,,,,,0|1\n' >kv.csv
expect kv_tiny_prefix_cache_refused 3 "service 'svc' ('kv_kib_per_token' 1e-300): a replica's prefix cache would hold more than 67108864 blocks" \
  $TO "$G" run --trace kv.csv --policy whole --gpus $H:8 --set prefix_cache=on --out o_kv
if [ ! -e o_long ] && [ ! -e o_late ] && [ ! -e o_ck ] && [ ! -e o_dec ] && [ ! -e o_far ] && [ ! -e o_kv ] && ! ls -a | grep -q '\.tmp\.'; then
  ok clock_errors_write_nothing
else ls -a >"$T/msg"; no clock_errors_write_nothing "$T/msg"; fi

# {==== bounded work: estimated before the run, refused past the limit, progress in a log ====}
printf 'id,submit,duration,gpus,kind,weights_gib,rate,svc_mean_ms,replicas_min,replicas_max\nsvc,0,86400,1,service,10,1000000000,100,1,1\n' >rate.csv
expect work_rate_1e9_refused 3 "rate.csv' line 2: service 'svc' (rate 1e+09/s for 86400 s) asks for about 8.64e+13 generated requests and autoscaler ticks.*run --max-work 8.64e+13.*lifts it" \
  $TO "$G" run --trace rate.csv --policy whole --gpus $H:8 --out o_rate
printf 'id,submit,duration,gpus,kind,weights_gib,rate,svc_mean_ms,replicas_min,replicas_max\nsvc,0,100,1,service,10,100,100,1,1\n' >rate2.csv
expect work_limit_flag 3 "past the limit of 1000 events" $TO "$G" run --trace rate2.csv --policy whole --gpus $H:8 --max-work 1000 --out o_r2
expect work_limit_env 3 "past the limit of 1000 events" env GPUSIM_MAX_WORK=1000 $TO "$G" run --trace rate2.csv --policy whole --gpus $H:8 --out o_r3
expect work_limit_lifted 0 "report:" $TO "$G" run --trace rate2.csv --policy whole --gpus $H:8 --max-work 1e5 --out o_r4
"$G" gen mmc --jobs 300000 --servers 16 --util 0.9 --out prog.csv >/dev/null 2>&1
GPUSIM_PROGRESS=0.02 "$G" run --trace prog.csv --policy whole --gpus $H:16 --out o_prog >o_prog.out 2>o_prog.err
if grep -q '^gpusim: simulated [0-9.]* h, [0-9]* events, [0-9]* events/s$' o_prog.err && ! grep -q "$(printf '\r')" o_prog.err &&
   ! grep -q '^gpusim: simulated' o_prog.out; then ok progress_lines_in_a_log
else cat o_prog.err >"$T/msg"; no progress_lines_in_a_log "$T/msg"; fi
GPUSIM_PROGRESS=off "$G" run --trace prog.csv --policy whole --gpus $H:16 --out o_prog2 >/dev/null 2>o_prog2.err
python3 - o_prog/report.json o_prog2/report.json >"$T/msg" 2>&1 <<'EOP'
import json, sys
T = {"wall_s", "setup_s", "cpu_s", "events_per_s", "peak_rss_mib"}
def walk(o):
    if isinstance(o, dict): return {k: walk(v) for k, v in o.items() if k not in T}
    if isinstance(o, list): return [walk(v) for v in o]
    return o
a, b = (walk(json.load(open(p))) for p in sys.argv[1:])
assert a == b, "reports differ"
EOP
if [ $? = 0 ] && [ ! -s o_prog2.err ]; then ok progress_leaves_the_report_alone; else no progress_leaves_the_report_alone "$T/msg"; fi

# {==== a MIG layout schedule jumps an idle stretch to the next arrival ====}
# a 1-day gap is stepped switch by switch; a 100,000-day gap is jumped: the difference is exactly
# 99,999 days of the schedule's own switches (a100-mig-b: 3 switches a day, 8 cards each) and events
CLS="$R/workloads/examples/cluster-mig-schedule.json"
for d in 1 100000; do
  printf 'id,submit,duration,gpus,mig\nj1,0,3600,1,1g.10gb\nj3,%d,3600,1,1g.10gb\n' $((d * 86400 + 50000)) >fm_$d.csv
  $TO "$G" run --trace fm_$d.csv --policy mig --cluster "$CLS" --out o_fm_$d >/dev/null 2>"$T/msg" || cat "$T/msg"
done
if python3 - o_fm_1/report.json o_fm_100000/report.json >"$T/msg" 2>&1 <<'EOP'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
la, lb = a["policy"]["layout_switches"], b["policy"]["layout_switches"]
days = 99999
assert lb["card_switches"] - la["card_switches"] == 24 * days, (la, lb)
assert lb["reconfigurations"] - la["reconfigurations"] == 24 * days, (la, lb)
assert lb["reconfig_card_s"] - la["reconfig_card_s"] == 24 * days * 120, (la, lb)
assert b["sim"]["events"] - a["sim"]["events"] == 27 * days, (a["sim"]["events"], b["sim"]["events"])
assert lb["drain_card_s"] == la["drain_card_s"], (la, lb)
EOP
then ok mig_schedule_jump_counts_as_stepping; else no mig_schedule_jump_counts_as_stepping "$T/msg"; fi
# ten million days (a valid submit time) stepped switch by switch would be 2.7e8 events, minutes:
# jumped, it takes a blink and counts the same
printf 'id,submit,duration,gpus,mig\nj1,0,3600,1,1g.10gb\nj3,%d,3600,1,1g.10gb\n' $((10000000 * 86400 + 50000)) >fm_far.csv
if check_rc mig_schedule_far_arrival_jumped 0 timeout 20 "$G" run --trace fm_far.csv --policy mig --cluster "$CLS" --out o_fm_far &&
   python3 -c 'import json,sys; a,b=(json.load(open(p))["sim"]["events"] for p in sys.argv[1:]); assert b-a == 27*9999999, (a,b)' \
     o_fm_1/report.json o_fm_far/report.json >"$T/msg" 2>&1; then ok mig_schedule_far_arrival_jumped
else no mig_schedule_far_arrival_jumped "$T/msg"; fi

# {==== quadratic inputs: linear now ====}
python3 -c 'import json; print(json.dumps({"nodes": [{"model": "H100-SXM5-80GB", "count": 1, "gpus": 8}], "tenants": [{"name": "t%06d" % i, "gpus": 1} for i in range(100000)]}))' >ten.json
printf 'id,submit,duration,gpus,tenant\nj1,0,10,1,t099999\nj2,1,10,2,t000001\n' >ten.csv
expect quota_100000_tenants_in_seconds 0 "report:" timeout 30 "$G" run --trace ten.csv --policy whole --cluster ten.json --out o_ten
python3 -c 'import json; r=json.load(open("o_ten/report.json")); print(sum(t["arrivals"] for t in r["tenants"]))' >ten.out 2>&1
if [ "$(cat ten.out)" = 2 ]; then ok quota_lookup_by_name_counts; else no quota_lookup_by_name_counts ten.out; fi
python3 -c 'print("sn,cpu_milli,memory_mib,gpu,model"); [print("n%d,%d,1024,8,V100M16" % (i, 1000 + i)) for i in range(30000)]' >nodes.csv
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,1000\n' >pods.csv
expect openb_30000_node_groups_in_seconds 0 "30000 node rows read" \
  timeout 30 "$G" import openb pods.csv --nodes nodes.csv --out-trace pods.out --out-cluster nodes.json
# a trace from a pipe with a line of 300 MiB: each read's bytes are searched once (searching the partial
# line again after every 64 KiB read is 10^12 bytes), and the line is refused at 256 MiB
expect pipe_long_line_refused_in_seconds 3 "trace '/dev/stdin' line 2: a line longer than 256 MiB" \
  timeout 60 sh -c '{ echo id,submit,duration,gpus; head -c 314572800 /dev/zero | tr "\\0" x; } |
    "$1" run --trace /dev/stdin --policy whole --gpus H100-SXM5-80GB:8 --out o_pipe' sh "$G"

# {==== a replica no card admits: reported, never retried forever ====}
printf 'id,submit,duration,gpus,kind,gpumem,weights_gib,rate,svc_mean_ms,replicas_min,replicas_max\nbig,0,3600,1,service,90000,10,1,100,1,2\n' >gm.csv
for p in timeslice vgpu mps; do
  expect "replica_above_card_${p}_reported" 0 "service 'big' fits no card of the cluster and is never served" \
    $TO "$G" run --trace gm.csv --policy $p --gpus $H:8 --out o_gm_$p
done
# twenty replicas of 50 GB on eight 80 GB cards: under timeslice each extra one is killed by an OOM where it lands
printf 'id,submit,duration,gpus,kind,gpumem,weights_gib,rate,svc_mean_ms,replicas_min,replicas_max\nbig,0,3600,1,service,50000,10,1,100,20,20\n' >gm2.csv
if check_rc replicas_killed_at_placement_end 0 $TO "$G" run --trace gm2.csv --policy timeslice --gpus $H:8 --out o_gm2 &&
   python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["services"][0]; assert s["served"] > 0 and s["replicas"]["lost"] > 0, s' \
     o_gm2/report.json >"$T/msg" 2>&1; then ok replicas_killed_at_placement_end
else no replicas_killed_at_placement_end "$T/msg"; fi

# {==== values refused at the door ====}
for c in "run --trace small.csv --policy whole --out" "compare --trace small.csv --policies whole --out" \
         "plan --trace small.csv --policy whole --gpu $H --slo jobs.queue_s.p99<=10 --out" "sweep init x.json --out" \
         "import openb small.csv --out-trace" "gen mmc --jobs 1 --servers 1 --util 0.5 --out"; do
  set -- $c
  expect "empty_path_$1" 2 "expected a path, found an empty string" "$G" "$@" ''
done
if [ ! -e /runs ] && ! ls -a | grep -q '\.tmp\.'; then ok empty_out_wrote_nothing
else ls -a / . >"$T/msg"; no empty_out_wrote_nothing "$T/msg"; fi
expect time_policy_named_twice 2 "'hibernate' is named twice" \
  "$G" run --trace small.csv --policy whole+hibernate+hibernate --gpus $H:8 --out o_twice
expect plan_gpu_comma 2 "--gpu: expected model names, comma separated" \
  "$G" plan --trace small.csv --policy whole --gpu , --slo 'jobs.queue_s.p99<=10' --out o_pg
expect plan_slo_hex 2 "expected a time after <=" \
  "$G" plan --trace small.csv --policy whole --gpu $H --slo 'jobs.queue_s.p99<=0x10' --out o_ps
expect run_gpus_per_node_blank 2 "gpus-per-node" "$G" run --trace small.csv --policy whole --gpus $H:8 --gpus-per-node ' 8' --out o_gpn
expect run_until_hex 2 "until" "$G" run --trace small.csv --policy whole --gpus $H:8 --until 0x10 --out o_u
expect run_gpus_count_plus 2 "expected MODEL:COUNT" "$G" run --trace small.csv --policy whole --gpus $H:+8 --out o_gc
expect run_price_hex 2 "expected US dollars per GPU-hour" "$G" run --trace small.csv --policy whole --gpus $H:8 --price $H=0x1 --out o_pr
expect gen_jobs_huge 2 "--jobs: expected a whole number from 0 to 100000000, found '1000000000000'" \
  "$G" gen mmc --jobs 1000000000000 --servers 2 --util 0.5
expect gen_util_1000 2 "--util: expected a number from 0 to 10, found '1000'" "$G" gen mmc --jobs 10 --servers 2 --util 1000
# gen training: every value through the strict parser, its range checked before the cast to int
expect gen_training_max_gpus_wraps 2 "--max-gpus: expected a whole number from 65 to 1048576, found '4294967361'" \
  "$G" gen training --jobs 3 --max-gpus 4294967361
expect gen_training_overask_hex 2 "--overask: expected a number from 1 to 1000, found '0x10'" \
  "$G" gen training --jobs 3 --overask 0x10
expect gen_training_jobs_blank 2 "--jobs: expected a whole number from 0 to 100000000, found ' 3'" \
  "$G" gen training --jobs ' 3'
expect gen_agents_hours_nan 2 "--hours: expected a number" "$G" gen agents --sessions 2 --hours nan
printf '{"nodes": [{"model": "%s", "count": "N*0x2", "gpus": 8}]}\n' $H >tpl.json
expect template_ratio_hex 3 "tpl.json" \
  "$G" plan --trace small.csv --policy whole --cluster-template tpl.json --slo 'jobs.queue_s.p99<=10' --out o_tpl

# {==== check: a baseline metric stored as a string ====}
"$G" run --trace small.csv --policy whole --gpus $H:8 --out ck_ok >/dev/null 2>&1
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["jobs"]["completed"]="903"; json.dump(r,open(sys.argv[2],"w"))' \
  ck_ok/report.json ck_bad.json
expect check_baseline_string_metric 3 "baseline 'ck_bad.json': jobs.completed: expected a number (the report has one), found a string" \
  "$G" check ck_ok --baseline ck_bad.json
expect check_tolerance_hex 2 "--tolerance: 'default=0x1': expected METRIC=REL" "$G" check ck_ok --baseline ck_ok/report.json --tolerance default=0x1

# {==== a model alias naming another model ====}
mkdir models && cp "$R"/models/gpu/*.json models/
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("aliases",[]).append("H100-SXM5-80GB"); json.dump(d,open(sys.argv[1],"w"))' \
  models/A10-24GB.json
expect model_alias_shadows_name 3 "'H100-SXM5-80GB' is an alias of 'A10-24GB' and the name of 'H100-SXM5-80GB'" \
  "$G" models --models models

# {==== sweep manifest and spec numbers before any cast ====}
echo '{"traces": ["small.csv"], "clusters": [{"gpus": "H100-SXM5-80GB:8"}], "policies": ["whole"]}' >spec.json
"$G" sweep init spec.json --out sw >/dev/null 2>&1
for v in '"seed":-1' '"seed":1e300' '"gpus_per_node":1e300' '"index":1e300'; do
  k=${v%%:*}; k=$(echo "$k" | tr -d '"')
  case $k in
    seed) sed "s/\"seed\":[0-9]*/$v/" sw/manifest.jsonl >sw/bad.jsonl ;;
    index) sed "s/\"index\":0/$v/" sw/manifest.jsonl >sw/bad.jsonl ;;
    *) sed "s/\"seed\":1/\"seed\":1,$v/" sw/manifest.jsonl >sw/bad.jsonl ;;
  esac
  expect "manifest_${k}_$(echo "$v" | tr -dc '0-9e-')" 3 "\"$k\": expected an integer" "$G" sweep status sw/bad.jsonl
done
sed 's/$/ {"x": 1}/' sw/manifest.jsonl >sw/two.jsonl
expect manifest_two_objects_on_a_line 3 "manifest 'sw/two.jsonl' line 1, column [0-9]*: unexpected '{' after the JSON value" \
  "$G" sweep status sw/two.jsonl
echo '{"traces": ["small.csv"], "clusters": [{"gpus": "H100-SXM5-80GB:8", "gpus_per_node": 1e300}], "policies": ["whole"]}' >spec2.json
expect spec_gpus_per_node_huge 3 "gpus_per_node: expected an integer 1..64" "$G" sweep init spec2.json --out sw2

# {==== sweep init sets each run up as run would ====}
k=0
for pol in '{"name": "vgpu", "params": {"nosuch": 1}}' '"whole[queue=banana]"' '"whole+vgpu"' '"whole+hibernate+hibernate"'; do
  k=$((k + 1))
  printf '{"traces": ["small.csv"], "clusters": [{"gpus": "%s:8"}],\n "policies": ["whole", %s]}\n' $H "$pol" >si$k.json
  expect "sweep_init_checks_policy_$k" 3 "si$k.json:2:[0-9]*: policies\[1\]" "$G" sweep init si$k.json --out si$k
done
printf '{"traces": ["small.csv"], "clusters": [{"gpus": "NOPE:8"}], "policies": ["whole"]}\n' >si5.json
expect sweep_init_unknown_model 3 "clusters\[0\]: --gpus: unknown GPU model 'NOPE'" "$G" sweep init si5.json --out si5
printf '{"nodes": [{"model": "%s", "count": "N", "gpus": 8}]}\n' $H >tplc.json
printf '{"traces": ["small.csv"], "clusters": ["tplc.json"], "policies": ["whole"]}\n' >si6.json
expect sweep_init_template_cluster 3 "clusters\[0\]: cluster .*this is a cluster template" "$G" sweep init si6.json --out si6
printf '{"traces": ["small.csv"], "clusters": ["nope.json"], "policies": ["whole"]}\n' >si9.json
expect sweep_init_unreadable_cluster 3 "si9.json:1:[0-9]*: 'nope.json': No such file or directory" "$G" sweep init si9.json --out si9
printf '{"traces": ["small.csv"], "policies": ["whole"], "seeds": 3, "seeds": 4}\n' >si7.json
expect sweep_init_duplicate_key 3 "duplicate key 'seeds'" "$G" sweep init si7.json --out si7
python3 -c 'import json; print(json.dumps({"traces": ["small.csv"], "policies": [{"name": "whole", "label": "w%d" % i} for i in range(101)], "seeds": 10000}))' >si8.json
expect sweep_init_refuses_huge_manifest 2 "1010000 runs .* would make a manifest of about [0-9.]* GB, read whole by every sweep command; at most 1000000 runs" \
  "$G" sweep init si8.json --out si8
if [ -z "$(ls -d si[0-9]* 2>/dev/null | grep -v json)" ]; then ok sweep_init_refusals_write_nothing
else ls -d si* >"$T/msg"; no sweep_init_refusals_write_nothing "$T/msg"; fi

# {==== plot: a service that served nothing; a full file system ====}
"$G" run --trace gm.csv --policy timeslice --gpus $H:8 --out p_none >/dev/null 2>&1
expect plot_service_served_nothing 0 "has no service that served a request" "$G" plot p_none --no-svg
# the report and nothing else: no data file of the figure it skipped
if [ -s p_none/report.html ] && [ -z "$(ls p_none | grep -v '^report\.\(json\|html\)$\|^timeseries.csv$\|^fig_\(gpus\|queue\)\.png$')" ]; then
  ok plot_served_nothing_writes_report; else ls p_none >"$T/msg"; no plot_served_nothing_writes_report "$T/msg"; fi
cp -r ck_ok p_full && rm -f p_full/*.png
# a file size limit stands in for a full disk: writes past 8 KiB fail with EFBIG (SIGXFSZ ignored)
bash -c 'ulimit -f 8; trap "" XFSZ; exec "$@"' sh "$G" plot p_full --no-svg >"$T/out" 2>&1; rc=$?
if [ "$rc" = 4 ] && grep -q "cannot write the image" "$T/out" && [ -z "$(ls p_full | grep -v '^report.json$\|^timeseries.csv$')" ]; then
  ok plot_full_disk_exit_4_no_cut_image
else echo "    exit $rc" >>"$T/out"; ls -la p_full >>"$T/out"; no plot_full_disk_exit_4_no_cut_image "$T/out"; fi
# /dev/full itself: this pid's temporary of a figure, then of report.html, is a link to it (ENOSPC)
for f in fig_gpus.png report.html; do
  rm -rf p_dev && cp -r ck_ok p_dev && rm -f p_dev/*.png p_dev/report.html
  sh -c 'ln -s /dev/full "$1.tmp.$$" && exec "$2" plot "$3" --no-svg' sh "p_dev/$f" "$G" p_dev >"$T/out" 2>&1; rc=$?
  if [ "$rc" = 4 ] && grep -q "cannot write.*$f" "$T/out" && [ ! -e "p_dev/$f" ] && ! ls -a p_dev | grep -q '\.tmp\.'; then
    ok "plot_dev_full_${f%%.*}_exit_4"
  else echo "    exit $rc" >>"$T/out"; ls -la p_dev >>"$T/out"; no "plot_dev_full_${f%%.*}_exit_4" "$T/out"; fi
done

# {==== signals: no temporaries left; stale ones swept at the next start ====}
# signal_when DIR PATTERN SIG CMD...: starts CMD, sends SIG once an entry of DIR matches PATTERN (the
# temporary it must not leave; at most 60 s), waits for it; `seen` says whether it appeared
signal_when() {
  dir=$1; pat=$2; sig=$3; shift 3
  "$@" >/dev/null 2>&1 &
  pid=$!
  i=0 seen=0
  while [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
    if ls -a "$dir" 2>/dev/null | grep -q -- "$pat"; then seen=1; break; fi
    sleep 0.2; i=$((i + 1))
  done
  kill "-$sig" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
mkdir sig && mkfifo sig/in.csv
# the importer blocks on a FIFO whose writer never finishes: its output is open when the signal comes
( printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n'; sleep 60 ) >sig/in.csv &
wpid=$!
signal_when sig 'az.csv.tmp' TERM "$G" import azure-llm sig/in.csv --out-trace sig/az.csv; s1=$seen
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
signal_when sig 'gen.csv.tmp' INT "$G" gen mmc --jobs 100000000 --servers 8 --util 0.5 --out sig/gen.csv; s2=$seen
if [ "$s1$s2" = 11 ] && [ -z "$(ls -a sig | grep -v '^\.\.*$\|^in.csv$')" ]; then ok signal_import_gen_leave_nothing
else echo "    temporaries seen: $s1$s2" >"$T/msg"; ls -a sig >>"$T/msg"; no signal_import_gen_leave_nothing "$T/msg"; fi
"$G" gen mmc --jobs 400000 --servers 64 --util 0.9 --mean-s 30 --seed 3 --out big.csv >/dev/null 2>&1
echo '{"traces": ["big.csv"], "clusters": [{"gpus": "H100-SXM5-80GB:64"}], "policies": ["whole", "vgpu"]}' >bigspec.json
"$G" sweep init bigspec.json --out sws >/dev/null 2>&1
signal_when sws/runs '^\.tmp\.' TERM "$G" sweep run sws/manifest.jsonl --index 0; s1=$seen
if [ "$s1" = 1 ] && [ -z "$(ls -a sws/runs 2>/dev/null | grep tmp)" ]; then ok signal_sweep_run_leaves_nothing
else echo "    temporary seen: $s1" >"$T/msg"; ls -a sws/runs >>"$T/msg"; no signal_sweep_run_leaves_nothing "$T/msg"; fi
signal_when sws/runs '^\.tmp\.' KILL "$G" sweep run sws/manifest.jsonl --index 1
sleep 1 # the orphaned run child notices nothing: it is left to run out, as a lost node's would be
pkill_children=$(ls -a sws/runs | grep -c '^\.tmp\.' )
expect sweep_run_sweeps_stale_temporaries 0 "removed [0-9]* temporary director" \
  "$G" sweep run sws/manifest.jsonl --index 0 --force
if [ "$pkill_children" -ge 1 ] && [ -z "$(ls -a sws/runs | grep '^\.tmp\.')" ]; then ok sweep_run_stale_gone
else echo "    before: $pkill_children" >"$T/msg"; ls -a sws/runs >>"$T/msg"; no sweep_run_stale_gone "$T/msg"; fi
# sweep submit --engine local passes the signal on to its shards: none keeps running, none leaves a temporary
rm -rf sws/runs
signal_when sws/runs '^\.tmp\.' TERM "$G" sweep submit sws/manifest.jsonl --engine local --max-parallel 2; s1=$seen
sleep 1
n1=$(ls sws/runs 2>/dev/null | grep -c .)
sleep 4
n2=$(ls sws/runs 2>/dev/null | grep -c .)
if [ "$s1" = 1 ] && [ "$n1" = "$n2" ] && [ -z "$(ls -a sws/runs 2>/dev/null | grep tmp)" ]; then
  ok signal_submit_local_stops_its_shards
else echo "    seen $s1, runs: $n1 then $n2" >"$T/msg"; ls -a sws/runs >>"$T/msg" 2>&1; no signal_submit_local_stops_its_shards "$T/msg"; fi
expect sweep_run_unreadable_trace_said 3 "sweep: \[0\] whole seed 1 failed: .*big2.csv" \
  sh -c "cp big.csv big2.csv && echo '{\"traces\": [\"big2.csv\"], \"clusters\": [{\"gpus\": \"H100-SXM5-80GB:8\"}], \"policies\": [\"whole\"]}' >s3.json && '$G' sweep init s3.json --out sw3 >/dev/null && chmod 000 big2.csv && rm big2.csv && mkdir big2.csv && '$G' sweep run sw3/manifest.jsonl --index 0"

finish
