#!/usr/bin/env python3
"""perf_validate.py - how well the roofline fallback predicts measured LLM
serving times. Reads the shipped Splitwise profile (models/perf/splitwise/
perf_model.csv: median of repeats per point), fits per-phase efficiencies on
H100 figures only, then predicts A100 (same TP) and TP4 from TP8, and prints
predicted vs measured decode (per-token) and prefill times at batch 1, 8, 16,
32, 64 (prompt 512) as a markdown table.

Model (a two-term roofline per phase; card figures from models/gpu/*.json):
  decode iteration of b sequences = (W + b x KV) / (TP x BW x eb_d) + 2 x P x b / (TP x TFLOPS x ec_d)
  prefill of n tokens             = W / (TP x BW x eb_p) + 2 x P x n / (TP x TFLOPS x ec_p)
with W the weights' bytes (2 per parameter), P the parameters, KV the
KV-cache bytes one sequence reads per step (prompt + half the output, times
the model's KV bytes per token). The four efficiencies are non-negative
least-squares fits (no intercept) over the H100 points of the model at one
TP (every prompt and batch); nothing from A100 enters the fit. A100 is
predicted at the same TP; H100 TP4 from the TP8 fit (terms scale as 1/TP).
Usage: scripts/perf_validate.py [models/perf/splitwise/perf_model.csv]"""
import csv, statistics, sys
from collections import defaultdict

path = sys.argv[1] if len(sys.argv) > 1 else "models/perf/splitwise/perf_model.csv"
CARDS = {"h100-80gb": (989.4e12, 3350e9), "a100-80gb": (312e12, 2039e9)}  # models/gpu: tensor_tflops, mem_bw_gbps
MODELS = {  # parameters, KV bytes per token (2 x layers x kv_heads x head_dim x 2 bytes)
    "llama2-70b": (70e9, 2 * 80 * 8 * 128 * 2),
    "bloom-176b": (176e9, 2 * 70 * 112 * 128 * 2),
}
pts = defaultdict(list)
for r in csv.DictReader(open(path)):
    if r["hardware"] not in CARDS:
        continue
    k = (r["model"], r["hardware"], int(r["tensor_parallel"]), int(r["prompt_size"]), int(r["batch_size"]),
         int(r["token_size"]))
    pts[k].append((float(r["prompt_time"]), float(r["token_time"])))
med = {k: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v)) for k, v in pts.items()}


