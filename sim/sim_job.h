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

#include <stdlib.h>

#include "../workloads/wl_trace.h"
#include "../base/gs.h"
#include "sim_strtab.h"

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
/* core_flags is one byte: a ninth flag needs a wider member (and a look at
 * the slot's size, tests/test_job_mem.c) */
_Static_assert(JF_CHARGED <= 0xff, "job.core_flags is a uint8_t");

/* The request a job carries: what the core, the space policies and the
 * layers read of its trace row after it arrived, nothing else (a service's,
 * request's or burst's columns stay with the service layer or the time
 * policies). Member names are the trace reader's (wl_row), so j->req.gpus
 * reads as it did. Strings are never NULL: "" (sim_str_none) when not given;
 * the id is the job's own copy (released with the job), the names are the
 * run's interned copies (sim_strtab.h). The gpu_model column is resolved into
 * job.pools on arrival and not kept. Columns a trace rarely gives live out of
 * line (job_more; read them with job_req_checkpoint_gib and friends). */
typedef struct job_req {
    const char *id;
    const char *tenant;  /* "" = default tenant */
    const char *mig;     /* MIG profile name; "" = not given */
    gs_time_us submit_us;
    gs_time_us dur_us;   /* work at full speed on the requested resources */
    int64_t gpumem_mib;  /* per GPU; 0 = not given */
    double cpu;          /* cores, default 0 */
    double mem_gib;      /* host memory GiB, default 0 */
    double util;         /* demand on a shared card, (0,1]; 0 = not given */
    int priority;        /* higher wins; default 0 */
    /* whole GPUs (or vGPUs): on one node, or across nodes when no node of
     * its models has that many or gpus_per_node says so (sim_gang.h);
     * signed, so arithmetic on it stays in int as with a narrower field */
    int32_t gpus;
    /* the small columns in one word */
    uint8_t gpucores;      /* percent of one GPU, 1..100; 0 = not given */
    uint8_t gpumem_pct;    /* percent of the card's memory, 1..100; 0 = not given */
    uint8_t gpus_per_node; /* across nodes: its GPUs on each node (the last takes the rest); 0 = not given */
    uint8_t kind : 3;      /* WL_KIND_JOB or WL_KIND_SESSION (tasks: WL_KIND_JOB) */
    bool preemptible : 1;
    /* set by the core at arrival: the request spans nodes (sim_gang.h) */
    bool spans : 1;
    uint8_t topology : 2;  /* JOB_TOPO_*: the domain it must stay in when it spans nodes */
    /* its class (sim_class.h), set at arrival when the trace has a class
     * column and read only then; in the struct's tail padding */
    uint16_t cls;
} job_req;
/* The class number costs no byte: the request and the slot keep their sizes
 * (tests/test_job_mem.c states what each holds). */
_Static_assert(sizeof(job_req) <= 88, "job_req.cls must fit the request's padding");
/* A request asks at most 2^20 GPUs (the trace reader's bound); it spans
 * nodes when no node can take them all. */
#define JOB_REQ_GPUS_MAX WL_GPUS_MAX
_Static_assert(WL_KIND_BURST < 8, "job_req.kind is 3 bits");
/* The share of a training step spent in inter-GPU communication that a job
 * of kind `job` states when it gives none (the comm column): an
 * assumption, set the column per job. Data-parallel training overlaps most
 * of its gradient reduction with the backward pass; 0.2 leaves a fifth of
 * the step on the network when the job spans racks. Sessions: 0 (no
 * collectives). Used only across racks or blocks (sim_gang.h). */
#define JOB_COMM_DEFAULT 0.2
/* job_req.topology: none (preferred: the fewest domains, sim_gang.h), or
 * required inside one rack or one block (Kueue podset-required-topology). */
enum { JOB_TOPO_ANY = 0, JOB_TOPO_RACK = 1, JOB_TOPO_BLOCK = 2 };

