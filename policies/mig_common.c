/* mig_common.c - what the `mig` and `dynmig` policies share, beside the
 * cluster file's key (mig_conf.c) and placement (mig_place.c): the cards and
 * their job records, the indexes' change hooks, instances, the report (see
 * mig_common.h).
 * SPDX-License-Identifier: MIT */
#include "mig_common.h"

#include <stdlib.h>
#include <string.h>

/* {==== setup ====} */

/* Room for the records of slots up to slot, a chunk at a time (rare: kept
 * out of mig_info's inlined path). */
static __attribute__((noinline)) void info_grow(mig_base *b, uint32_t slot)
{
    uint32_t chunks = slot / MIG_INFO_CHUNK + 1, have = b->info_cap / MIG_INFO_CHUNK;
    b->info = xrealloc(b->info, chunks * sizeof *b->info);
    for (uint32_t c = have; c < chunks; c++) {
        b->info[c] = aligned_alloc(64, MIG_INFO_CHUNK * sizeof **b->info);
        if (!b->info[c])
            GS_BUG("mig: out of memory for the job records");
        memset(b->info[c], 0, MIG_INFO_CHUNK * sizeof **b->info);
    }
    b->watches = xrealloc(b->watches, chunks * MIG_INFO_CHUNK * sizeof *b->watches);
    memset(b->watches + b->info_cap, 0, (chunks * MIG_INFO_CHUNK - b->info_cap) * sizeof *b->watches);
    b->info_cap = chunks * MIG_INFO_CHUNK;
}


mig_jobinfo *mig_info(mig_base *b, const job *j)
{
    if (j->slot >= b->info_cap)
        info_grow(b, j->slot);
    return mig_info_at(b, j->slot);
}

/* Node i's group, met for the first time: its model, shape and MIG
 * layouts (the cluster file's "mig" text, parsed and checked). */
static int group_met(mig_group *gr, const sim_cluster *cl, int i, const sim_node *nd, gs_error *err)
{
    gr->model = cl->pools[nd->pool].model;
    gr->pool = nd->pool;
    gr->ngpus = nd->ngpus;
    gr->cpu = nd->cpu_total;
    gr->mem_gib = nd->mem_total_gib;
    const char *text = sim_cluster_node_mig(cl, i);
    if (!text)
        return 0;
    char why[600];
    gr->mig = true;
    if (!gr->model->mig)
        return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].mig: model %s has no MIG", cl->path, nd->group,
                      gr->model->name);
    if (mig_group_parse(gr, text, why, sizeof why) != 0)
        return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].mig (%s): %s", cl->path, nd->group, gr->model->name,
                      why);
    return 0;
}

/* MIG node i's cards appended to b->gpus, each with an empty layout; the
 * ledger keeps only cards without MIG for whole-card work (jobs across
 * nodes take those alone). */
static void node_cards(mig_base *b, sim_cluster *cl, int i, const sim_node *nd, const mig_group *gr)
{
    b->node_first[i] = b->ngpus;
    b->node_count[i] = nd->ngpus;
    b->mig_nodes[b->nmig_nodes++] = i;
    for (int k = 0; k < nd->ngpus; k++) {
        mig_gpu *g = &b->gpus[b->ngpus++];
        memset(g, 0, sizeof *g);
        g->ix.node = i;
        g->ix.group = (int16_t)nd->group;
        g->layout_cur = -1;
        mig_card_init(&g->lay, gr->model->mig);
        b->total_mem_slices += gr->model->mig->memory_slices;
        b->total_compute_slices += gr->model->mig->compute_slices;
    }
    if (nd->ngpus > 0)
        sim_cluster_withhold(cl, i, nd->ngpus, b->taken_ids);
}

