/* sim_jobs_csv.h - one CSV row per trace job, agent session and internal
 * task (a service replica, a warm-pool sandbox), written when it ends, so
 * the file streams: memory stays that of the jobs in flight. The rows of
 * what is still running, queued or suspended when the run ends follow at
 * the end (outcome running, queued, suspended; no end time).
 *
 * Columns (SIM_JOBS_CSV_HEADER): id; kind (job, session, replica, task);
 * class (a replica's service; "" for a job); submit_s, start_s (first
 * start; "" if it never started), end_s; queue_s (submit to first start);
 * jct_s (submit to completion, completed rows only); gpus (asked); gpu_model
 * and nodes (where it ran last, node ids separated by '|'; "" if it never
 * held a node or ended away from one, e.g. a paused session completing);
 * slowdown ((end - first start) / duration, completed jobs with a
 * duration, as the report's jobs.slowdown); preemptions; interruptions
 * (stops by its node leaving service: a failure, a reclaimed spot node;
 * summed over the rows, the report's nodes.interruptions); held_gpu_s and
 * effective_ratio (failures on, trace jobs that held GPUs; "" otherwise:
 * the GPU-seconds its runs held and their useful share as jobs.goodput
 * counts, so the held_gpu_s-weighted mean of the ratios is jobs.goodput;
 * sim_fail_job_goodput); outcome (completed, failed, rejected,
 * ended, lost, running, queued, suspended); reason (why it failed or was
 * rejected, when the core was told). Text fields are quoted as RFC 4180
 * says when they hold a comma, a quote or a line break.
 *
 * One writer, called from every end path of the core (sim.c) through the
 * hook sim_set_jobs_csv sets: a mechanism that ends jobs in a new way feeds
 * the same columns.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_JOBS_CSV_H
#define GPUSIM_SIM_JOBS_CSV_H

#include <stdio.h>

#include "sim_job.h"

#define SIM_JOBS_CSV_HEADER                                                                                       \
    "id,kind,class,submit_s,start_s,end_s,queue_s,jct_s,gpus,gpu_model,nodes,slowdown,preemptions,interruptions,"  \
    "held_gpu_s,effective_ratio,outcome,reason\n"

typedef struct sim sim;

/* Writes a CSV row per job, session and task as it ends to f (the header
 * now), NULL: none. f stays the caller's. Once, before sim_run: the core
 * then calls the writer at every end, while the job still holds its
 * placement (O(1) and one fprintf a row), and at the end of the run for
 * the jobs and tasks still in flight (slot order, O(slots)). */
void sim_set_jobs_csv(sim *s, FILE *f);

#endif
