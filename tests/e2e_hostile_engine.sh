#!/bin/sh
# e2e_hostile_engine.sh - no file name, label or option value is ever a
# command: hostile names (command substitution, backquotes, ';', a newline
# followed by a command, GNU parallel's {=perl=}, gnuplot's '|cmd' and
# '<cmd') go through `sweep submit` (parallel printed and run, slurm, k8s,
# local), `plan --engine parallel|slurm` and `plot`; after each, no canary
# file exists and no file appeared outside the output directories. Slurm is
# played by a stand-in sbatch on PATH (tests/fixtures is not needed): it
# reads the script's #SBATCH lines as sbatch does and runs each array task
# with sh, as a compute node would, so what the script would run on a
# cluster runs here.
# Usage: tests/e2e_hostile_engine.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
R=$(cd "$(dirname "$0")/.." && pwd)
export GPUSIM_MODELS="$R/models/gpu"
cd "$T" || exit 1
mkdir bin

# the stand-in sbatch: --parsable, --wait, --output=PATTERN, then the script
cat >bin/sbatch <<'EOS'
#!/usr/bin/env python3
import os, re, subprocess, sys
out = None; script = None
for a in sys.argv[1:]:
    if a.startswith("--output="): out = a[len("--output="):]
    elif not a.startswith("--"): script = a
lines = open(script, encoding="utf-8", errors="replace").read().split("\n")
arr = "0"
for l in lines[1:]:
    if not l.startswith("#"): break          # sbatch reads no directive after the first command
    m = re.match(r"#SBATCH --array=([0-9,-]+)", l)
    if m: arr = m.group(1)
    m = re.match(r"#SBATCH --output=(.*)", l)
    if m and out is None: out = m.group(1)
tasks = []
for part in arr.split(","):
    a, _, b = part.partition("-")
    tasks += range(int(a), int(b or a) + 1)
rc = 0
for t in tasks:
    log = (out or "slurm-%A_%a.out").replace("%%", "\0").replace("%A", "77").replace("%a", str(t)).replace("\0", "%")
    with open(log, "w") as f:
        rc |= subprocess.call(["sh", script], env=dict(os.environ, SLURM_ARRAY_TASK_ID=str(t)), stdout=f, stderr=f)
print("77")
sys.exit(1 if rc else 0)
EOS
chmod +x bin/sbatch
PATH="$T/bin:$PATH"
export PATH

# canary_free NAME: no canary file anywhere under the scratch directory
canary_free() {
  if [ -z "$(find "$T" -name 'PWNED*' 2>/dev/null)" ]; then ok "$1"
  else find "$T" -name 'PWNED*' >"$T/msg"; no "$1" "$T/msg"; fi
}
# snapshot / only_under NAME DIR...: files that appeared since the snapshot lie under the DIRs
snapshot() { find "$T" -path "$T/snap*" -prune -o -print | sort >"$T/snap.before"; }
only_under() {
  name=$1; shift
  find "$T" -path "$T/snap*" -prune -o -path "$T/out" -prune -o -path "$T/msg" -prune -o -print | sort >"$T/snap.after"
  comm -13 "$T/snap.before" "$T/snap.after" >"$T/snap.new"
  for d in "$@"; do grep -v -F -x -- "$d" "$T/snap.new" | grep -v -F -- "$d/" >"$T/snap.keep"; mv "$T/snap.keep" "$T/snap.new"; done
  if [ ! -s "$T/snap.new" ]; then ok "$name"; else no "$name" "$T/snap.new"; fi
}

# the hostile names: a trace, a sweep directory, a plan output, labels
TR='t$(touch PWNED1)`touch PWNED2`;touch PWNED3 {=system("touch PWNED4")=}.csv'
NL='
touch PWNED5
'
SW="sw \$(touch PWNED6) {=system(\"touch PWNED7\")=};touch PWNED8${NL}x"
printf 'id,submit,duration,gpus\nj1,0,10,1\nj2,5,10,2\nj3,6,30,4\n' >"$TR"
cat >spec.json <<EOS
{"traces": ["t\$(touch PWNED1)\`touch PWNED2\`;touch PWNED3 {=system(\"touch PWNED4\")=}.csv"],
 "clusters": [{"gpus": "H100-SXM5-80GB:8"}],
 "policies": ["whole", {"name": "whole", "params": {"queue": "fifo"}, "label": "#hash \$(touch PWNED9)"},
              {"name": "vgpu", "label": "q\"uote\`touch PWNED10\`"}],
 "seeds": 2}