/* The card index over b's cards (mig_index.h), every card's entry made. */
static void index_cards(mig_base *b, const sim_cluster *cl)
{
    int *nent = xcalloc((size_t)b->ngroups + 1, sizeof *nent);
    int *group_of = xcalloc((size_t)b->ngpus + 1, sizeof *group_of);
    int *node_of = xcalloc((size_t)b->ngpus + 1, sizeof *node_of);
    for (int g = 0; g < b->ngroups; g++)
        nent[g] = b->groups[g].nsched;
    for (int i = 0; i < b->ngpus; i++) {
        group_of[i] = b->gpus[i].ix.group;
        node_of[i] = b->gpus[i].ix.node;
    }
    mig_index_init(&b->idx, b->ngroups, nent, b->ngpus, group_of, node_of, cl->nnodes,
                   b->ngpus ? &b->gpus[0].ix : NULL, sizeof *b->gpus);
    free(nent);
    free(group_of);
    free(node_of);
    for (int i = 0; i < b->ngpus; i++)
        mig_card_changed(b, &b->gpus[i]);
}

int mig_base_init(mig_base *b, sim *s, int pol_index, const mig_hooks *h, void *owner, gs_error *err)
{
    memset(b, 0, sizeof *b);
    b->s = s;
    b->pol_index = pol_index;
    b->h = h;
    b->owner = owner;
    sim_cluster *cl = sim_cluster_of(s);
    for (int i = 0; i < cl->nnodes; i++)
        if (cl->nodes[i].group + 1 > b->ngroups)
            b->ngroups = cl->nodes[i].group + 1;
    b->groups = xcalloc((size_t)b->ngroups + 1, sizeof *b->groups);
    b->node_first = xcalloc((size_t)cl->nnodes + 1, sizeof *b->node_first);
    b->node_count = xcalloc((size_t)cl->nnodes + 1, sizeof *b->node_count);
    b->mig_nodes = xcalloc((size_t)cl->nnodes + 1, sizeof *b->mig_nodes);
    b->taken_ids = xcalloc(CL_MAX_NODE_GPUS, sizeof *b->taken_ids);
    bool *seen = xcalloc((size_t)b->ngroups + 1, sizeof *seen);
    int rc = 0;
    /* room for every card of the cluster, aligned as mig_gpu asks: the MIG
     * cards are a subset */
    size_t cap = 1;
    for (int i = 0; i < cl->nnodes; i++)
        cap += (size_t)cl->nodes[i].ngpus;
    b->gpus = aligned_alloc(_Alignof(mig_gpu), cap * sizeof *b->gpus);
    if (!b->gpus)
        GS_BUG("mig: out of memory for the cards");
    /* one pass over the nodes at init: O(nodes + GPUs) */
    for (int i = 0; i < cl->nnodes && rc == 0; i++) {
        const sim_node *nd = &cl->nodes[i];
        mig_group *gr = &b->groups[nd->group];
        if (!seen[nd->group]) {
            seen[nd->group] = true;
            rc = group_met(gr, cl, i, nd, err);
        }
        if (gr->mig && rc == 0)
            node_cards(b, cl, i, nd, gr);
    }
    free(seen);
    b->cold = xcalloc((size_t)b->ngpus + 1, sizeof *b->cold);
    for (int i = 0; i < b->ngpus; i++)
        b->cold[i].layout_want = -1;
    if (rc == 0)
        index_cards(b, cl);
    if (rc == 0 && b->ngpus == 0)
        sim_warn(s, "policy %s: the cluster '%s' has no MIG-enabled cards (no node group with a \"mig\" key): requests "
                 "naming a MIG profile are rejected and the rest run on whole cards as under whole; give --mig LAYOUT with --gpus, or a \"mig\" "
                 "key in the cluster file", sim_config_of(s)->policy, cl->name);
    return rc;
}

