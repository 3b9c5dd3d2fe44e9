/* share_index.h - the indexes over the shared cards, kept in one fixed
 * order: open cards per card and node (share_room.c), then the node's place
 * in HAMi's order with its host room (share_host.c, gpu_select=hami), then
 * its fragmentation (share_frag.c, when measured). The life cycle
 * (share_sched.c) calls sc_index_changed after every join and leave and
 * nothing else updates them, so no index ever reads another that is stale.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_INDEX_H
#define GPUSIM_SHARE_INDEX_H

#include "share_state.h"

/* Builds the indexes the configuration asks for over the empty cards.
 * Returns 0, or GS_EINPUT (the trace the fragmentation measure reads). */
int sc_index_init(sc_state *st, gs_error *err);
void sc_index_free(sc_state *st);
/* Placed job j joined or left its cards on node j->node (the ledger's host
 * room and the cards' counters already changed): every index follows.
 * O(cards of j + log nodes + shapes x cards per node). */
void sc_index_changed(sc_state *st, const job *j);
/* Cards of node ni were held or given back by a job across nodes
 * (sc_room_hold): the node's place and fragmentation follow. */
void sc_index_node(sc_state *st, int ni);

#endif
