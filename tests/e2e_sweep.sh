#!/bin/sh
# e2e_sweep.sh - `gpusim sweep` end to end: spec errors name file, line and
# column; a 24-run sweep submitted to a real one-node Slurm (slurmctld,
# slurmd and munged started here as root, in this test's temp dir, stopped on
# exit) collects to exactly the table `compare` prints locally; a second
# submission after deleting three results redoes only those three; GNU
# parallel with --shard gives the same table.
# Bounded: Slurm must come up within 60 s (else FAIL with its logs), and
# every submission or parallel run is cut at 240 s (a healthy one takes ~20 s).
# Usage: tests/e2e_sweep.sh GPUSIM   Prints [ok]/[FAIL] per check and ends
# with "N passed, N failed". Without root or the Debian packages slurm-wlm,
# munge and parallel (scripts/deps.sh installs them) the engine checks print
# "SKIP: reason" instead.
. "$(dirname "$0")/lib_e2e.sh"
G=${1:-build/test/gpusim}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
# the GPU models shipped in the repository (read only): the runs start in the temp dir
GPUSIM_MODELS=$(cd "$(dirname "$0")/.." && pwd)/models/gpu
export GPUSIM_MODELS
PIDS=""
stop_daemons() {
  # only the processes this test started, by their pid; jobs first
  [ -n "$PIDS" ] && SLURM_CONF="$T/slurm/slurm.conf" timeout 10 scancel --quiet --full --partition=test >/dev/null 2>&1
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  for p in $PIDS; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null
  done
  PIDS=""
}
trap 'stop_daemons; rm -rf "$T"' EXIT

R=$(cd "$(dirname "$0")/.." && pwd)
cd "$T" || exit 1
# the example day's first 6 hours (training jobs and inference services: token counts are drawn from
# the seed, so the figures vary over seeds and the 95% intervals are not all zero); copies, read from
# the repository
cp "$R/workloads/examples/day.csv" day.csv && cp "$R/workloads/examples/cluster.json" cluster.json
POLS='whole,whole[queue=fifo],vgpu,timeslice[replicas=2]'
cat >spec.json <<'EOS'
{
  "traces": ["day.csv"],
  "clusters": ["cluster.json"],
  "policies": ["whole", "whole[queue=fifo]", "vgpu",
               {"name": "timeslice", "params": {"replicas": 2}, "label": "timeslice[replicas=2]"}],
  "seeds": 6,
  "until": 21600
}
EOS

# 1. bad specs: file, line, column; exit 3 (bad input) or 2 (usage)
printf '{\n  "traces": ["day.csv"]\n  "policies": ["whole"]\n}\n' >bad1.json
expect sweep_spec_syntax_line_col 3 'bad1.json:3:3:' "$G" sweep init bad1.json --out b1
printf '{\n  "traces": ["day.csv"], "clusters": [{"gpus": "H100-SXM5-80GB:8"}],\n  "policies": ["whole",\n     "nosuch"]\n}\n' >bad2.json
expect sweep_spec_unknown_policy_line_col 3 "bad2.json:4:6: policies\[1\]: unknown policy 'nosuch'" \
  "$G" sweep init bad2.json --out b2
printf '{"traces": ["day.csv"], "policies": ["whole"],\n "seed": 3}\n' >bad3.json
expect sweep_spec_unknown_key_line_col 3 "bad3.json:2:2: unknown key 'seed'" "$G" sweep init bad3.json --out b3
printf '{"traces": ["nothere.csv"], "policies": ["whole"]}\n' >bad4.json
expect sweep_spec_missing_trace 3 "bad4.json:1:13: 'nothere.csv'" "$G" sweep init bad4.json --out b4
printf '{"traces": ["day.csv"], "clusters": ["c.json"], "policies": ["whole"], "seeds": [1, 2, 1]}\n' >bad5.json
echo '{}' >c.json
expect sweep_spec_seed_twice 3 'bad5.json:1:88: seeds\[2\]: seed 1 is listed twice' "$G" sweep init bad5.json --out b5
printf '{"traces": ["day.csv"], "clusters": ["c.json"],\n "policies": [{"name": "whole", "lable": "w"}]}\n' >bad6.json
expect sweep_spec_nested_unknown_key 3 "bad6.json:2:33: policies: unknown key 'lable'" "$G" sweep init bad6.json --out b6
expect sweep_usage_exit_2 2 'expected one SPEC' "$G" sweep init
expect sweep_run_index_out_of_range_exit_2 2 'index 99' sh -c "'$G' sweep init spec.json --out sx >/dev/null &&
  '$G' sweep run sx/manifest.jsonl --index 99"

