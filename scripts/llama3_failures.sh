#!/bin/sh
# llama3_failures.sh [GPUSIM] - the Llama 3 pre-training snapshot (Dubey et al., "The Llama 3 Herd of
# Models", arXiv:2407.21783, 2024, section 3.3.4): one 16,384-GPU job (405B parameters, 14 bytes each
# checkpointed) on 2,048 H100 nodes of 8 with 64 hot spares, 54 days, with the H100 failure rates of
# models/gpu/H100-SXM5-80GB.json. Over LLAMA_SEEDS seeds (default 20) it prints the mean interruptions
# beside the paper's 419, by cause beside the paper's counts, and the goodput (useful GPU-time over
# GPU-time held) beside the paper's "more than 90%" effective training time, at two settings:
# checkpoint_every=1800 with restart_s=600 (the defaults' restart), and Young's interval sqrt(2 C M)
# (C: the 2.77 GB shard per node at 2 GB/s, M: 54 days / 419) with restart_s=300.
set -e
G=${1:-./gpusim}
SEEDS=${LLAMA_SEEDS:-20}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
printf '{"name": "llama3-16k", "nodes": [{"model": "H100-SXM5-80GB", "count": 2048, "gpus": 8, "spares": 64}]}\n' \
  >"$D/c.json"
printf 'id,submit,duration,gpus,params_b\nllama3,0,9000000,16384,405\n' >"$D/t.csv"
young=$(awk 'BEGIN {c = 405e9 * 14 / 2048 / 2e9; m = 54 * 86400 / 419; printf "%.0f", sqrt(2 * c * m)}')
run() { # NAME EVERY RESTART
  s=1
  while [ "$s" -le "$SEEDS" ]; do
    "$G" run --trace "$D/t.csv" --cluster "$D/c.json" --policy whole --set failures=on \
      --set checkpoint_every="$2" --set restart_s="$3" --until 4665600 --seed "$s" --sample-s 0 \
      --out "$D/$1.$s" >/dev/null 2>&1
    s=$((s + 1))
  done
}
run a 1800 600
run b "$young" 300
python3 - "$D" "$SEEDS" "$young" <<'PY'
import json, sys
d, n, young = sys.argv[1], int(sys.argv[2]), sys.argv[3]
model = json.load(open("models/gpu/H100-SXM5-80GB.json"))["failures"]["causes"]
def reps(tag):
    return [json.load(open("%s/%s.%d/report.json" % (d, tag, s))) for s in range(1, n + 1)]
a, b = reps("a"), reps("b")
mean = lambda xs: sum(xs) / len(xs)
print("Llama 3, 54 days, 16,384 H100 GPUs, %d seeds" % n)
print("  interruptions: simulated %.1f (min %d, max %d), paper 419" % (
    mean([r["failures"]["interruptions"] for r in a]), min(r["failures"]["interruptions"] for r in a),
    max(r["failures"]["interruptions"] for r in a)))
print("  %-34s %10s %8s" % ("cause", "simulated", "paper"))
for c in model:
    print("  %-34s %10.1f %8d" % (c["cause"], mean([r["failures"]["by_cause"][c["cause"]] for r in a]), c["count"]))
for tag, rs, what in (("a", a, "checkpoint_every=1800, restart_s=600"),
                      ("b", b, "checkpoint_every=%s (sqrt(2CM)), restart_s=300" % young)):
    print("  goodput %.3f (%s); paper: more than 90%% effective training time" % (
        mean([r["jobs"]["goodput"] for r in rs]), what))
PY