void mig_base_free(mig_base *b)
{
    free(b->groups);
    free(b->gpus);
    free(b->cold);
    free(b->node_first);
    free(b->node_count);
    free(b->mig_nodes);
    free(b->taken_ids);
    for (uint32_t i = 0; i < b->info_cap; i++) {
        free(b->watches[i].watch);
        if (mig_info_at(b, i)->many)
            free(mig_info_at(b, i)->slots.many);
    }
    for (uint32_t c = 0; c < b->info_cap / MIG_INFO_CHUNK; c++)
        free(b->info[c]);
    free(b->info);
    free(b->watches);
    free(b->keys);
    if (b->idx.groups)
        mig_index_free(&b->idx);
}

int mig_keys_add(mig_base *b, int n, int g, int e, int p)
{
    if (3 * (n + 1) > b->keys_cap) {
        b->keys_cap = 6 * (n + 1) + 48;
        b->keys = xrealloc(b->keys, (size_t)b->keys_cap * sizeof *b->keys);
    }
    b->keys[3 * n] = g;
    b->keys[3 * n + 1] = e;
    b->keys[3 * n + 2] = p;
    return n + 1;
}

void mig_card_changed(mig_base *b, mig_gpu *g)
{
    int entry, room;
    uint16_t avail, aux;
    b->h->avail(b, g, &entry, &avail, &aux, &room);
    if (sim_cluster_of(b->s)->nodes[g->ix.node].state != NODE_UP) { /* out of service: no new work */
        entry = -1;
        avail = aux = 0;
        room = 0;
    }
    mig_index_set(&b->idx, (int)(g - b->gpus), entry, avail, aux, room);
}

void mig_node_changed(mig_base *b, int node)
{
    for (int i = 0; i < b->node_count[node]; i++)
        mig_card_changed(b, &b->gpus[b->node_first[node] + i]);
}

void mig_set_pending(mig_base *b, mig_jobinfo *in, const job *j, bool on)
{
    if (on == in->watching)
        return;
    mig_watches *w = &b->watches[j->slot];
    if (on) {
        int n = b->h->watch(b, j);
        if (n == 0)
            return;
        w->watch = xmalloc((size_t)n * 3 * sizeof *w->watch);
        memcpy(w->watch, b->keys, (size_t)n * 3 * sizeof *w->watch);
        w->nwatch = n;
    }
    for (int k = 0; k < w->nwatch; k++)
        mig_index_watch(&b->idx, w->watch[3 * k], w->watch[3 * k + 1], w->watch[3 * k + 2], on ? 1 : -1);
    in->watching = on;
    if (!on) {
        free(w->watch);
        w->watch = NULL;
        w->nwatch = 0;
    }
}

uint32_t mig_base_queue_room(const mig_base *b)
{
    return b->idx.hot > 0 ? SQ_ROOM_ANY : (uint32_t)mig_index_room(&b->idx);
}

/* {==== instances ====} */

static double card_frac(const mig_gpu *g, int p)
{
    return (double)g->lay.t->profiles[p].compute_slices / g->lay.t->compute_slices;
}

/* The rank of card ci among the cards of mask (ci in it): 0 for a one-card job. */
static int card_rank(uint64_t mask, int ci)
{
    return mask & (mask - 1) ? __builtin_popcountll(mask & ((1ULL << ci) - 1)) : 0;
}

int mig_job_slot(const mig_jobinfo *in, int ci)
{
    int rank = card_rank(in->cards, ci);
    if (in->many)
        return in->slots.many[rank];
    return (int)(in->slots.packed >> (MIG_SLOT_BITS * rank) & ((1u << MIG_SLOT_BITS) - 1));
}

