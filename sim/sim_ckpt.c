/* sim_ckpt.c - the checkpoint model of the preemption layer: what stopping
 * a running job now costs (work lost since its resume point, the write at
 * preemption it holds its cards for, the read-back on restart), which jobs
 * may be victims, and the cheapest victim set on one node
 * (sim_preempt_types.h; semantics and defaults: reference/mechanics.md
 * section 7).
 *
 * The resume point of a victim is the checkpoint written at preemption when
 * that write completes (nothing is lost); a write longer than
 * ckpt_write_limit is cut there and the victim falls back to its latest
 * periodic checkpoint, or to its start when it has none.
 * SPDX-License-Identifier: MIT */
#include "sim_preempt_types.h"

#include <math.h>
#include <stdlib.h>

double sim_ckpt_bytes(const sim_ext *x, const job *j)
{
    if (job_req_checkpoint_gib(j) >= 0)
        return job_req_checkpoint_gib(j) * 1073741824.0;
    if (job_req_params_b(j) > 0)
        return job_req_params_b(j) * 1e9 * x->bytes_per_param;
    return 0;
}

/* The victim's periodic resume point if it were stopped now: work left at
 * its latest durable periodic checkpoint (what it falls back to when the
 * write at preemption does not complete). Periodic checkpoints fall every checkpoint_every of
 * running since its latest start; the work done by then is interpolated
 * linearly over the run (exact at a constant rate, as on whole cards). A job
 * without a checkpoint size has no checkpoints and restarts from scratch. */
double sim_ckpt_periodic_point_us(const sim *s, const sim_ext *x, const job *j, bool *has_ckpt)
{
    double done_now = j->work_left_us - job_drain_rate(j) * (double)(sim_now(s) - j->rate_since_us);
    if (done_now < 0)
        done_now = 0;
    *has_ckpt = false;
    if (sim_ckpt_bytes(x, j) <= 0)
        return (double)j->req.dur_us;
    const job_more *m = j->more; /* a victim: listed when it started */
    gs_time_us ran = sim_now(s) - m->run_since_us;
    double point = (j->core_flags & JF_HAS_CKPT) ? m->resume_work_us : (double)j->req.dur_us;
    *has_ckpt = (j->core_flags & JF_HAS_CKPT) != 0;
    if (x->ckpt_events) /* the latest write that completed (sim_job_ckpt_commit) */
        return point;
    if (x->ckpt_every_us > 0 && ran >= x->ckpt_every_us) {
        gs_time_us k_us = ran / x->ckpt_every_us * x->ckpt_every_us;
        point = m->run_start_work_us - (m->run_start_work_us - done_now) * ((double)k_us / (double)ran);
        *has_ckpt = true;
    }
    return point;
}

double sim_ckpt_shard(const sim *s, const job *j)
{
    if (!j->req.spans)
        return 1;
    int g = j->req.gpus_per_node;
    const sim_cluster *cl = sim_cluster_of(s);
    for (int p = 0; !g && p < cl->npools; p++)
        if ((j->pools >> p & 1) && cl->pools[p].max_node_gpus > g)
            g = cl->pools[p].max_node_gpus;
    return g >= j->req.gpus || g <= 0 ? 1 : (double)g / j->req.gpus;
}

static double work_left_now_us(const sim *s, const job *j)
{
    double left = j->work_left_us - job_drain_rate(j) * (double)(sim_now(s) - j->rate_since_us);
    return left < 0 ? 0 : left;
}

gs_time_us sim_ckpt_write_us(const sim_ext *x, double bytes)
{
    /* held at 4e18 us (127,000 years: a 10,000 GiB checkpoint at 1e-9 GB/s
     * is 3e20 us, which llround cannot return); the event it ends is
     * range-checked against the clock (sim_time_after) */
    double us = bytes / (x->write_gbps * 1e9) * 1e6;
    return us < 4e18 ? (gs_time_us)llround(us) : (gs_time_us)4e18;
}

