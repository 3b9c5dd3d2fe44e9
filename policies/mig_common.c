/* mig_common.c - MIG cards, layouts, request mapping and placement shared by
 * the `mig` and `dynmig` policies (see mig_common.h).
 * SPDX-License-Identifier: MIT */
#include "mig_common.h"

#include "../sim/sim_hw.h"
#include "../sim/sim_preempt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* {==== layouts from the cluster file ====} */

/* Places one instance of p at the start strategy st picks; false if none. */
static bool add_one(mig_card *c, mig_layout_spec *l, int p, mig_strategy st)
{
    int s = mig_choose_start(c, p, st, NULL);
    if (s < 0)
        return false;
    mig_place(c, p, s);
    l->prof[l->n] = (int8_t)p;
    l->start[l->n++] = (int8_t)s;
    return true;
}

/* The first profile (table order) whose name starts with prefix and that is
 * not a +me variant, with the fewest memory slices. */
static int profile_by_prefix(const mig_table *t, const char *prefix)
{
    int best = -1;
    for (int i = 0; i < t->nprofiles; i++)
        if (!strncmp(t->profiles[i].name, prefix, strlen(prefix)) && !strstr(t->profiles[i].name, "+me") &&
            (best < 0 || t->profiles[i].size < t->profiles[best].size))
            best = i;
    return best;
}

static void list_profiles(const mig_table *t, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < t->nprofiles && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", t->profiles[i].name);
}

/* Resolves one layout value: "whole" (the full-card profile), "balanced"
 * (mig-parted's all-balanced mix: one 3g, one 2g, the rest in 1g instances of
 * one slice, placed largest first with the bestfit rule), "all-<profile>"
 * (as many of that profile as fit, lowest starts first) or an explicit list
 * [{"profile": P, "start": S}, ...] checked against the placement rule. */
/* A named layout (whole, balanced, dynamic, all-<profile>) into l, built
 * on card c: 0, or -1 with why. */
static int named_layout(const char *nm, const mig_table *t, mig_card *c, mig_layout_spec *l, char *why, size_t n)
{
    char names[512];
    if (!strcmp(nm, "dynamic")) { /* no instances: dynmig creates them per request */
        return 0;
    }
    if (!strcmp(nm, "whole")) {
        int p = mig_full_profile(t);
        if (p < 0 || !add_one(c, l, p, MIG_BESTFIT))
            return snprintf(why, n, "this model has no full-card profile"), -1;
        return 0;
    }
    if (!strcmp(nm, "balanced")) {
        int p3 = profile_by_prefix(t, "3g."), p2 = profile_by_prefix(t, "2g."), p1 = profile_by_prefix(t, "1g.");
        if (p2 < 0 || p1 < 0)
            return snprintf(why, n, "'balanced' needs 2g and 1g profiles"), -1;
        if (p3 >= 0)
            add_one(c, l, p3, MIG_BESTFIT);
        add_one(c, l, p2, MIG_BESTFIT);
        while (t->profiles[p1].size == 1 && add_one(c, l, p1, MIG_BESTFIT))
            ;
        return 0;
    }
    if (!strncmp(nm, "all-", 4)) {
        int p = mig_profile_find(t, nm + 4);
        if (p < 0) {
            list_profiles(t, names, sizeof names);
            return snprintf(why, n, "unknown profile '%s' (profiles: %s)", nm + 4, names), -1;
        }
        while (l->n < MIG_MAX_SLICES) {
            int st[MIG_MAX_SLICES];
            if (mig_free_starts(c, p, st) == 0)
                break;
            mig_place(c, p, st[0]);
            l->prof[l->n] = (int8_t)p;
            l->start[l->n++] = (int8_t)st[0];
        }
        return 0;
    }
    return snprintf(why, n, "unknown layout '%s' (expected whole, balanced, dynamic, all-<profile> or a list of "
                    "{\"profile\", \"start\"})", nm), -1;
}

/* Why entry k, profile p at slice s, cannot be placed on card c: not a
 * legal start, past the profile's instances, or over an earlier one. -1. */