/* Notes slot as j's on card g (its record's cards are all set). */
static void keep_slot(mig_base *b, mig_gpu *g, int slot, const job *j)
{
    mig_jobinfo *in = mig_info(b, j);
    int ci = in->card0 < 0 ? -1 : (int)(g - b->gpus) - in->card0;
    if (ci < 0 || ci >= CL_MAX_NODE_GPUS || !(in->cards >> ci & 1))
        GS_BUG("mig hold: the card is not among the job's");
    int rank = card_rank(in->cards, ci);
    if ((in->cards & (in->cards - 1)) && __builtin_popcountll(in->cards) > MIG_SLOTS_PACKED) {
        if (!in->many) {
            in->slots.many = xcalloc(CL_MAX_NODE_GPUS, sizeof *in->slots.many);
            in->many = true;
        }
        in->slots.many[rank] = (uint8_t)slot;
    } else {
        in->slots.packed &= ~((uint64_t)((1u << MIG_SLOT_BITS) - 1) << (MIG_SLOT_BITS * rank));
        in->slots.packed |= (uint64_t)slot << (MIG_SLOT_BITS * rank);
    }
}

void mig_inst_hold(mig_base *b, mig_gpu *g, int slot, job *j)
{
    mig_inst *in = &g->inst[slot];
    const mig_profile *pr = &g->lay.t->profiles[in->prof];
    keep_slot(b, g, slot, j);
    in->state = MI_HELD;
    g->nheld++;
    gs_time_us now = sim_now(b->s);
    sim_gauge_add(&b->mem_held, now, pr->size);
    sim_gauge_add(&b->compute_held, now, pr->compute_slices);
    int64_t mem_mib = mig_req_mem_mib(b->groups[g->ix.group].model, &j->req);
    if (mem_mib > 0) {
        int64_t w = pr->memory_mib - mem_mib;
        sim_gauge_add(&b->waste_mib, now, (double)w);
        b->waste_sum_mib += (double)w;
        b->waste_n++;
    }
    /* allocated capacity: compute slices / card's total, charged to j */
    sim_alloc_add_for(b->s, j, b->groups[g->ix.group].pool, card_frac(g, in->prof));
    mig_card_changed(b, g);
}

void mig_inst_unhold(mig_base *b, mig_gpu *g, int slot, job *j)
{
    mig_inst *in = &g->inst[slot];
    const mig_profile *pr = &g->lay.t->profiles[in->prof];
    gs_time_us now = sim_now(b->s);
    sim_gauge_add(&b->mem_held, now, -pr->size);
    sim_gauge_add(&b->compute_held, now, -pr->compute_slices);
    int64_t mem_mib = mig_req_mem_mib(b->groups[g->ix.group].model, &j->req);
    if (mem_mib > 0)
        sim_gauge_add(&b->waste_mib, now, -(double)(pr->memory_mib - mem_mib));
    sim_alloc_add_for(b->s, j, b->groups[g->ix.group].pool, -card_frac(g, in->prof));
    g->nheld--;
    in->state = MI_IDLE;
    b->h->unplaced(b, g, slot);
    mig_card_changed(b, g);
}

int mig_inst_create(mig_base *b, mig_gpu *g, int prof, int start, uint8_t state)
{
    int slot = 0;
    while (slot < MIG_MAX_SLICES && g->inst[slot].state != MI_NONE)
        slot++;
    if (slot == MIG_MAX_SLICES)
        GS_BUG("mig_inst_create: no free instance slot");
    mig_place(&g->lay, prof, start);
    g->inst[slot] = (mig_inst){.prof = (int8_t)prof, .start = (int8_t)start, .state = state};
    sim_gauge_add(&b->mem_occupied, sim_now(b->s), g->lay.t->profiles[prof].size);
    mig_card_changed(b, g);
    return slot;
}

void mig_inst_destroy(mig_base *b, mig_gpu *g, int slot)
{
    mig_inst *in = &g->inst[slot];
    mig_remove(&g->lay, in->prof, in->start);
    sim_gauge_add(&b->mem_occupied, sim_now(b->s), -g->lay.t->profiles[in->prof].size);
    memset(in, 0, sizeof *in);
    mig_card_changed(b, g);
}

/* {==== report ====} */

