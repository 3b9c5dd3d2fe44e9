#!/usr/bin/env python3
"""make_mig_example.py - regenerate workloads/examples/mig-mix.csv, the MIG
example trace. Maintainer tool (the build never needs Python);
seeded, so the file is reproducible. A modeling assumption, not a measured
trace: 8 hours of single-card inference and notebook work on the A100-80GB
cards of workloads/examples/cluster-mig.json, Poisson arrivals, lognormal
durations, a request mix of named profiles and memory requests sized so that
the 24 MIG cards run at about 80% of their compute slices."""
import math, random

rng = random.Random(4)
HOURS = 8
MIX = [  # share, mig, gpumem MiB, median duration s, compute slices on an A100
    (0.30, "", 8000, 600, 1),           # -> 1g.10gb under dynmig
    (0.25, "", 18000, 900, 1),          # -> 1g.20gb
    (0.20, "2g.20gb", "", 1200, 2),
    (0.15, "3g.40gb", "", 1800, 3),
    (0.10, "", 38000, 1800, 3),         # -> 3g.40gb
]
mean_slice_s = sum(s * d * math.exp(0.6 ** 2 / 2) * c for s, _, _, d, c in MIX)
rate = 0.80 * 24 * 7 / mean_slice_s  # arrivals per second for ~80% of 168 compute slices
t, n = 0.0, 0
print("id,submit,duration,gpus,mig,gpumem,gpu_model")
while True:
    t += rng.expovariate(rate)
    if t > HOURS * 3600:
        break
    r, acc = rng.random(), 0.0
    for share, mig, mem, med, _ in MIX:
        acc += share
        if r <= acc:
            break
    dur = med * math.exp(rng.gauss(0, 0.6))
    print(f"mig-{n:05d},{t:.3f},{dur:.3f},1,{mig},{mem},A100-SXM4-80GB")
    n += 1
