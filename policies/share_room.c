/* share_room.c - the share policies' answer to the queue's demand index:
 * how many cards of a node could take any task at all.
 *
 * A card is closed when no request can pass sc_card_fits there: its tenant
 * slots are all taken (split_count), or under HAMi admission its gpucores
 * are all reserved or less than 1 MiB of admitted memory is left (every HAMi
 * request asks at least 1 MiB: sc_mem_of gives the whole card when nothing
 * is stated). A request of k vGPUs needs k open cards on one node, so a
 * class whose k exceeds the most open cards on any node is not tried.
 * Kept incrementally: one flag per card, a count per node and a histogram of
 * nodes by count, updated when a task joins or leaves (O(cards touched));
 * the room is the top non-empty histogram entry, O(cards per node).
 * SPDX-License-Identifier: MIT */
#include "share_card.h"

#include <stdlib.h>

static bool card_open(const sc_state *st, int g)
{
    const sc_config *cfg = &st->cfg;
    const sc_card *c = &st->cards[g];
    if ((int)c->n >= cfg->max_tenants) /* split_count, else SC_CARD_TENANTS_MAX */
        return false;
    if (!cfg->hami)
        return true;
    if (c->cores_used >= cfg->total_cores)
        return false;
    return sc_card_total_mem(st, g) - (double)c->mem_committed >= 1.0;
}

void sc_room_init(sc_state *st)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    st->node_open = xcalloc((size_t)cl->nnodes + 1, sizeof *st->node_open);
    st->open_hist = xcalloc(CL_MAX_NODE_GPUS + 1, sizeof *st->open_hist);
    for (int ni = 0; ni < cl->nnodes; ni++) {
        const sim_node *n = &cl->nodes[ni];
        for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++) {
            bool open = card_open(st, g);
            if (!open) /* an empty card is open: its record is left as calloc gave it (sc_new) */
                st->cards[g].closed = true;
            st->node_open[ni] += open;
        }
        st->open_hist[st->node_open[ni]]++;
    }
}

void sc_room_free(sc_state *st)
{
    free(st->node_open);
    free(st->open_hist);
}

void sc_room_card(sc_state *st, int g, int ni)
{
    sc_card *c = &st->cards[g];
    bool now = card_open(st, g);
    if (now == !c->closed)
        return;
    c->closed = !now;
    st->open_hist[st->node_open[ni]]--;
    st->node_open[ni] = (uint8_t)(st->node_open[ni] + (now ? 1 : -1));
    st->open_hist[st->node_open[ni]]++;
}

uint32_t sc_queue_demand(const void *state, const job *j)
{
    (void)state;
    return j->req.gpus > 0 ? (uint32_t)j->req.gpus : 0;
}

uint32_t sc_queue_room(const void *state, const sim *s)
{
    (void)s;
    const sc_state *st = state;
    for (int k = CL_MAX_NODE_GPUS; k > 0; k--)
        if (st->open_hist[k])
            return (uint32_t)k;
    return 0;
}

/* ---- HAMi's node order (gpu_select=hami): the nodes with an open card in a
 * heap by node score (binpack: highest first, spread: lowest), ties to the
 * lower node index, exactly sc_place's order. A placement walks the heap
 * best-first (a small frontier heap of positions) and stops at the first
 * node that admits the task: O(k log k) for k nodes looked at, instead of
 * every node. A node's score is recomputed when a task joins or leaves it.
 * Once the treap over every node (share_host.c) is built on top of this
 * order, it answers every placement and the heap is no longer kept. */

static bool node_before(const sc_state *st, int a, int b)
{
    double sa = st->node_score[a], sb = st->node_score[b];
    if (sa != sb)
        return st->cfg.node_spread ? sa < sb : sa > sb;
    return a < b;
}

static void nh_set(sc_state *st, int i, int ni)
{
    st->nh[i] = ni;
    st->nh_pos[ni] = i;
}