# 2. the manifest: 24 lines, stable indexes and ids (init twice: same bytes)
"$G" sweep init spec.json --out sw >"$T/out" 2>&1
"$G" sweep init spec.json --out sw2 >/dev/null 2>&1
n=$(grep -c . sw/manifest.jsonl 2>/dev/null)
ids=$(sed 's/.*"id":"\([0-9a-f]*\)".*/\1/' sw/manifest.jsonl | sort -u | grep -c .)
if [ "$n" = 24 ] && [ "$ids" = 24 ] && cmp -s sw/manifest.jsonl sw2/manifest.jsonl &&
   head -1 sw/manifest.jsonl | grep -q '"index":0,' && sed -n 24p sw/manifest.jsonl | grep -q '"index":23,'; then
  ok sweep_init_24_lines_stable_ids
else echo "    lines=$n distinct ids=$ids" >>"$T/out"; no sweep_init_24_lines_stable_ids "$T/out"; fi
rm -rf sw2 sx

# 3. the reference: compare, locally, on the same trace, cluster, policies, seeds
"$G" compare --trace day.csv --cluster cluster.json --policies "$POLS" --seeds 6 --jobs 2 --until 21600 \
  --format markdown --out ref >ref.md 2>"$T/out"
"$G" compare --trace day.csv --cluster cluster.json --policies "$POLS" --seeds 6 --jobs 2 --until 21600 \
  --format csv --out ref >ref.csv 2>>"$T/out"
if [ "$(grep -c '^| ' ref.md)" -ge 10 ] && has ref.md 'timeslice\[replicas=2\]' && has ref.md '±[0-9.]*[1-9]'; then
  ok sweep_reference_compare
else no sweep_reference_compare "$T/out"; fi

# 4. one task, one line: the index from the engine's variable; a skip; a stale input refused
cp -r sw sv
SLURM_ARRAY_TASK_ID=5 "$G" sweep run sv/manifest.jsonl >"$T/out" 2>&1
JOB_COMPLETION_INDEX=6 "$G" sweep run sv/manifest.jsonl >>"$T/out" 2>&1
SLURM_ARRAY_TASK_ID=5 "$G" sweep run sv/manifest.jsonl >>"$T/out" 2>&1
"$G" sweep status sv/manifest.jsonl >>"$T/out" 2>&1
if has "$T/out" '\[5\] .* done: ' && has "$T/out" '\[6\] .* done: ' && has "$T/out" '\[5\] .* already done' &&
   has "$T/out" '24 runs: 2 done, 0 failed, 22 missing' && has "$T/out" 'missing: 0-4,7-23' &&
   [ "$(ls sv/runs | grep -c .)" = 2 ]; then ok sweep_run_env_index_and_skip
else no sweep_run_env_index_and_skip "$T/out"; fi
cp day.csv day.orig && echo "999999,1,1,60" >>day.csv
expect sweep_run_refuses_changed_trace 3 'changed since' "$G" sweep run sv/manifest.jsonl --index 7
mv day.orig day.csv
rm -rf sv

# 5. init sets each run up as run would: a bad parameter is refused there, naming the entry
printf '{"traces": ["day.csv"], "clusters": [{"gpus": "H100-SXM5-80GB:8"}],\n "policies": ["whole", "whole[queue=nosuch]"], "seeds": 2}\n' >fail.json
expect sweep_init_checks_parameters 3 "fail.json:2:24: policies\[1\] 'whole\[queue=nosuch\]' on cluster .*queue" \
  "$G" sweep init fail.json --out sf
