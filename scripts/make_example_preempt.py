#!/usr/bin/env python3
"""make_example_preempt.py - regenerate workloads/examples/preempt.csv, the
preemption scenario of seed article 001: a 70B training job (140 GB
checkpoint, reference/mechanics.md section 7) and a 13B one share a 16-GPU cluster with
bursts of latency-critical work. Inference services are not modeled yet (a
later issue), so each "inference surge" stands in as a burst of short,
high-priority, non-preemptible jobs of 1-2 cards (a modeling assumption).
Maintainer tool; seeded, so the file is reproducible."""
import random

rng = random.Random(20261129)
H = 3600.0
CKPT_70B_GIB = 140e9 / 2**30  # 140 GB (FP16 weights of 70B params, seed article 001)

rows = [
    # id, submit, duration, gpus, priority, preemptible, checkpoint_gib, params_b, tenant
    ("train-70b", 0.0, 20 * H, 8, 0, 1, "%.6f" % CKPT_70B_GIB, "", "training"),
    ("train-13b", 60.0, 14 * H, 8, 0, 1, "", "13", "training"),  # size estimated: 13e9 x 14 B
]
for k, start_h in enumerate([3.0, 7.5, 12.0, 16.5]):  # four surges, about 10 min each
    t = start_h * H
    for i in range(10):
        t += rng.expovariate(1 / 60.0)
        dur = rng.uniform(15, 40) * 60
        rows.append(("surge%d-%02d" % (k + 1, i), round(t, 3), round(dur, 3), rng.choice([1, 1, 2]),
                     100, 0, "", "", "inference"))
rows.sort(key=lambda r: r[1])
with open("workloads/examples/preempt.csv", "w") as f:
    f.write("id,submit,duration,gpus,priority,preemptible,checkpoint_gib,params_b,tenant\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