static void nh_up(sc_state *st, int i)
{
    int ni = st->nh[i];
    while (i > 0 && node_before(st, ni, st->nh[(i - 1) / 2])) {
        nh_set(st, i, st->nh[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    nh_set(st, i, ni);
}

static void nh_down(sc_state *st, int i)
{
    int ni = st->nh[i];
    for (;;) {
        int k = 2 * i + 1;
        if (k >= st->nh_n)
            break;
        if (k + 1 < st->nh_n && node_before(st, st->nh[k + 1], st->nh[k]))
            k++;
        if (!node_before(st, st->nh[k], ni))
            break;
        nh_set(st, i, st->nh[k]);
        i = k;
    }
    nh_set(st, i, ni);
}

void sc_room_node(sc_state *st, int ni)
{
    if (st->horder) {
        /* the treap over every node (share_host.c) answers every placement
         * once it is built (sc_place asks it first): the heap is not kept,
         * nor the scores beside it (the treap's keys are they) */
        sc_host_rescore(st, ni, sc_node_score(st, ni));
        return;
    }
    if (!st->node_score)
        return;
    st->node_score[ni] = sc_node_score(st, ni);
    int i = st->nh_pos[ni];
    bool in = st->node_open[ni] > 0;
    if (i < 0 && in) {
        st->nh[st->nh_n++] = ni;
        nh_up(st, st->nh_n - 1);
    } else if (i >= 0 && !in) {
        int last = st->nh[--st->nh_n];
        st->nh_pos[ni] = -1;
        if (i < st->nh_n) {
            nh_set(st, i, last);
            nh_up(st, i);
            nh_down(st, st->nh_pos[last]);
        }
    } else if (i >= 0) {
        nh_up(st, i);
        nh_down(st, st->nh_pos[ni]);
    }
    sc_host_update(st, ni); /* the order over every node follows the score */
}

void sc_order_init(sc_state *st)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    st->nh = xmalloc(((size_t)cl->nnodes + 1) * sizeof *st->nh);
    st->nh_pos = xmalloc(((size_t)cl->nnodes + 1) * sizeof *st->nh_pos);
    st->node_score = xcalloc((size_t)cl->nnodes + 1, sizeof *st->node_score);
    st->nh_n = 0;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        st->nh_pos[ni] = -1;
        sc_room_node(st, ni);
    }
}

void sc_order_drop_heap(sc_state *st)
{
    free(st->nh);
    free(st->nh_pos);
    free(st->node_score); /* the treap's keys hold the scores from now on */
    st->nh = st->nh_pos = NULL;
    st->node_score = NULL;
    st->nh_n = 0;
}

void sc_order_free(sc_state *st)
{
    free(st->nh);
    free(st->nh_pos);
    free(st->node_score);
    free(st->frontier);
}

/* The frontier: heap positions of st->nh, ordered by their nodes. */
static bool fr_before(const sc_state *st, int a, int b) { return node_before(st, st->nh[a], st->nh[b]); }

static void fr_push(sc_state *st, int *n, int pos)
{
    if (*n == st->frontier_cap) {
        st->frontier_cap = st->frontier_cap ? st->frontier_cap * 2 : 64;
        st->frontier = xrealloc(st->frontier, (size_t)st->frontier_cap * sizeof *st->frontier);
    }
    int i = (*n)++;
    while (i > 0 && fr_before(st, pos, st->frontier[(i - 1) / 2])) {
        st->frontier[i] = st->frontier[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    st->frontier[i] = pos;
}

static int fr_pop(sc_state *st, int *n)
{
    int top = st->frontier[0], last = st->frontier[--*n], i = 0;
    for (;;) {
        int k = 2 * i + 1;
        if (k >= *n)
            break;
        if (k + 1 < *n && fr_before(st, st->frontier[k + 1], st->frontier[k]))
            k++;
        if (!fr_before(st, st->frontier[k], last))
            break;
        st->frontier[i] = st->frontier[k];
        i = k;
    }
    if (*n)
        st->frontier[i] = last;
    return top;
}

int sc_order_first(sc_state *st, bool (*admits)(sc_state *st, int ni, void *ud), void *ud)
{
    int n = 0;
    if (st->nh_n)
        fr_push(st, &n, 0);
    while (n) {
        int pos = fr_pop(st, &n);
        if (admits(st, st->nh[pos], ud))
            return st->nh[pos];
        if (2 * pos + 1 < st->nh_n)
            fr_push(st, &n, 2 * pos + 1);
        if (2 * pos + 2 < st->nh_n)
            fr_push(st, &n, 2 * pos + 2);
    }
    return -1;
}