void mig_base_report(const mig_base *b, cJSON *pol)
{
    const sim *s = b->s;
    double end_s = gs_us_to_s(sim_now(s));
    double wait_s = b->blocked_wait_s, idle_wait_s = b->other_idle_wait_s;
    /* requests still waiting at the end: their wait so far */
    const sim_queue *queue = sim_space_queue(s);
    for (int c = 0; c < queue->ncls; c++)
        for (size_t k = 0; k < queue->cls[c].n; k++) {
            const job *j = queue->cls[c].heap[k];
            const mig_jobinfo *in = j->slot < b->info_cap ? mig_info_at(b, j->slot) : NULL;
            if (in && in->blocked)
                wait_s += gs_us_to_s(sim_now(s) - j->req.submit_us);
            if (in && in->other_idle)
                idle_wait_s += gs_us_to_s(sim_now(s) - j->req.submit_us);
        }
    cJSON_AddNumberToObject(pol, "mig_cards", b->ngpus);
    cJSON *sl = cJSON_AddObjectToObject(pol, "slice_util");
    double mt = b->total_mem_slices * end_s, ct = b->total_compute_slices * end_s;
    cJSON_AddNumberToObject(sl, "memory", mt > 0 ? sim_gauge_area(&b->mem_held, sim_now(s)) / mt : 0);
    cJSON_AddNumberToObject(sl, "compute", ct > 0 ? sim_gauge_area(&b->compute_held, sim_now(s)) / ct : 0);
    cJSON_AddNumberToObject(sl, "memory_occupied", mt > 0 ? sim_gauge_area(&b->mem_occupied, sim_now(s)) / mt : 0);
    cJSON_AddNumberToObject(sl, "memory_slices_total", b->total_mem_slices);
    cJSON_AddNumberToObject(sl, "compute_slices_total", b->total_compute_slices);
    cJSON *w = cJSON_AddObjectToObject(pol, "internal_waste");
    cJSON_AddNumberToObject(w, "per_instance_mib", b->waste_n ? b->waste_sum_mib / (double)b->waste_n : 0);
    cJSON_AddNumberToObject(w, "instances", (double)b->waste_n);
    cJSON_AddNumberToObject(w, "mean_concurrent_mib", end_s > 0 ? sim_gauge_area(&b->waste_mib, sim_now(s)) / end_s : 0);
    cJSON_AddNumberToObject(w, "gib_hours", sim_gauge_area(&b->waste_mib, sim_now(s)) / 1024.0 / 3600.0);
    cJSON *bl = cJSON_AddObjectToObject(pol, "blocked_by_layout");
    cJSON_AddNumberToObject(bl, "requests", (double)b->blocked_requests);
    cJSON_AddNumberToObject(bl, "wait_s", wait_s);
    cJSON *oi = cJSON_AddObjectToObject(pol, "waited_beside_idle_instances");
    cJSON_AddNumberToObject(oi, "requests", (double)b->other_idle_waits);
    cJSON_AddNumberToObject(oi, "wait_s", idle_wait_s);
    if (b->mem_fallback) /* memory requests a MIG card could hold that ran on a card without MIG */
        cJSON_AddNumberToObject(pol, "placed_without_mig", (double)b->placed_fallback);
    cJSON *ins = cJSON_AddObjectToObject(pol, "instances");
    cJSON_AddNumberToObject(ins, "placed_requests", (double)b->placed_mig);
    cJSON_AddNumberToObject(ins, "created", (double)b->creations);
    cJSON_AddNumberToObject(ins, "destroyed", (double)b->destructions);
    int live = 0; /* at the end (dynmig: destructions after the last job are not simulated) */
    for (int i = 0; i < b->ngpus; i++)
        for (int q = 0; q < MIG_MAX_SLICES; q++)
            live += b->gpus[i].inst[q].state != MI_NONE;
    cJSON_AddNumberToObject(ins, "live_at_end", live);
}