static int place_refused(const mig_card *c, const mig_table *t, int k, int p, int s, char *why, size_t n)
{
    const mig_profile *pr = &t->profiles[p];
    char legal[64] = "";
    size_t u = 0;
    for (int q = 0; q < pr->nplacements; q++)
        u += (size_t)snprintf(legal + u, sizeof legal - u, "%s%d", q ? "," : "", pr->placements[q]);
    bool is_legal = false;
    for (int q = 0; q < pr->nplacements; q++)
        is_legal |= pr->placements[q] == s;
    if (!is_legal)
        return snprintf(why, n, "[%d]: %s cannot start at slice %d (legal starts: %s)", k, pr->name, s, legal), -1;
    if (c->count[p] >= pr->max_instances)
        return snprintf(why, n, "[%d]: more than %d instance(s) of %s", k, pr->max_instances, pr->name), -1;
    return snprintf(why, n, "[%d]: %s at slice %d overlaps an earlier instance (slices %d..%d taken)", k, pr->name,
                    s, s, s + pr->size - 1), -1;
}

/* Resolves one layout value: "whole" (the full-card profile), "balanced"
 * (mig-parted's all-balanced mix: one 3g, one 2g, the rest in 1g instances of
 * one slice, placed largest first with the bestfit rule), "all-<profile>"
 * (as many of that profile as fit, lowest starts first) or an explicit list
 * [{"profile": P, "start": S}, ...] checked against the placement rule. */
static int parse_layout(const cJSON *v, const mig_table *t, mig_layout_spec *l, char *why, size_t n)
{
    mig_card c;
    mig_card_init(&c, t);
    memset(l, 0, sizeof *l);
    char names[512];
    if (cJSON_IsString(v))
        return named_layout(v->valuestring, t, &c, l, why, n);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > MIG_MAX_SLICES)
        return snprintf(why, n, "expected a layout name or a list of at most 8 {\"profile\", \"start\"}"), -1;
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, v)
    {
        const cJSON *pn = cJSON_GetObjectItemCaseSensitive(it, "profile"),
                    *ps = cJSON_GetObjectItemCaseSensitive(it, "start");
        if (!cJSON_IsString(pn) || !cJSON_IsNumber(ps) || ps->valuedouble < 0 || ps->valuedouble > 7 ||
            ps->valuedouble != (int)ps->valuedouble || cJSON_GetArraySize(it) != 2)
            return snprintf(why, n, "[%d]: expected {\"profile\": NAME, \"start\": SLICE}", k), -1;
        int p = mig_profile_find(t, pn->valuestring), s = (int)ps->valuedouble;
        if (p < 0) {
            list_profiles(t, names, sizeof names);
            return snprintf(why, n, "[%d]: unknown profile '%s' (profiles: %s)", k, pn->valuestring, names), -1;
        }
        if (!mig_can_place(&c, p, s))
            return place_refused(&c, t, k, p, s, why, n);
        mig_place(&c, p, s);
        l->prof[l->n] = (int8_t)p;
        l->start[l->n++] = (int8_t)s;
        k++;
    }
    return 0;
}

static bool parse_hhmm(const char *s, gs_time_us *out)
{
    int h, m;
    char tail;
    if (sscanf(s, "%d:%d%c", &h, &m, &tail) != 2 || h < 0 || h > 23 || m < 0 || m > 59 || strlen(s) != 5)
        return false;
    *out = ((gs_time_us)h * 3600 + m * 60) * GS_US_PER_S;
    return true;
}

/* The group's "mig" value: a layout, or {"schedule": [{"at": "HH:MM",
 * "layout": L}, ...]} with "at" strictly increasing. */
