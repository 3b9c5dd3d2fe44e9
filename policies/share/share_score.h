/* share_score.h - HAMi's card and node scores (Project-HAMi/HAMi,
 * pkg/scheduler/policy/gpu_policy.go ComputeScore, node_policy.go
 * ComputeDefaultScore): the usage fractions placement ranks by, below the
 * indexes that keep nodes in that order.
 *
 * Card score = 10 x (slots used / slots + cores reserved / cores + memory
 * booked / registered memory), the request included. Node score = 10 x the
 * same three ratios of the node's sums over its cards (sum used / sum
 * slots, ...), before the request: a ratio, so a node's score does not grow
 * with its card count. timeslice and mps: the slots term alone (tenants per
 * card when unlimited). binpack takes the highest, spread the lowest.
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
