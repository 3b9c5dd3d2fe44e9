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
 * request would fit; victims that turn out unnecessary are dropped again
 * (sim_ckpt.c). The node whose set loses least wins (ties: fewer victims,
 * lower node id): the scan of every node, found faster through lower bounds
 * per node (sim_victims.c).
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
#include "sim_preempt_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_quota.h"

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

static sim_ext *ext_of(const sim *s) { return sim_module_state(s, &preempt_module); }

/* An event of this layer at at_us (>= now) for j (NULL: none; dropped if j
 * ends first), delivered to ext_event with aux (tag << 24 | arg). */
static void core_timer(sim *s, job *j, gs_time_us at_us, uint32_t aux)
{
    sim_module_event(s, ext_of(s)->index, at_us, j ? j->slot : SIM_NO_SLOT, j ? j->gen : 0, aux);
}

/* sim_ext.quiet, again after any of its terms changed: the start and stop
 * hooks dropped while it holds, back once it does not (they hold nothing
 * of the jobs started without them: no class of their own, no list, no
 * charge) */
static void quiet_now(sim *s, sim_ext *x)
{
    bool quiet = x->cls_shared && !x->preempt && !x->track_runs && !x->placed_seen &&
                 (!x->cl->quota || x->cl->quota->n == 0);
    if (quiet == x->quiet)
        return;
    x->quiet = quiet;
    if (quiet)
        sim_module_skip(s, x->index, SIM_HOOK_STARTED | SIM_HOOK_STOPPED);
    else
        sim_module_unskip(s, x->index, SIM_HOOK_STARTED | SIM_HOOK_STOPPED);
}

static int ext_init(sim *s, int index, void **state, gs_error *err)
{
    sim_ext *x = xcalloc(1, sizeof *x);
    *state = x;
    x->index = index;
    sim_sketch_init(&x->wait_s);
    sim_sketch_init(&x->write_s);
    sim_sketch_init(&x->ckpt_gb);
    /* typed and range-checked by the core (preempt_params) */
    x->preempt = sim_param_on(s, "preempt");
    x->min_runtime_us = (gs_time_us)llround(sim_param_number(s, "min_runtime") * 1e6);
    x->ckpt_every_us = (gs_time_us)llround(sim_param_number(s, "checkpoint_every") * 1e6);
    x->grace_us = (gs_time_us)llround(sim_param_number(s, "grace_period") * 1e6);
    x->write_gbps = sim_param_number(s, "ckpt_write_gbps");
    x->read_gbps = sim_param_number(s, "ckpt_read_gbps");
    x->bytes_per_param = sim_param_number(s, "ckpt_bytes_per_param");
    x->write_limit_us = -1;
    if (sim_param_choice(s, "ckpt_write_limit") < 0) /* a number, not "none" */
        x->write_limit_us = (gs_time_us)llround(sim_param_number(s, "ckpt_write_limit") * 1e6);
    if (sim_param_choice(s, "protect_priority") < 0) {
        x->protect_priority = (long)sim_param_int(s, "protect_priority");
        x->protect = true;
    }
    x->cl = sim_cluster_of(s);
    const pol_ops *sp = sim_policy_at(s, 0);
    bool admit = (sp->space->caps & POL_CAP_ADMIT) != 0;
    if (x->preempt && (!admit || !sp->space->fits_if_released))
        return gs_err(err, GS_EUSAGE, "--set preempt=on: space policy '%s' does not support preemption "
                      "(see policies/README.md)", sp->name);
    if (x->cl->quota && x->cl->quota->n && !admit)
        return gs_err(err, GS_EUSAGE, "the cluster sets tenant quotas but space policy '%s' does not enforce "
                      "them (see policies/README.md)", sp->name);
    if (x->preempt) {
        x->node_run = xcalloc((size_t)x->cl->nnodes + 1, sizeof *x->node_run);
        sim_victims_init(s, x);
    }
    if (x->cl->quota) /* usage starts from zero in every run */
        sim_quota_reset(x->cl->quota);
    x->cls_shared = sim_npolicies(s) == 1;
    quiet_now(s, x);
    /* hooks that change nothing in this run, dropped: without preemption a
     * request left queued looks for no victims (ext_after_arrive); without
     * tenants no job has one, and ext_narrow gives back its pools (when no
     * module before it narrowed them; one after it is handed the same) */
    if (!x->preempt)
        sim_module_skip(s, index, SIM_HOOK_ARRIVED);
    if ((!x->cl->quota || x->cl->quota->n == 0) && sim_module_narrows_first(s, index))
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
    if (x->preempt)
        sim_victims_free(x);
    sim_waitset_free(&x->wait);
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

static sim_tenant *tenant_of(const sim *s, const job *j) { return sim_quota_tenant(sim_cluster_of(s), j); }

/* The module's part of sim_admit_pools: the tenant's quota. */
static uint64_t ext_narrow(void *state, sim *s, job *j, uint64_t pools_in)
{
    (void)state;
    (void)pools_in; /* j->pools: the hand-over already passed it */
    if (!j->tenant_ix) /* no quota: what sim_quota_pools answers, without the call */
        return j->pools;
    uint64_t pools = sim_quota_pools(sim_cluster_of(s), j, false);
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
        sim_sketch_copy(&x->cls[0].queue_s, sim_queue_s_sketch(s));
        sim_sketch_copy(&x->cls[0].jct_s, sim_jct_s_sketch(s));
    }
    x->cls_shared = false;
    quiet_now(s, x);
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
    j->tenant_ix = x->cl->quota ? sim_quota_find(x->cl->quota, j->req.tenant) : 0;
    if (!j->tenant_ix)
        return true;
    sim_tenant *t = tenant_of(s, j);
    t->arrived++;
    j->pools = sim_quota_pools(sim_cluster_of(s), j, true);
    if (j->pools == 0) {
        t->rejected++;
        return false;
    }
    return true;
}