/* The numeric columns of row r into q, its names left unset ("", no id): a
 * probe request (a shape counted from a trace, never run). sim_submit_row
 * and sim_task_set_row fill the rest. */
static inline void job_req_numbers(job_req *q, const wl_row *r)
{
    q->id = q->tenant = q->mig = sim_str_none;
    q->submit_us = r->submit_us;
    q->dur_us = r->dur_us;
    q->gpumem_mib = r->gpumem_mib;
    q->cpu = r->cpu;
    q->mem_gib = r->mem_gib;
    q->util = r->util;
    q->gpus = r->gpus;                      /* the reader checks 0..JOB_REQ_GPUS_MAX */
    q->priority = r->priority;
    q->gpucores = (uint8_t)r->gpucores;     /* the reader checks 0..100 */
    q->gpumem_pct = (uint8_t)r->gpumem_pct; /* the reader checks 0..100 */
    q->gpus_per_node = (uint8_t)(r->gpus_per_node > 0 ? r->gpus_per_node : 0); /* the reader checks 1..64 */
    q->kind = (unsigned)r->kind & 7u;
    q->preemptible = r->preemptible != 0;
    q->spans = false; /* set at arrival (sim_gang_spans) */
    q->topology = r->topology == WL_TOPO_RACK ? JOB_TOPO_RACK : r->topology == WL_TOPO_BLOCK ? JOB_TOPO_BLOCK : JOB_TOPO_ANY;
}

/* A job's rarely used state, allocated on first need (sim_job_more) and
 * freed with the job, so a plain job pays one pointer for all of it.
 * Members are written only through a record from sim_job_more or
 * sim_job_more_kept, which mark it touched; the core's own fill from a
 * row's rare columns (and the reference card hw_admit sets) leaves it
 * untouched, so a record handed on to another row's job needs no reset
 * of the rest. */
typedef struct job_more {
    /* the request's rare columns (< 0: not given) */
    double checkpoint_gib, params_b, mem_bound;
    double comm;             /* share of its step time in inter-GPU communication, 0..1 */
    gs_time_us time_limit_us; /* the wall time its user asked for (Slurm --time) */
    const char *ref_gpu, *speedup; /* interned; "" = not given */
    /* hardware (sim_hw.c): the reference card resolved from ref_gpu, NULL:
     * the run's. A MIG policy sets slice_c/slice_m (the instance's compute
     * and bandwidth shares of its card) before starting the job; 1 elsewhere */
    const struct gpu_model *ref;
    double slice_c, slice_m;
    /* preemption (sim_preempt.c), for jobs it lists or plans for */
    gs_time_us run_since_us;      /* latest (re)start */
    double run_start_work_us;     /* work_left_us at that start */
    gs_time_us pre_wait_since_us; /* preemptor: when its victims were chosen */
    double resume_work_us;        /* victim: work left at its resume point */
    struct job *run_prev, *run_next; /* running preemptible jobs of one node */
    struct job *node_prev, *node_next; /* the jobs of its node, while node states are on (sim_nodes.h) */
    uint32_t preemptions;         /* times this job was preempted */
    uint32_t interruptions;       /* times a node leaving service stopped it (sim_job_interrupt*) */
    /* internal tasks: the owner's record of the task (a service replica),
     * or NULL; a node the owner would like it placed on (a sleeping model
     * instance lives there), -1: none. A hint: a space policy places the
     * task there when it fits now, else as usual (pol_whole honours it) */
    void *owner;
    int prefer_node;
    int cost_holder; /* internal tasks: who pays for its cards (sim_cost.h), -1: not known yet */
    /* a member beside the row's columns, ref and hw_on_ref may differ
     * from its default: a full reset before the record serves another job */
    bool touched;
    /* set with ref by hw_admit (sim_hw.c): placed on a whole card of the
     * run's reference model, an untouched record's job runs at 1 there and
     * adds this (0 or 1) to the starts a speedup table decided; -1: not
     * known, the record is asked in full */
    int8_t hw_on_ref;
    struct job_more *kept_next; /* while kept for another job (sim.more_kept): the one kept before */
} job_more;

