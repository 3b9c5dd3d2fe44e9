#!/usr/bin/env python3
"""make_example_day.py - regenerate workloads/examples/day.csv, the shipped
example day. Maintainer tool (the build never needs Python); seeded, so the
file is reproducible. The mix is a modeling assumption shaped after the seed
articles' clusters (training jobs of 4-8 cards, single-card batch and
fine-tune jobs, interactive notebooks asking for a fraction of a card), with a
diurnal arrival rate peaking in the afternoon."""
import math, random

rng = random.Random(20261129)
DAY = 86400.0
TARGET_GPU_S = 0.72 * 64 * DAY  # offered load ~72% of the 64-GPU example cluster

kinds = [  # name, share, gpus choices, median_s, sigma, priority
    ("train", 0.06, [8, 8, 4], 2 * 3600, 0.7, 0),
    ("batch", 0.44, [1, 1, 2], 20 * 60, 0.8, 5),
    ("notebook", 0.50, [1], 15 * 60, 0.7, 10),
]

def rate(t):  # relative arrival intensity, peak at 14:00, trough at 02:00
    return 1.0 + 0.6 * math.sin(2 * math.pi * (t / DAY - 8 / 24))

def job():
    r = rng.random()
    acc = 0
    for name, share, gpus, med, sig, prio in kinds:
        acc += share
        if r <= acc:
            break
    g = rng.choice(gpus)
    dur = med * math.exp(rng.gauss(0, sig))
    row = {"kind": "job", "gpus": g, "duration": round(dur, 3), "priority": prio,
           "tenant": rng.choice(["team-a", "team-b", "team-c"]), "cpu": 12 * g, "mem_gib": 64 * g,
           "gpumem": "", "gpucores": "", "gpu_model": ""}
    if name == "notebook":
        row["gpumem"] = rng.choice([10240, 16384, 20480])
        row["gpucores"] = rng.choice([20, 30, 50])
        row["cpu"], row["mem_gib"] = 4, 32
    if name == "train" and rng.random() < 0.5:
        row["gpu_model"] = "H100-SXM5-80GB"
    return name, row

# mean GPU-seconds per job, estimated by sampling, sets the base rate
sample = [job()[1] for _ in range(20000)]
mean_gpu_s = sum(r["gpus"] * r["duration"] for r in sample) / len(sample)
n_expected = TARGET_GPU_S / mean_gpu_s
base = n_expected / DAY  # jobs per second at intensity 1

# the shared-card columns draw from their own stream, so the rows
# above keep the values they had before the columns existed
rng_share = random.Random(20261130)

rows, t, i = [], 0.0, 0
while True:  # thinning of a Poisson process with intensity base * rate(t) <= base * 1.6
    t += rng.expovariate(base * 1.6)
    if t >= DAY:
        break
    if rng.random() <= rate(t) / 1.6:
        name, r = job()
        r["id"], r["submit"] = f"{name}-{i:05d}", round(t, 3)
        r["gpumem_pct"], r["util"] = "", ""
        if name == "notebook":  # interactive: the card is mostly idle (assumption)
            r["util"] = round(rng_share.uniform(0.05, 0.4), 3)
        rows.append(r)
        i += 1

# Shared-card section: short evaluation / small-inference jobs on working
# hours (09:00-18:00), each asking a quarter of a card's memory (gpumem_pct)
# and cores, busy 40-100% of the time alone. Under `whole` each takes a whole
# card; under `vgpu` up to four share one. Mix and sizes are assumptions.
t, k = 9 * 3600.0, 0
while True:
    t += rng_share.expovariate(1 / 180.0)  # one every 3 minutes on average
    if t >= 18 * 3600.0:
        break
    rows.append({"kind": "job", "gpus": 1, "duration": round(600 * math.exp(rng_share.gauss(0, 0.6)), 3),
                 "priority": 5, "tenant": rng_share.choice(["team-a", "team-b", "team-c"]), "cpu": 4,
                 "mem_gib": 16, "gpumem": "", "gpucores": 25, "gpu_model": "", "gpumem_pct": 25,
                 "util": round(rng_share.uniform(0.4, 1.0), 3), "id": f"share-{k:05d}", "submit": round(t, 3)})
    k += 1
rows.sort(key=lambda r: r["submit"])  # stable: ties keep generation order

# Inference section: two model deployments serving generated traffic
# all day (diurnal, peak 14:00), declared at time 0 so they come first.
# chat-8b: an 8B model on one card; its decode step (15 ms + 0.2 ms x batch)
# and prefill (0.05 ms/token) are an assumption scaled from Splitwise's
# Llama2-70B-on-8-H100 figures (29.5 + 0.32 x batch, 0.1 ms/token).
# embed: a small encoder, token-less, exponential 20 ms per request.
services = [
    {"id": "chat-8b", "submit": 0, "duration": 86400, "gpus": 1, "kind": "service", "gpumem": 40960,
     "priority": 20, "tenant": "serving", "cpu": 8, "mem_gib": 64, "replicas_min": 1, "replicas_max": 4,
     "max_batch": 16, "slo_ms": 20000, "weights_gib": 16, "rate": 0.5, "pattern": "diurnal",
     "input_tokens": 500, "output_tokens": 150, "decode_ms_base": 15, "decode_ms_per_seq": 0.2,
     "prefill_ms_per_token": 0.05},
    {"id": "embed", "submit": 0, "duration": 86400, "gpus": 1, "kind": "service", "gpumem": 10240,
     "priority": 20, "tenant": "serving", "cpu": 4, "mem_gib": 16, "replicas_min": 1, "replicas_max": 3,
     "max_batch": 8, "slo_ms": 200, "weights_gib": 1, "rate": 2, "pattern": "diurnal", "svc_mean_ms": 20,
     "util": 0.3},
]
rows = services + rows
svc_cols = ["replicas_min", "replicas_max", "max_batch", "slo_ms", "weights_gib", "rate", "pattern",
            "input_tokens", "output_tokens", "svc_mean_ms", "decode_ms_base", "decode_ms_per_seq",
            "prefill_ms_per_token"]

cols = ["id", "submit", "duration", "gpus", "kind", "gpumem", "gpucores", "priority", "tenant", "gpu_model",
        "cpu", "mem_gib", "gpumem_pct", "util"] + svc_cols
with open("workloads/examples/day.csv", "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        f.write(",".join(str(r.get(c, "")) for c in cols) + "\n")
print(len(rows), "rows")