/* {==== running jobs per node ====} */


/* j into the list of each node it runs on; it counts once. Out of line:
 * the stop and start hooks' common path stays without its loop. */
static __attribute__((noinline)) void list_add(sim *s, sim_ext *x, job *j)
{
    sim_job_more_kept(s, j);
    for (int i = 0; i < vic_nodes(j); i++) {
        int n = vic_node(j, i);
        job **head = &x->node_run[n];
        *vic_prev(j, n) = NULL;
        *vic_nextp(j, n) = *head;
        if (*head)
            *vic_prev(*head, n) = j;
        *head = j;
    }
    j->core_flags |= JF_LISTED;
    x->nlisted++;
    class_of(x, j->req.priority)->listed++;
    sim_victims_listed(s, x, j);
}

static __attribute__((noinline)) void list_del(sim_ext *x, job *j)
{
    for (int i = 0; i < vic_nodes(j); i++) {
        int n = vic_node(j, i);
        job *prev = *vic_prev(j, n), *next = *vic_nextp(j, n);
        if (prev)
            *vic_nextp(prev, n) = next;
        else
            x->node_run[n] = next;
        if (next)
            *vic_prev(next, n) = prev;
        *vic_prev(j, n) = *vic_nextp(j, n) = NULL;
    }
    j->core_flags &= ~JF_LISTED;
    x->nlisted--;
    class_of(x, j->req.priority)->listed--;
}