static int parse_group(mig_group *gr, const char *text, char *why, size_t n)
{
    cJSON *v = cJSON_Parse(text);
    int rc = 0;
    const cJSON *sch = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "schedule") : NULL;
    if (cJSON_IsObject(v)) {
        int ns = cJSON_GetArraySize(sch);
        if (!cJSON_IsArray(sch) || ns < 1 || ns > MIG_MAX_SCHED || cJSON_GetArraySize(v) != 1) {
            snprintf(why, n, "expected a layout or {\"schedule\": [{\"at\": \"HH:MM\", \"layout\": L}, ...]} "
                     "with 1..%d entries", MIG_MAX_SCHED);
            rc = -1;
            goto out;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, sch)
        {
            const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "at"),
                        *lay = cJSON_GetObjectItemCaseSensitive(e, "layout");
            int k = gr->nsched;
            if (!cJSON_IsString(at) || !parse_hhmm(at->valuestring, &gr->at_us[k]) || !lay) {
                snprintf(why, n, "schedule[%d]: expected {\"at\": \"HH:MM\", \"layout\": L}", k);
                rc = -1;
                goto out;
            }
            if (k > 0 && gr->at_us[k] <= gr->at_us[k - 1]) {
                snprintf(why, n, "schedule[%d]: \"at\" must be later than the entry before", k);
                rc = -1;
                goto out;
            }
            char sub[400];
            if (parse_layout(lay, gr->model->mig, &gr->layout[k], sub, sizeof sub) != 0) {
                snprintf(why, n, "schedule[%d].layout: %s", k, sub);
                rc = -1;
                goto out;
            }
            gr->nsched++;
        }
    } else {
        gr->nsched = 1;
        gr->at_us[0] = 0;
        rc = parse_layout(v, gr->model->mig, &gr->layout[0], why, n);
    }
out:
    cJSON_Delete(v);
    return rc;
}

int mig_sched_entry(const mig_group *gr, gs_time_us t_us)
{
    gs_time_us tod = t_us % (24 * 3600 * GS_US_PER_S);
    int e = gr->nsched - 1; /* before the first "at": the last entry, from the day before */
    for (int k = 0; k < gr->nsched; k++)
        if (gr->at_us[k] <= tod)
            e = k;
    return e;
}

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

/* Slot s's record (s < info_cap). */
static inline mig_jobinfo *info_at(const mig_base *b, uint32_t s)
{
    return &b->info[s / MIG_INFO_CHUNK][s % MIG_INFO_CHUNK];
}

