/* pol_dynmig.c - HAMi dynamic MIG (reference/mechanics.md section 1): MIG-enabled
 * cards start with no instances; a request gets, on a card of its node, the
 * smallest allowed profile that holds it and has a legal start free; the
 * instance (GI+CI) is created before the task starts and destroyed after the
 * job ends, once the reconcile loop has seen it, when its slices return.
 *
 * Which free legal start to take is --set strategy: first (HAMi's rule),
 * bestfit, demand (see mig_layout.h). Layout values in the cluster file are
 * validated but not applied: dynamic mode owns the layout.
 *
 * Mixed clusters: HAMi manages "a unified GPU pool of HAMi-core node and mig
 * node"; a task "can be scheduled to either node if not appointed manually"
 * by the nvidia.com/vgpu-mode annotation (Project-HAMi/HAMi,
 * docs/dynamic-mig-support.md). So a request by memory goes to a MIG card
 * when one can take it now, else to a card without MIG (mem_route=mig-first);
 * a row naming a MIG profile is the annotated case and waits for MIG.
 * mem_route=mig-only keeps every request a MIG card could hold on MIG.
 *
 * Cost: a placement walks the index of cards with a free legal start for a
 * candidate profile (mig_index.h), not every card; a card is re-described
 * when an instance is created or destroyed (O(profiles x placements)).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_preempt.h"
#include "mig_common.h"

enum { TAG_CREATED = 1, TAG_DESTROYED = 2 };
#define TAG(kind, id) ((uint32_t)(kind) << 20 | (uint32_t)(id))

typedef struct dyn_state {
    mig_base b;
    mig_strategy strategy;
    const char *strategy_name;
    gs_time_us create_us, destroy_us, reconcile_us;
} dyn_state;

static const pol_param params[] = {
    {"strategy", "first",
     "legal start to take: first (HAMi: 1g/3g highest free start, others lowest), bestfit (keep the largest "
     "profile creatable), demand (keep creatable what requests so far asked for)", P_ENUM(MIG_STRATEGY_CHOICES)},
    {"create_s", "2", "GI+CI creation before the task starts, per instance, serialized per card (reference/mechanics.md 3 [U])", P_DURATION(0, 1e9)},
    {"destroy_s", "1", "GI+CI destruction (reference/mechanics.md 3 [U])", P_DURATION(0, 1e9)},
    {"mem_route", "mig-first",
     "a request by memory that a MIG profile holds: mig-first (HAMi's pooled MIG and non-MIG cards: a MIG card "
     "when one can take it now, else a card without MIG) or mig-only (it waits for a MIG card)",
     P_ENUM("mig-first|mig-only")},
    {"reconcile_s", "5", "delay from job end until the device plugin's reconcile loop destroys the instance "
                         "(reference/mechanics.md 1)", P_DURATION(0, 1e9)},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

static bool dyn_pick(mig_base *b, mig_gpu *g, job *j, mig_pick *pk)
{
    dyn_state *d = b->owner;
    const int *cand;
    int n = mig_candidates_of(b, b->groups[g->ix.group].model, j, &cand);
    const double *w = b->demand[b->groups[g->ix.group].pool];
    for (int i = 0; i < n; i++) {
        int st = mig_choose_start(&g->lay, cand[i], d->strategy, w);
        if (st >= 0) {
            *pk = (mig_pick){cand[i], st};
            return true;
        }
    }
    return false;
}

static void dyn_commit(mig_base *b, mig_gpu *g, job *j, const mig_pick *pk)
{
    dyn_state *d = b->owner;
    int slot = mig_inst_create(b, g, pk->prof, pk->start, MI_IDLE);
    b->creations++;
    mig_inst_hold(b, g, slot, j);
    /* creations on one card are serialized (HAMi creates at kubelet Allocate, one GPU at a time) */
    gs_time_us from = mig_cold(b, g)->create_free_us > sim_now(b->s) ? mig_cold(b, g)->create_free_us : sim_now(b->s);
    mig_cold(b, g)->create_free_us = from + d->create_us;
    mig_jobinfo *in = mig_info(b, j);
    if (mig_cold(b, g)->create_free_us > in->ready_us)
        in->ready_us = mig_cold(b, g)->create_free_us;
}

static void dyn_placed(mig_base *b, job *j)
{
    mig_jobinfo *in = mig_info(b, j);
    if (in->ready_us <= sim_now(b->s)) {
        sim_job_start(b->s, j, 1.0);
        return;
    }
    if (j->state == JOB_NEW) /* waits for its instances: queued from the core's view */
        sim_job_queued(b->s, j);
    sim_job_placed(b->s, j); /* placed, it preempts no one while created */
    sim_timer(b->s, b->pol_index, j, in->ready_us, TAG(TAG_CREATED, 0));
}

