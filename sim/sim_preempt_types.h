/* sim_preempt_types.h - the preemption layer's own records and the calls
 * its files make, bottom up: sim_ckpt.c (the checkpoint model: what
 * stopping a running job costs, which jobs may be victims, the cheapest
 * victim set on one node) <- sim_victims.c (the node a request preempts on:
 * the scan of every node, its reference, and the same answer found through
 * lower bounds per node) <- sim_preempt.c (the module: parameters, priority
 * classes, quotas, the running jobs per node, the decision, the hand-over,
 * the report). Private to the layer: nothing outside those files includes it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_PREEMPT_TYPES_H
#define GPUSIM_SIM_PREEMPT_TYPES_H

#include "sim.h"
#include "sim.h"
#include "sim_module.h"
#include "sim_module.h"
#include "sim_node_bound.h"
#include "sim_waitset.h"
#include "sim_gang.h"

enum {
    DEM_MAX = 64,    /* cards on a node at most (sim_cluster.h) */
    DEM_CLASSES = 32 /* card classes with a heap of their own; requests of others use the plain bound */
};

/* Requests that pol_space_index.cards_open cannot tell apart (same cards, card
 * memory and cores), with their node heap. */
typedef struct dem_class {
    job rep; /* a copy of its first request; only the request's card fields are read */
    sim_node_bound heap;
} dem_class;

/* A node's key as a search took it (one record: read and written together). */
typedef struct node_fresh {
    uint32_t seen; /* the search (vic_index.search) that took it */
    uint32_t cnt;  /* the jobs it lists, as of that look */
    double key, slope;
} node_fresh;

/* The search's index (sim_victims.c): nodes with listed jobs keyed by a
 * lower bound of any victim set's cost there; a node is out of the heap
 * while a search looks at it, or when it lists no job. */
typedef struct vic_index {
    sim_node_bound bound;
    int *looked;          /* scratch: the nodes one search took off the heap */
    double *looked_key;   /* and their fresh keys (INFINITY: none) */
    double *looked_slope; /* and how fast those keys rise from now */
    uint32_t search;      /* a search's number */
    node_fresh *fresh;    /* per node: its key as of the last search that took it */
    /* under a space policy with cards_open, the same per card class of
     * preemptor (made when one first asks), keyed by a bound that also counts
     * the cards a victim set must free (class_key) */
    bool cards_fit;
    dem_class *dem[DEM_CLASSES];
    int ndem;
    bool plain_scan;          /* tests: plan every node, as the bound search must match */
    uint64_t planned;         /* plans by searches over every node (tests) */
    uint64_t looks, searches; /* nodes taken off a heap by those searches, and the searches (tests) */
} vic_index;

typedef struct pre_op {
    job *p;
    uint32_t p_gen;
    int nv;
    job **v;
    uint32_t *v_gen;
} pre_op;

typedef struct prio_class {
    int priority;
    uint64_t arrived;
    uint64_t listed; /* its jobs in the per-node lists (possible victims) */
    sim_sketch queue_s, jct_s;
} prio_class;

typedef struct sim_ext {
    sim_cluster *cl; /* the run's ledger (sim_cluster_of), kept for the search's loops */
    bool preempt;
    gs_time_us min_runtime_us, ckpt_every_us, grace_us;
    gs_time_us write_limit_us; /* < 0: none */
    double write_gbps, read_gbps, bytes_per_param;
    bool protect;
    long protect_priority; /* with protect: priorities >= this are never victims */
    job **node_run;   /* per node: running preemptible jobs (intrusive list) */
    uint64_t nlisted; /* jobs in those lists: 0 skips the node scan */
    vic_index vx;     /* the victim search (sim_victims.c) */
    sim_waitset wait; /* queued jobs that found no victims */
    pre_op *ops;      /* pending preemptions; a slot with p == NULL is free */
    int nops;
    int *free_ops, nfree; /* the free slots, a stack: a commit takes one in O(1) */
    /* figures */
    uint64_t preemptions, decisions, misses, lost_all;
    uint64_t writes_done, writes_cut; /* checkpoint writes at preemption */
    double lost_gpu_s, write_gpu_s, hold_gpu_s, read_gpu_s;
    double written_gb;                   /* by completed writes */
    sim_sketch wait_s, write_s, ckpt_gb; /* per decision: write time; per victim: checkpoint size */
    prio_class *cls;                     /* sorted by priority, highest first */
    int ncls;
    int last_cls; /* the class class_of found last: traces rarely change priority */
    /* While every job so far has one priority, that class's queue and
     * completion times are exactly the run's (sim.c adds the same values at
     * the same points, just before the hooks below), so the class reads the
     * run's sketches instead of keeping a second copy of each: two sketch
     * adds fewer per job. The second priority to arrive gets the class its
     * own copies (share_end). Only without a time policy: those end
     * suspended jobs (sim_job_complete), a completion the run counts and a
     * class does not. */
    bool cls_shared;
    /* cls_shared, no preemption, no tenant quotas, no run tracking and no
     * job a policy starts by itself (quiet_now): a start or stop would only
     * set or clear flags no one reads then, so the run drops both hooks
     * until a term changes */
    bool quiet;
    bool placed_seen; /* a policy marked a queued job placed (sim_preemptor_held) */
    bool track_runs; /* every job keeps its latest start (node states on: any job may be interrupted) */
    bool ckpt_events; /* periodic checkpoints are committed by their writes (sim_preempt_ckpt_by_events) */
    int index; /* the layer's place among the run's modules (its events) */
} sim_ext;