mig_jobinfo *mig_info(mig_base *b, const job *j)
{
    if (j->slot >= b->info_cap)
        info_grow(b, j->slot);
    return info_at(b, j->slot);
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
    if (parse_group(gr, text, why, sizeof why) != 0)
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
        if (info_at(b, i)->many)
            free(info_at(b, i)->slots.many);
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

/* {==== requests ====} */

int64_t mig_req_mem_mib(const gpu_model *m, const job_req *r)
{
    return job_req_gpumem_mib(r, m->memory_mib); /* 0: not stated */
}

int mig_candidates_of(mig_base *b, const gpu_model *m, const job *j, const int **out)
{
    if (b->cand_job != j || b->cand_gen != j->gen || b->cand_model != m) {
        char kind;
        b->ncand = mig_candidates(m, &j->req, b->cand, &kind);
        b->cand_job = j;
        b->cand_gen = j->gen;
        b->cand_model = m;
    }
    *out = b->cand;
    return b->ncand;
}

int mig_candidates(const gpu_model *m, const job_req *r, int *out, char *kind)
{
    const mig_table *t = m->mig;
    int64_t mem_mib = mig_req_mem_mib(m, r);
    int n = 0;
    if (r->mig[0]) {
        *kind = 'n';
        int p = mig_profile_find(t, r->mig);
        if (p >= 0)
            out[n++] = p;
        return n;
    }
    if (mem_mib <= 0) { /* no memory asked: the whole card (HAMi: 100 % of memory, reference/mechanics.md 1) */
        *kind = 'w';
        int p = mig_full_profile(t);
        if (p >= 0)
            out[n++] = p;
        return n;
    }
    *kind = 'm';
    for (int p = 0; p < t->nprofiles; p++) {
        const mig_profile *pr = &t->profiles[p];
        if (strstr(pr->name, "+me") || pr->memory_mib < mem_mib ||
            (r->gpucores > 0 && pr->compute_slices * 100 < r->gpucores * t->compute_slices))
            continue;
        /* insertion by (memory, compute slices): HAMi's candidate order */
        int k = n++;
        while (k > 0 && (t->profiles[out[k - 1]].memory_mib > pr->memory_mib ||
                         (t->profiles[out[k - 1]].memory_mib == pr->memory_mib &&
                          t->profiles[out[k - 1]].compute_slices > pr->compute_slices))) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = p;
    }
    return n;
}

static bool host_fits(const sim_node *n, double cpu, double mem)
{
    return (n->cpu_total < 0 || n->cpu_total - n->cpu_used >= cpu - 1e-9) &&
           (n->mem_total_gib < 0 || n->mem_total_gib - n->mem_used_gib >= mem - 1e-9);
}

static bool group_host_fits(const mig_group *gr, const job *j)
{
    return gr->ngpus >= j->req.gpus && (gr->cpu < 0 || gr->cpu >= j->req.cpu) &&
           (gr->mem_gib < 0 || gr->mem_gib >= j->req.mem_gib);
}

/* Where j may ever go, over the node groups: O(groups). */
static void routes(const mig_base *b, const job *j, bool *mig_ok, bool *whole_ok, bool *fallback_ok)
{
    *mig_ok = *whole_ok = *fallback_ok = false;
    bool whole_cards = false;
    for (int g = 0; g < b->ngroups; g++) {
        const mig_group *gr = &b->groups[g];
        if (!gr->model || !(j->pools >> gr->pool & 1) || !group_host_fits(gr, j))
            continue;
        if (gr->mig)
            *mig_ok |= b->h->ever(b, gr, j);
        else
            whole_cards = true;
    }
    /* as mig_candidates */
    char kind = j->req.mig[0] ? 'n' : (j->req.gpumem_mib > 0 || j->req.gpumem_pct > 0) ? 'm' : 'w';
    /* a named profile needs MIG; a memory request takes a whole card only
     * when no MIG card could ever hold it */
    *whole_ok = whole_cards && (kind == 'w' || (kind == 'm' && !*mig_ok));
    /* HAMi pools MIG and non-MIG cards: a memory request that no MIG card
     * can take now may run on a card without MIG (mem_route=mig-first) */
    *fallback_ok = whole_cards && kind == 'm' && *mig_ok && b->mem_fallback;
}

/* routes, worked out once per job (they depend only on the request and
 * the cluster file) and kept in its record. */
static inline void routes_of(mig_base *b, const job *j, bool *mig_ok, bool *whole_ok, bool *fallback_ok)
{
    mig_jobinfo *in = mig_info(b, j);
    if (!(in->routes & MIG_ROUTE_KNOWN)) {
        routes(b, j, mig_ok, whole_ok, fallback_ok);
        in->routes = (uint8_t)(MIG_ROUTE_KNOWN | (*mig_ok ? MIG_ROUTE_MIG : 0) | (*whole_ok ? MIG_ROUTE_WHOLE : 0) |
                               (*fallback_ok ? MIG_ROUTE_FALLBACK : 0));
    }
    *mig_ok = in->routes & MIG_ROUTE_MIG;
    *whole_ok = in->routes & MIG_ROUTE_WHOLE;
    *fallback_ok = in->routes & MIG_ROUTE_FALLBACK;
}

/* The (group, entry, profile) sets whose cards can take one GPU of j now,
 * over the groups of the pools allowed and with nodes of at least `gpus`
 * cards, into b->keys; returns their number. */
static int job_keys(mig_base *b, const job *j, uint64_t pools)
{
    int n = 0;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(pools >> gr->pool & 1) || gr->ngpus < j->req.gpus)
            continue;
        for (int e = 0; e < gr->nsched; e++) {
            int want[MIG_MAX_PROFILES];
            int nw = b->h->wanted(b, gr, e, j, want);
            for (int w = 0; w < nw; w++)
                n = mig_keys_add(b, n, gi, e, want[w]);
        }
    }
    return n;
}

/* The first card >= from in any of the nk sets of b->keys, or -1. */
static int next_card(const mig_base *b, int nk, int from)
{
    int best = -1;
    for (int k = 0; k < nk; k++) {
        int c = mig_index_next(&b->idx, b->keys[3 * k], b->keys[3 * k + 1], b->keys[3 * k + 2], from);
        if (c >= 0 && (best < 0 || c < best))
            best = c;
    }
    return best;
}