typedef struct job {
    uint32_t slot, gen, done_tok;
    uint32_t starts;     /* times started (> 1 after a suspension) */
    uint64_t arrival_no; /* 0-based order of arrival: the last tie-break */
    uint64_t pools;      /* GPU models this job may use (bit per cluster pool) */
    gs_time_us start_us; /* first start */
    /* progress: work is measured in microseconds at full speed */
    double work_left_us;
    double rate; /* fraction of full speed, 0..1 */
    gs_time_us rate_since_us;
    /* hardware (sim_hw.h): work drains at rate x speed, speed being the
     * placement's pace relative to the job's reference card, fixed when it
     * starts */
    double speed;
    /* placement (owned by the core; set through sim_place_whole): the
     * GPU ids it holds, read with job_gpu_ids. One card's id is kept in the
     * slot (gpu.one), more in an allocation (gpu.many); a job across nodes
     * keeps its parts and ids out of line (gpu.span, ngpu_ids JOB_SPANS) */
    union {
        int *many; /* 1 < ngpu_ids < JOB_SPANS */
        int one;   /* ngpu_ids == 1 */
        struct job_span *span; /* ngpu_ids == JOB_SPANS */
    } gpu;
    int node;
    /* queue bookkeeping (owned by sim_queue) */
    int q_class;
    /* priorities, quotas, preemption (owned by the core, sim_preempt.c) */
    int tenant_ix; /* 1 + index in the cluster's quota table; 0: no quota */
    uint8_t state;      /* job_state */
    uint8_t core_flags; /* JF_* above */
    uint8_t ngpu_ids;   /* GPUs it holds on one node (<= CL_MAX_NODE_GPUS), or JOB_SPANS */
    bool started : 1;   /* has started at least once */
    /* internal tasks (service replicas) are placed like jobs but are not
     * trace rows: they stay out of the job counts and statistics */
    bool internal : 1;
    /* load-following demand: an internal task whose owner serves nothing
     * now (sim_task_set_busy); a shared-card policy then gives it no card
     * time and its co-tenants run as if it were not there */
    bool idle : 1;
    uint8_t task_owner : 5; /* internal tasks: who is told of its life (SIM_OWNER_* in sim.h) */
    job_more *more; /* NULL until needed */
    job_req req;
} job;
_Static_assert(sizeof(job) <= 192, "a job's slot stays at 192 bytes (tests/test_job_mem.c)");


/* A job placed across nodes (sim_gang.h): its part on each node, sorted by
 * node id (a node's part is found by bisection), then its GPU ids, part
 * after part, in the same allocation. node: the first part's. */
typedef struct job_part {
    int node, ngpus;
    int first_id;                    /* its ids: span ids [first_id, first_id + ngpus) */
    struct job *run_prev, *run_next; /* preemption: the running preemptible jobs of this node */
    struct job *nprev, *nnext;       /* the jobs of this node, while node states are on (sim_nodes.h) */
} job_part;
typedef struct job_span {
    int nparts, ngpus;
    int level; /* the widest topology level it spans (sim_gang.h): 0 none, 1 racks, 2 blocks */
    job_part part[];
} job_span;
#define JOB_SPANS 255
static inline int *job_span_ids(const job_span *sp) { return (int *)(void *)(sp->part + sp->nparts); }
static inline bool job_spans(const job *j) { return j->ngpu_ids == JOB_SPANS; }
/* Its part on node n, or NULL: a binary search of its parts (by node), O(log parts). */
static inline const job_part *job_part_on(const job *j, int n)
{
    const job_span *sp = j->gpu.span;
    int lo = 0, hi = sp->nparts - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (sp->part[mid].node == n)
            return &sp->part[mid];
        if (sp->part[mid].node < n)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}
