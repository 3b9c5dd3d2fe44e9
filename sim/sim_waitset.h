/* sim_waitset.h - the queued requests that found no preemption victims yet
 * (sim_preempt.c), kept for a retry when a running job becomes eligible.
 *
 * One binary heap per request shape (GPUs, gpumem, gpucores, mig, CPU,
 * memory, allowed models, tenant), best rank (priority, submit, arrival) on
 * top. Within a shape a lower-ranked request sees a subset of the victims
 * the head sees, so when the head cannot preempt on a node none of its class
 * can: a retry looks at one head per shape. Entries of jobs that started or
 * ended meanwhile are dropped lazily (at the head, and when a heap fills).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_WAITSET_H
#define GPUSIM_SIM_WAITSET_H

#include "sim_job.h"

typedef struct sim_waitset_ent {
    job *j;
    uint32_t gen;
} sim_waitset_ent;

typedef struct sim_waitset_class {
    int gpus, gpucores, tenant_ix;
    int64_t gpumem_mib;
    uint64_t pools;
    double cpu, mem_gib;
    char mig[32];
    sim_waitset_ent *h;
    size_t n, cap;
    bool failed; /* scratch: failed in the current retry */
} sim_waitset_class;

typedef struct sim_waitset {
    sim_waitset_class *c;
    int n;
} sim_waitset;

void sim_waitset_free(sim_waitset *w);
/* Adds queued job j (marks it JF_WAITING; a job already marked is kept
 * once). Cost O(shapes + log n), amortized. */
void sim_waitset_add(sim_waitset *w, job *j);
/* The best live entry of class c, or NULL (stale heads are popped). */
job *sim_waitset_head(sim_waitset_class *c);
/* Removes the head of c. */
void sim_waitset_pop(sim_waitset_class *c);
/* Rank order: higher priority, then earlier submit, then earlier arrival. */
bool sim_waitset_ranks_before(const job *a, const job *b);

#endif