static void ext_started(void *state, sim *s, job *j)
{
    sim_ext *x = state; /* ext_of(s), without the search */
    if (j->starts == 1) {
        double q_s = gs_us_to_s(sim_now(s) - j->req.submit_us);
        if (x->cls_shared)
            share_check(x, j);
        else
            sim_sketch_add(&class_of(x, j->req.priority)->queue_s, q_s);
        if (j->core_flags & JF_QBLOCKED)
            sim_sketch_add(&tenant_of(s, j)->blocked_queue_s, q_s);
    }
    if (j->core_flags & JF_PREEMPTOR) {
        sim_sketch_add(&x->wait_s, gs_us_to_s(sim_now(s) - j->more->pre_wait_since_us));
        j->core_flags &= ~JF_PREEMPTOR;
    }
    j->core_flags &= ~(JF_WAITING | JF_PLACED); /* its wait-list entry is dropped lazily */
    if (!(j->core_flags & JF_CHARGED) && j->tenant_ix) /* else charged when placed (sim_job_placed); no tenant: no quota */
        sim_quota_charge(sim_cluster_of(s), j, +1);
    j->core_flags |= JF_CHARGED;
    bool listed = x->preempt && j->req.preemptible && j->node >= 0 &&
                  !(x->protect && j->req.priority >= x->protect_priority) &&
                  (!j->req.spans || (sim_policy_at(s, 0)->space->caps & POL_CAP_WHOLE));
    if (listed || x->track_runs) {
        job_more *m = sim_job_more_kept(s, j); /* only jobs that may become victims (or be interrupted) keep these */
        m->run_since_us = sim_now(s);
        m->run_start_work_us = j->work_left_us;
    }
    if (listed) {
        list_add(s, x, j);
        core_timer(s, j, sim_now(s) + x->min_runtime_us, TAG_ELIGIBLE << 24);
    }
}

void sim_preempt_track_runs(sim *s)
{
    sim_ext *x = ext_of(s);
    x->track_runs = true;
    quiet_now(s, x);
}

void sim_preempt_ckpt_by_events(sim *s) { ext_of(s)->ckpt_events = true; }

void sim_job_ckpt_commit(sim *s, job *j)
{
    if (j->state != JOB_RUNNING || !j->more)
        GS_BUG("sim_job_ckpt_commit: not a running job whose start was kept");
    j->more->resume_work_us = j->work_left_us - job_drain_rate(j) * (double)(sim_now(s) - j->rate_since_us);
    if (j->more->resume_work_us < 0)
        j->more->resume_work_us = 0;
    j->core_flags |= JF_HAS_CKPT;
}

void sim_job_ckpt_costs(const sim *s, const job *j, gs_time_us *every_us, gs_time_us *write_us)
{
    const sim_ext *x = ext_of(s);
    double bytes = x->ckpt_every_us > 0 ? sim_ckpt_bytes(x, j) : 0;
    *every_us = bytes > 0 ? x->ckpt_every_us : 0;
    *write_us = bytes > 0 ? sim_ckpt_write_us(x, bytes * sim_ckpt_shard(s, j)) : 0;
}

void sim_job_interrupt(sim *s, job *j, const sim_node_why *why)
{
    sim_ext *x = ext_of(s);
    if (j->state != JOB_RUNNING || j->internal || !j->more)
        GS_BUG("sim_job_interrupt: not a running trace job whose start was kept (sim_preempt_track_runs)");
    bool has;
    double point = sim_ckpt_periodic_point_us(s, x, j, &has);
    double left = j->work_left_us - job_drain_rate(j) * (double)(sim_now(s) - j->rate_since_us), g = j->req.gpus;
    double read_us = has ? sim_ckpt_bytes(x, j) * sim_ckpt_shard(s, j) / (x->read_gbps * 1e9) * 1e6 : 0;
    sim_count_interruption(s, g * (point - (left > 0 ? left : 0)) / 1e6, g * read_us / 1e6);
    j->more->interruptions++;
    if (why && why->tally) {
        double lost_us = point - (left > 0 ? left : 0); /* < 0 while it was still starting up */
        why->tally->jobs++;
        why->tally->lost_gpu_s += lost_us > 0 ? g * lost_us / 1e6 / (j->speed > 0 ? j->speed : 1) : 0;
    }
    sim_job_suspend(s, j);
    j->more->resume_work_us = point;
    if (has)
        j->core_flags |= JF_HAS_CKPT;
    else
        j->core_flags &= ~JF_HAS_CKPT;
    j->work_left_us = point + read_us + (why ? (double)why->restart_us : 0);
    sim_job_resume(s, j); /* requeued: it may start at once elsewhere */
}

