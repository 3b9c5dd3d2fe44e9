/* share_index.c - the indexes over the shared cards, in their order (see
 * share_index.h).
 * SPDX-License-Identifier: MIT */
#include "share_index.h"

#include <stdlib.h>

#include "share_frag.h"
#include "share_host.h"
#include "share_room.h"
#include "share_score.h"

int sc_index_init(sc_state *st, gs_error *err)
{
    sc_room_init(st);
    if (st->cfg.select == SC_SEL_HAMI) {
        const sim_cluster *cl = sim_cluster_of(st->s);
        double *score = xmalloc(((size_t)cl->nnodes + 1) * sizeof *score);
        for (int ni = 0; ni < cl->nnodes; ni++)
            score[ni] = sc_node_score(st, ni);
        st->horder = sc_host_new(cl, st->node_open, st->cfg.node_spread, score);
        free(score);
    }
    return st->cfg.frag ? sc_frag_init(st, err) : 0;
}

void sc_index_free(sc_state *st)
{
    sc_frag_free(st);
    sc_host_free(st->horder);
    st->horder = NULL;
    sc_room_free(st);
}

void sc_index_node(sc_state *st, int ni)
{
    if (st->horder)
        sc_host_rescore(st->horder, ni, sc_node_score(st, ni));
    sc_frag_changed(st, ni);
}

void sc_index_changed(sc_state *st, const job *j)
{
    const int *cards = job_gpu_ids(j);
    for (int i = 0; i < j->ngpu_ids; i++)
        sc_room_card(st, cards[i], j->node);
    if (st->horder && j->ngpu_ids > 0)
        sc_host_rescore(st->horder, j->node, sc_node_score(st, j->node));
    else if (st->horder) /* a task on no card changed the host room alone */
        sc_host_update(st->horder, j->node);
    sc_frag_changed(st, j->node);
}
