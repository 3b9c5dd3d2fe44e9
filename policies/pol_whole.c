/* pol_whole.c - exclusive whole cards.
 *
 * Each request gets req.gpus whole cards on one node, whatever fraction of a
 * card it asked for (gpumem/gpucores are ignored: a fractional request takes
 * a whole card). Queue order is priority, then submit time. queue=skip (the
 * default, as the Kubernetes scheduler does) lets later requests start past
 * one that does not fit; queue=fifo is strict head-of-line; queue=backfill
 * is EASY backfilling (the core's, sim/sim_backfill.h), looking at most
 * bf_max_job_test requests past the head a pass. placement=binpack
 * takes the node with the fewest free cards that fits, spread the most. The
 * queue itself is the core's (pol_space.place): this file answers where a
 * request goes and what it gives back.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h"
#include "../sim/sim_policy.h"
#include "../sim/sim_quota.h"

typedef struct whole_state {
    sim *s;
    /* the run's ledger, set before any policy starts and the same for the
     * whole run: kept here, the per-job questions ask no call for it */
    sim_cluster *cl;
    bool fifo, spread;
    int backfill; /* look-ahead, 0: no backfilling */
    /* a shape is its cards, pools, tenant and memory ask alone (shape_key):
     * see whole_init */
    bool host_free;
} whole_state;