/* The GPUs job j holds on node n: O(1) on one node, O(log parts) across. */
static inline int job_gpus_on(const job *j, int n)
{
    if (!job_spans(j))
        return j->node == n ? j->ngpu_ids : 0;
    const job_part *p = job_part_on(j, n);
    return p ? p->ngpus : 0;
}
/* The GPUs it holds, all nodes. */
static inline int job_gpus_held(const job *j) { return job_spans(j) ? j->gpu.span->ngpus : j->ngpu_ids; }

/* The GPU ids job j holds (job_gpus_held of them; NULL when none). */
static inline const int *job_gpu_ids(const job *j)
{
    return j->ngpu_ids == 1 ? &j->gpu.one : job_spans(j) ? job_span_ids(j->gpu.span) : j->gpu.many;
}
/* Room for n GPU ids, to be filled by the caller: j's own slot for one, an
 * allocation for more (sim_job_drop_gpus gives it back). Sets ngpu_ids. */
int *sim_job_hold_gpus(job *j, int n);
static inline void sim_job_drop_gpus(job *j)
{
    if (j->ngpu_ids > 1)
        free(j->gpu.many);
    j->gpu.many = NULL;
    j->ngpu_ids = 0;
}

/* The job's out-of-line state, allocated (defaults set) on first use;
 * marked touched. */
job_more *sim_job_more(job *j);
/* *m at its defaults (a record handed on to another job). */
void sim_job_more_reset(job_more *m);
/* The same from run s's records of ended jobs when it holds one (job_free
 * keeps them): a hook that gives every job one allocates nothing a job. */
struct sim;
job_more *sim_job_more_kept(struct sim *s, job *j);
/* The rare request columns: the row's value, else "not given" (< 0, ""). */
static inline double job_req_checkpoint_gib(const job *j) { return j->more ? j->more->checkpoint_gib : -1; }
static inline double job_req_params_b(const job *j) { return j->more ? j->more->params_b : -1; }
static inline double job_req_mem_bound(const job *j) { return j->more ? j->more->mem_bound : -1; }
static inline const char *job_req_ref_gpu(const job *j) { return j->more ? j->more->ref_gpu : ""; }
static inline const char *job_req_speedup(const job *j) { return j->more ? j->more->speedup : ""; }
/* Its communication share (sim_gang.h: JOB_COMM_DEFAULT when not given). */
static inline double job_req_comm(const job *j)
{
    return j->more && j->more->comm >= 0 ? j->more->comm : j->req.kind == WL_KIND_JOB ? JOB_COMM_DEFAULT : 0;
}
/* Its time limit: the column, else its duration (what a scheduler that
 * plans by limits, such as EASY backfilling, reads). */
static inline gs_time_us job_req_time_limit_us(const job *j)
{
    return j->more && j->more->time_limit_us >= 0 ? j->more->time_limit_us : j->req.dur_us;
}
/* The MIG instance's shares of its card (1: a whole card). */
static inline double job_slice_c(const job *j) { return j->more ? j->more->slice_c : 1; }
static inline double job_slice_m(const job *j) { return j->more ? j->more->slice_m : 1; }
/* Sets them; a whole card (1, 1) allocates nothing. */
void sim_job_set_slices(job *j, double c, double m);
/* An internal task's owner record (sim_task_new sets it up), NULL: none. */
static inline void *job_owner(const job *j) { return j->more ? j->more->owner : NULL; }
/* The node a task's owner would like it on, -1: none (sim_job_more(j)->prefer_node sets it). */
static inline int job_prefer_node(const job *j) { return j->more ? j->more->prefer_node : -1; }

/* The GPU memory a request states per GPU on a card of card_mib MiB (as
 * wl_row_gpumem_mib for a row: the one definition). */
static inline int64_t job_req_gpumem_mib(const job_req *r, int64_t card_mib)
{
    return wl_gpumem_mib(r->gpumem_mib, r->gpumem_pct, card_mib);
}

/* Work done per microsecond of simulated time now. */
static inline double job_drain_rate(const job *j) { return j->rate * j->speed; }

#endif