def lsq(xs, ys):
    """y = a + b x, least squares."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
    return my - b * mx, b


def nnls2(x1, x2, y):
    """y ~ k1 x1 + k2 x2, least squares with k1, k2 >= 0 (2 x 2 normal
    equations; a negative coefficient is dropped and the other refitted)."""
    a = sum(u * u for u in x1); b = sum(u * v for u, v in zip(x1, x2)); c = sum(v * v for v in x2)
    d = sum(u * w for u, w in zip(x1, y)); e = sum(v * w for v, w in zip(x2, y))
    det = a * c - b * b
    k1, k2 = (c * d - b * e) / det, (a * e - b * d) / det
    if k1 < 0:
        k1, k2 = 0.0, e / c
    elif k2 < 0:
        k1, k2 = d / a, 0.0
    return k1, k2


def terms(model, hw, tp, prompt, b, out):
    P, kv = MODELS[model]
    tf, bw = CARDS[hw]
    dec = ((2 * P + b * kv * (prompt + out / 2)) / (tp * bw), 2 * P * b / (tp * tf))
    pre = (2 * P / (tp * bw), 2 * P * prompt * b / (tp * tf))
    return dec, pre


def fit(model, tps=None):
    d1, d2, dy, p1, p2, py = [], [], [], [], [], []
    for (m, hw, tp, prompt, b, out), (pt, tt) in med.items():
        if m != model or hw != "h100-80gb" or (tps and tp not in tps):
            continue
        dec, pre = terms(model, hw, tp, prompt, b, out)
        d1.append(dec[0]); d2.append(dec[1]); dy.append(tt / 1e3)
        p1.append(pre[0]); p2.append(pre[1]); py.append(pt / 1e3)
    return nnls2(d1, d2, dy) + nnls2(p1, p2, py)


def predict(model, hw, tp, b, prompt=512, out=128, f=None):
    dec, pre = terms(model, hw, tp, prompt, b, out)
    return (f[0] * dec[0] + f[1] * dec[1]) * 1e3, (f[2] * pre[0] + f[3] * pre[1]) * 1e3


def shares(model, f, tp=8):
    """The share of the H100 time each phase spends on its bandwidth term,
    averaged over the H100 points at this TP (the per-phase mem_bound)."""
    sd, sp = [], []
    for (m, hw, t, prompt, b, out) in med:
        if m != model or hw != "h100-80gb" or t != tp:
            continue
        dec, pre = terms(model, hw, t, prompt, b, out)
        sd.append(f[0] * dec[0] / (f[0] * dec[0] + f[1] * dec[1]))
        sp.append(f[2] * pre[0] / (f[2] * pre[0] + f[3] * pre[1]))
    return sum(sd) / len(sd), sum(sp) / len(sp)


if "--scaled" in sys.argv:
    # what gpusim does for a service with stated reference times: scale the
    # H100 time by the roofline mix with the fitted per-phase shares
    (th, bh), (ta, ba) = CARDS["h100-80gb"], CARDS["a100-80gb"]
    print("| model | TP | batch | decode ms/token A100 predicted | measured | error | prefill ms predicted | measured | error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for model in MODELS:
        for tp in ((8, 4) if model == "llama2-70b" else (8,)):
            sd, sp = shares(model, fit(model, {tp}), tp)
            for b in (1, 8, 16, 32, 64):
                h, a = med.get((model, "h100-80gb", tp, 512, b, 128)), med.get((model, "a100-80gb", tp, 512, b, 128))
                if not h or not a:
                    continue
                d = h[1] * (sd * bh / ba + (1 - sd) * th / ta)
                p = h[0] * (sp * bh / ba + (1 - sp) * th / ta)
                print(f"| {model} | {tp} | {b} | {d:.1f} | {a[1]:.1f} | {d / a[1] - 1:+.0%} | {p:.0f} | {a[0]:.0f} | {p / a[0] - 1:+.0%} |")
            print(f"<!-- {model} TP{tp}: decode bandwidth share {sd:.3f}, prefill bandwidth share {sp:.3f} -->")
    sys.exit(0)

print("| model | card | TP | batch | decode ms/token predicted | measured | error | prefill ms predicted | measured | error |")
print("|---|---|---|---|---|---|---|---|---|---|")
worst = defaultdict(float)
for model in MODELS:
    f8 = fit(model, {8})  # the efficiencies at one TP, from H100 only
    cases = [("a100-80gb", 8, f8)]
    if model == "llama2-70b":  # A100 TP4 from H100 TP4; H100 TP4 from the TP8 fit
        cases += [("a100-80gb", 4, fit(model, {4})), ("h100-80gb", 4, f8)]
    for hw, tp, f in cases:
        for b in (1, 8, 16, 32, 64):
            m = med.get((model, hw, tp, 512, b, 128))
            if not m:
                continue
            d, p = predict(model, hw, tp, b, f=f)
            ed, ep = d / m[1] - 1, p / m[0] - 1
            key = hw if hw == "a100-80gb" else "h100-tp4-from-tp8"
            worst[(key, "decode")] = max(worst[(key, "decode")], abs(ed))
            worst[(key, "prefill")] = max(worst[(key, "prefill")], abs(ep))
            print(f"| {model} | {hw} | {tp} | {b} | {d:.1f} | {m[1]:.1f} | {ed:+.0%} | {p:.0f} | {m[0]:.0f} | {ep:+.0%} |")
    f = fit(model, {8})
    print(f"<!-- {model} H100 TP8 fit: 1/eb_d {f[0]:.2f}, 1/ec_d {f[1]:.2f}, 1/eb_p {f[2]:.2f}, 1/ec_p {f[3]:.2f} -->")
for (hw, ph), w in sorted(worst.items()):
    print(f"worst |error| {hw} {ph}: {w:.0%}")
