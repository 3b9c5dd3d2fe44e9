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
peak (Turing has no BF16) and says so; one with neither keeps a null. FP8/FP4
throughputs and the scale-out network per GPU are not in the reference: the
tables below carry them with their datasheets."""
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


# Precision throughputs the reference does not carry: dense (no 2:4 sparsity)
# FP8 and FP4 tensor TFLOPS, each half of the datasheet's sparse figure, with
# the datasheet it comes from; None where the card has no such tensor cores
# (Ampere, Turing: no FP8; only Blackwell has FP4). Marked unverified where
# the reference already doubts the card's BF16 figure.
H100_DS = "NVIDIA H100 Tensor Core GPU datasheet: FP8 3,958 TFLOPS with sparsity (1,979 dense)"
PRECISION = {
    "H100-SXM5-80GB": (1979, None, H100_DS),
    "H100-NVL-94GB": (1670.5, None, "NVIDIA H100 NVL datasheet: FP8 3,341 TFLOPS per GPU with sparsity"),
    "H200-SXM5-141GB": (1979, None, "NVIDIA H200 datasheet: FP8 3,958 TFLOPS with sparsity (1,979 dense)"),
    "GH200-96GB": (1979, None, "NVIDIA GH200 datasheet: FP8 3,958 TFLOPS with sparsity (the H100 die)"),
    "GH200-144GB": (1979, None, "NVIDIA GH200 datasheet: FP8 3,958 TFLOPS with sparsity (the H100 die)"),
    "B200-180GB": (4500, 9000, "HGX B200 at 1,000 W: FP8 4.5 / FP4 9 PFLOPS dense (9 / 18 sparse); "
                               "https://glennklockwood.com/garden/processors/B200 citing NVIDIA"),
    "L40S-48GB": (733, None, "NVIDIA L40S datasheet: FP8 1,466 TFLOPS with sparsity (733 dense)"),
    "L4-24GB": (242.5, None, "NVIDIA L4 datasheet: FP8 485 TFLOPS with sparsity (242.5 dense)"),
}
# How GPUs talk to each other, per GPU: the GPUs one NVLink domain joins (8 on
# an HGX/DGX board through NVSwitch, 2 for a bridged pair, 1 for none) and the
# scale-out network of the vendor's reference system in GB/s per direction
# (one 400 Gb/s ConnectX-7 per GPU on DGX H100/H200/B200 = 50; one 200 Gb/s
# ConnectX-6 per GPU on DGX A100 = 25); None where no reference system fixes it.
DGX_H = "NVIDIA DGX H100/H200 user guide: eight 400 Gb/s ConnectX-7 ports, one per GPU"
FABRIC = {
    "A100-SXM4-40GB": (8, 25, "NVIDIA DGX A100 user guide: eight 200 Gb/s ConnectX-6 HDR ports, one per GPU"),
    "A100-SXM4-80GB": (8, 25, "NVIDIA DGX A100 user guide: eight 200 Gb/s ConnectX-6 HDR ports, one per GPU"),
    "H100-SXM5-80GB": (8, 50, DGX_H),
    "H200-SXM5-141GB": (8, 50, DGX_H),
    "B200-180GB": (8, 50, "NVIDIA DGX B200 user guide: eight 400 Gb/s ConnectX-7 ports, one per GPU"),
    "H100-NVL-94GB": (2, None, "NVLink bridges join pairs of cards (reference: nvlink_gbps per bridged pair)"),
    "A30-24GB": (2, None, "NVLink bridges join pairs of cards (reference: nvlink_gbps per bridged pair)"),
    "GH200-96GB": (1, 50, "one GH200 per node with one 400 Gb/s NIC (NVIDIA GH200 reference design); no NVLink "
                          "to another GPU without an NVLink Switch System"),
    "GH200-144GB": (1, 50, "one GH200 per node with one 400 Gb/s NIC (NVIDIA GH200 reference design); no NVLink "
                           "to another GPU without an NVLink Switch System"),
}


def precision(m, unver, figs):
    """fp8_tflops, fp4_tflops (None: no such tensor cores), nvlink_gbps,
    nvlink_gpus, net_gbps, with their sources in figs."""
    fp8, fp4, src = PRECISION.get(m["name"], (None, None, "no FP8/FP4 tensor cores (architecture predates them)"))
    figs["fp8_tflops"] = f"dense tensor peak (no 2:4 sparsity); {src}"
    figs["fp4_tflops"] = (f"dense tensor peak (no 2:4 sparsity); {src}" if fp4 is not None
                          else "no FP4 tensor cores (Blackwell is the first generation with them)")
    if fp8 is not None and "tensor_tflops" in unver:
        unver += ["fp8_tflops"] + (["fp4_tflops"] if fp4 is not None else [])
    nvl = m.get("nvlink_gbps") or 0
    gpus, net, fsrc = FABRIC.get(m["name"], (1, None, "PCIe card without NVLink; no reference system"))
    if nvl == 0:
        gpus = 1
    figs["nvlink_gbps"] = "aggregate bidirectional NVLink GB/s per GPU as NVIDIA quotes it (0: none); " + speed_source(m)
    figs["net_gbps"] = "scale-out network GB/s per GPU per direction of the reference system; " + fsrc
    if net is not None and gpus == 1:
        unver.append("net_gbps")  # the GH200 reference design: one example system, not the rule
    return fp8, fp4, nvl, gpus, net


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

# Interruptions by root cause, as the source counted them (the loader turns
# counts into rates per GPU-day or node-day over what was observed). The
# Llama 3 paper's Table 5 for H100 (16,384 GPUs, 8 per node, 54 days; 419
# unexpected interruptions); the other cards take H100's (models/gpu/README.md).
# Repair times are not in the paper: each is an assumption, stated per cause.
LLAMA3 = ("A. Dubey et al., 'The Llama 3 Herd of Models', arXiv:2407.21783 (2024), section 3.3.4, "
          "Table 5: unexpected interruptions in a 54-day snapshot of pre-training on 16,384 H100 GPUs")
REPAIR_GPU = "assumption: the node is drained and its GPU board replaced (vendor swap), two days"
REPAIR_PART = "assumption: a host part (NIC, SSD, power supply, CPU, DIMM, board) replaced on site, one day"
REPAIR_NET = "assumption: a switch port or cable replaced, six hours"
REPAIR_SOFT = "assumption: the node rebooted and checked, an hour (host maintenance: four)"
def cause(name, per, count, hours, why):
    return {"cause": name, "per": per, "count": count, "repair_h": hours, "repair_source": why}
FAILURES = {
    "H100-SXM5-80GB": {
        "source": LLAMA3,
        "observed": {"gpus": 16384, "gpus_per_node": 8, "days": 54},
        "causes": [
            cause("faulty GPU", "gpu", 148, 48, REPAIR_GPU),
            cause("GPU HBM3 memory", "gpu", 72, 48, REPAIR_GPU),
            cause("software bug", "node", 54, 1, REPAIR_SOFT),
            cause("network switch or cable", "node", 35, 6, REPAIR_NET),
            cause("host maintenance", "node", 32, 4, REPAIR_SOFT),
            cause("GPU SRAM memory", "gpu", 19, 48, REPAIR_GPU),
            cause("GPU system processor", "gpu", 17, 48, REPAIR_GPU),
            cause("NIC", "node", 7, 24, REPAIR_PART),
            cause("NCCL watchdog timeouts", "node", 7, 1, REPAIR_SOFT),
            cause("silent data corruption", "gpu", 6, 48, REPAIR_GPU),
            cause("GPU thermal interface and sensor", "gpu", 6, 48, REPAIR_GPU),
            cause("SSD", "node", 3, 24, REPAIR_PART),
            cause("power supply", "node", 3, 24, REPAIR_PART),
            cause("server chassis", "node", 2, 24, REPAIR_PART),
            cause("IO expansion board", "node", 2, 24, REPAIR_PART),
            cause("dependency", "node", 2, 1, REPAIR_SOFT),
            cause("CPU", "node", 2, 24, REPAIR_PART),
            cause("system memory", "node", 2, 24, REPAIR_PART),
        ],
    },
}

for m in ref["models"]:
    unver = list(m.get("unverified") or [])
    mem = m.get("memory_mib")
    if mem is None:
        mem = m.get("memory_mib_estimate") or m.get("memory_mib_nominal") or m["memory_gb_marketing"] * 1024
        if "memory_mib" not in unver:
            unver.append("memory_mib")
    price = m.get("price_per_hour_usd")
    tflops, bw, unver, figs = speed(m, unver)
    fp8, fp4, nvl, nvl_gpus, net = precision(m, unver, figs)
    out = {
        "name": m["name"],
        "aliases": m.get("aliases", []),
        "architecture": m.get("architecture"),
        "memory_mib": mem,
        "sms": m["sms"],
        "tensor_tflops": tflops,
        "mem_bw_gbps": bw,
        "fp8_tflops": fp8,
        "fp4_tflops": fp4,
        "nvlink_gbps": nvl,
        "nvlink_gpus": nvl_gpus,
        "net_gbps": net,
        "host_link": {"kind": m["host_link"]["kind"], "gbps_per_dir": m["host_link"]["gbps_per_dir"]},
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
    if m["name"] in FAILURES:
        out["failures"] = FAILURES[m["name"]]
    path = os.path.join(out_dir, m["name"] + ".json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(path)
