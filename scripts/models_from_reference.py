#!/usr/bin/env python3
"""models_from_reference.py - regenerate models/gpu/*.json from the project's
GPU reference (reference/gpu-models.json, compiled 2026-11-29 from public
sources). Maintainer tool, run by hand; the build never
needs Python. Fields the reference marks unverified stay listed in
"unverified"; a null memory_mib falls back to memory_mib_estimate (or the
marketing size) and is marked unverified.

Each file names the public source of its speed figures (peak dense tensor
throughput, memory bandwidth) in "figure_sources": the reference's own source
entries (NVIDIA datasheets as quoted by glennklockwood.com, third-party spec
pages), never a local path. A model with no BF16 figure takes its FP16 tensor
peak (Turing has no BF16) and says so; one with neither keeps a null."""
import json, os, sys

ref_path = sys.argv[1] if len(sys.argv) > 1 else "reference/gpu-models.json"
out_dir = sys.argv[2] if len(sys.argv) > 2 else "models/gpu"
ref = json.load(open(ref_path))
sources = {x["id"]: x["ref"] for x in ref["sources"]}
# which of the reference's sources carries the speed figures, best first: the
# NVIDIA datasheet figures as glennklockwood.com quotes them, else the spec pages
SPEED_SOURCES = ("glennklockwood", "spec-pages")
# a card the reference leaves without a tensor figure: an estimate, marked unverified
ESTIMATES = {"A10G-24GB": (125, "estimate: the A10's dense BF16 tensor peak (NVIDIA A10 datasheet); "
                                "published A10G figures conflict (62.5 / 70 / 125 TFLOPS)")}


def speed_source(m):
    for sid in SPEED_SOURCES:
        if sid in m.get("source_ids", []):
            return sources[sid]
    return "public spec pages listed in the reference"


def speed(m, unver):
    """Peak dense tensor TFLOPS (BF16, else FP16) and memory bandwidth GB/s,
    each with its source; unverified marks carry over under the names used in
    the model file."""
    tf, note = m.get("bf16_tflops"), "dense BF16 tensor peak (no 2:4 sparsity)"
    if tf is None and m.get("fp16_tflops") is not None:
        tf, note = m["fp16_tflops"], "dense FP16 tensor peak: the card has no BF16"
    if "bf16_tflops" in unver or "fp16_tflops" in unver:
        unver = [u for u in unver if u not in ("bf16_tflops", "fp16_tflops")] + ["tensor_tflops"]
    if tf is None and m["name"] in ESTIMATES:
        tf, note = ESTIMATES[m["name"]]
    if tf is None or m["name"] in ESTIMATES:
        if "tensor_tflops" not in unver:
            unver.append("tensor_tflops")
    src = speed_source(m)
    figs = {"tensor_tflops": f"{note}; {src}",
            "mem_bw_gbps": f"datasheet memory bandwidth, GB/s = 1e9 B/s; {src}"}
    return tf, m.get("mem_bw_gbps"), unver, figs



def one_slice_mib(profiles):
    sizes = [p["memory_mib"] for p in profiles if p["size"] == 1 and p["memory_mib"]]
    return min(sizes) if sizes else None


def profile(p, per_slice_mib, card_mib):
    """A profile with null memory or SMs takes the reference's estimate and is
    marked unverified for that field."""
    out = {k: p[k] for k in ("name", "compute_slices", "size", "memory_mib", "sms", "max_instances", "placements")}
    unver = list(p.get("unverified") or [])
    for k in ("memory_mib", "sms"):
        if out[k] is None:
            out[k] = p.get(k + "_estimate") or p.get(k + "_nominal") or 0
            if k == "memory_mib" and not out[k] and per_slice_mib:
                # no figure at all: size x the one-slice profile's memory (assumption)
                out[k] = per_slice_mib * p["size"]
            if k not in unver:
                unver.append(k)
    if "memory_mib" in unver and out["memory_mib"] > card_mib:
        out["memory_mib"] = card_mib  # a nominal estimate above the card's real size: cap it
    if unver:
        out["unverified"] = unver
    return out

for m in ref["models"]:
    unver = list(m.get("unverified") or [])
    mem = m.get("memory_mib")
    if mem is None:
        mem = m.get("memory_mib_estimate") or m.get("memory_mib_nominal") or m["memory_gb_marketing"] * 1024
        if "memory_mib" not in unver:
            unver.append("memory_mib")
    price = m.get("price_per_hour_usd")
    tflops, bw, unver, figs = speed(m, unver)
    out = {
        "name": m["name"],
        "aliases": m.get("aliases", []),
        "architecture": m.get("architecture"),
        "memory_mib": mem,
        "sms": m["sms"],
        "tensor_tflops": tflops,
        "mem_bw_gbps": bw,
        "host_link": {"kind": m["host_link"]["kind"], "gbps_per_dir": m["host_link"]["gbps_per_dir"]},
        "nvlink_gbps": m.get("nvlink_gbps") or 0,
        "tdp_w": m.get("tdp_w"),
        "price_per_hour_usd": price["value"] if price else None,
        "price_note": (f"{price['instance']} {price['region']} on-demand / {price['gpus_per_instance']} GPUs, approximate"
                       if price else "no public on-demand price per GPU"),
        "unverified": unver,
        "source": "reference/gpu-models.json (compiled 2026-11-29 from public sources): "
                  + " ; ".join(sources[i] for i in m.get("source_ids", [])),
        "figure_sources": dict(figs, **({"tdp_w": "maximum board power (the datasheet's TDP); "
                                                    "https://glennklockwood.com/garden/processors/A100 ; /H100 ; "
                                                    "/B200 and the spec pages of the reference's sources"}
                                                   if m.get("tdp_w") else {})),
        "mig": None,
    }
    if m.get("mig"):
        g = m["mig"]
        out["mig"] = {
            "memory_slices": g["memory_slices"],
            "compute_slices": g["compute_slices"],
            "placements_verified": g.get("placements_verified", True),
            "profiles": [profile(p, one_slice_mib(g["profiles"]), mem) for p in g["profiles"]],
        }
    path = os.path.join(out_dir, m["name"] + ".json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(path)