EOS

# {==== sweep submit --engine parallel: printed, then run ====}
snapshot
check_rc sweep_init_hostile_dir 0 "$G" sweep init spec.json --out "$SW" && ok sweep_init_hostile_dir
"$G" sweep submit "$SW/manifest.jsonl" --engine parallel --max-parallel 2 --shards 3 >printed.txt 2>"$T/out"
# the printed command, pasted into sh, runs the sweep and nothing else
if sh printed.txt >"$T/out" 2>&1 && "$G" sweep status "$SW/manifest.jsonl" 2>&1 | grep -q '6 done'; then
  ok parallel_printed_command_pasted_runs_only_the_sweep
else "$G" sweep status "$SW/manifest.jsonl" >>"$T/out" 2>&1; cat printed.txt >>"$T/out"
  no parallel_printed_command_pasted_runs_only_the_sweep "$T/out"; fi
canary_free parallel_printed_no_command_ran
"$G" sweep collect "$SW/manifest.jsonl" --format csv >collect.csv 2>"$T/out"
if [ "$(grep -c . collect.csv)" -ge 4 ] && grep -q '#hash' collect.csv && grep -q 'uote' collect.csv; then
  ok sweep_collect_keeps_hostile_labels
else cat collect.csv >>"$T/out"; no sweep_collect_keeps_hostile_labels "$T/out"; fi
rm -rf "$SW/runs"
expect parallel_run_hostile_paths 0 "6 runs to do in 3 shards" \
  "$G" sweep submit "$SW/manifest.jsonl" --engine parallel --max-parallel 2 --shards 3 --run
canary_free parallel_run_no_command_ran
expect parallel_all_done 0 "all 6 runs are done" "$G" sweep submit "$SW/manifest.jsonl" --engine parallel --run
only_under parallel_nothing_outside_the_sweep "$T/$SW" "$T/printed.txt" "$T/collect.csv"

# {==== sweep submit --engine slurm: the script, then run as a node would ====}
rm -rf "$SW/runs"
snapshot
k=0
for v in "--partition=gpu${NL}" "--time=1:00:00${NL}" "--mem=2G;touch PWNED11" "--time=\$(touch PWNED12)"; do
  k=$((k + 1))
  expect "slurm_option_refused_$k${v%%=*}" 2 "sweep submit: ${v%%=*}: expected" \
    "$G" sweep submit "$SW/manifest.jsonl" --engine slurm --dry-run "$v"
done
expect slurm_dry_run_hostile_dir 0 "6 runs to do; wrote" \
  "$G" sweep submit "$SW/manifest.jsonl" --engine slurm --dry-run --time 1:00:00 --mem 2G --partition gpu
S="$SW/slurm/submit.sbatch"
# every line before the command is a directive or a comment sbatch reads: none holds the hostile text
if awk 'NR > 1 && !/^#/ { exit } NR > 1 && /PWNED/ { bad = 1 } END { exit bad }' "$S" &&
   [ "$(grep -c '^exec ' "$S")" = 1 ]; then ok slurm_directives_hold_no_user_text
else cat "$S" >"$T/msg"; no slurm_directives_hold_no_user_text "$T/msg"; fi
expect slurm_submit_hostile_dir 0 "Slurm job 77 finished" \
  "$G" sweep submit "$SW/manifest.jsonl" --engine slurm --wait --time 1:00:00 --mem 2G --partition gpu
if "$G" sweep status "$SW/manifest.jsonl" 2>&1 | grep -q '6 done' && [ "$(ls "$SW/slurm/" | grep -c '^77_.*\.out$')" = 6 ]; then
  ok slurm_tasks_ran_their_lines
