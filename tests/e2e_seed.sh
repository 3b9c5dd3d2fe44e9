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
finish