static const pol_param params[] = {
    {"queue", "skip", "skip: a request that does not fit is passed over; fifo: strict head-of-line; backfill: EASY "
     "backfilling by time limits", P_ENUM("skip|fifo|backfill")},
    {"bf_max_job_test", "500", "queue=backfill: requests a pass tries past the head (Slurm's default, slurm.conf(5))",
     P_INT(1, 1000000)},
    {"placement", "binpack", "binpack: node with the fewest free cards that fits; spread: the most", P_ENUM("binpack|spread")},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

static int whole_init(sim *s, int index, void **state, gs_error *err)
{
    (void)index; /* no timers */
    (void)err;   /* values typed and range-checked by the core */
    whole_state *w = xcalloc(1, sizeof *w);
    w->s = s;
    w->cl = sim_cluster_of(s);
    w->fifo = sim_param_choice(s, "queue") == 1;
    w->backfill = sim_param_choice(s, "queue") == 2 ? (int)sim_param_int(s, "bf_max_job_test") : 0;
    w->spread = sim_param_choice(s, "placement") == 1;
    /* No node limits CPU or memory (no fit index), so no ask of either
     * changes where or whether a request is placed; without tenant quotas
     * (a refused try counts the request as quota-blocked) and backfilling
     * (its passes count tries) a class's failed try costs only the try:
     * requests that differ by those asks alone share a class. */
    w->host_free = !w->cl->fit_slot && (!w->cl->quota || w->cl->quota->n == 0) && !w->backfill;
    *state = w;
    return 0;
}

static void whole_fini(void *state) { free(state); }

static bool whole_fifo(const void *state) { return ((const whole_state *)state)->fifo; }

static int whole_backfill(const void *state) { return ((const whole_state *)state)->backfill; }

static bool whole_can_ever_fit(void *state, const sim *s, const job *j)
{
    (void)s;
    return sim_cluster_can_ever_fit(((whole_state *)state)->cl, j->pools, j->req.gpus, j->req.cpu, j->req.mem_gib);
}

static bool whole_place(void *state, sim *s, job *j)
{
    whole_state *w = state;
    uint64_t pools = sim_admit_pools(s, j); /* quotas, preemption hand-over */
    int node = -1;
    /* an internal task's preferred node (a sleeping model instance
     * there) wins when it fits now; O(1) */
    int prefer = job_prefer_node(j);
    if (pools && prefer >= 0 &&
        sim_cluster_node_fits(w->cl, prefer, pools, j->req.gpus, j->req.cpu, j->req.mem_gib))
        node = prefer;
    else if (pools)
        node = sim_cluster_find_node(w->cl, pools, j->req.gpus, j->req.cpu, j->req.mem_gib, w->spread);
    if (node < 0)
        return false;
    sim_place_whole(s, j, node);
    sim_job_start(s, j, 1.0);
    return true;
}

static void whole_unplace(void *state, sim *s, job *j)
{
    (void)state;
    sim_release_whole(s, j);
}

/* Requests of one shape share a queue class: a class whose head does not fit
 * is skipped as a whole (see sim_queue.h). CPU and memory asks are part
 * of it unless the run leaves them out (whole_state.host_free; a job
 * across nodes keeps them, as the gang placer's rules do not ask). */
static uint64_t shape_key(const void *state, const job *j)
{
    uint64_t k = (uint64_t)j->req.gpus * 0x9E3779B97F4A7C15ULL ^ j->pools * 0xC2B2AE3D27D4EB4FULL;
    /* a tenant's quota admits by gpus, gpumem and model: same shape, same answer */
    k ^= (uint64_t)j->tenant_ix * 0xD6E8FEB86659FD93ULL ^ (uint64_t)j->req.gpumem_mib * 0xFF51AFD7ED558CCDULL;
    if (((const whole_state *)state)->host_free && !j->req.spans)
        return k;
    uint64_t c, m;
    memcpy(&c, &j->req.cpu, sizeof c);
    memcpy(&m, &j->req.mem_gib, sizeof m);
    return k ^ (c * 0x165667B19E3779F9ULL) ^ (m * 0x27D4EB2F165667C5ULL) ^ (m >> 17);
}

/* The queue's demand index: a request needs req.gpus free cards on one node,
 * and no node has more free cards than the fullest bucket of its pool.
 * room costs O(pools): the highest non-empty bucket is the top bit of the
 * pool's mask. */
static uint32_t whole_demand(const void *state, const job *j)
{
    (void)state;
    return j->req.gpus > 0 ? (uint32_t)j->req.gpus : 0;
}

static uint32_t whole_room(const void *state, const sim *s)
{
    (void)s;
    const sim_cluster *cl = ((const whole_state *)state)->cl;
    int room = 0;
    for (int p = 0; p < cl->npools; p++) {
        uint64_t m = cl->pools[p].nonempty; /* bit k - 1: a node with k free cards */
        int top = m ? 64 - __builtin_clzll(m) : 0;
        if (top > room)
            room = top;
    }
    return (uint32_t)room;
}

/* Preemption dry run: node n's free cards, CPU and memory plus what the
 * victims hold there. Cost O(victims). */
static bool whole_fits_if_released(const void *state, const sim *s, const job *j, int n, job *const *v, int nv)
{
    (void)state;
    const sim_node *nd = &sim_cluster_of(s)->nodes[n];
    if (!(j->pools >> nd->pool & 1))
        return false;
    double gpus = nd->free_gpus, cpu = nd->cpu_total - nd->cpu_used, mem = nd->mem_total_gib - nd->mem_used_gib;
    for (int i = 0; i < nv; i++) {
        int held = job_gpus_on(v[i], n); /* a job across nodes: its part here */
        if (!held && v[i]->node != n)
            return false;
        gpus += held;
        cpu += v[i]->req.cpu;
        mem += v[i]->req.mem_gib;
    }
    return gpus >= j->req.gpus && (nd->cpu_total < 0 || cpu >= j->req.cpu - 1e-9) &&
           (nd->mem_total_gib < 0 || mem >= j->req.mem_gib - 1e-9);
}

/* free cards: a victim set must free the rest (pol_space_index.cards_open) */
static int whole_cards_open(const void *state, const sim *s, const job *j, int n)
{
    (void)state;
    (void)j;
    return sim_cluster_of(s)->nodes[n].free_gpus;
}

static const pol_space_index space_index = {
    .queue_demand = whole_demand,
    .queue_room = whole_room,
    .queue_host = true,
    .cards_open = whole_cards_open,
};

static const pol_space space = {
    .caps = POL_CAP_ADMIT | POL_CAP_GANG | POL_CAP_WHOLE | POL_CAP_NODES,
    .fits_if_released = whole_fits_if_released,
    .can_ever_fit = whole_can_ever_fit,
    .place = whole_place,
    .unplace = whole_unplace,
    .shape_key = shape_key,
    .fifo = whole_fifo,
    .backfill = whole_backfill,
    .index = &space_index,
};

/* Of the optional columns, whole cards read the CPU, memory and GPU memory
 * asks into a shape (shape_key) unless the run leaves them out of it
 * (host_free); the core reads them where nodes limit CPU or memory. */
static uint64_t whole_columns(const void *state, int kind)
{
    (void)kind;
    return ((const whole_state *)state)->host_free
               ? 0
               : WL_COL_BIT(WL_COL_CPU) | WL_COL_BIT(WL_COL_MEM_GIB) | WL_COL_BIT(WL_COL_GPUMEM);
}

const pol_ops pol_whole = {
    .abi = POL_ABI,
    .name = "whole",
    .summary = "exclusive whole cards; fractional requests take a whole card each",
    .kind = POL_SPACE,
    .params = params,
    .init = whole_init,
    .fini = whole_fini,
    .space = &space,
    .columns_read = whole_columns,
};