uint32_t mig_base_queue_demand(mig_base *b, const job *j)
{
    bool mig_ok, whole_ok, fallback_ok;
    routes_of(b, j, &mig_ok, &whole_ok, &fallback_ok);
    if (whole_ok || fallback_ok)
        return 0;
    int least = -1;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(j->pools >> gr->pool & 1))
            continue;
        for (int e = 0; e < gr->nsched; e++) {
            int want[MIG_MAX_PROFILES];
            int nw = b->h->wanted(b, gr, e, j, want);
            for (int w = 0; w < nw; w++) {
                int size = gr->model->mig->profiles[want[w]].size;
                if (least < 0 || size < least)
                    least = size;
            }
        }
    }
    if (least <= 0 || j->req.gpus < 1)
        return 0;
    return (uint32_t)((least - 1) * MIG_ROOM_STRIDE + j->req.gpus);
}

double mig_mem_per_card_mib(const void *state, const struct gpu_model *m, const job_req *r)
{
    const mig_base *b = state; /* the first member of both policies' states */
    /* one GPU of r on a card of m, host needs aside: the routes a request
     * of it ever has (a named profile a layout offers, a profile holding its
     * memory, a card without MIG); none: the card gives it nothing */
    job one = {.req = *r};
    one.req.gpus = 1;
    one.req.cpu = one.req.mem_gib = 0;
    for (int g = 0; g < b->ngroups; g++)
        if (b->groups[g].model == m)
            one.pools |= 1ULL << b->groups[g].pool;
    bool mig_ok, whole_ok, fallback_ok;
    routes(b, &one, &mig_ok, &whole_ok, &fallback_ok);
    if (!mig_ok && !whole_ok)
        return 0;
    double card = (double)m->memory_mib;
    if (r->mig[0] && m->mig) {
        int p = mig_profile_find(m->mig, r->mig);
        return p >= 0 ? (double)m->mig->profiles[p].memory_mib : 0;
    }
    return r->gpumem_mib > 0 ? fmin((double)r->gpumem_mib, card) : card;
}

uint64_t mig_base_shape_key(const job *j)
{
    uint64_t k = (uint64_t)j->req.gpus * 0x9E3779B97F4A7C15ULL ^ j->pools * 0xC2B2AE3D27D4EB4FULL;
    uint64_t c, m;
    memcpy(&c, &j->req.cpu, sizeof c);
    memcpy(&m, &j->req.mem_gib, sizeof m);
    k ^= c * 0x165667B19E3779F9ULL ^ (m * 0x27D4EB2F165667C5ULL) ^ (m >> 17);
    k ^= (uint64_t)j->req.gpumem_mib * 0xFF51AFD7ED558CCDULL ^ (uint64_t)j->req.gpucores * 0xC4CEB9FE1A85EC53ULL ^
         (uint64_t)j->req.gpumem_pct * 0x9FB21C651E98DF25ULL;
    for (const char *p = j->req.mig; *p; p++)
        k = (k ^ (uint8_t)*p) * 0x100000001B3ULL;
    return k ^ (uint64_t)j->tenant_ix * 0xD6E8FEB86659FD93ULL; /* quotas admit per tenant */
}

/* the reservation of a node for a preemptor (see mig_common.h),
 * or NULL once that job has started, been placed or gone. */
static inline job *resv_live(mig_base *b)
{
    job *p = b->resv;
    if (p && (p->gen != b->resv_gen || p->state != JOB_QUEUED || !sim_job_is_placed(p) ||
              mig_info(b, p)->card0 >= 0 || mig_info(b, p)->on_ledger))
        b->resv = p = NULL;
    return p;
}

/* Does node n have instances whose slices are still to come back? */
static bool node_destroying(const mig_base *b, int n)
{
    for (int c = 0; c < b->node_count[n]; c++)
        for (int q = 0; q < MIG_MAX_SLICES; q++)
            if (b->gpus[b->node_first[n] + c].inst[q].state == MI_DESTROYING)
                return true;
    return false;
}

