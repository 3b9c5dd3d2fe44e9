/* sim_preempt.c - priorities, tenant quotas, preemption and checkpoint costs,
 * as core mechanisms under every space policy (semantics and defaults:
 * reference/mechanics.md section 7; policies/README.md).
 *
 * Quotas. A tenant's running jobs are charged their request when they start
 * (GPUs; GPU memory = gpus x gpumem, or x the card's memory when gpumem is
 * not given; cards of the node's model) and refunded when they stop. A space
 * policy with POL_CAP_ADMIT narrows every placement to sim_admit_pools(),
 * which drops the models where the charge would exceed a cap, so a quota is
 * never exceeded (checked again at each charge).
 *
 * Preemption (preempt=on). When a request is left queued, the core looks per
 * node for victims: running, preemptible, strictly lower priority, running
 * for at least min_runtime since their latest start, not already victims.
 * On each node they are taken in order of least lost work (work since their
 * resume point x GPUs), until the space policy's fits_if_released() says the
 * request would fit; victims that turn out unnecessary are dropped again.
 * The node whose set loses least wins (ties: fewer victims, lower node id).
 * Nodes are looked at least lower bound first, until no node left can beat
 * or tie the best set found ("lower bounds per node" below: bounds that rise
 * with the work the victims would lose, so they stay close as time passes);
 * the choice is the scan of every node's.
 * The victims stop (rate 0) when told and write a checkpoint of where they
 * stopped; they hold their resources for grace_period + (sum of their
 * checkpoint sizes) / ckpt_write_gbps, then are suspended while the core
 * reserves what they free for the preemptor (sim_admit_pools gives nothing
 * to anyone else during the hand-over), the space policy dispatches, and the
 * victims are resumed (requeued) with their work reset to their resume point
 * plus the read-back time. The resume point is the checkpoint written at
 * preemption when that write completes (nothing is lost); a write longer than
 * ckpt_write_limit is cut there (the victim is killed at grace + limit, as
 * Kubernetes kills a pod at the end of its termination grace period) and the
 * victim falls back to its latest periodic checkpoint, or to the start when
 * it has none. A queued request that found no victims is retried when some
 * running job reaches min_runtime.
 * SPDX-License-Identifier: MIT */
#include "sim_preempt.h"
#include "sim_struct.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_node_bound.h"
#include "sim_quota.h"
#include "sim_waitset.h"