static bool dyn_ever(const mig_base *b, const mig_group *gr, const job *j)
{
    (void)b;
    int cand[MIG_MAX_PROFILES];
    char kind;
    return mig_candidates(gr->model, &j->req, cand, &kind) > 0;
}

/* Blocked by layout: some card the request may use has enough free memory
 * and compute slices for a candidate profile but no legal start for it.
 * Counted once per request, over the index's count of such cards per
 * (group, profile). Cost: O(groups x candidates). */
static void dyn_blocked(mig_base *b, job *j)
{
    mig_jobinfo *in = mig_info(b, j);
    if (in->blocked)
        return;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(j->pools >> gr->pool & 1))
            continue;
        const int *cand;
        int n = mig_candidates_of(b, gr->model, j, &cand);
        for (int k = 0; k < n; k++)
            if (mig_index_aux(&b->idx, gi, cand[k]) > 0) {
                in->blocked = true;
                b->blocked_requests++;
                mig_set_pending(b, in, j, false);
                return;
            }
    }
}

/* The index's view of a card: the profiles with a free legal start (what
 * dyn_pick takes), those blocked by layout (dyn_blocked), and its free
 * memory slices (the queue's room: a profile needs that many to be
 * created, or to be blocked by layout). O(profiles x placements). */
static void dyn_avail(const mig_base *b, const mig_gpu *g, int *entry, uint16_t *avail, uint16_t *aux, int *room)
{
    (void)b;
    const mig_card *c = &g->lay;
    int free_slices = mig_free_slices(c), free_compute = mig_free_compute(c);
    *entry = 0;
    *avail = *aux = 0;
    for (int p = 0; p < c->t->nprofiles; p++) {
        const mig_profile *pr = &c->t->profiles[p];
        if (pr->size > free_slices || pr->compute_slices > free_compute || c->count[p] >= pr->max_instances)
            continue; /* neither creatable nor blocked by layout */
        if (mig_creatable(c, p))
            *avail |= (uint16_t)(1u << p);
        else
            *aux |= (uint16_t)(1u << p);
    }
    *room = free_slices;
}

/* What dyn_blocked looks at for j: per group it may use, the cards where a
 * candidate is blocked by layout. */
static int dyn_watch(mig_base *b, const job *j)
{
    int n = 0;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(j->pools >> gr->pool & 1))
            continue;
        const int *cand;
        int nc = mig_candidates_of(b, gr->model, j, &cand);
        for (int k = 0; k < nc; k++)
            n = mig_keys_add(b, n, gi, -1, cand[k]);
    }
    return n;
}

/* dyn_pick succeeds on a card where any candidate has a free legal start. */
static int dyn_wanted(mig_base *b, const mig_group *gr, int e, const job *j, int *out)
{
    (void)e;
    const int *cand;
    int n = mig_candidates_of(b, gr->model, j, &cand);
    memcpy(out, cand, (size_t)n * sizeof *out);
    return n;
}

static void dyn_unplaced(mig_base *b, mig_gpu *g, int slot)
{
    dyn_state *d = b->owner;
    g->inst[slot].state = MI_DESTROYING;
    int id = (int)(g - b->gpus) * MIG_MAX_SLICES + slot;
    /* weak: a destruction nobody waits for does not extend the run */
    sim_timer_weak(b->s, b->pol_index, sim_now(b->s) + d->reconcile_us + d->destroy_us, TAG(TAG_DESTROYED, id));
}

static const mig_hooks hooks = {
    .pick = dyn_pick,
    .commit = dyn_commit,
    .placed = dyn_placed,
    .ever = dyn_ever,
    .blocked = dyn_blocked,
    .unplaced = dyn_unplaced,
    .avail = dyn_avail,
    .wanted = dyn_wanted,
    .watch = dyn_watch,
    .frees_slices = true,
};

static int dyn_init(sim *s, int index, void **state, gs_error *err)
{
    dyn_state *d = xcalloc(1, sizeof *d);
    *state = d;
    d->strategy_name = sim_param(s, "strategy");
    d->strategy = (mig_strategy)sim_param_choice(s, "strategy");
    d->create_us = sim_param_us(s, "create_s");
    d->destroy_us = sim_param_us(s, "destroy_s");
    d->reconcile_us = sim_param_us(s, "reconcile_s");
    int rc;
    if ((rc = mig_base_init(&d->b, s, index, &hooks, d, err)) != 0)
        return rc;
    d->b.mem_fallback = sim_param_choice(s, "mem_route") == 0; /* mig-first */
    if (d->b.ngpus >= (1 << 20) / MIG_MAX_SLICES)
        return gs_err(err, GS_EINPUT, "cluster '%s': dynmig supports at most %d MIG cards", sim_cluster_of(s)->path,
                      (1 << 20) / MIG_MAX_SLICES - 1);
    return 0;
}