# a run that fails only when it runs (a bad row past the first) is named with its first error line,
# and collect names what is missing
cp day.csv dayb.csv && echo "zz,999999,x,1" >>dayb.csv && badline=$(grep -c '' dayb.csv)
printf '{"traces": ["day.csv", "dayb.csv"], "clusters": [{"gpus": "H100-SXM5-80GB:8"}],\n "policies": ["whole"], "seeds": 2}\n' >fail.json
"$G" sweep init fail.json --out sf >/dev/null 2>&1
"$G" sweep submit sf/manifest.jsonl --engine local --max-parallel 2 >"$T/out" 2>&1; src=$?
"$G" sweep status sf/manifest.jsonl >>"$T/out" 2>&1
"$G" sweep collect sf/manifest.jsonl --format csv >>"$T/out" 2>&1; crc=$?
if [ "$src" -ne 0 ] && [ "$crc" -eq 1 ] && has "$T/out" '4 runs: 2 done, 2 failed, 0 missing' &&
   has "$T/out" "failed \[2\] whole seed 1 (dayb.*dayb.csv' line $badline" &&
   has "$T/out" '2 of 4 runs not done' && has "$T/out" 'missing: 2-3'; then ok sweep_failed_runs_named
else no sweep_failed_runs_named "$T/out"; fi

# 6. k8s: an Indexed Job over every line
"$G" sweep submit sw/manifest.jsonl --engine k8s --max-parallel 4 --image reg/gpusim:1 >"$T/out" 2>&1
y=sw/k8s/job.yaml
# parsed as YAML when PyYAML is there (kubectl needs a server even for a dry run)
yaml_ok=0
if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$y" >>"$T/out" 2>&1 <<'EOP' || yaml_ok=1
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
s = d["spec"]; p = s["template"]["spec"]; c = p["containers"][0]
assert d["apiVersion"] == "batch/v1" and d["kind"] == "Job", d
assert s["completionMode"] == "Indexed" and s["completions"] == 24 and s["parallelism"] == 4, s
assert p["restartPolicy"] == "Never" and c["image"] == "reg/gpusim:1", p
assert c["command"][:3] == ["gpusim", "sweep", "run"] and c["command"][3].endswith("/sw/manifest.jsonl"), c
assert c["volumeMounts"][0]["name"] == p["volumes"][0]["name"], p
EOP
fi
if [ -s "$y" ] && [ "$yaml_ok" = 0 ] && has "$y" 'completionMode: Indexed' && has "$y" 'completions: 24' &&
   has "$y" 'parallelism: 4' && has "$y" '"reg/gpusim:1"' && has "$y" '"sweep", "run", "/'; then ok sweep_k8s_indexed_job
else cat "$y" >>"$T/out" 2>/dev/null; no sweep_k8s_indexed_job "$T/out"; fi
rm -rf sw/k8s

# 7. plan --width K: K card counts a round finds the bisection's answer in fewer rounds (search.json)
"$G" gen mmc --jobs 4000 --servers 10 --util 0.6 --mean-s 1 --seed 1 --out mmc.csv >/dev/null 2>&1
for w in 1 3; do
  "$G" plan --trace mmc.csv --policy whole --gpu H100-SXM5-80GB --gpus-per-node 1 --slo 'queue_mean<=0.04' \
    --jobs 2 --width $w --out plan$w >"$T/out.$w" 2>&1
done
g1=$(grep -m1 '"gpus":' plan1/plan.json | tr -dc 0-9); r1=$(grep -m1 '"rounds":' plan1/search.json | tr -dc 0-9)
g3=$(grep -m1 '"gpus":' plan3/plan.json | tr -dc 0-9); r3=$(grep -m1 '"rounds":' plan3/search.json | tr -dc 0-9)
if [ -n "$g1" ] && [ "$g1" = "$g3" ] && [ -n "$r3" ] && [ "$r3" -lt "$r1" ]; then ok plan_width_fewer_rounds_same_answer
else echo "    width 1: $g1 cards in $r1 rounds; width 3: $g3 cards in $r3 rounds" >>"$T/out.3"; no plan_width_fewer_rounds_same_answer "$T/out.3"; fi

