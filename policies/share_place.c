/* share_place.c - where a shared-card task goes: among the cards that admit
 * it (share_fit.c), HAMi's node and card scores (reference/mechanics.md section 1a,
 * "Scheduling").
 *
 * Card score = 10 x (slots + cores + memory usage fractions, request
 * included); node score = 10 x the same fractions summed over its cards,
 * before the request. binpack takes the highest, spread the lowest; ties go
 * to the lower node or card index.
 *
 * Cost: HAMi's scheduler scores every node per pod; here the nodes with a
 * card that could take anything sit in a heap in that order (share_room.c),
 * kept as tasks join and leave, and a placement walks it best-first to the
 * first node that admits the task: O(k log k x cards per node) for the k
 * nodes looked at. With gpu_select=hami the same order over every node also
 * sits in a treap that knows each subtree's host room and open cards
 * (share_host.c): a placement skips nodes short of CPU or memory in
 * O(log nodes), and a task asking no card (it may go where no card is open)
 * takes the first node with room.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "share_card.h"

/* HAMi's usage fractions of a card with a request of (slots, mem, cores) added. */
static double card_score(const sc_state *st, const sc_card *c, double total_mib, int slots, int64_t mem, int cores)
{
    const sc_config *cfg = &st->cfg;
    double used = cfg->split_count > 0 ? (double)(c->n + slots) / cfg->split_count : (double)(c->n + slots);
    if (cfg->hami)
        used += (double)(cores + c->cores_used) / cfg->total_cores + (double)(mem + c->mem_committed) / total_mib;
    return 10.0 * used;
}

typedef struct ranked {
    double score;
    int g;
} ranked;

static int by_score_asc(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score < b->score ? -1 : 1;
    return a->g < b->g ? -1 : a->g > b->g;
}

static int by_score_desc(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->g < b->g ? -1 : a->g > b->g;
}

double sc_node_score(const sc_state *st, int ni)
{
    /* from the cards' counters, not a copy of each card's score kept beside
     * them (8 bytes a card): a node's score is read once per change on it
     * (share_room.c), its cards' records are in cache then (the change was
     * theirs) and the pool's scaled memory is one load */
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double score = 0, total = sc_node_total_mem(st, n);
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++)
        score += card_score(st, &st->cards[g], total, 0, 0, 0);
    return score;
}

typedef struct place_ask {
    const job *j;
    uint64_t pools;
    int want, cores;
} place_ask;

/* Does node ni admit the task: its pool, host CPU and memory, and want
 * cards that admit it. */
static bool node_admits(sc_state *st, int ni, void *ud)
{
    const place_ask *a = ud;
    const sim_cluster *cl = sim_cluster_of(st->s);
    const sim_node *n = &cl->nodes[ni];
    const job *j = a->j;
    if (!(a->pools >> n->pool & 1) || n->ngpus < a->want || !sc_host_fits(n, j->req.cpu, j->req.mem_gib))
        return false;
    if (st->node_open[ni] < a->want)
        return false; /* fewer cards that admit anything (share_room.c) */
    int64_t mem = sc_mem_of(st, j, cl->pools[n->pool].model->memory_mib);
    double total = sc_node_total_mem(st, n);
    int fit = 0;
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus && fit < a->want; g++)
        fit += sc_card_fits(st, &st->cards[g], total, mem, a->cores);
    return fit >= a->want;
}

int sc_place(sc_state *st, job *j)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    int want = j->req.gpus, best = -1, cores = sc_task_cores(st, j);
    uint64_t pools = sim_admit_pools(st->s, j); /* quotas, preemption hand-over */
    if (!pools)
        return -1;
    if (st->cfg.select != SC_SEL_HAMI)
        return sc_place_select(st, j, pools); /* gpu_select strategies */
    place_ask ask = {j, pools, want, cores};
    if (st->horder) {
        /* the first node in HAMi's order that admits it, past the nodes
         * without host room in O(log nodes) (share_host.c); a task asking no
         * card may go where no card is open */
        best = sc_host_first(st, pools, j->req.cpu, j->req.mem_gib, want, node_admits, &ask);
    } else if (want > 0 && st->nh) {
        /* the first node in HAMi's order that admits it (share_room.c) */
        best = sc_order_first(st, node_admits, &ask);
    } else {
        /* every node in index order, the best score winning */
        double best_score = 0;
        for (int ni = 0; ni < cl->nnodes; ni++) {
            if (!node_admits(st, ni, &ask))
                continue;
            double score = sc_node_score(st, ni);
            if (best < 0 || (st->cfg.node_spread ? score < best_score : score > best_score)) {
                best = ni;
                best_score = score;
            }
        }
    }
    if (best < 0)
        return -1;
    const sim_node *n = &cl->nodes[best];
    int64_t mem = sc_mem_of(st, j, cl->pools[n->pool].model->memory_mib);
    double total = sc_node_total_mem(st, n);
    ranked *r = xmalloc((size_t)(n->ngpus + 1) * sizeof *r);
    int m = 0;
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++)
        if (sc_card_fits(st, &st->cards[g], total, mem, cores))
            r[m++] = (ranked){card_score(st, &st->cards[g], total, 1, mem, cores), g};
    qsort(r, (size_t)m, sizeof *r, st->cfg.card_spread ? by_score_asc : by_score_desc);
    for (int i = 0; i < want; i++)
        st->pick[i] = r[i].g;
    free(r);
    return best;
}

bool sc_can_ever_fit(const sc_state *st, const job *j)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    for (int p = 0; p < cl->npools; p++) {
        if (!(j->pools >> p & 1) || !sim_cluster_can_ever_fit(cl, 1ULL << p, j->req.gpus, j->req.cpu, j->req.mem_gib))
            continue;
        int64_t phys = cl->pools[p].model->memory_mib;
        if (st->cfg.hami && ((double)sc_mem_of(st, j, phys) > (double)phys * st->cfg.mem_scaling ||
                             j->req.gpucores > st->cfg.total_cores))
            continue;
        /* mps: a client's pinned memory limit is known before it starts: a
         * request above it could only crash, every time */
        if (st->cfg.mps && st->cfg.mps_split > 0 && sc_mem_of(st, j, phys) > phys / st->cfg.mps_split)
            continue;
        return true;
    }
    return false;
}