/* Tries to start j now: whole cards through the ledger, or one instance on
 * each of gpus MIG cards of one node, first fit by node id and card index:
 * the first node (in card order) with gpus cards that can take j now. The
 * index lists exactly the cards where the policy's pick succeeds, so the
 * walk visits only nodes with such a card: O(keys x (nodes looked at) x
 * bitmap words), where the nodes looked at are those with a card that can
 * take j but fewer than gpus of them, or whose CPU or memory is full
 * (single-card requests on nodes with room: one node). */
/* j on whole cards without MIG (the ledger's), when a node has them:
 * as a whole-card request, or as the fallback of a MIG one (counted). */
static bool place_on_ledger(mig_base *b, job *j, mig_jobinfo *in, uint64_t pools, bool fallback)
{
    sim *s = b->s;
    int node = sim_cluster_find_node(sim_cluster_of(s), pools, j->req.gpus, j->req.cpu, j->req.mem_gib, false);
    if (node < 0)
        return false;
    sim_place_whole(s, j, node);
    in->on_ledger = true;
    mig_set_pending(b, in, j, false);
    if (fallback)
        b->placed_fallback++;
    else
        sim_job_set_slices(j, 1, 1); /* whole cards */
    sim_job_start(s, j, 1.0);
    return true;
}

/* j placed on node's cards (cards[q]: its q-th card's rank in the node,
 * picks[q] the instance there): its pace, the instances committed, the
 * host's CPU and memory taken, its waits counted. */
static void commit_mig(mig_base *b, job *j, mig_jobinfo *in, int node, const mig_pick *picks, const int *cards)
{
    sim *s = b->s;
    int k = j->req.gpus;
    in->card0 = b->node_first[node];
    j->node = node; /* the core lists running preemptible jobs per node */
    in->cards = 0;
    double slice_c = 1, slice_m = 1;
    for (int q = 0; q < k; q++) { /* the job runs at its slowest instance's pace */
        const mig_gpu *gq = &b->gpus[b->node_first[node] + cards[q]];
        double c, mb;
        sim_hw_mig_shares(gq->lay.t, &gq->lay.t->profiles[picks[q].prof], &c, &mb);
        if (c < slice_c)
            slice_c = c;
        if (mb < slice_m)
            slice_m = mb;
    }
    sim_job_set_slices(j, slice_c, slice_m);
    for (int q = 0; q < k; q++) /* all first: a card's rank among them places its slot (mig_inst_hold) */
        in->cards |= 1ULL << cards[q];
    for (int q = 0; q < k; q++)
        b->h->commit(b, &b->gpus[b->node_first[node] + cards[q]], j, &picks[q]);
    mig_set_pending(b, in, j, false);
    sim_cluster_take(sim_cluster_of(s), node, 0, j->req.cpu, j->req.mem_gib, NULL);
    b->placed_mig++;
    gs_time_us waited = sim_now(s) - j->req.submit_us;
    if (in->blocked)
        b->blocked_wait_s += gs_us_to_s(waited);
    if (in->other_idle)
        b->other_idle_wait_s += gs_us_to_s(waited);
    b->h->placed(b, j);
}

static bool try_place(mig_base *b, job *j)
{
    sim *s = b->s;
    mig_jobinfo *in = mig_info(b, j);
    /* a second placement would hold two sets of instances and start j twice */
    if (in->card0 >= 0 || in->on_ledger)
        GS_BUG("mig place: the job is placed already");
    bool mig_ok, whole_ok, fallback_ok;
    routes_of(b, j, &mig_ok, &whole_ok, &fallback_ok);
    uint64_t pools = sim_admit_pools(s, j); /* quotas, preemption hand-over */
    if (!pools)
        return false;
    job *resv = resv_live(b);
    if (whole_ok && place_on_ledger(b, j, in, pools, false))
        return true;
    if (!mig_ok)
        return false;
    int k = j->req.gpus;
    mig_pick picks[CL_MAX_NODE_GPUS];
    int cards[CL_MAX_NODE_GPUS];
    int nk = job_keys(b, j, pools);
    for (int from = 0, a = 0;;) {
        int node, c0;
        if (k > 0) {
            if ((c0 = next_card(b, nk, from)) < 0)
                break;
            node = b->gpus[c0].ix.node;
        } else { /* no cards asked: the first MIG node that has the CPU and memory, by node id */
            if (a == b->nmig_nodes)
                break;
            node = b->mig_nodes[a++];
            c0 = -1;
        }
        int end = b->node_first[node] + b->node_count[node];
        from = end; /* this node is decided here */
        const sim_node *nd = &sim_cluster_of(s)->nodes[node];
        if (!(pools >> nd->pool & 1) || b->node_count[node] < k || !host_fits(nd, j->req.cpu, j->req.mem_gib) ||
            (resv && resv != j && node == b->resv_node))
            continue;
        int got = 0;
        for (int c = c0; c >= 0 && c < end && got < k; c = next_card(b, nk, c + 1)) {
            if (!b->h->pick(b, &b->gpus[c], j, &picks[got]))
                GS_BUG("mig index: a card listed for a profile cannot take it");
            cards[got++] = c - b->node_first[node];
        }
        if (got < k)
            continue;
        commit_mig(b, j, in, node, picks, cards);
        return true;
    }
    /* no MIG card could take it now: a card without MIG */
    return fallback_ok && place_on_ledger(b, j, in, pools, true);
}

