/* pol_whole.c - exclusive whole cards.
 *
 * Each request gets req.gpus whole cards on one node, whatever fraction of a
 * card it asked for (gpumem/gpucores are ignored: a fractional request takes
 * a whole card). Queue order is priority, then submit time. queue=skip (the
 * default, as the Kubernetes scheduler does) lets later requests start past
 * one that does not fit; queue=fifo is strict head-of-line. placement=binpack
 * takes the node with the fewest free cards that fits, spread the most.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h"
#include "../sim/sim_queue.h"
#include "../sim/sim_policy.h"

typedef struct whole_state {
    sim *s;
    sim_queue q;
    bool fifo, spread;
} whole_state;

static const pol_param params[] = {
    {"queue", "skip", "skip: a request that does not fit is passed over; fifo: strict head-of-line"},
    {"placement", "binpack", "binpack: node with the fewest free cards that fits; spread: the most"},
    {NULL, NULL, NULL},
};

static int whole_init(sim *s, void **state, gs_error *err)
{
    const char *q = sim_param(s, "queue"), *p = sim_param(s, "placement");
    if (strcmp(q, "skip") && strcmp(q, "fifo"))
        return gs_err(err, GS_EUSAGE, "--set queue='%s': expected skip or fifo", q);
    if (strcmp(p, "binpack") && strcmp(p, "spread"))
        return gs_err(err, GS_EUSAGE, "--set placement='%s': expected binpack or spread", p);
    whole_state *w = xcalloc(1, sizeof *w);
    w->s = s;
    w->fifo = strcmp(q, "fifo") == 0;
    w->spread = strcmp(p, "spread") == 0;
    sq_init(&w->q);
    *state = w;
    return 0;
}

static void whole_fini(void *state)
{
    whole_state *w = state;
    sq_free(&w->q);
    free(w);
}

static bool try_start(void *ud, job *j)
{
    whole_state *w = ud;
    uint64_t pools = sim_admit_pools(w->s, j); /* quotas, preemption hand-over */
    int node = -1;
    /* an internal task's preferred node (a sleeping model instance
     * there) wins when it fits now; O(1) */
    if (pools && j->prefer_node >= 0 &&
        sim_cluster_node_fits(w->s->cl, j->prefer_node, pools, j->req.gpus, j->req.cpu, j->req.mem_gib))
        node = j->prefer_node;
    else if (pools)
        node = sim_cluster_find_node(w->s->cl, pools, j->req.gpus, j->req.cpu, j->req.mem_gib, w->spread);
    if (node < 0)
        return false;
    sim_place_whole(w->s, j, node);
    sim_job_start(w->s, j, 1.0);
    return true;
}

/* Requests of one shape share a queue class: a class whose head does not fit
 * is skipped as a whole (see sim_queue.h). */
static uint64_t shape_key(const job *j)
{
    uint64_t k = (uint64_t)j->req.gpus * 0x9E3779B97F4A7C15ULL ^ j->pools * 0xC2B2AE3D27D4EB4FULL;
    /* a tenant's quota admits by gpus, gpumem and model: same shape, same answer */
    k ^= (uint64_t)j->tenant_ix * 0xD6E8FEB86659FD93ULL ^ (uint64_t)j->req.gpumem_mib * 0xFF51AFD7ED558CCDULL;
    uint64_t c, m;
    memcpy(&c, &j->req.cpu, sizeof c);
    memcpy(&m, &j->req.mem_gib, sizeof m);
    return k ^ (c * 0x165667B19E3779F9ULL) ^ (m * 0x27D4EB2F165667C5ULL) ^ (m >> 17);
}

static void whole_arrive(void *state, sim *s, job *j)
{
    whole_state *w = state;
    if (!sim_cluster_can_ever_fit(s->cl, j->pools, j->req.gpus, j->req.cpu, j->req.mem_gib)) {
        sim_job_reject(s, j);
        return;
    }
    if (!w->fifo || sq_len(&w->q) == 0) {
        /* every queued request was tried at the last release and did not fit,
         * so a newcomer that fits may start at once */
        if (try_start(w, j))
            return;
        sim_job_queued(s, j);
        sq_push(&w->q, j, shape_key(j));
        return;
    }
    sim_job_queued(s, j);
    sq_push(&w->q, j, shape_key(j));
    sq_dispatch(&w->q, true, try_start, w);
}

static void whole_release(void *state, sim *s, job *j)
{
    whole_state *w = state;
    sim_release_whole(s, j);
    job *n = sim_nominee(s);
    if (n) { /* a preemption hand-over: the freed cards are the preemptor's */
        if (try_start(w, n))
            sq_remove(&w->q, n);
        return;
    }
    sq_dispatch(&w->q, w->fifo, try_start, w);
}

/* Preemption dry run: node n's free cards, CPU and memory plus what the
 * victims hold there. Cost O(victims). */
static bool whole_fits_if_released(const void *state, const sim *s, const job *j, int n, job *const *v, int nv)
{
    (void)state;
    const sim_node *nd = &s->cl->nodes[n];
    if (!(j->pools >> nd->pool & 1))
        return false;
    double gpus = nd->free_gpus, cpu = nd->cpu_total - nd->cpu_used, mem = nd->mem_total_gib - nd->mem_used_gib;
    for (int i = 0; i < nv; i++) {
        if (v[i]->node != n)
            return false;
        gpus += v[i]->ngpu_ids;
        cpu += v[i]->req.cpu;
        mem += v[i]->req.mem_gib;
    }
    return gpus >= j->req.gpus && (nd->cpu_total < 0 || cpu >= j->req.cpu - 1e-9) &&
           (nd->mem_total_gib < 0 || mem >= j->req.mem_gib - 1e-9);
}

static void whole_dispatch(void *state, sim *s)
{
    whole_state *w = state;
    (void)s;
    sq_dispatch(&w->q, w->fifo, try_start, w);
}

/* a time policy gives up a queued wait (a wake that timed out). */
static bool whole_withdraw(void *state, sim *s, job *j)
{
    (void)s;
    return sq_remove(&((whole_state *)state)->q, j);
}

const pol_ops pol_whole = {
    .abi = POL_ABI,
    .name = "whole",
    .summary = "exclusive whole cards; fractional requests take a whole card each",
    .kind = POL_SPACE,
    .params = params,
    .init = whole_init,
    .fini = whole_fini,
    .arrive = whole_arrive,
    .release = whole_release,
    .withdraw = whole_withdraw,
    .caps = POL_CAP_ADMIT,
    .fits_if_released = whole_fits_if_released,
    .dispatch = whole_dispatch,
};
