/* share_score.h - HAMi's card and node scores (reference/mechanics.md
 * section 1a, "Scheduling"): the usage fractions placement ranks by, below
 * the indexes that keep nodes in that order.
 *
 * Card score = 10 x (slots + cores + memory usage fractions, a request
 * included); node score = 10 x the same fractions summed over its cards,
 * before the request. binpack takes the highest, spread the lowest.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_SCORE_H
#define GPUSIM_SHARE_SCORE_H

#include "share_state.h"

/* The score of card c (its counters; total_mib: its memory under the run's
 * scaling) with a request of (slots, mem, cores) added. O(1). */
double sc_card_score(const sc_state *st, const sc_card *c, double total_mib, int slots, int64_t mem, int cores);
/* Node ni's score before a request: its cards' scores summed in card
 * order. O(cards per node). */
double sc_node_score(const sc_state *st, int ni);

#endif
