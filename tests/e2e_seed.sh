#!/bin/sh
# e2e_seed.sh - the seed articles' mechanisms as shipped examples: the 70B
# preemption scenario (140 GB checkpoint, 30-60 s write, 30 minutes before a
# job may be preempted) and what 14 bytes per parameter changes.
# Usage: tests/e2e_seed.sh [GPUSIM]   (default build/test/gpusim)
G=${1:-build/test/gpusim}
. "$(dirname "$0")/lib_e2e.sh"
P70="--trace workloads/examples/preempt-70b.csv --gpus H100-SXM5-80GB:8 --policy whole --set preempt=on"

# FP16 weights: 70e9 x 2 B = 140 GB at 3 GB/s = 46.7 s, inside the seed's 30-60 s; the surge waits for
# min_runtime 1800 s + grace 30 s + the write: queue 1276.7 s; the write is the resume point (lost 0)
need_file preempt70b/fixture workloads/examples/preempt-70b.csv &&
  expect preempt70b/seed_figures 0 'size mean 140.0 GB, write mean 46.7 s (max 46.7 s); min_runtime 1800 s' \
    "$G" run $P70 --set ckpt_bytes_per_param=2 --set ckpt_write_gbps=3 --out "$T/p2"
if has "$T/out" 'prio 100  queue mean 1276.7' && has "$T/out" 'lost 0.00 GPU-h' &&
  has "$T/out" '1 written at preemption, 0 cut'; then ok preempt70b/surge_waits_min_runtime_and_write
else no preempt70b/surge_waits_min_runtime_and_write "$T/out"; fi
# full optimizer state (the default 14 B): 980 GB, 326.7 s to write: the surge waits 1556.7 s
expect preempt70b/fourteen_bytes_per_param 0 'size mean 980.0 GB, write mean 326.7 s' \
  "$G" run $P70 --set ckpt_write_gbps=3 --out "$T/p14"
has "$T/out" 'prio 100  queue mean 1556.7' && ok preempt70b/fourteen_bytes_wait ||
  no preempt70b/fourteen_bytes_wait "$T/out"
# Kubernetes' 30 s grace period as a hard limit: the write is cut and the job has no periodic
# checkpoint yet (hourly; it ran 30 min): it restarts from scratch, losing 1800 s x 8 GPUs = 4 GPU-h
expect preempt70b/write_cut_by_limit 0 '0 written at preemption, 1 cut' \
  "$G" run $P70 --set ckpt_bytes_per_param=2 --set ckpt_write_gbps=3 --set ckpt_write_limit=30 --out "$T/pc"
has "$T/out" 'lost 4.00 GPU-h' && ok preempt70b/cut_write_loses_work || no preempt70b/cut_write_loses_work "$T/out"
# MPS: a space policy of its own; the day runs; the client limit (48) and replicas above it are usage errors
expect mps/day_runs 0 'jobs      arrived 903  completed 903' \
  "$G" run --trace workloads/examples/day.csv --policy mps --out "$T/mps"
expect mps/replicas_over_48_exit2 2 'replicas' \
  "$G" run --trace workloads/examples/day.csv --policy mps --set replicas=49 --out "$T/mps2"
expect mps/replicas_over_client_limit_exit2 2 'client_limit' \
  "$G" run --trace workloads/examples/day.csv --policy mps --set replicas=20 --set client_limit=16 --out "$T/mps3"
# dual-pod actuation as llm-d measures it: hot activations of the long-tail example within 9-18 s
# (mean 13), every path within 9-318 s; the report splits each path into its steps
if check_rc dualpod/actuation_in_measured_ranges 0 "$G" run --trace workloads/examples/longtail.csv \
  --gpus H100-SXM5-80GB:8 --policy whole+dualpod --json --out "$T/dp"; then
  awk '/"actuation_s"/ { on = 1 } on && /"hot"/ { p = "hot" } on && /"warm"/ { p = "warm" } on && /"cold"/ { p = "cold" }
    on && /"total_s"/ { t = 1 } on && t && /"mean"/ { v = $2; sub(/,$/, "", v); if (p == "hot") hm = v + 0 }
    on && t && /"max"/ { v = $2; sub(/,$/, "", v); if (v + 0 > mx) mx = v + 0; t = 0 }
    on && /"first_request_latency_s"/ { on = 0 }
    END { ok = hm >= 9 && hm <= 18 && mx <= 318; print "hot mean " hm ", max over paths " mx; exit !ok }' \
    "$T/dp/report.json" >"$T/msg" 2>&1 && has "$T/dp/report.json" '"relay_s"' && ok dualpod/actuation_in_measured_ranges ||
    no dualpod/actuation_in_measured_ranges "$T/msg"
fi
finish