static void dyn_fini(void *state)
{
    dyn_state *d = state;
    if (!d)
        return;
    mig_base_free(&d->b);
    free(d);
}

static void dyn_timer(void *state, sim *s, job *j, uint32_t tag)
{
    dyn_state *d = state;
    uint32_t kind = tag >> 20, id = tag & 0xfffffu;
    if (kind == TAG_CREATED) {
        sim_job_start(s, j, 1.0);
    } else if (kind == TAG_DESTROYED) {
        mig_gpu *g = &d->b.gpus[id / MIG_MAX_SLICES];
        mig_inst_destroy(&d->b, g, (int)(id % MIG_MAX_SLICES));
        d->b.destructions++;
        sim_dispatch(s);
    }
}

static void dyn_report(const void *state, const sim *s, cJSON *root)
{
    (void)s;
    const dyn_state *d = state;
    cJSON *pol = cJSON_GetObjectItemCaseSensitive(root, "policy");
    cJSON_AddStringToObject(pol, "strategy", d->strategy_name);
    mig_base_report(&d->b, pol);
}

/* the questions the core's queue asks (mig_common.c) */
static void dyn_reject_reason(const void *state, const sim *s, const job *j, char *why, size_t cap)
{
    (void)s;
    mig_base_reject_reason(&((const dyn_state *)state)->b, j, why, cap);
}

static bool dyn_can_ever_fit(void *state, const sim *s, const job *j)
{
    (void)s;
    return mig_base_can_ever_fit(&((dyn_state *)state)->b, j);
}

static bool dyn_place(void *state, sim *s, job *j)
{
    (void)s;
    return mig_base_place(&((dyn_state *)state)->b, j);
}

static void dyn_unplace(void *state, sim *s, job *j)
{
    (void)s;
    mig_base_unplace(&((dyn_state *)state)->b, j);
}

static void dyn_nominee_missed(void *state, sim *s, job *n)
{
    (void)s;
    mig_base_nominee_missed(&((dyn_state *)state)->b, n);
}

static job *dyn_dispatch_held(void *state, sim *s)
{
    (void)s;
    return mig_base_dispatch_held(&((dyn_state *)state)->b);
}

/* core preemption hooks (mig_common.c) */
static bool dyn_fits_if_released(const void *state, const sim *s, const job *j, int n, job *const *v, int nv)
{
    (void)s;
    return mig_base_fits_if_released(&((const dyn_state *)state)->b, j, n, v, nv);
}

/* The queue's demand index (sim_queue.h, mig_index.h). demand: gpus cards
 * and the fewest memory slices among j's candidate profiles on the cards it
 * may use (0: it may take whole cards, always tried). A card's room: its
 * free memory slices, as a candidate is created only where its size is
 * free. A refused try also counts the request as blocked by layout
 * (dyn_blocked): a queued request not yet counted watches the sets
 * dyn_blocked reads (marked here as it is queued), and while one of them is
 * not empty the room is unbounded, so no try that would count is skipped.
 * room: O(1). */
static uint32_t dyn_queue_demand(const void *state, const job *j)
{
    /* the core hands the policy its own state; queueing j is recorded in it */
    dyn_state *d = (dyn_state *)state;
    mig_jobinfo *in = mig_info(&d->b, j);
    if (!in->blocked)
        mig_set_pending(&d->b, in, j, true);
    return mig_base_queue_demand(&d->b, j);
}

static uint32_t dyn_queue_room(const void *state, const sim *s)
{
    (void)s;
    return mig_base_queue_room(&((const dyn_state *)state)->b);
}

static const pol_space_index space_index = {.queue_demand = dyn_queue_demand, .queue_room = dyn_queue_room};

static const pol_space space = {
    .caps = POL_CAP_ADMIT | POL_CAP_MIG | POL_CAP_GANG, /* jobs across nodes: cards without MIG, through the ledger */
    .reject_reason = dyn_reject_reason,
    .mem_per_card_mib = mig_mem_per_card_mib,
    .fits_if_released = dyn_fits_if_released,
    .can_ever_fit = dyn_can_ever_fit,
    .place = dyn_place,
    .unplace = dyn_unplace,
    .shape_key = mig_base_shape_key,
    .nominee_missed = dyn_nominee_missed,
    .dispatch_held = dyn_dispatch_held,
    .index = &space_index,
};

const pol_ops pol_dynmig = {
    .abi = POL_ABI,
    .name = "dynmig",
    .summary = "HAMi dynamic MIG: instances created per request on MIG-enabled cards, destroyed after",
    .kind = POL_SPACE,
    .params = params,
    .init = dyn_init,
    .fini = dyn_fini,
    .timer = dyn_timer,
    .report = dyn_report,
    .space = &space,
    .failures_refused = "a job waiting for its instance's creation would start on the node after it failed, and the "
                        "slice index does not learn a node leaving service (pol_space.node_changed)",
};