bool sim_ckpt_write_completes(const sim_ext *x, gs_time_us write_us)
{
    return x->write_limit_us < 0 || write_us <= x->write_limit_us;
}

/* What preempting j alone now would cost in GPU-time (per GPU, us): the
 * work it loses, the checkpoint write it holds its cards for (cut at
 * ckpt_write_limit) and the read-back on restart. A job whose write at
 * preemption completes loses nothing, so among such jobs the smallest
 * checkpoint goes first. */
double sim_ckpt_cost_us(const sim *s, const sim_ext *x, const job *j)
{
    double bytes = sim_ckpt_bytes(x, j) * sim_ckpt_shard(s, j);
    gs_time_us w = sim_ckpt_write_us(x, bytes);
    bool has, done = bytes > 0 && sim_ckpt_write_completes(x, w);
    double point = done ? work_left_now_us(s, j) : sim_ckpt_periodic_point_us(s, x, j, &has);
    if (done)
        has = true;
    double lost = point - work_left_now_us(s, j);
    double write = bytes > 0 ? (double)(done ? w : x->write_limit_us) : 0;
    double read = has ? bytes / (x->read_gbps * 1e9) * 1e6 : 0;
    return (lost > 0 ? lost : 0) + write + read;
}

static int cand_cmp(const void *a, const void *b)
{
    const cand *p = a, *q = b;
    if (p->cost != q->cost)
        return p->cost < q->cost ? -1 : 1;
    if (p->j->req.priority != q->j->req.priority)
        return p->j->req.priority < q->j->req.priority ? -1 : 1;
    return p->j->arrival_no > q->j->arrival_no ? -1 : 1; /* the newest goes first */
}

bool sim_ckpt_eligible(const sim *s, const sim_ext *x, const job *v, const job *p)
{
    return !(v->core_flags & JF_VICTIM) && v->req.priority < p->req.priority && v->state == JOB_RUNNING &&
           sim_now(s) - v->more->run_since_us >= x->min_runtime_us;
}

/* Victims on n are taken in order of least cost (ties: lower priority,
 * then the newest) until the space policy says p would fit; victims that
 * turn out unnecessary are dropped again, costliest first. */
int sim_ckpt_plan_node(sim *s, const sim_ext *x, job *p, int n, job **out, double *cost, cand **buf, size_t *cap)
{
    size_t k = 0;
    for (job *v = x->node_run[n]; v; v = vic_next(v, n)) {
        if (!sim_ckpt_eligible(s, x, v, p))
            continue;
        if (k == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            *buf = xrealloc(*buf, *cap * sizeof **buf);
        }
        (*buf)[k++] = (cand){v, sim_ckpt_cost_us(s, x, v) * (v->req.gpus > 0 ? v->req.gpus : 1)};
    }
    if (k == 0)
        return 0;
    qsort(*buf, k, sizeof **buf, cand_cmp);
    const pol_ops *sp = sim_policy_at(s, 0);
    void *sp_state = sim_policy_state(s, 0);
    int nv = 0;
    bool fits = false;
    for (size_t i = 0; i < k && !fits; i++) {
        out[nv++] = (*buf)[i].j;
        fits = sp->space->fits_if_released(sp_state, s, p, n, out, nv);
    }
    if (!fits)
        return 0;
    /* drop victims that are not needed after all, costliest first */
    for (int i = nv - 1; i >= 0 && nv > 1; i--) {
        job *keep = out[i];
        out[i] = out[nv - 1];
        if (sp->space->fits_if_released(sp_state, s, p, n, out, nv - 1)) {
            nv--;
        } else {
            out[nv - 1] = out[i];
            out[i] = keep;
        }
    }
    *cost = 0;
    for (int i = 0; i < nv; i++)
        *cost += sim_ckpt_cost_us(s, x, out[i]) * (out[i]->req.gpus > 0 ? out[i]->req.gpus : 1);
    return nv;
}