const pol_param preempt_params[] = {
    {"preempt", "off", "on: a queued request may preempt lower-priority preemptible jobs (core, any policy)", P_ONOFF},
    {"min_runtime", "1800", "seconds a job runs before it may be preempted (practitioners' advice; Slurm PreemptExemptTime; reference/mechanics.md 7)", P_DURATION(0, 1e12)},
    {"checkpoint_every", "3600", "seconds between periodic checkpoints of a running job; 0: none (assumption)", P_DURATION(0, 1e12)},
    {"ckpt_write_gbps", "2", "GB/s a node writes checkpoints at (shared FS per node, reference/mechanics.md 7 [U])", P_NUM(1e-9, 1e12, "GB/s")},
    {"ckpt_read_gbps", "2", "GB/s a restarted job reads its checkpoint at (NVMe load_bw, reference/mechanics.md 4)", P_NUM(1e-9, 1e12, "GB/s")},
    {"ckpt_bytes_per_param", "14", "checkpoint bytes per parameter when only params_b is given (Adam, reference/mechanics.md 7)", P_NUM(0, 1e12, NULL)},
    {"protect_priority", "none", "jobs with priority >= this are never preempted, whatever their preemptible flag", P_INT_OR(-2e9, 2e9, "none")},
    {"grace_period", "30", "seconds a victim keeps its resources besides the write (K8s default, reference/mechanics.md 7)", P_DURATION(0, 1e12)},
    {"ckpt_write_limit", "none", "seconds the checkpoint write at preemption may take; a longer one is cut and lost (the victim resumes from its last periodic checkpoint); none: no limit", P_DURATION_OR(0, 1e12, "none")},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

enum { TAG_OP = 1, TAG_ELIGIBLE = 2 };
enum {
    DEM_MAX = 64,    /* cards on a node at most (sim_cluster.h) */
    DEM_CLASSES = 32 /* card classes with a heap of their own; requests of others use the plain bound */
};

/* Requests that pol_space_index.cards_open cannot tell apart (same cards, card
 * memory and cores), with their node heap. */
typedef struct dem_class {
    job rep; /* a copy of its first request; only the request's card fields are read */
    nb_heap heap;
} dem_class;

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

/* A node's key as a search took it (one record: read and written together). */
typedef struct node_fresh {
    uint32_t seen; /* the search (sim_ext.search) that took it */
    uint32_t cnt;  /* the jobs it lists, as of that look */
    double key, slope;
} node_fresh;

typedef struct sim_ext {
    bool preempt;
    gs_time_us min_runtime_us, ckpt_every_us, grace_us;
    gs_time_us write_limit_us; /* < 0: none */
    double write_gbps, read_gbps, bytes_per_param;
    bool protect;
    long protect_priority; /* with protect: priorities >= this are never victims */
    job **node_run; /* per node: running preemptible jobs (intrusive list) */
    uint64_t nlisted; /* jobs in those lists: 0 skips the node scan */
    /* nodes with listed jobs, keyed by a lower bound of any victim set's
     * cost there (see "lower bounds per node"); a node is out of the heap
     * while a search looks at it, or when it lists no job */
    nb_heap bound;
    int *looked; /* scratch: the nodes one search took off the heap */
    double *looked_key; /* and their fresh keys (INFINITY: none) */
    double *looked_slope; /* and how fast those keys rise from now */
    uint32_t search; /* a search's number */
    node_fresh *fresh; /* per node: its key as of the last search that took it */
    /* under a space policy with cards_open, the same per card class of
     * preemptor (made when one first asks), keyed by a bound that also counts
     * the cards a victim set must free (class_key) */
    bool cards_fit;
    dem_class *dem[DEM_CLASSES];
    int ndem;
    bool plain_scan; /* tests: plan every node, as the bound search must match */
    uint64_t planned; /* plan_node calls by searches over every node (tests) */
    uint64_t looks, searches; /* nodes taken off a heap by those searches, and the searches (tests) */
    sim_waitset wait; /* queued jobs that found no victims */
    pre_op *ops; /* pending preemptions; a slot with p == NULL is free */
    int nops;
    int *free_ops, nfree; /* the free slots, a stack: a commit takes one in O(1), where a scan
                           * for a free slot grew with the preemptions pending (hundreds at 64k GPUs) */
    /* figures */
    uint64_t preemptions, decisions, misses, lost_all;
    uint64_t writes_done, writes_cut; /* checkpoint writes at preemption */
    double lost_gpu_s, write_gpu_s, hold_gpu_s, read_gpu_s;
    double written_gb;              /* by completed writes */
    sim_sketch wait_s, write_s, ckpt_gb; /* per decision: write time; per victim: checkpoint size */
    prio_class *cls; /* sorted by priority, highest first */
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
    int index; /* the layer's place among the run's modules (its events) */
} sim_ext;

static sim_ext *ext_of(const sim *s) { return sim_module_state(s, &preempt_module); }

/* An event of this layer at at_us (>= now) for j (NULL: none; dropped if j
 * ends first), delivered to ext_event with aux (tag << 24 | arg). */
static void core_timer(sim *s, job *j, gs_time_us at_us, uint32_t aux)
{
    sim_module_event(s, ext_of(s)->index, at_us, j ? j->slot : SIM_NO_SLOT, j ? j->gen : 0, aux);
}

static double num_param(const sim *s, const char *name, double lo, gs_error *err, int *rc)
{
    double d = sim_param_number(s, name); /* typed and range-checked by the core (preempt_params) */
    if (*rc == 0 && (!(d >= lo) || d > 1e12))
        *rc = gs_err(err, GS_EUSAGE, "--set %s='%s': expected a number >= %g", name, sim_param(s, name), lo);
    return d;
}

static int ext_init(sim *s, int index, void **state, gs_error *err)
{
    sim_ext *x = xcalloc(1, sizeof *x);
    *state = x;
    x->index = index;
    sim_sketch_init(&x->wait_s);
    sim_sketch_init(&x->write_s);
    sim_sketch_init(&x->ckpt_gb);
    const char *pv = sim_param(s, "preempt");
    if (strcmp(pv, "on") && strcmp(pv, "off"))
        return gs_err(err, GS_EUSAGE, "--set preempt='%s': expected on or off", pv);
    x->preempt = strcmp(pv, "on") == 0;
    int rc = 0;
    x->min_runtime_us = (gs_time_us)llround(num_param(s, "min_runtime", 0, err, &rc) * 1e6);
    x->ckpt_every_us = (gs_time_us)llround(num_param(s, "checkpoint_every", 0, err, &rc) * 1e6);
    x->grace_us = (gs_time_us)llround(num_param(s, "grace_period", 0, err, &rc) * 1e6);
    x->write_gbps = num_param(s, "ckpt_write_gbps", 1e-9, err, &rc);
    x->read_gbps = num_param(s, "ckpt_read_gbps", 1e-9, err, &rc);
    x->bytes_per_param = num_param(s, "ckpt_bytes_per_param", 0, err, &rc);
    x->write_limit_us = -1;
    if (rc == 0 && strcmp(sim_param(s, "ckpt_write_limit"), "none"))
        x->write_limit_us = (gs_time_us)llround(sim_param_number(s, "ckpt_write_limit") * 1e6);
    const char *pp = sim_param(s, "protect_priority");
    if (rc == 0 && strcmp(pp, "none")) {
        x->protect_priority = (long)sim_param_int(s, "protect_priority");
        x->protect = true;
    }
    if (rc)
        return rc;
    const pol_ops *sp = s->pol[0];
    bool admit = (sp->space->caps & POL_CAP_ADMIT) != 0;
    if (x->preempt && (!admit || !sp->space->fits_if_released))
        return gs_err(err, GS_EUSAGE, "--set preempt=on: space policy '%s' does not support preemption "
                      "(see policies/README.md)", sp->name);
    if (s->cl->quota && s->cl->quota->n && !admit)
        return gs_err(err, GS_EUSAGE, "the cluster sets tenant quotas but space policy '%s' does not enforce "
                      "them (see policies/README.md)", sp->name);
    if (x->preempt) {
        x->node_run = xcalloc((size_t)s->cl->nnodes + 1, sizeof *x->node_run);
        nb_init(&x->bound, s->cl->nnodes);
        x->cards_fit = sp->space->index && sp->space->index->cards_open;
        if (x->cards_fit)
            sim_cluster_watch_gives(s->cl);
        x->looked = xmalloc(((size_t)s->cl->nnodes + 1) * sizeof *x->looked);
        x->looked_key = xmalloc(((size_t)s->cl->nnodes + 1) * sizeof *x->looked_key);
        x->looked_slope = xmalloc(((size_t)s->cl->nnodes + 1) * sizeof *x->looked_slope);
        x->fresh = xcalloc((size_t)s->cl->nnodes + 1, sizeof *x->fresh);
    }
    if (s->cl->quota) /* usage starts from zero in every run */
        sim_quota_reset(s->cl->quota);
    x->cls_shared = s->npol == 1;
    /* hooks that change nothing in this run, dropped: without preemption a
     * request left queued looks for no victims (ext_after_arrive); without
     * tenants no job has one, and ext_narrow gives back its pools (when no
     * other module narrowed them first) */
    if (!x->preempt)
        sim_module_skip(s, index, SIM_HOOK_ARRIVED);
    if ((!s->cl->quota || s->cl->quota->n == 0) && sim_module_narrows_alone(s, index))
        sim_module_skip(s, index, SIM_HOOK_NARROW_POOLS);
    return 0;
}

static void ext_free(void *state)
{
    sim_ext *x = state;
    if (!x)
        return;
    for (int i = 0; i < x->nops; i++) {
        free(x->ops[i].v);
        free(x->ops[i].v_gen);
    }
    free(x->ops);
    free(x->free_ops);
    for (int i = 0; i < x->ncls; i++) {
        sim_sketch_free(&x->cls[i].queue_s);
        sim_sketch_free(&x->cls[i].jct_s);
    }
    free(x->cls);
    free(x->node_run);
    nb_free(&x->bound);
    for (int i = 0; i < x->ndem; i++) {
        nb_free(&x->dem[i]->heap);
        free(x->dem[i]);
    }
    free(x->looked);
    free(x->looked_key);
    free(x->looked_slope);
    free(x->fresh);
    ws_free(&x->wait);
    sim_sketch_free(&x->wait_s);
    sim_sketch_free(&x->write_s);
    sim_sketch_free(&x->ckpt_gb);
    free(x);
}

/* {==== priority classes ====} cost O(classes) per lookup; traces use few. */

static prio_class *class_find(sim_ext *x, int priority);

/* The class of the last lookup answers inline (traces rarely change
 * priority); class_find searches and adds. */
static inline prio_class *class_of(sim_ext *x, int priority)
{
    if (x->last_cls < x->ncls && x->cls[x->last_cls].priority == priority)
        return &x->cls[x->last_cls];
    return class_find(x, priority);
}

static prio_class *class_find(sim_ext *x, int priority)
{
    int i = 0;
    while (i < x->ncls && x->cls[i].priority > priority)
        i++;
    x->last_cls = i;
    if (i < x->ncls && x->cls[i].priority == priority)
        return &x->cls[i];
    x->cls = xrealloc(x->cls, (size_t)(x->ncls + 1) * sizeof *x->cls);
    memmove(&x->cls[i + 1], &x->cls[i], (size_t)(x->ncls - i) * sizeof *x->cls);
    x->ncls++;
    prio_class *c = &x->cls[i];
    memset(c, 0, sizeof *c);
    c->priority = priority;
    sim_sketch_init(&c->queue_s);
    sim_sketch_init(&c->jct_s);
    return c;
}

/* {==== quotas (accounting in sim_quota.c) ====} */

static sim_tenant *tenant_of(const sim *s, const job *j) { return sim_quota_tenant(s->cl, j); }

/* The module's part of sim_admit_pools: the tenant's quota. */
static uint64_t ext_narrow(void *state, sim *s, job *j, uint64_t pools_in)
{
    (void)state;
    (void)pools_in; /* j->pools: the hand-over already passed it */
    if (!j->tenant_ix) /* no quota: what sim_quota_pools answers, without the call */
        return j->pools;
    uint64_t pools = sim_quota_pools(s->cl, j, false);
    if (pools == 0 && j->pools && !j->started && !(j->core_flags & JF_QBLOCKED)) {
        j->core_flags |= JF_QBLOCKED;
        tenant_of(s, j)->blocked++;
    }
    return pools;
}


/* The one class so far takes its own copies of the run's queue and
 * completion sketches (see cls_shared), before a job of another priority
 * adds to either. */
static void share_end(sim *s, sim_ext *x)
{
    if (x->ncls == 1) {
        sim_sketch_copy(&x->cls[0].queue_s, &s->queue_s);
        sim_sketch_copy(&x->cls[0].jct_s, &s->jct_s);
    }
    x->cls_shared = false;
}

/* A job of a priority the shared class does not have, at a point where the
 * run's sketches already hold its value: no copy can be right any more. */
static void share_check(const sim_ext *x, const job *j)
{
    if (x->ncls != 1 || x->cls[0].priority != j->req.priority)
        GS_BUG("preemption: a job of a second priority was never admitted (shared class sketches)");
}

static bool ext_admit(void *state, sim *s, job *j)
{
    sim_ext *x = state;
    if (x->cls_shared && x->ncls && x->cls[0].priority != j->req.priority)
        share_end(s, x);
    class_of(x, j->req.priority)->arrived++;
    /* no quota (most clusters): no tenant to find, without the two calls */
    j->tenant_ix = s->cl->quota ? sim_quota_find(s->cl->quota, j->req.tenant) : 0;
    if (!j->tenant_ix)
        return true;
    sim_tenant *t = tenant_of(s, j);
    t->arrived++;
    j->pools = sim_quota_pools(s->cl, j, true);
    if (j->pools == 0) {
        t->rejected++;
        return false;
    }
    return true;
}

/* {==== running jobs per node ====} */

static void bound_offer(sim *s, sim_ext *x, job *j);
static void demand_offer(const sim *s, sim_ext *x, int n);

static void list_add(sim *s, sim_ext *x, job *j)
{
    job **head = &x->node_run[j->node];
    job_more *m = sim_job_more(j);
    m->run_prev = NULL;
    m->run_next = *head;
    if (*head)
        (*head)->more->run_prev = j;
    *head = j;
    j->core_flags |= JF_LISTED;
    x->nlisted++;
    class_of(x, j->req.priority)->listed++;
    bound_offer(s, x, j);
    if (x->cards_fit)
        demand_offer(s, x, j->node);
}

static void list_del(sim_ext *x, job *j)
{
    job_more *m = j->more; /* listed: it has one */
    if (m->run_prev)
        m->run_prev->more->run_next = m->run_next;
    else
        x->node_run[j->node] = m->run_next;
    if (m->run_next)
        m->run_next->more->run_prev = m->run_prev;
    m->run_prev = m->run_next = NULL;
    j->core_flags &= ~JF_LISTED;
    x->nlisted--;
    class_of(x, j->req.priority)->listed--;
}

static void ext_started(void *state, sim *s, job *j)
{
    sim_ext *x = state; /* ext_of(s), without the search */
    if (j->starts == 1) {
        double q_s = gs_us_to_s(s->now - j->req.submit_us);
        if (x->cls_shared)
            share_check(x, j);
        else
            sim_sketch_add(&class_of(x, j->req.priority)->queue_s, q_s);
        if (j->core_flags & JF_QBLOCKED)
            sim_sketch_add(&tenant_of(s, j)->blocked_queue_s, q_s);
    }
    if (j->core_flags & JF_PREEMPTOR) {
        sim_sketch_add(&x->wait_s, gs_us_to_s(s->now - j->more->pre_wait_since_us));
        j->core_flags &= ~JF_PREEMPTOR;
    }
    j->core_flags &= ~(JF_WAITING | JF_PLACED); /* its wait-list entry is dropped lazily */
    if (!(j->core_flags & JF_CHARGED) && j->tenant_ix) /* else charged when placed (sim_job_placed); no tenant: no quota */
        sim_quota_charge(s->cl, j, +1);
    j->core_flags |= JF_CHARGED;
    if (x->preempt && j->req.preemptible && j->node >= 0 && !(x->protect && j->req.priority >= x->protect_priority)) {
        job_more *m = sim_job_more(j); /* only jobs that may become victims keep these */
        m->run_since_us = s->now;
        m->run_start_work_us = j->work_left_us;
        list_add(s, x, j);
        core_timer(s, j, s->now + x->min_runtime_us, TAG_ELIGIBLE << 24);
    }
}

void sim_preemptor_held(sim *s, job *j)
{
    (void)s;
    if (j->state == JOB_QUEUED)
        j->core_flags = (j->core_flags | JF_PLACED) & ~JF_WAITING;
}

void sim_job_placed(sim *s, job *j)
{
    if (j->state != JOB_QUEUED)
        return;
    sim_preemptor_held(s, j);
    if (!(j->core_flags & JF_CHARGED)) {
        sim_quota_charge(s->cl, j, +1);
        j->core_flags |= JF_CHARGED;
    }
}

static void ext_stopped(void *state, sim *s, job *j)
{
    sim_ext *x = state; /* ext_of(s), without the search */
    if (j->core_flags & JF_LISTED)
        list_del(x, j);
    j->core_flags &= ~JF_VICTIM; /* stopped by its eviction, or by someone else first */
    if ((j->core_flags & JF_CHARGED) && j->tenant_ix) /* no tenant: no quota to give back */
        sim_quota_charge(s->cl, j, -1);
    j->core_flags &= ~JF_CHARGED;
    if (j->state == JOB_DONE) {
        if (x->cls_shared)
            share_check(x, j);
        else
            sim_sketch_add(&class_of(x, j->req.priority)->jct_s, gs_us_to_s(s->now - j->req.submit_us));
    }
}

/* {==== preemption ====} */

/* checkpoint_gib if given, else params_b x ckpt_bytes_per_param, else none */
static double ckpt_bytes(const sim *s, const job *j)
{
    if (job_req_checkpoint_gib(j) >= 0)
        return job_req_checkpoint_gib(j) * 1073741824.0;
    if (job_req_params_b(j) > 0)
        return job_req_params_b(j) * 1e9 * ext_of(s)->bytes_per_param;
    return 0;
}

/* The victim's periodic resume point if it were stopped now: work left at
 * its latest durable periodic checkpoint (what it falls back to when the
 * write at preemption does not complete). Periodic checkpoints fall every checkpoint_every of
 * running since its latest start; the work done by then is interpolated
 * linearly over the run (exact at a constant rate, as on whole cards). A job
 * without a checkpoint size has no checkpoints and restarts from scratch. */
static double periodic_point_us(const sim *s, const job *j, bool *has_ckpt)
{
    const sim_ext *x = ext_of(s);
    double done_now = j->work_left_us - job_drain_rate(j) * (double)(s->now - j->rate_since_us);
    if (done_now < 0)
        done_now = 0;
    *has_ckpt = false;
    if (ckpt_bytes(s, j) <= 0)
        return (double)j->req.dur_us;
    const job_more *m = j->more; /* a victim: listed when it started */
    gs_time_us ran = s->now - m->run_since_us;
    double point = (j->core_flags & JF_HAS_CKPT) ? m->resume_work_us : (double)j->req.dur_us;
    *has_ckpt = (j->core_flags & JF_HAS_CKPT) != 0;
    if (x->ckpt_every_us > 0 && ran >= x->ckpt_every_us) {
        gs_time_us k_us = ran / x->ckpt_every_us * x->ckpt_every_us;
        point = m->run_start_work_us - (m->run_start_work_us - done_now) * ((double)k_us / (double)ran);
        *has_ckpt = true;
    }
    return point;
}

static double work_left_now_us(const sim *s, const job *j)
{
    double left = j->work_left_us - job_drain_rate(j) * (double)(s->now - j->rate_since_us);
    return left < 0 ? 0 : left;
}

/* Time to write `bytes` at the node's checkpoint bandwidth, held at 4e18 us
 * (127,000 years: a 10,000 GiB checkpoint at 1e-9 GB/s is 3e20 us, which
 * llround cannot return); the event it ends is range-checked against the
 * clock (sim_time_after). */
static gs_time_us write_time_us(const sim_ext *x, double bytes)
{
    double us = bytes / (x->write_gbps * 1e9) * 1e6;
    return us < 4e18 ? (gs_time_us)llround(us) : (gs_time_us)4e18;
}

/* Whether a write of write_us at preemption completes before the kill. */
static bool write_completes(const sim_ext *x, gs_time_us write_us)
{
    return x->write_limit_us < 0 || write_us <= x->write_limit_us;
}

/* What preempting j alone now would cost in GPU-time (per GPU, us): the
 * work it loses, the checkpoint write it holds its cards for (cut at
 * ckpt_write_limit) and the read-back on restart. A job whose write at
 * preemption completes loses nothing, so among such jobs the smallest
 * checkpoint goes first. */
static double preempt_cost_us(const sim *s, const job *j)
{
    const sim_ext *x = ext_of(s);
    double bytes = ckpt_bytes(s, j);
    gs_time_us w = write_time_us(x, bytes);
    bool has, done = bytes > 0 && write_completes(x, w);
    double point = done ? work_left_now_us(s, j) : periodic_point_us(s, j, &has);
    if (done)
        has = true;
    double lost = point - work_left_now_us(s, j);
    double write = bytes > 0 ? (double)(done ? w : x->write_limit_us) : 0;
    double read = has ? bytes / (x->read_gbps * 1e9) * 1e6 : 0;
    return (lost > 0 ? lost : 0) + write + read;
}

typedef struct cand {
    job *j;
    double cost; /* preempt_cost_us x GPUs */
} cand;

static int cand_cmp(const void *a, const void *b)
{
    const cand *p = a, *q = b;
    if (p->cost != q->cost)
        return p->cost < q->cost ? -1 : 1;
    if (p->j->req.priority != q->j->req.priority)
        return p->j->req.priority < q->j->req.priority ? -1 : 1;
    return p->j->arrival_no > q->j->arrival_no ? -1 : 1; /* the newest goes first */
}

static bool eligible(const sim *s, const job *v, const job *p)
{
    return !(v->core_flags & JF_VICTIM) && v->req.priority < p->req.priority && v->state == JOB_RUNNING &&
           s->now - v->more->run_since_us >= ext_of(s)->min_runtime_us;
}

/* {==== lower bounds per node ====}
 * A listed job's cost (preempt_cost_us x GPUs) never falls while it stays
 * listed, except where a cut write makes it a sawtooth:
 * - without a checkpoint size it is the work done since its latest start,
 *   which grows at its drain rate x GPUs (its slope, victim_slope) until
 *   the job ends;
 * - when its write at preemption completes it is the write and read-back
 *   times, fixed by its checkpoint size (slope 0);
 * - when that write is cut it is at least the write limit (plus lost work
 *   and read-back, both >= 0; slope 0).
 * So victim_bound() taken at t0 and rising at victim_slope() from there
 * bounds the job's cost at every later time, as long as the slope is told
 * again whenever the job's rate changes (ext_rate_changed). The least of the
 * jobs' lines over a node's listed jobs (eligible or not: a superset) bounds
 * the cost of any victim set there, a sum of costs >= 0 being at least each
 * of its terms; it rises at least at the least of their slopes, the node's
 * key in the heap (sim_node_bound.h: a line per node, in slope classes, so
 * the keys keep up with time without re-keying and a search finds the
 * nodes that may win, not nodes whose key went stale as work was done).
 * Jobs already chosen as victims are left out: a victim stays one until it
 * stops, and stopping takes it off the list. A job listed later brings the
 * node's line down; a job that leaves, or a cost that grew faster than the
 * line, leaves the line low (still a bound), and the search refreshes the
 * lines of the nodes it looks at (bound_now). */

/* How fast v's cost x GPUs rises while it runs listed (us per us). */
static double victim_slope(const sim *s, const job *v)
{
    if (ckpt_bytes(s, v) > 0 || !isfinite(v->work_left_us))
        return 0; /* fixed, or bounded by the fixed write limit */
    return job_drain_rate(v) * (v->req.gpus > 0 ? v->req.gpus : 1);
}

/* v's bound now; *slope: victim_slope. */
static double victim_bound(const sim *s, const sim_ext *x, const job *v, double *slope)
{
    double bytes = ckpt_bytes(s, v);
    double c = bytes > 0 && !write_completes(x, write_time_us(x, bytes)) ? (double)x->write_limit_us
                                                                          : preempt_cost_us(s, v);
    c *= v->req.gpus > 0 ? v->req.gpus : 1;
    *slope = victim_slope(s, v);
    /* margins: the rounding of a cost recomputed later from drained work
     * figures (relative 1e-16 per operation; costs are sums of those), of a
     * line's value (sim_node_bound.c keeps v - A x now: a few roundings of
     * A x now at most before a fresh value replaces it), and the last
     * microsecond of a job's work, where its work left stops at 0 before its
     * end event (its cost stops rising while its line goes on) */
    return c * (1 - 1e-9) - 1.0 - *slope * (2.0 + 1e-12 * (double)s->now);
}

/* j was listed on its node: the node's line comes down to j's. A node a
 * search has off the heap gets its line back when the search ends. */
static void bound_offer(sim *s, sim_ext *x, job *j)
{
    double slope, b = victim_bound(s, x, j, &slope);
    nb_lower(&x->bound, j->node, b, slope, (double)s->now);
}

/* Node n's key as of now: its listed jobs' least bound (INFINITY when it
 * lists none but victims), in *slope the least of their slopes, and in
 * *listed how many it lists; one walk of its list, which the plan walks
 * next. */
static double bound_now(const sim *s, const sim_ext *x, int n, size_t *listed, double *slope)
{
    double key = INFINITY, a = INFINITY;
    size_t k = 0;
    for (const job *v = x->node_run[n]; v; v = v->more->run_next, k++)
        if (!(v->core_flags & JF_VICTIM)) {
            double sl, b = victim_bound(s, x, v, &sl);
            key = b < key ? b : key;
            a = sl < a ? sl : a;
        }
    *listed = k;
    *slope = a == INFINITY ? 0 : a;
    return key;
}

/* {==== bounds that count cards (pol_space_index.cards_open) ====}
 * There a victim set on node n hosting a request of d cards holds at least
 * r = d - (cards open to it on n) cards: one job holding r or more, or at
 * least two jobs. So its cost is at least the least bound of a job holding
 * >= r cards, or the sum of the two least bounds, whichever is less (r <= 0:
 * the least bound). Keys use the open cards as of when they were set: room
 * taken since only raises the true bound; room given back lowers it, so the
 * nodes the ledger saw given something (sim_cluster_watch_gives) get their
 * keys again before each search. */

typedef struct node_look {
    size_t listed;          /* jobs the node lists */
    double b1, b2;          /* the two least bounds of its non-victims */
    double slope;           /* the least of their slopes: every key below rises at least so fast */
    int kmax;               /* the node's cards (at most DEM_MAX): no job holds more */
    double ge[DEM_MAX + 2]; /* [k], k <= kmax: least bound of a non-victim holding >= k cards */
    double gs[DEM_MAX + 2]; /* [k]: the least slope of those jobs */
} node_look;

static void look_node(const sim *s, const sim_ext *x, int n, node_look *o)
{
    o->listed = 0;
    o->b1 = o->b2 = INFINITY;
    double a = INFINITY;
    int kmax = s->cl->nodes[n].ngpus < DEM_MAX ? s->cl->nodes[n].ngpus : DEM_MAX;
    o->kmax = kmax;
    for (int k = 0; k <= kmax + 1; k++)
        o->ge[k] = o->gs[k] = INFINITY;
    for (const job *v = x->node_run[n]; v; v = v->more->run_next, o->listed++) {
        if (v->core_flags & JF_VICTIM)
            continue;
        double sl, b = victim_bound(s, x, v, &sl);
        a = sl < a ? sl : a;
        if (b < o->b1) {
            o->b2 = o->b1;
            o->b1 = b;
        } else if (b < o->b2) {
            o->b2 = b;
        }
        int g = v->ngpu_ids > kmax ? kmax : v->ngpu_ids;
        o->ge[g] = b < o->ge[g] ? b : o->ge[g];
        o->gs[g] = sl < o->gs[g] ? sl : o->gs[g];
    }
    for (int k = kmax - 1; k >= 0; k--) {
        o->ge[k] = o->ge[k + 1] < o->ge[k] ? o->ge[k + 1] : o->ge[k];
        o->gs[k] = o->gs[k + 1] < o->gs[k] ? o->gs[k + 1] : o->gs[k];
    }
    o->slope = a == INFINITY ? 0 : a;
}

/* Node n's key in class c's heap (INFINITY: no set there can host it), and
 * in *slope how fast it rises: a set of one job holding >= r cards rises as
 * the least of those jobs' slopes, a set of two or more at twice the least
 * slope at least. */
static double class_key(const sim *s, const node_look *o, const dem_class *c, int n, double *slope)
{
    *slope = o->slope;
    if (o->b1 == INFINITY)
        return INFINITY;
    int r = c->rep.req.gpus - s->pol[0]->space->index->cards_open(s->pst[0], s, &c->rep, n);
    if (r <= 0)
        return o->b1;
    double pair = o->b2 < INFINITY ? o->b1 + o->b2 : INFINITY;
    bool one = r <= o->kmax && o->ge[r] < INFINITY; /* some job holds r cards or more */
    *slope = one && o->gs[r] < 2 * o->slope ? o->gs[r] : 2 * o->slope;
    return !one || o->ge[r] > pair ? pair : o->ge[r];
}

/* Node n's keys in every class heap, lowered to the bounds as of now. */
static void demand_offer(const sim *s, sim_ext *x, int n)
{
    if (x->ndem == 0)
        return;
    node_look o;
    look_node(s, x, n, &o);
    for (int i = 0; i < x->ndem; i++) {
        double slope, key = class_key(s, &o, x->dem[i], n, &slope);
        if (key < INFINITY)
            nb_lower(&x->dem[i]->heap, n, key, slope, (double)s->now);
    }
}

static bool same_class(const job *a, const job *b)
{
    return a->req.gpus == b->req.gpus && a->req.gpumem_mib == b->req.gpumem_mib &&
           a->req.gpumem_pct == b->req.gpumem_pct && a->req.gpucores == b->req.gpucores;
}

/* p's class, made on first use with every node's key (O(nodes + jobs
 * listed)), after the nodes given something back got theirs again in the
 * classes already made; NULL when there are DEM_CLASSES already. */
static dem_class *demand_class(const sim *s, sim_ext *x, const job *p)
{
    sim_cluster *cl = s->cl;
    for (int i = 0; i < cl->ngiven; i++)
        if (x->node_run[cl->given[i]])
            demand_offer(s, x, cl->given[i]);
    sim_cluster_given_clear(cl);
    for (int i = 0; i < x->ndem; i++)
        if (same_class(&x->dem[i]->rep, p))
            return x->dem[i];
    if (x->ndem == DEM_CLASSES)
        return NULL;
    dem_class *c = xmalloc(sizeof *c);
    c->rep = *p;
    c->rep.more = NULL; /* the copy outlives p: no pointer into p's state */
    nb_init(&c->heap, cl->nnodes);
    node_look o;
    for (int n = 0; n < cl->nnodes; n++) {
        if (!x->node_run[n])
            continue;
        look_node(s, x, n, &o);
        double slope, key = class_key(s, &o, c, n, &slope);
        if (key < INFINITY)
            nb_lower(&c->heap, n, key, slope, (double)s->now);
    }
    x->dem[x->ndem++] = c;
    return c;
}

/* Node n's keys in every heap as of now, the node's victims left out
 * (after a commit: keys taken with them would bring the next search back to
 * n for nothing). O(listed jobs + heaps x log nodes). */
static void rekey_node(const sim *s, sim_ext *x, int n)
{
    size_t cnt;
    double slope, now = (double)s->now, key = bound_now(s, x, n, &cnt, &slope);
    if (key < INFINITY)
        nb_set(&x->bound, n, key, slope, now);
    else
        nb_remove(&x->bound, n);
    if (x->ndem == 0)
        return;
    node_look o;
    look_node(s, x, n, &o);
    for (int i = 0; i < x->ndem; i++) {
        key = class_key(s, &o, x->dem[i], n, &slope);
        if (key < INFINITY)
            nb_set(&x->dem[i]->heap, n, key, slope, now);
        else
            nb_remove(&x->dem[i]->heap, n);
    }
}

/* Whether some listed job has a priority below p's: else no node has a
 * victim for p (O(priority classes)). */
static bool any_lower_listed(const sim_ext *x, const job *p)
{
    for (int i = x->ncls - 1; i >= 0 && x->cls[i].priority < p->req.priority; i--)
        if (x->cls[i].listed)
            return true;
    return false;
}

/* Best victim set on node n for p into out (returns its size, 0: none);
 * *cost its lost work. Cost: O(k log k) for the k preemptible jobs running
 * on n, plus up to 2k dry runs of the space policy. */
static int plan_node(sim *s, job *p, int n, job **out, double *cost, cand **buf, size_t *cap)
{
    sim_ext *x = ext_of(s);
    size_t k = 0;
    for (job *v = x->node_run[n]; v; v = v->more->run_next) {
        if (!eligible(s, v, p))
            continue;
        if (k == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            *buf = xrealloc(*buf, *cap * sizeof **buf);
        }
        (*buf)[k++] = (cand){v, preempt_cost_us(s, v) * (v->req.gpus > 0 ? v->req.gpus : 1)};
    }
    if (k == 0)
        return 0;
    qsort(*buf, k, sizeof **buf, cand_cmp);
    const pol_ops *sp = s->pol[0];
    int nv = 0;
    bool fits = false;
    for (size_t i = 0; i < k && !fits; i++) {
        out[nv++] = (*buf)[i].j;
        fits = sp->space->fits_if_released(s->pst[0], s, p, n, out, nv);
    }
    if (!fits)
        return 0;
    /* drop victims that are not needed after all, costliest first */
    for (int i = nv - 1; i >= 0 && nv > 1; i--) {
        job *keep = out[i];
        out[i] = out[nv - 1];
        if (sp->space->fits_if_released(s->pst[0], s, p, n, out, nv - 1)) {
            nv--;
        } else {
            out[nv - 1] = out[i];
            out[i] = keep;
        }
    }
    *cost = 0;
    for (int i = 0; i < nv; i++)
        *cost += preempt_cost_us(s, out[i]) * (out[i]->req.gpus > 0 ? out[i]->req.gpus : 1);
    return nv;
}

static void commit(sim *s, job *p, int node, job **v, int nv)
{
    sim_ext *x = ext_of(s);
    if (x->nfree == 0) { /* all slots pending: twice as many (the event names a slot, not its address) */
        int old = x->nops;
        x->nops = old ? 2 * old : 8;
        x->ops = xrealloc(x->ops, (size_t)x->nops * sizeof *x->ops);
        memset(&x->ops[old], 0, (size_t)(x->nops - old) * sizeof *x->ops);
        x->free_ops = xrealloc(x->free_ops, (size_t)x->nops * sizeof *x->free_ops);
        for (int i = x->nops - 1; i >= old; i--)
            x->free_ops[x->nfree++] = i;
    }
    int oi = x->free_ops[--x->nfree];
    pre_op *op = &x->ops[oi];
    op->p = p;
    op->p_gen = p->gen;
    op->nv = nv;
    op->v = xrealloc(op->v, (size_t)nv * sizeof *op->v);
    op->v_gen = xrealloc(op->v_gen, (size_t)nv * sizeof *op->v_gen);
    /* the victims on the node write together through its bandwidth: the
     * write completes for all of them or is cut for all of them */
    double bytes = 0;
    for (int i = 0; i < nv; i++)
        bytes += ckpt_bytes(s, v[i]);
    gs_time_us write_us = write_time_us(x, bytes);
    bool done = write_completes(x, write_us);
    if (!done)
        write_us = x->write_limit_us; /* killed at the limit; the partial write is worthless */
    for (int i = 0; i < nv; i++) {
        bool has;
        double vb = ckpt_bytes(s, v[i]);
        op->v[i] = v[i];
        op->v_gen[i] = v[i]->gen;
        double point = periodic_point_us(s, v[i], &has);
        v[i]->core_flags |= JF_VICTIM; /* first: a victim's rate is no node bound's (ext_rate_changed) */
        sim_job_set_rate(s, v[i], 0); /* stops to write: no progress while it holds on */
        if (vb > 0 && done) { /* the write at preemption is the resume point */
            point = v[i]->work_left_us;
            has = true;
        }
        sim_job_more(v[i])->resume_work_us = point;
        if (has)
            v[i]->core_flags |= JF_HAS_CKPT;
        else
            v[i]->core_flags &= ~JF_HAS_CKPT;
        double g = v[i]->req.gpus;
        if (vb > 0) {
            x->write_gpu_s += g * gs_us_to_s(write_us);
            sim_sketch_add(&x->ckpt_gb, vb / 1e9);
            if (done) {
                x->writes_done++;
                x->written_gb += vb / 1e9;
            } else {
                x->writes_cut++;
            }
        }
        x->hold_gpu_s += g * gs_us_to_s(write_us + x->grace_us);
    }
    if (bytes > 0)
        sim_sketch_add(&x->write_s, gs_us_to_s(write_us));
    (void)node;
    p->core_flags |= JF_PREEMPTOR;
    sim_job_more(p)->pre_wait_since_us = s->now;
    x->decisions++;
    /* a write held at write_time_us's cap is past the clock: the check below refuses it with its real length */
    double wait_us = (double)x->grace_us + (write_us < (gs_time_us)4e18 ? (double)write_us
                                                                         : bytes / (x->write_gbps * 1e9) * 1e6);
    gs_time_us at;
    if (!gs_time_add(s->now, wait_us, &at)) {
        char cause[160];
        snprintf(cause, sizeof cause, "the checkpoint write of %.6g GB at ckpt_write_gbps %g for its preemption",
                 bytes / 1e9, x->write_gbps);
        at = sim_time_after(s, wait_us, p->req.id, cause);
    }
    core_timer(s, NULL, at, TAG_OP << 24 | (uint32_t)oi);
}

/* Tries to preempt for queued job p on node only_node (-1: every node).
 * The winner is the least (cost, victims, node id). Over every node, nodes
 * come off the bound heap least key (as of now) first; a node's first time
 * off in a search takes its key as of now, and one whose key was stale goes
 * back by it (so it is planned only if it may still win); nodes are planned
 * until the next key exceeds the best cost found (no node left can beat or
 * tie it), then go back with fresh keys, and the winner's keys are taken
 * again without its victims: O(m (log nodes + NB_SLOPES)) for the m nodes
 * looked at plus plan_node for those planned; every node with listed jobs
 * when none can host p. Keys rise with time as the work the victims would
 * lose does, so m stays near the nodes planned whatever the cluster's size
 * (nodes off the heap per search on the bench's preemption trace under
 * whole: 1.4 at 1,024 GPUs, 1.6 at 65,536; with keys fixed when set, gone
 * stale as work was done: 5.5 and 15.8). */
static bool try_preempt(sim *s, job *p, int only_node)
{
    sim_ext *x = ext_of(s);
    if (!x->preempt || p->state != JOB_QUEUED || (p->core_flags & (JF_PREEMPTOR | JF_PLACED)) || x->nlisted == 0 ||
        !any_lower_listed(x, p))
        return false;
    uint64_t pools = sim_quota_pools(s->cl, p, false); /* preemption never lifts a quota */
    if (!pools)
        return false;
    int best_n = -1, best_nv = 0, lo = only_node >= 0 ? only_node : 0;
    int hi = only_node >= 0 ? only_node + 1 : s->cl->nnodes;
    double best_cost = 0;
    size_t cap = 0, vcap = 16;
    cand *buf = NULL;
    job **cur = xmalloc(vcap * sizeof *cur), **best = xmalloc(vcap * sizeof *best);
    bool by_bound = only_node < 0 && !x->plain_scan;
    dem_class *dc = by_bound && x->cards_fit && p->req.gpus >= 1 ? demand_class(s, x, p) : NULL;
    nb_heap *heap = dc ? &dc->heap : &x->bound;
    int nlooked = 0;
    double now = (double)s->now;
    if (by_bound)
        x->searches++;
    if (by_bound && ++x->search == 0) { /* wrapped: no node may look seen */
        for (int i = 0; i < s->cl->nnodes; i++)
            x->fresh[i].seen = 0;
        x->search = 1;
    }
    for (int it = lo; by_bound || it < hi; it++) {
        int n = it;
        size_t cnt = 0;
        if (by_bound) {
            double key;
            if (nb_top(heap, now, &key) < 0 || (best_n >= 0 && key > best_cost))
                break; /* every node left costs more than the best */
            n = nb_pop(heap, now);
            x->looks++;
            node_fresh *f = &x->fresh[n];
            if (f->seen != x->search) { /* first time this search: its key as of now */
                double fresh, slope;
                f->seen = x->search;
                if (heap == &x->bound) {
                    fresh = bound_now(s, x, n, &cnt, &slope);
                } else {
                    node_look o;
                    look_node(s, x, n, &o);
                    cnt = o.listed;
                    fresh = class_key(s, &o, dc, n, &slope);
                }
                f->key = fresh;
                f->slope = slope;
                f->cnt = (uint32_t)cnt;
                if (fresh == INFINITY)
                    continue; /* no set there can host p: out until a job is listed or room comes back */
                if (fresh > key) { /* the key was stale: back in by the fresh one, planned only if it may still win */
                    nb_lower(heap, n, fresh, slope, now);
                    continue;
                }
            }
            cnt = f->cnt;
            x->looked[nlooked] = n;
            x->looked_slope[nlooked] = f->slope;
            x->looked_key[nlooked++] = f->key; /* back in when the search ends */
        } else {
            for (job *v = x->node_run[n]; v; v = v->more->run_next)
                cnt++;
        }
        if (!(pools >> s->cl->nodes[n].pool & 1) || !cnt)
            continue;
        if (only_node < 0)
            x->planned++;
        if (cnt > vcap) {
            vcap = cnt;
            cur = xrealloc(cur, vcap * sizeof *cur);
            best = xrealloc(best, vcap * sizeof *best);
        }
        double cost;
        int nv = plan_node(s, p, n, cur, &cost, &buf, &cap);
        if (nv > 0 && (best_n < 0 || cost < best_cost ||
                       (cost == best_cost && (nv < best_nv || (nv == best_nv && n < best_n))))) {
            best_n = n;
            best_nv = nv;
            best_cost = cost;
            memcpy(best, cur, (size_t)nv * sizeof *best);
        }
    }
    for (int i = 0; i < nlooked; i++) /* costs do not change within this call: keys as of now */
        if (x->looked_key[i] < INFINITY)
            nb_lower(heap, x->looked[i], x->looked_key[i], x->looked_slope[i], now);
    if (best_n >= 0) {
        commit(s, p, best_n, best, best_nv);
        rekey_node(s, x, best_n);
    }
    free(buf);
    free(cur);
    free(best);
    return best_n >= 0;
}

void sim_preempt_search(sim *s, int how)
{
    sim_ext *x = ext_of(s);
    x->plain_scan = how == SIM_PREEMPT_SCAN;
    if (how != SIM_PREEMPT_CARDS)
        x->cards_fit = false; /* the ledger may go on listing gives: nobody reads them */
}

uint64_t sim_preempt_nodes_planned(const sim *s) { return ext_of(s)->planned; }

uint64_t sim_preempt_nodes_looked(const sim *s, uint64_t *searches)
{
    const sim_ext *x = ext_of(s);
    if (searches)
        *searches = x->searches;
    return x->looks;
}

/* A listed job's rate changed: its line now rises slower or faster. Slower:
 * the node's lines come down to its class in every heap (a line that rose
 * faster than the job's cost would pass it); faster: the lines stay (still
 * bounds), and a search's refresh takes the steeper slope. Victims are no
 * node's bound. O(heaps x log nodes) when a class falls, else O(heaps). */
static void ext_rate_changed(void *state, sim *s, job *j)
{
    sim_ext *x = state; /* ext_of(s), without the search */
    if (!(j->core_flags & JF_LISTED) || (j->core_flags & JF_VICTIM))
        return;
    double slope = victim_slope(s, j), now = (double)s->now;
    nb_slow(&x->bound, j->node, slope, now);
    for (int i = 0; i < x->ndem; i++)
        nb_slow(&x->dem[i]->heap, j->node, slope, now);
}

static void ext_after_arrive(void *state, sim *s, job *j)
{
    sim_ext *x = state; /* ext_of(s), without the search */
    if (!x->preempt || j->state != JOB_QUEUED || (j->core_flags & JF_PLACED))
        return; /* JF_PLACED: the policy starts it later (dynmig creation) */
    if (!try_preempt(s, j, -1))
        ws_add(&x->wait, j);
}

/* Running job v reached min_runtime: the waiting requests that outrank it
 * may now preempt it (on its node only; nothing else changed). Heads are
 * tried best rank first; a head that fails closes its shape class for this
 * event. Cost O(shapes) per try plus one plan per try; tries <= shapes +
 * successes. */
static void on_eligible(sim *s, job *v)
{
    sim_ext *x = ext_of(s);
    if (v->state != JOB_RUNNING || !(v->core_flags & JF_LISTED) || s->now - v->more->run_since_us < x->min_runtime_us)
        return; /* an event from an earlier run of this job */
    for (int i = 0; i < x->wait.n; i++)
        x->wait.c[i].failed = false;
    while ((v->core_flags & JF_LISTED) && !(v->core_flags & JF_VICTIM)) {
        ws_class *best = NULL;
        job *bj = NULL;
        for (int i = 0; i < x->wait.n; i++) {
            job *h = x->wait.c[i].failed ? NULL : ws_head(&x->wait.c[i]);
            if (h && h->req.priority > v->req.priority && (!bj || ws_ranks_before(h, bj))) {
                best = &x->wait.c[i];
                bj = h;
            }
        }
        if (!best)
            return;
        if (try_preempt(s, bj, v->node)) {
            bj->core_flags &= ~JF_WAITING;
            ws_pop(best);
        } else {
            best->failed = true;
        }
    }
}

static void on_op(sim *s, uint32_t oi)
{
    sim_ext *x = ext_of(s);
    /* copy out and free the slot first: resuming victims may start new
     * preemptions, which reuse slots and move the array */
    pre_op op = x->ops[oi];
    job **v = xmalloc((size_t)op.nv * sizeof *v);
    memcpy(v, op.v, (size_t)op.nv * sizeof *v);
    x->ops[oi].p = NULL;
    x->free_ops[x->nfree++] = (int)oi;
    job *p = op.p;
    /* p may have found room elsewhere meanwhile: started, or placed by a
     * policy that starts it by itself later (JF_PLACED: dynmig creating its
     * instances). Either way it no longer waits for these victims, and
     * handing it their room would place it a second time. */
    bool p_waits = p->gen == op.p_gen && p->state == JOB_QUEUED && (p->core_flags & JF_PREEMPTOR) &&
                   !(p->core_flags & JF_PLACED);
    sim_hand_over_begin(s, p_waits ? p : NULL);
    int nv = 0;
    for (int i = 0; i < op.nv; i++) {
        job *vi = v[i];
        if (vi->gen != op.v_gen[i] || vi->state != JOB_RUNNING || !(vi->core_flags & JF_VICTIM))
            continue; /* stopped meanwhile (killed or suspended by a policy) */
        bool has = (vi->core_flags & JF_HAS_CKPT) != 0;
        double g = vi->req.gpus;
        x->lost_gpu_s += g * (vi->more->resume_work_us - vi->work_left_us) / 1e6;
        x->preemptions++;
        if (!has)
            x->lost_all++;
        sim_job_suspend(s, vi);
        double read_us = has ? ckpt_bytes(s, vi) / (x->read_gbps * 1e9) * 1e6 : 0;
        vi->work_left_us = vi->more->resume_work_us + read_us;
        x->read_gpu_s += g * read_us / 1e6;
        vi->more->preemptions++;
        v[nv++] = vi;
    }
    sim_hand_over_end(s);
    sim_dispatch(s);
    if (p_waits && p->state == JOB_QUEUED && !(p->core_flags & JF_PLACED)) { /* its room went elsewhere (a rare
                                                                                 * race): it may try again */
        x->misses++;
        p->core_flags &= ~JF_PREEMPTOR;
        ws_add(&x->wait, p);
    }
    for (int i = 0; i < nv; i++) { /* suspended jobs cannot end, so v[] is still valid */
        v[i]->core_flags &= ~JF_VICTIM;
        sim_job_resume(s, v[i]); /* back to the space policy; it may preempt in turn */
    }
    free(v);
}

static bool ext_event_live(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)state;
    (void)aux;
    return slot == SIM_NO_SLOT || sim_job_at(s, slot, gen) != NULL;
}

