/* sim_fail.h - module: failing hardware (--set failures=on). Each node in
 * service fails as a seeded Poisson process at its GPUs x the per-GPU
 * rates plus the per-node rates of its model (gpu_failures.h; a cluster
 * node group may override them) x fail_scale. A failure takes the node
 * down for its cause's repair time (sim_nodes.h): every job on it is
 * interrupted (the work since its latest checkpoint lost; restart_s of
 * start-up and the checkpoint's read-back paid at its next start) and
 * requeued at its priority; a hot spare of the node's group (cluster file
 * "spares"), when one stands by, comes into service after spare_swap_s,
 * and the repaired node stands by in its place.
 *
 * With failures on, periodic checkpoints cost their write: every
 * checkpoint_every of running (after its start-up) a job with a checkpoint
 * size holds its GPUs at rate 0 while its shard is written at
 * ckpt_write_gbps, and the checkpoint is its resume point only once the
 * write completes (a failure during the write loses the interval before
 * it too).
 *
 * Report: failures (interruptions, by_cause, jobs_interrupted,
 * lost_gpu_hours, restart_gpu_hours, checkpoint_write_gpu_hours,
 * node_down_hours, spare_swaps, rates) and jobs.goodput; the timeseries
 * gains nodes_down. Off (the default) the module changes nothing and
 * reports nothing, its parameters included.
 *
 * Costs: a failure or repair O(log nodes) (one indexed heap of the nodes'
 * next failures, one engine event for its head) plus the interrupted
 * jobs' own; a checkpoint two events of its job; memory O(nodes + job
 * slots).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_FAIL_H
#define GPUSIM_SIM_FAIL_H

#include "sim_module.h"

/* Fails node (up or draining) now by cause (an index in its group's
 * rates), as a drawn failure does: hand timelines and scripted scenarios
 * (failures on; fail_scale=0 leaves no failure but these). */
void sim_fail_now(sim *s, int node, int cause);

/* Trace job j's share of jobs.goodput: the GPU-seconds its runs held so
 * far (the run going now included) into *held_gpu_s and the useful part of
 * them over that into *ratio, so the held-weighted mean of the jobs'
 * ratios is jobs.goodput. false (nothing written) when failures are off or
 * j never held GPUs. O(modules). */
bool sim_fail_job_goodput(const sim *s, const job *j, double *held_gpu_s, double *ratio);

extern const pol_param fail_params[];
extern const sim_module fail_module;

#endif
