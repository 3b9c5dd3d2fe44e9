/* share_room.h - index: the open cards of every node (a card is open while
 * some request could still pass sc_card_fits there), and the queue's demand
 * index built on them (pol_space_index.queue_demand / queue_room).
 *
 * Kept by sc_index_changed (share_index.c) after a card's tenants changed:
 * O(1) per card; the room is O(cards per node).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_ROOM_H
#define GPUSIM_SHARE_ROOM_H

#include "share_state.h"

/* Builds st->node_open and st->open_hist from the cards as they are. */
void sc_room_init(sc_state *st);
void sc_room_free(sc_state *st);
/* Card g (of node ni) may have opened or closed: its flag, its node's
 * count and the histogram follow. */
void sc_room_card(sc_state *st, int g, int ni);
/* Card g of node ni is held whole by a job across nodes (held), or given
 * back (empty, open): it closes or opens, as sc_room_card would. */
void sc_room_hold(sc_state *st, int g, int ni, bool held);
/* A request's demand: its card count. */
uint32_t sc_queue_demand(const void *state, const job *j);
/* The most open cards on any node. */
uint32_t sc_queue_room(const void *state, const sim *s);

#endif