static void ext_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)state;
    job *j = sim_job_at(s, slot, gen);
    uint32_t tag = aux >> 24, arg = aux & 0xffffffu;
    if (tag == TAG_OP)
        on_op(s, arg);
    else if (tag == TAG_ELIGIBLE && j)
        on_eligible(s, j);
}

/* {==== report ====} */

static void ext_report(const void *state, const sim *s, cJSON *root, int section)
{
    const sim_ext *x = state;
    if (section != SIM_REPORT_JOBS)
        return;
    cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
    cJSON *bp = cJSON_AddArrayToObject(jobs, "by_priority");
    for (int i = 0; i < x->ncls; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddNumberToObject(c, "priority", x->cls[i].priority);
        cJSON_AddNumberToObject(c, "arrivals", (double)x->cls[i].arrived);
        sim_report_add_stats(c, "queue_s", x->cls_shared ? &s->queue_s : &x->cls[i].queue_s);
        sim_report_add_stats(c, "jct_s", x->cls_shared ? &s->jct_s : &x->cls[i].jct_s);
        cJSON_AddItemToArray(bp, c);
    }
    cJSON *pr = cJSON_AddObjectToObject(root, "preemption");
    cJSON_AddBoolToObject(pr, "enabled", x->preempt);
    cJSON_AddNumberToObject(pr, "preemptions", (double)x->preemptions);
    cJSON_AddNumberToObject(pr, "decisions", (double)x->decisions);
    cJSON_AddNumberToObject(pr, "restarts_from_scratch", (double)x->lost_all);
    cJSON_AddNumberToObject(pr, "preemptor_misses", (double)x->misses);
    cJSON_AddNumberToObject(pr, "lost_gpu_hours", x->lost_gpu_s / 3600.0);
    cJSON_AddNumberToObject(pr, "checkpoint_write_gpu_hours", x->write_gpu_s / 3600.0);
    cJSON_AddNumberToObject(pr, "eviction_hold_gpu_hours", x->hold_gpu_s / 3600.0);
    cJSON_AddNumberToObject(pr, "checkpoint_read_gpu_hours", x->read_gpu_s / 3600.0);
    sim_report_add_stats(pr, "preemptor_wait_s", &x->wait_s);
    /* the checkpoint writes at preemption: sizes per victim, durations per
     * decision (victims on one node write together), and how many completed */
    cJSON_AddNumberToObject(pr, "min_runtime_s", gs_us_to_s(x->min_runtime_us));
    cJSON_AddNumberToObject(pr, "checkpoint_writes_completed", (double)x->writes_done);
    cJSON_AddNumberToObject(pr, "checkpoint_writes_cut", (double)x->writes_cut);
    cJSON_AddNumberToObject(pr, "checkpoint_written_gb", x->written_gb);
    sim_report_add_stats(pr, "checkpoint_gb", &x->ckpt_gb);
    sim_report_add_stats(pr, "checkpoint_write_s", &x->write_s);
    sim_quota_report(s->cl, root);
}

const sim_module preempt_module = {
    .name = "priorities, quotas and preemption",
    .params = preempt_params,
    .init = ext_init,
    .fini = ext_free,
    .admit = ext_admit,
    .narrow_pools = ext_narrow,
    .arrived = ext_after_arrive,
    .started = ext_started,
    .stopped = ext_stopped,
    .rate_changed = ext_rate_changed,
    .event_live = ext_event_live,
    .event = ext_event,
    .report = ext_report,
};
