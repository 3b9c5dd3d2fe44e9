/* share_place.c - gpu_select=hami: where a shared-card task goes by HAMi's
 * scores (see share_place.h).
 * SPDX-License-Identifier: MIT */
#include "share_place.h"

#include <stdlib.h>

#include "share_fit.h"
#include "share_host.h"
#include "share_score.h"

typedef struct ranked {
    double score;
    int g;
} ranked;

/* The order cards are taken in: HAMi sorts a node's cards by score
 * (binpack ascending, spread descending; its sort keeps equal cards in
 * index order for up to 12 cards) and Fit takes them from the end
 * (pkg/scheduler/policy/gpu_policy.go Less, pkg/device/nvidia/device.go
 * Fit), so among equal scores the highest index goes first. */
static int by_score_asc(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score < b->score ? -1 : 1;
    return a->g > b->g ? -1 : a->g < b->g;
}

static int by_score_desc(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->g > b->g ? -1 : a->g < b->g;
}

typedef struct place_ask {
    sc_state *st;
    const job *j;
    int want, cores;
} place_ask;

/* Does node ni admit the task: want of its cards admit it (its pool and
 * host room are the order's to check first, share_host.c). */
static bool node_admits(void *ud, int ni)
{
    const place_ask *a = ud;
    const sc_state *st = a->st;
    const sim_cluster *cl = sim_cluster_of(st->s);
    const sim_node *n = &cl->nodes[ni];
    if (n->ngpus < a->want)
        return false;
    int64_t mem = sc_mem_of(st, a->j, n->pool);
    double total = sc_node_total_mem(st, n);
    int fit = 0;
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus && fit < a->want; g++)
        fit += sc_card_fits(st, &st->cards[g], total, mem, a->cores);
    return fit >= a->want;
}

int sc_place_hami(sc_state *st, const job *j, uint64_t pools)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    int want = j->req.gpus, cores = sc_task_cores(st, j);
    place_ask ask = {st, j, want, cores};
    int best = sc_host_first(st->horder, pools, j->req.cpu, j->req.mem_gib, want, node_admits, &ask);
    if (best < 0)
        return -1;
    const sim_node *n = &cl->nodes[best];
    int64_t mem = sc_mem_of(st, j, n->pool);
    double total = sc_node_total_mem(st, n);
    ranked *r = xmalloc((size_t)(n->ngpus + 1) * sizeof *r);
    int m = 0;
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++)
        if (sc_card_fits(st, &st->cards[g], total, mem, cores))
            r[m++] = (ranked){sc_card_score(st, &st->cards[g], total, 1, mem, cores), g};
    qsort(r, (size_t)m, sizeof *r, st->cfg.card_spread ? by_score_asc : by_score_desc);
    for (int i = 0; i < want; i++)
        st->pick[i] = r[i].g;
    free(r);
    return best;
}
