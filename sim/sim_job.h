/* sim_job.h - a unit of work in flight (a trace row after it arrives).
 *
 * Jobs live in a slab of fixed-size chunks, so pointers stay valid while the
 * slab grows, and slots are reused after a job ends: memory follows the work
 * in flight, not the trace length. Each slot has a generation, bumped when
 * the job is freed, so an event scheduled for an earlier occupant of the slot
 * is recognised and dropped. done_tok is bumped whenever the job's pending
 * completion event becomes void (its progress rate changed).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_JOB_H
#define GPUSIM_SIM_JOB_H

#include "../workloads/wl_trace.h"
#include "../base/gs.h"

/* NEW: arrived, not yet placed. QUEUED: waiting in a policy's queue.
 * RUNNING: placed, draining work. SUSPENDED: stopped with work left, holding
 * nothing (preempted, hibernated); resumed by sim_job_resume. DONE/REJECTED/
 * FAILED: ended (the slot is free); FAILED = killed while running or waiting
 * (OOM, a wake that timed out), with its work not done. */
typedef enum job_state {
    JOB_NEW = 0, JOB_QUEUED, JOB_RUNNING, JOB_SUSPENDED, JOB_DONE, JOB_REJECTED, JOB_FAILED
} job_state;

/* job.core_flags: set by the priority, quota and preemption layer
 * (sim_preempt.c); space policies may read JF_VICTIM and JF_PLACED */
enum {
    JF_VICTIM = 1u,     /* writing its checkpoint before eviction (rate 0, still holds) */
    JF_PREEMPTOR = 2u,  /* waiting for its victims to free their resources */
    JF_QBLOCKED = 4u,   /* was refused by its tenant's quota at least once (counted once) */
    JF_LISTED = 8u,     /* in its node's list of running preemptible jobs */
    JF_WAITING = 16u,   /* in the list of queued jobs that found no victims yet */
    JF_HAS_CKPT = 32u,  /* a durable checkpoint exists: a restart reads it back */
    JF_PLACED = 64u,    /* queued, but the space policy will start it by itself (sim_job_placed/held) */
    JF_CHARGED = 128u,  /* its tenant's quota is charged (from its placement or start to its stop) */
};

typedef struct job {
    uint32_t slot, gen, done_tok;
    job_state state;
    uint64_t arrival_no; /* 0-based order of arrival: the last tie-break */
    uint64_t pools;      /* GPU models this job may use (bit per cluster pool) */
    gs_time_us start_us; /* first start */
    bool started;        /* has started at least once */
    uint32_t starts;     /* times started (> 1 after a suspension) */
    /* progress: work is measured in microseconds at full speed */
    double work_left_us;
    double rate; /* fraction of full speed, 0..1 */
    gs_time_us rate_since_us;
    /* hardware (sim_hw.h): work drains at rate x speed, speed being the
     * placement's pace relative to the job's reference card, fixed when it
     * starts. A MIG policy sets slice_c/slice_m (the instance's compute and
     * bandwidth shares of its card) before starting it; 1 elsewhere */
    double speed;
    double slice_c, slice_m;
    double mem_bound;           /* resolved at arrival: the row's, else the run's default */
    const struct gpu_model *ref; /* resolved at arrival: the reference card, NULL: the run's */
    /* placement (owned by the core; set through sim_place_whole) */
    int node;
    int *gpu_ids;
    int ngpu_ids;
    /* queue bookkeeping (owned by sim_queue) */
    int q_class;
    /* priorities, quotas, preemption (owned by the core, sim_preempt.c) */
    int tenant_ix;             /* 1 + index in the cluster's quota table; 0: no quota */
    uint32_t core_flags;       /* JF_* above */
    uint32_t preemptions;      /* times this job was preempted */
    gs_time_us run_since_us;   /* latest (re)start */
    double run_start_work_us;  /* work_left_us at that start */
    gs_time_us pre_wait_since_us; /* preemptor: when its victims were chosen */
    double resume_work_us;     /* victim: work left at its resume point */
    struct job *run_prev, *run_next; /* running preemptible jobs of one node */
    /* policy's private per-job data (owned by the policy) */
    void *pol;
    /* internal tasks (service replicas) are placed like jobs but are not
     * trace rows: they stay out of the job counts and statistics */
    bool internal;
    int task_owner; /* internal tasks: who is told of its life (SIM_OWNER_* in sim.h) */
    void *owner; /* the owner's record of an internal task (a service replica), or NULL */
    /* a node the task's owner would like it placed on (a sleeping
     * model instance lives there), -1: none. A hint: a space policy places
     * the task there when it fits now, else as usual (pol_whole honours it) */
    int prefer_node;
    /* load-following demand: an internal task whose owner serves nothing
     * now (sim_task_set_busy); a shared-card policy then gives it no card
     * time and its co-tenants run as if it were not there */
    bool idle;
    /* the request as read (id, submit, duration, sizes); last, so that
     * resetting a reused slot can stop short of it (it is overwritten) */
    wl_row req;
} job;

/* Work done per microsecond of simulated time now. */
static inline double job_drain_rate(const job *j) { return j->rate * j->speed; }

#endif
