/* mig_place.c - a request's MIG profiles, its routes (slice, whole card,
 * fallback), its demand keys, and placement over the
 * nodes (see mig_common.h).
 * SPDX-License-Identifier: MIT */
#include "mig_common.h"

#include "../sim/sim_hw.h"
#include "../sim/sim_preempt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

uint64_t mig_base_shape_key(const void *state, const job *j)
{
    (void)state;
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
        if (v[i]->slot < b->info_cap && mig_info_at(b, v[i]->slot)->on_ledger)
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
            const mig_jobinfo *vi = v[i]->slot < b->info_cap ? mig_info_at(b, v[i]->slot) : NULL;
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
