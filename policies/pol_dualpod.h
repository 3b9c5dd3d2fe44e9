/* pol_dualpod.h - what tests may ask the dualpod service actuator
 * (policies/pol_dualpod.c): the state of the model instance behind a replica
 * task, and an audit of the ordering invariant.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_POL_DUALPOD_H
#define GPUSIM_POL_DUALPOD_H

#include <stddef.h>

#include "../sim/sim_job.h"

typedef struct sim sim;

/* A model instance: awake (serving on its task's GPUs), sleeping (the sleep
 * is under way: it still holds its task and GPUs), asleep (no task, no GPU
 * but the residual), or a free slot. */
enum dp_inst_state { DP_FREE = 0, DP_AWAKE, DP_SLEEPING, DP_ASLEEP };

/* State of the instance running on task j; DP_FREE when none does. */
int dualpod_task_state(const void *state, const job *j);
/* Checks that every awake or sleeping instance holds a running task whose
 * GPUs the ledger shows taken, and that no GPU is under two of them.
 * Returns 0, or 1 with the first violation written to why. O(instances +
 * GPUs). */
int dualpod_audit(const void *state, const sim *s, char *why, size_t n);

#endif