else ls "$SW/slurm" >"$T/msg"; "$G" sweep status "$SW/manifest.jsonl" >>"$T/msg" 2>&1; no slurm_tasks_ran_their_lines "$T/msg"; fi
canary_free slurm_no_command_ran
rm -rf "$SW/runs"
expect k8s_hostile_dir 0 "wrote" "$G" sweep submit "$SW/manifest.jsonl" --engine k8s --mount "/m${NL}x: y"
if python3 - "$SW/k8s/job.yaml" >"$T/msg" 2>&1 <<'EOP'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
c = d["spec"]["template"]["spec"]["containers"][0]
assert c["command"][3].endswith("x/manifest.jsonl") and "PWNED8\n" in c["command"][3], c["command"]
assert c["volumeMounts"][0]["mountPath"] == "/m\ntouch PWNED5\nx: y", c["volumeMounts"]
assert set(d) == {"apiVersion", "kind", "metadata", "spec"}, sorted(d)
EOP
then ok k8s_yaml_values_quoted; else no k8s_yaml_values_quoted "$T/msg"; fi
expect local_hostile_dir 0 "6 runs to do" "$G" sweep submit "$SW/manifest.jsonl" --engine local --max-parallel 2
canary_free local_and_k8s_no_command_ran
only_under slurm_k8s_local_nothing_outside_the_sweep "$T/$SW" "$T/slurm-77_0.out"

# {==== plan --engine parallel | slurm ====}
PO="plan \$(touch PWNED13) {=system(\"touch PWNED14\")=}${NL}|touch PWNED15"
for e in parallel slurm; do
  snapshot
  expect "plan_engine_${e}_hostile_names" 0 "buyer's table" \
    "$G" plan --trace "$TR" --policy whole --gpu H100-SXM5-80GB --gpus-per-node 8 --slo 'jobs.queue_s.p99<=1000' \
    --engine "$e" --out "$PO.$e"
  canary_free "plan_engine_${e}_no_command_ran"
  only_under "plan_engine_${e}_nothing_outside_its_output" "$T/$PO.$e"
done

# a first round whose submission fails: the plan says so (it once sorted an empty round and died)
mkdir bin2 && printf '#!/bin/sh\necho "sbatch: error: no partition" >&2\nexit 1\n' >bin2/sbatch && chmod +x bin2/sbatch
expect plan_engine_first_round_fails_said 1 "plan round on slurm: run on .* did not finish" \
  env PATH="$T/bin2:$PATH" "$G" plan --trace "$TR" --policy whole --gpu H100-SXM5-80GB --gpus-per-node 8 \
  --slo 'jobs.queue_s.p99<=1000' --engine slurm --out plan_fail

# {==== plot: result directories named |cmd and <cmd, labels gnuplot would misread ====}
"$G" run --trace "$TR" --policy whole --out run.ok >/dev/null 2>&1
k=0
for d in '|touch PWNED16' '<touch PWNED17' "$NL|touch PWNED18"; do
  k=$((k + 1))
  cp -r run.ok "$d"
  snapshot
  expect "plot_dir_${k}_pipe_name" 0 "report:" "$G" plot "$d"
  canary_free "plot_dir_${k}_no_command_ran"
  only_under "plot_dir_${k}_nothing_outside" "$T/$d"
done
"$G" sweep collect "$SW/manifest.jsonl" --format json --out cmp >/dev/null 2>&1 ||
  "$G" compare --trace "$TR" --policies 'whole,whole[queue=fifo],vgpu' --gpus H100-SXM5-80GB:8 --out cmp >/dev/null 2>&1
python3 - cmp/compare.json <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
for p, l in zip(d["policies"], ["#hash $(touch PWNED19)", 'q"uote\t`touch PWNED20`', "plain"]):
    p["label"] = l
json.dump(d, open(sys.argv[1], "w"))
EOP
snapshot
expect plot_compare_hostile_labels 0 "report:" "$G" plot --no-svg cmp
canary_free plot_labels_no_command_ran
# every policy keeps its bar: gnuplot reads back as many rows as there are policies, each label whole
gnuplot -e 'set datafile separator "\t"; set table "labels.out"; plot "cmp/fig_compare.tsv" using 0:2:1 skip 1 with labels; unset table' >/dev/null 2>&1
if [ "$(grep -c '^ [0-9]' labels.out)" = 3 ] && grep -q '"#hash $(touch PWNED19)"' labels.out &&
   grep -q 'q"uote `touch PWNED20`' labels.out; then ok plot_tsv_labels_read_back_whole
else cat cmp/fig_compare.tsv labels.out >"$T/msg" 2>&1; no plot_tsv_labels_read_back_whole "$T/msg"; fi
only_under plot_labels_nothing_outside "$T/cmp" "$T/labels.out"

finish