bool mig_base_place(mig_base *b, job *j)
{
    if (try_place(b, j))
        return true;
    /* a nominee tried at a hand-over is not a request refused in a pass */
    if (b->h->blocked && sim_nominee(b->s) != j)
        b->h->blocked(b, j);
    return false;
}

job *mig_base_dispatch_held(mig_base *b)
{
    job *p = resv_live(b);
    if (p) { /* the reserved preemptor first, out of queue order */
        if (try_place(b, p))
            return p;
        if (!node_destroying(b, b->resv_node))
            b->resv = NULL; /* nothing more comes back there: it waits as any request */
    }
    return NULL;
}

bool mig_base_can_ever_fit(mig_base *b, const job *j)
{
    mig_jobinfo *in = mig_info(b, j);
    mig_set_pending(b, in, j, false); /* the slot's earlier job (gone without a start) */
    if (in->many)
        free(in->slots.many);
    memset(in, 0, sizeof *in);
    in->card0 = -1;
    bool mig_ok, whole_ok, fallback_ok;
    routes_of(b, j, &mig_ok, &whole_ok, &fallback_ok);
    if (!mig_ok && !whole_ok)
        return false;
    /* demand seen per profile (the dynmig 'demand' strategy's weights),
     * counted once per arrival: the core asks this once before placing */
    uint64_t done = 0; /* once per GPU model: several groups may share one */
    for (int g = 0; g < b->ngroups; g++) {
        const mig_group *gr = &b->groups[g];
        int cand[MIG_MAX_PROFILES];
        char kind;
        if (gr->mig && (j->pools >> gr->pool & 1) && !(done >> gr->pool & 1) &&
            mig_candidates(gr->model, &j->req, cand, &kind) > 0) {
            b->demand[gr->pool][cand[0]] += 1.0;
            done |= 1ULL << gr->pool;
        }
    }
    return true;
}

void mig_base_reject_reason(const mig_base *b, const job *j, char *why, size_t cap)
{
    bool mig_ok, whole_ok, fallback_ok, host = false;
    routes(b, j, &mig_ok, &whole_ok, &fallback_ok);
    for (int g = 0; g < b->ngroups; g++)
        host |= b->groups[g].model && (j->pools >> b->groups[g].pool & 1) && group_host_fits(&b->groups[g], j);
    if (!host)
        return; /* CPU or memory no node has: the core's reason */
    if (j->req.mig[0])
        snprintf(why, cap, "MIG profile %.31s: no MIG card of its models offers it", j->req.mig);
    else if (j->req.gpumem_mib > 0 || j->req.gpumem_pct > 0)
        snprintf(why, cap, "asks %lld MiB per GPU: no MIG profile of its models holds it, and no card is without MIG",
                 (long long)j->req.gpumem_mib);
    else
        snprintf(why, cap, "asks %d whole cards: none of its models' cards is without MIG, and no MIG layout of "
                 "them has a full-card instance for %d cards of a node", j->req.gpus, j->req.gpus);
}