gs_time_us sim_job_ckpt_write_us(const sim *s, const job *j)
{
    const sim_ext *x = ext_of((sim *)s);
    double bytes = sim_ckpt_bytes(x, j) * sim_ckpt_shard(s, j);
    return bytes > 0 ? sim_ckpt_write_us(x, bytes) : -1;
}

void sim_job_interrupt_saved(sim *s, job *j)
{
    sim_ext *x = ext_of(s);
    if (j->state != JOB_RUNNING || j->internal || !j->more)
        GS_BUG("sim_job_interrupt_saved: not a running trace job whose start was kept");
    double left = j->work_left_us - job_drain_rate(j) * (double)(sim_now(s) - j->rate_since_us);
    double bytes = sim_ckpt_bytes(x, j) * sim_ckpt_shard(s, j);
    double read_us = bytes / (x->read_gbps * 1e9) * 1e6;
    sim_count_interruption(s, 0, j->req.gpus * read_us / 1e6);
    j->more->interruptions++;
    sim_job_suspend(s, j);
    j->more->resume_work_us = left > 0 ? left : 0;
    j->core_flags |= JF_HAS_CKPT;
    j->work_left_us = j->more->resume_work_us + read_us;
    sim_job_resume(s, j);
}

void sim_preemptor_held(sim *s, job *j)
{
    if (j->state != JOB_QUEUED)
        return;
    j->core_flags = (j->core_flags | JF_PLACED) & ~JF_WAITING;
    sim_ext *x = ext_of(s);
    if (x && !x->placed_seen) { /* ext_started clears the flag from now on */
        x->placed_seen = true;
        quiet_now(s, x);
    }
}