# 8. Slurm, for real
start_slurm() {
  S=$T/slurm
  mkdir -p "$S/munge" "$S/state" "$S/spool" "$S/log" && chmod 700 "$S/munge"
  dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$S/munge/munge.key"
  munged -F --force --socket="$S/munge/sock" --key-file="$S/munge/munge.key" --pid-file="$S/munge/pid" \
    --log-file="$S/munge/log" --seed-file="$S/munge/seed" >"$S/log/munged.out" 2>&1 &
  PIDS="$PIDS $!"
  port=$((20000 + $$ % 20000))
  cat >"$S/slurm.conf" <<EOC
ClusterName=gpusimtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=gpusimnode NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=gpusimnode Default=YES MaxTime=INFINITE State=UP
EOC
  export SLURM_CONF="$S/slurm.conf"
  i=0
  while [ ! -S "$S/munge/sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  slurmctld -D -f "$S/slurm.conf" >"$S/log/slurmctld.out" 2>&1 &
  PIDS="$PIDS $!"
  slurmd -D -N gpusimnode -f "$S/slurm.conf" >"$S/log/slurmd.out" 2>&1 &
  PIDS="$PIDS $!"
  # bounded: a Slurm that never comes up fails the test with its logs
  i=0
  while [ $i -lt 60 ]; do
    [ "$(timeout 5 sinfo -h -N -o %t 2>/dev/null)" = idle ] && return 0
    sleep 1; i=$((i + 1))
  done
  # the failure report shows 20 lines: the node state, then the logs' last lines
  { echo "Slurm did not come up within 60 s; node state: $(timeout 5 sinfo -h -N -o %t 2>&1 | head -1)"
    echo "slurmd:"; tail -n 3 "$S/log/slurmd.out" "$S/log/slurmd.log" 2>/dev/null | grep -v '^$'
    echo "slurmctld:"; tail -n 10 "$S/log/slurmctld.log" "$S/log/slurmctld.out" 2>/dev/null | grep -v '^$'
  } >"$T/out" 2>&1
  return 1
}
why=""
[ "$(id -u)" = 0 ] || why="not root (slurmctld, slurmd and munged are started as root)"
for c in slurmctld slurmd munged sbatch sinfo scancel; do
  [ -z "$why" ] && ! command -v $c >/dev/null 2>&1 && why="$c not installed (Debian: slurm-wlm, munge; scripts/deps.sh)"
done
if [ -n "$why" ]; then
  echo "SKIP: Slurm checks: $why"
elif ! start_slurm; then
  no sweep_slurm_starts "$T/out"
else
  ok sweep_slurm_starts
  timeout 240 "$G" sweep submit sw/manifest.jsonl --engine slurm --max-parallel 4 --wait >"$T/out" 2>&1; src=$?
  "$G" sweep collect sw/manifest.jsonl --format markdown >sw.md 2>>"$T/out"; crc=$?
  "$G" sweep collect sw/manifest.jsonl --format csv >sw.csv 2>>"$T/out"
  if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && cmp -s sw.md ref.md && cmp -s sw.csv ref.csv &&
     has sw/slurm/submit.sbatch '^#SBATCH --array=0-23%4$' && [ "$(ls sw/runs | grep -c .)" = 24 ]; then
    ok sweep_slurm_collect_equals_compare
  else diff ref.md sw.md >>"$T/out" 2>&1; cat sw/slurm/submit.sbatch >>"$T/out" 2>&1; no sweep_slurm_collect_equals_compare "$T/out"; fi

  # delete three results: only those three are submitted and run again
  for i in 3 10 17; do
    id=$(sed -n "$((i + 1))p" sw/manifest.jsonl | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
    rm -rf "sw/runs/$id"
  done
  ls -i --full-time sw/runs/*/report.json >before.txt 2>/dev/null
  nout=$(ls sw/slurm/*.out | grep -c .)
  timeout 240 "$G" sweep submit sw/manifest.jsonl --engine slurm --wait >"$T/out" 2>&1; src=$?
  ls -i --full-time sw/runs/*/report.json >after.txt 2>/dev/null
  grep -v -F -f before.txt after.txt >redone.txt
  nout2=$(ls sw/slurm/*.out | grep -c .)
  "$G" sweep collect sw/manifest.jsonl --format markdown >sw2.md 2>>"$T/out"; crc=$?
  if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && has sw/slurm/submit.sbatch '^#SBATCH --array=3,10,17$' &&
     [ "$(grep -c . redone.txt)" = 3 ] && [ "$(grep -c . before.txt)" = 21 ] && [ "$((nout2 - nout))" = 3 ] &&
     cmp -s sw2.md ref.md; then
    ok sweep_slurm_resubmit_redoes_only_missing
  else echo "    redone: $(grep -c . redone.txt), task logs: $nout -> $nout2" >>"$T/out"
    cat sw/slurm/submit.sbatch >>"$T/out"; no sweep_slurm_resubmit_redoes_only_missing "$T/out"; fi

  # plan --engine slurm: each round one array, waited for; the same answer in the same rounds as here
  timeout 240 "$G" plan --trace mmc.csv --policy whole --gpu H100-SXM5-80GB --gpus-per-node 1 \
    --slo 'queue_mean<=0.04' --width 3 --engine slurm --out planS >"$T/out" 2>&1; prc=$?
  gS=$(grep -m1 '"gpus":' planS/plan.json 2>/dev/null | tr -dc 0-9)
  rS=$(grep -m1 '"rounds":' planS/search.json 2>/dev/null | tr -dc 0-9)
  if [ "$prc" -eq 0 ] && [ -n "$gS" ] && [ "$gS" = "$g3" ] && [ "$rS" = "$r3" ] &&
     [ "$(ls planS/sweep.p0-whole*/slurm/*.out | grep -c .)" -ge "$rS" ]; then ok plan_engine_slurm_same_answer
  else echo "    slurm: $gS cards in $rS rounds; here: $g3 in $r3" >>"$T/out"; no plan_engine_slurm_same_answer "$T/out"; fi
  stop_daemons
fi

# 9. GNU parallel over shards
if ! command -v parallel >/dev/null 2>&1; then
  echo "SKIP: GNU parallel checks: parallel not installed (Debian: parallel; scripts/deps.sh)"
else
  "$G" sweep init spec.json --out sp >/dev/null 2>&1
  "$G" sweep submit sp/manifest.jsonl --engine parallel --max-parallel 2 --shards 5 >cmd.txt 2>&1
  timeout 240 "$G" sweep submit sp/manifest.jsonl --engine parallel --max-parallel 2 --shards 5 --run >"$T/out" 2>&1
  src=$?
  "$G" sweep collect sp/manifest.jsonl --format markdown >sp.md 2>>"$T/out"; crc=$?
  if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && cmp -s sp.md ref.md && has cmd.txt "^parallel --jobs 2 .* --null --quote -a .*/sp/parallel/exe .* '{1}' sweep run '{2}' --shard '{3}'\$" &&
     [ "$(tr '\0' ' ' <sp/parallel/shards)" = "1/5 2/5 3/5 4/5 5/5 " ] &&
     [ "$(ls sp/runs | grep -c .)" = 24 ]; then ok sweep_parallel_shards_equal_compare
  else cat cmd.txt >>"$T/out"; diff ref.md sp.md >>"$T/out" 2>&1; no sweep_parallel_shards_equal_compare "$T/out"; fi
  "$G" plan --trace mmc.csv --policy whole --gpu H100-SXM5-80GB --gpus-per-node 1 --slo 'queue_mean<=0.04' \
    --width 3 --engine parallel --out planP >"$T/out" 2>&1; prc=$?
  gP=$(grep -m1 '"gpus":' planP/plan.json 2>/dev/null | tr -dc 0-9)
  rP=$(grep -m1 '"rounds":' planP/search.json 2>/dev/null | tr -dc 0-9)
  if [ "$prc" -eq 0 ] && [ -n "$gP" ] && [ "$gP" = "$g3" ] && [ "$rP" = "$r3" ]; then ok plan_engine_parallel_same_answer
  else echo "    parallel: $gP cards in $rP rounds; here: $g3 in $r3" >>"$T/out"; no plan_engine_parallel_same_answer "$T/out"; fi
fi

finish