/* The links of listed job v in node n's list (x->node_run[n]): its own
 * (job_more) on one node, its part's across nodes (job_part). */
static inline job **vic_prev(job *v, int n)
{
    return job_spans(v) ? &((job_part *)job_part_on(v, n))->run_prev : &v->more->run_prev;
}
static inline job **vic_nextp(job *v, int n)
{
    return job_spans(v) ? &((job_part *)job_part_on(v, n))->run_next : &v->more->run_next;
}
static inline job *vic_next(const job *v, int n)
{
    return job_spans(v) ? job_part_on(v, n)->run_next : v->more->run_next;
}
/* The nodes job j runs on: one, or its parts'. */
static inline int vic_nodes(const job *j) { return job_spans(j) ? j->gpu.span->nparts : 1; }
static inline int vic_node(const job *j, int i) { return job_spans(j) ? j->gpu.span->part[i].node : j->node; }

/* {==== sim_ckpt.c: the checkpoint model and one node's victims ====} */

/* A candidate victim and what preempting it costs (sim_ckpt_cost_us x GPUs). */
typedef struct cand {
    job *j;
    double cost;
} cand;

/* Bytes of j's checkpoint: checkpoint_gib if given, else params_b x
 * ckpt_bytes_per_param, else 0 (none: a restart starts from scratch). */
double sim_ckpt_bytes(const sim_ext *x, const job *j);
/* The share of j's checkpoint its busiest node writes and reads back: 1
 * on one node; a job across nodes writes and reads shards in parallel, a
 * node its GPUs' share (its shape's largest part, sim_gang.h). */
double sim_ckpt_shard(const sim *s, const job *j);
/* Time to write `bytes` at a node's checkpoint bandwidth. */
gs_time_us sim_ckpt_write_us(const sim_ext *x, double bytes);
/* Whether a write of write_us at preemption completes before the kill. */
bool sim_ckpt_write_completes(const sim_ext *x, gs_time_us write_us);
/* Work left at j's latest durable periodic checkpoint if it were stopped
 * now (*has_ckpt: there is one), else at its start. */
double sim_ckpt_periodic_point_us(const sim *s, const sim_ext *x, const job *j, bool *has_ckpt);
/* What preempting j alone now would cost in GPU-time per GPU (us): work
 * lost, the write it holds its cards for, the read-back on restart. */
double sim_ckpt_cost_us(const sim *s, const sim_ext *x, const job *j);
/* Whether running v may be a victim of p now. */
bool sim_ckpt_eligible(const sim *s, const sim_ext *x, const job *v, const job *p);
/* The cheapest victim set on node n for p into out (returns its size, 0:
 * none); *cost its GPU-time. buf/cap: the caller's scratch. Cost O(k log
 * k) for the k jobs n lists, plus up to 2k dry runs of the space policy. */
int sim_ckpt_plan_node(sim *s, const sim_ext *x, job *p, int n, job **out, double *cost, cand **buf, size_t *cap);

/* {==== sim_victims.c: the node to preempt on ====} */

/* The best victim set found: on node `node` (-1: none), nv jobs in v; for
 * a preemptor across nodes, on nodes[0..nn). */
typedef struct vic_pick {
    int node, nv;
    double cost;
    job **v;
    size_t vcap;
    int *nodes, nn;
    size_t ncap;
} vic_pick;

void sim_victims_init(sim *s, sim_ext *x);
void sim_victims_free(sim_ext *x);
/* j was listed on its node (a possible victim): its bounds come down. */
void sim_victims_listed(sim *s, sim_ext *x, const job *j);
/* Listed j's rate changed (its line rises slower or faster). */
void sim_victims_rate_changed(sim *s, sim_ext *x, const job *j);
/* The reference: every node of [lo, hi) planned in id order; the winner is
 * the least (cost, victims, node id). true when some node has a set. */
bool sim_victims_scan(sim *s, sim_ext *x, job *p, uint64_t pools, int lo, int hi, vic_pick *out);
/* The same winner over every node, found through the nodes' lower bounds
 * (the scan in tests that ask for it, sim_preempt_search). */
bool sim_victims_find(sim *s, sim_ext *x, job *p, uint64_t pools, vic_pick *out);
/* For a preemptor across nodes: the nodes of one pool whose cheapest sets
 * (one part each, beyond the nodes free already) cost least, their
 * victims once each. The scan, or the bound search, as for one node. */
bool sim_victims_gang(sim *s, sim_ext *x, job *p, uint64_t pools, vic_pick *out);
/* A set was committed on node n: its keys again, its victims left out. */
void sim_victims_committed(sim *s, sim_ext *x, int n);

#endif
