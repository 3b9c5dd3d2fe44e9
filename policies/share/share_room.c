/* share_room.c - the share policies' answer to the queue's demand index:
 * how many cards of a node could take any task at all (see share_room.h).
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
#include "share_room.h"

#include <stdlib.h>

static bool card_open(const sc_state *st, int g)
{
    const sc_config *cfg = &st->cfg;
    const sc_card *c = &st->cards[g];
    if ((int)c->n >= cfg->max_tenants) /* split_count, else SC_CARD_TENANTS_MAX */
        return false;
    if (!cfg->hami) /* a held card (SC_CORES_HELD) closes by its cores under HAMi */
        return !sc_card_held(c);
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

void sc_room_hold(sc_state *st, int g, int ni, bool held)
{
    sc_card *c = &st->cards[g];
    if (c->n || sc_card_held(c) == held || (held && (c->closed || c->cores_used)))
        GS_BUG("share_room: a held card has tenants, or is held twice");
    c->cores_used = held ? SC_CORES_HELD : 0;
    c->closed = held;
    st->open_hist[st->node_open[ni]]--;
    st->node_open[ni] = (uint8_t)(st->node_open[ni] + (held ? -1 : 1));
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