void sim_job_placed(sim *s, job *j)
{
    if (j->state != JOB_QUEUED)
        return;
    sim_preemptor_held(s, j);
    if (!(j->core_flags & JF_CHARGED)) {
        sim_quota_charge(sim_cluster_of(s), j, +1);
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
        sim_quota_charge(sim_cluster_of(s), j, -1);
    j->core_flags &= ~JF_CHARGED;
    if (j->state == JOB_DONE) {
        if (x->cls_shared)
            share_check(x, j);
        else
            sim_sketch_add(&class_of(x, j->req.priority)->jct_s, gs_us_to_s(sim_now(s) - j->req.submit_us));
    }
}

/* {==== preemption ====} */

/* Whether some listed job has a priority below p's: else no node has a
 * victim for p (O(priority classes)). */
static bool any_lower_listed(const sim_ext *x, const job *p)
{
    for (int i = x->ncls - 1; i >= 0 && x->cls[i].priority < p->req.priority; i--)
        if (x->cls[i].listed)
            return true;
    return false;
}

/* The most checkpoint bytes one node writes for victims v[0..nv): a
 * victim on one node writes all of its own there, one across nodes a shard
 * on each (its GPUs there of its GPUs). O(victims x parts). */
static double decision_bytes(const sim_ext *x, job **v, int nv)
{
    bool one = true;
    for (int i = 0; i < nv && one; i++)
        one = !job_spans(v[i]) && v[i]->node == v[0]->node;
    double bytes = 0;
    if (one) { /* all on one node */
        for (int i = 0; i < nv; i++)
            bytes += sim_ckpt_bytes(x, v[i]);
        return bytes;
    }
    int cap = 0, n = 0;
    for (int i = 0; i < nv; i++)
        cap += vic_nodes(v[i]);
    int *node = xmalloc((size_t)cap * sizeof *node);
    double *b = xmalloc((size_t)cap * sizeof *b);
    for (int i = 0; i < nv; i++) {
        double vb = sim_ckpt_bytes(x, v[i]);
        for (int k = 0; k < vic_nodes(v[i]); k++) {
            int nd = vic_node(v[i], k), e = 0;
            double share = job_spans(v[i]) ? vb * v[i]->gpu.span->part[k].ngpus / v[i]->req.gpus : vb;
            while (e < n && node[e] != nd)
                e++;
            if (e == n) {
                node[n] = nd;
                b[n++] = 0;
            }
            b[e] += share;
            bytes = b[e] > bytes ? b[e] : bytes;
        }
    }
    free(node);
    free(b);
    return bytes;
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
    /* the victims on a node write together through its bandwidth, the
     * nodes in parallel: the write completes for all of them or is cut for
     * all of them */
    double bytes = decision_bytes(x, v, nv);
    gs_time_us write_us = sim_ckpt_write_us(x, bytes);
    bool done = sim_ckpt_write_completes(x, write_us);
    if (!done)
        write_us = x->write_limit_us; /* killed at the limit; the partial write is worthless */
    for (int i = 0; i < nv; i++) {
        bool has;
        double vb = sim_ckpt_bytes(x, v[i]);
        op->v[i] = v[i];
        op->v_gen[i] = v[i]->gen;
        double point = sim_ckpt_periodic_point_us(s, x, v[i], &has);
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
    sim_job_more(p)->pre_wait_since_us = sim_now(s);
    x->decisions++;
    /* a write held at sim_ckpt_write_us's cap is past the clock: the check below refuses it with its real length */
    double wait_us = (double)x->grace_us + (write_us < (gs_time_us)4e18 ? (double)write_us
                                                                         : bytes / (x->write_gbps * 1e9) * 1e6);
    gs_time_us at;
    if (!gs_time_add(sim_now(s), wait_us, &at)) {
        char cause[160];
        snprintf(cause, sizeof cause, "the checkpoint write of %.6g GB at ckpt_write_gbps %g for its preemption",
                 bytes / 1e9, x->write_gbps);
        at = sim_time_after(s, wait_us, p->req.id, cause);
    }
    core_timer(s, NULL, at, TAG_OP << 24 | (uint32_t)oi);
}

/* Tries to preempt for queued job p on node only_node (-1: every node;
 * sim_victims.c finds the winner). */
static bool try_preempt(sim *s, job *p, int only_node)
{
    sim_ext *x = ext_of(s);
    if (!x->preempt || p->state != JOB_QUEUED || (p->core_flags & (JF_PREEMPTOR | JF_PLACED)) || x->nlisted == 0 ||
        !any_lower_listed(x, p))
        return false;
    uint64_t pools = sim_quota_pools(sim_cluster_of(s), p, false); /* preemption never lifts a quota */
    if (!pools)
        return false;
    vic_pick best = {.node = -1};
    bool found;
    if (p->req.spans) /* across nodes: under a policy of whole ledger cards only (POL_CAP_WHOLE) */
        found = (sim_policy_at(s, 0)->space->caps & POL_CAP_WHOLE) && sim_victims_gang(s, x, p, pools, &best);
    else if (only_node >= 0)
        found = sim_victims_scan(s, x, p, pools, only_node, only_node + 1, &best);
    else
        found = sim_victims_find(s, x, p, pools, &best);
    if (found) {
        commit(s, p, best.node, best.v, best.nv);
        if (best.nn == 0)
            sim_victims_committed(s, x, best.node);
        for (int i = 0; i < best.nn; i++)
            sim_victims_committed(s, x, best.nodes[i]);
    }
    free(best.v);
    free(best.nodes);
    return found;
}

void sim_preempt_search(sim *s, int how)
{
    sim_ext *x = ext_of(s);
    x->vx.plain_scan = how == SIM_PREEMPT_SCAN;
    if (how != SIM_PREEMPT_CARDS)
        x->vx.cards_fit = false; /* the ledger may go on listing gives: nobody reads them */
}

uint64_t sim_preempt_nodes_planned(const sim *s) { return ext_of(s)->vx.planned; }

uint64_t sim_preempt_nodes_looked(const sim *s, uint64_t *searches)
{
    const sim_ext *x = ext_of(s);
    if (searches)
        *searches = x->vx.searches;
    return x->vx.looks;
}

/* A listed job's rate changed: its node's bounds (sim_victims.c). */
static void ext_rate_changed(void *state, sim *s, job *j)
{
    sim_victims_rate_changed(s, state, j); /* state: ext_of(s), without the search */
}

static void ext_after_arrive(void *state, sim *s, job *j)
{
    sim_ext *x = state; /* ext_of(s), without the search */
    if (!x->preempt || j->state != JOB_QUEUED || (j->core_flags & JF_PLACED))
        return; /* JF_PLACED: the policy starts it later (dynmig creation) */
    if (!try_preempt(s, j, -1))
        sim_waitset_add(&x->wait, j);
}

/* Running job v reached min_runtime: the waiting requests that outrank it
 * may now preempt it (on its node only; nothing else changed). Heads are
 * tried best rank first; a head that fails closes its shape class for this
 * event. Cost O(shapes) per try plus one plan per try; tries <= shapes +
 * successes. */
static void on_eligible(sim *s, job *v)
{
    sim_ext *x = ext_of(s);
    if (v->state != JOB_RUNNING || !(v->core_flags & JF_LISTED) || sim_now(s) - v->more->run_since_us < x->min_runtime_us)
        return; /* an event from an earlier run of this job */
    for (int i = 0; i < x->wait.n; i++)
        x->wait.c[i].failed = false;
    while ((v->core_flags & JF_LISTED) && !(v->core_flags & JF_VICTIM)) {
        sim_waitset_class *best = NULL;
        job *bj = NULL;
        for (int i = 0; i < x->wait.n; i++) {
            job *h = x->wait.c[i].failed ? NULL : sim_waitset_head(&x->wait.c[i]);
            if (h && h->req.priority > v->req.priority && (!bj || sim_waitset_ranks_before(h, bj))) {
                best = &x->wait.c[i];
                bj = h;
            }
        }
        if (!best)
            return;
        if (try_preempt(s, bj, v->node)) {
            bj->core_flags &= ~JF_WAITING;
            sim_waitset_pop(best);
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
     * instances). Either way it does not wait for these victims now, and
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
        double read_us = has ? sim_ckpt_bytes(x, vi) * sim_ckpt_shard(s, vi) / (x->read_gbps * 1e9) * 1e6 : 0;
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
        sim_waitset_add(&x->wait, p);
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
        sim_report_add_stats(c, "queue_s", x->cls_shared ? sim_queue_s_sketch(s) : &x->cls[i].queue_s);
        sim_report_add_stats(c, "jct_s", x->cls_shared ? sim_jct_s_sketch(s) : &x->cls[i].jct_s);
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
    sim_quota_report(sim_cluster_of(s), root);
}

/* The optional columns of placed work (jobs, sessions, service replicas)
 * this layer reads: with preemption all
 * it may (the preemptible flag, the checkpoint's size, and the asks its
 * dry runs, victim shapes and wait list compare); with tenant quotas the
 * tenant and its GPU memory ask; where runs may be interrupted (node states,
 * sim_preempt_track_runs) the checkpoint's size. */
static uint64_t ext_columns(const void *state, int kind)
{
    const sim_ext *x = state;
    if (!sim_kind_placed(kind))
        return 0;
    uint64_t ckpt = WL_COL_BIT(WL_COL_CHECKPOINT_GIB) | WL_COL_BIT(WL_COL_PARAMS_B);
    uint64_t read = x->preempt ? SIM_COLS_DECLARED & ~WL_COL_BIT(WL_COL_TIME_LIMIT) & ~WL_COL_BIT(WL_COL_TIER) : 0;
    if (x->cl->quota)
        read |= WL_COL_BIT(WL_COL_TENANT) | WL_COL_BIT(WL_COL_GPUMEM) | WL_COL_BIT(WL_COL_GPUMEM_PCT);
    return read | (x->track_runs ? ckpt : 0);
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
    .columns_read = ext_columns,
};
