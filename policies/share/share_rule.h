/* share_rule.h - the contention rule of a shared card: its tenants' rates,
 * memory in use and swap, kept as tenants join, leave, go idle or busy.
 *
 * On a card with k running tenants, tenant i has demand d_i (fraction of
 * the card's time it keeps busy alone: util, else (vgpu) gpucores / 100,
 * else 1) and a bound b_i = d_i, or min(d_i, cap_i) while its core cap is
 * enforced (vgpu: core_policy; mps: always, the active-thread percentage).
 * Card time (1) is divided max-min fairly under those bounds
 * (water-filling): x_i = min(b_i, L) with L the level at which the x_i sum
 * to 1, or x_i = b_i when the bounds sum to at most 1. The tenant
 * progresses at rate eff(k) * f_swap * x_i / d_i, with eff(k) =
 * max(eff_floor, 1 - switch_cost * (k - 1)) and f_swap the share of time
 * the card is not waiting on swap. A task on several cards runs at the
 * minimum of its cards' rates. A worked example is in policies/README.md.
 *
 * This file changes cards' counters, rates and gauges and nothing else: the
 * indexes over the cards (share_index.h) are the life cycle's to update
 * after a join or a leave. Cost: O(k log k) per card of the task.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_RULE_H
#define GPUSIM_SHARE_RULE_H

#include "share_state.h"

/* Adds placed j (its held cards, its record's doomed flag set if it has
 * one) to its cards, then recomputes the rates of every tenant of those
 * cards. Returns the rate j starts at: the minimum over its cards (0 while
 * doomed). */
double sc_join(sc_state *st, job *j);
/* Removes j from its cards and recomputes their tenants' rates. */
void sc_leave(sc_state *st, job *j);
/* Recomputes the rates on j's cards (j went idle or busy). */
void sc_refresh(sc_state *st, job *j);
/* Residency (oversub=swap): j went idle or busy. Busy and evicted: its
 * memory comes back (returns the swap-in wait, s; the caller holds it at
 * rate 0 until then); busy or idle: while a card of j is short of memory,
 * idle replicas resident there are evicted, least recently busy first.
 * Returns 0 when nothing has to come back. */
double sc_residency(sc_state *st, job *j);
/* The swap-in of j finished: it computes again. */
void sc_swapped_in(sc_state *st, job *j);

#endif