void mig_base_unplace(mig_base *b, job *j)
{
    mig_jobinfo *in = mig_info(b, j);
    if (in->on_ledger) {
        sim_release_whole(b->s, j);
    } else if (in->card0 >= 0) {
        mig_gpu *first = &b->gpus[in->card0];
        for (uint64_t m = in->cards; m; m &= m - 1) {
            int ci = __builtin_ctzll(m), slot = mig_job_slot(in, ci);
            if (first[ci].inst[slot].state != MI_HELD)
                GS_BUG("mig release: job holds no instance on its card");
            mig_inst_unhold(b, &first[ci], slot, j);
        }
        if (in->many)
            free(in->slots.many);
        sim_cluster_give(sim_cluster_of(b->s), j->node, NULL, 0, j->req.cpu, j->req.mem_gib);
    }
    /* for a hand-over that follows (mig_base_nominee_missed) */
    b->released_node = in->card0 >= 0 ? j->node : -1;
    if (in->card0 >= 0)
        j->node = -1;
    mig_set_pending(b, in, j, false);
    memset(in, 0, sizeof *in);
    in->card0 = -1;
}

void mig_base_nominee_missed(mig_base *b, job *p)
{
    int node = b->released_node;
    if (node >= 0 && node_destroying(b, node)) {
        /* dynmig: the victims' slices come back after reconcile + destroy;
         * the node is held for p until then (mig_base_dispatch_held) */
        b->resv = p;
        b->resv_gen = p->gen;
        b->resv_node = node;
        sim_preemptor_held(b->s, p);
    }
}

bool mig_base_fits_if_released(const mig_base *b, const job *j, int n, job *const *v, int nv)
{
    const sim *s = b->s;
    const sim_node *nd = &sim_cluster_of(s)->nodes[n];
    if (!(j->pools >> nd->pool & 1) || nd->state != NODE_UP)
        return false;
    double cpu = nd->cpu_total - nd->cpu_used, mem = nd->mem_total_gib - nd->mem_used_gib;
    int ledger = nd->free_gpus;
    for (int i = 0; i < nv; i++) {
        if (v[i]->node != n)
            return false;
        cpu += v[i]->req.cpu;
        mem += v[i]->req.mem_gib;
        if (v[i]->slot < b->info_cap && info_at(b, v[i]->slot)->on_ledger)
            ledger += v[i]->ngpu_ids;
    }
    if ((nd->cpu_total >= 0 && cpu < j->req.cpu - 1e-9) || (nd->mem_total_gib >= 0 && mem < j->req.mem_gib - 1e-9))
        return false;
    bool mig_ok, whole_ok, fallback_ok;
    routes(b, j, &mig_ok, &whole_ok, &fallback_ok);
    if (b->node_count[n] == 0) /* a node without MIG: whole cards of the ledger */
        return (whole_ok || fallback_ok) && ledger >= j->req.gpus;
    if (!mig_ok || b->node_count[n] < j->req.gpus)
        return false;
    int got = 0;
    for (int c = 0; c < b->node_count[n] && got < j->req.gpus; c++) {
        mig_gpu g = b->gpus[b->node_first[n] + c]; /* a copy: the dry run changes only it */
        for (int i = 0; i < nv; i++) { /* the victims' instances on this card, from their records */
            const mig_jobinfo *vi = v[i]->slot < b->info_cap ? info_at(b, v[i]->slot) : NULL;
            if (!vi || vi->card0 != b->node_first[n] || !(vi->cards >> c & 1))
                continue;
            mig_inst *in = &g.inst[mig_job_slot(vi, c)];
            if (in->state != MI_HELD)
                continue; /* a victim named twice */
            if (b->h->frees_slices) { /* dynmig: its slices come back (after the destroy delay) */
                mig_remove(&g.lay, in->prof, in->start);
                memset(in, 0, sizeof *in);
            } else { /* mig: it stays as an idle instance of its profile */
                in->state = MI_IDLE;
            }
        }
        mig_pick pk;
        /* pick only reads (both policies'); the casts are for its signature */
        got += b->h->pick((mig_base *)b, &g, (job *)j, &pk);
    }
    return got >= j->req.gpus;
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
            const mig_jobinfo *in = j->slot < b->info_cap ? info_at(b, j->slot) : NULL;
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
