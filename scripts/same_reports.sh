#!/usr/bin/env bash
# same_reports.sh - are two gpusim binaries' reports byte-identical?
#
#   scripts/same_reports.sh OLD_BINARY NEW_BINARY [WORKDIR]
#
# Runs one matrix of configurations (every example trace under every space
# policy and composition, M/M/c traces under every space policy, the bench
# traces' shapes, preemption, fill mode) with both binaries and compares
# report.json (the timing fields wall_s, setup_s, cpu_s, events_per_s and
# peak_rss_mib left out) and timeseries.csv. Prints one line per
# configuration that differs and "N same, N differ"; exits 1 when any differs.
# A refactor that claims "reports byte-identical" runs this against the
# binary it started from. Needs python3 (to drop the timing fields).
# SAME_DROP="jobs.rejected_reasons ..." drops those dotted paths too: a change that adds a field
# on purpose shows that nothing else moved.
set -u
old=$1 new=$2
work=${3:-$(mktemp -d)}
mkdir -p "$work"
ex=workloads/examples
strip() { python3 - "$1" "${SAME_DROP:-}" <<'PY'
import json, sys
T = {"wall_s", "setup_s", "cpu_s", "events_per_s", "peak_rss_mib"}
def walk(o):
    if isinstance(o, dict):
        return {k: walk(v) for k, v in o.items() if k not in T}
    if isinstance(o, list):
        return [walk(v) for v in o]
    return o
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("unreadable: %s" % e); sys.exit(0)
for path in sys.argv[2].split():
    *up, last = path.split(".")
    o = d
    for k in up:
        o = o.get(k, {}) if isinstance(o, dict) else {}
    if isinstance(o, dict):
        o.pop(last, None)
print(json.dumps(walk(d), sort_keys=True, indent=0))
PY
}
same=0 differ=0 n=0
run_pair() { # name, args...
  local name=$1; shift
  n=$((n + 1))
  local a="$work/$n.old" b="$work/$n.new"
  rm -rf "$a" "$b"
  "$old" run "$@" --out "$a" >"$a.stdout" 2>"$a.stderr"; local ra=$?
  "$new" run "$@" --out "$b" >"$b.stdout" 2>"$b.stderr"; local rb=$?
  if [ "$ra" != "$rb" ]; then
    echo "DIFFER exit $ra vs $rb: $name"; differ=$((differ + 1)); return
  fi
  if [ -f "$a/report.json" ] || [ -f "$b/report.json" ]; then
    if [ "$(strip "$a/report.json")" != "$(strip "$b/report.json")" ]; then
      echo "DIFFER report: $name   (diff <(python3 -m json.tool $a/report.json) <(python3 -m json.tool $b/report.json))"
      differ=$((differ + 1)); return
    fi
    if ! cmp -s "$a/timeseries.csv" "$b/timeseries.csv" 2>/dev/null && [ -f "$a/timeseries.csv" ]; then
      echo "DIFFER timeseries: $name"; differ=$((differ + 1)); return
    fi
  elif ! cmp -s "$a.stderr" "$b.stderr"; then
    echo "DIFFER stderr: $name"; differ=$((differ + 1)); return
  fi
  same=$((same + 1))
}

SPACE="whole vgpu timeslice mps mig dynmig"
for t in day agents inference longtail contention contention-alone mig-mix preempt preempt-70b; do
  for p in $SPACE; do
    run_pair "$t/$p" --trace "$ex/$t.csv" --policy "$p"
  done
done
for p in whole vgpu timeslice mig dynmig; do
  run_pair "agents/$p+hibernate" --trace "$ex/agents.csv" --policy "$p+hibernate"
  run_pair "longtail/$p+dualpod" --trace "$ex/longtail.csv" --gpus H100-SXM5-80GB:8 --gpus-per-node 4 --policy "$p+dualpod"
  run_pair "preempt/$p preempt=on" --trace "$ex/preempt.csv" --cluster "$ex/cluster-preempt.json" --policy "$p" --set preempt=on
done
run_pair "day/mig schedule" --trace "$ex/day.csv" --cluster "$ex/cluster-mig-schedule.json" --policy mig
run_pair "day/mig cluster" --trace "$ex/day.csv" --cluster "$ex/cluster-mig.json" --policy dynmig
run_pair "day/whole fifo" --trace "$ex/day.csv" --policy whole --set queue=fifo
run_pair "day/vgpu mem_scaling" --trace "$ex/day.csv" --policy vgpu --set mem_scaling=1.5
run_pair "day/vgpu fgd" --trace "$ex/day.csv" --policy vgpu --set gpu_select=fgd
run_pair "day/vgpu swap" --trace "$ex/day.csv" --policy vgpu --set mem_scaling=1.5 --set oversub=swap
run_pair "mig-mix/mig" --trace "$ex/mig-mix.csv" --cluster "$ex/cluster-mig.json" --policy mig
run_pair "mig-mix/dynmig" --trace "$ex/mig-mix.csv" --cluster "$ex/cluster-mig.json" --policy dynmig
# M/M/c traces, each at a few sizes and job widths
for spec in "20000 8 0.8 1" "20000 64 0.9 1" "10000 64 0.7 4" "5000 256 0.75 8"; do
  set -- $spec
  tr="$work/mmc-$1-$2-$3-$4.csv"
  [ -f "$tr" ] || "$old" gen mmc --jobs "$1" --servers "$2" --util "$3" --gpus-per-job "$4" --seed 7 --out "$tr" >/dev/null
  for p in $SPACE; do
    run_pair "mmc $spec/$p" --trace "$tr" --policy "$p" --gpus "A100-SXM4-80GB:$2"
  done
  run_pair "mmc $spec/whole spread" --trace "$tr" --policy whole --set placement=spread --gpus "H100-SXM5-80GB:$2"
done
echo "$same same, $differ differ"
[ "$differ" = 0 ]
