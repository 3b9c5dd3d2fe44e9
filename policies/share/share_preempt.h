/* share_preempt.h - the core's preemption questions for shared cards
 * (pol_space.fits_if_released, pol_space_index.cards_open): HAMi's
 * admission test run on copies of a node's cards with the victims' shares
 * taken out (share_preempt.c).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_PREEMPT_H
#define GPUSIM_SHARE_PREEMPT_H

#include "share_state.h"

/* Would queued j be admitted on node n if victims v[0..nv) left its cards?
 * O(cards on the node x victims x cards per victim). */
bool sc_fits_if_released(const void *state, const sim *s, const job *j, int n, job *const *v, int nv);
/* Cards of node n that admit queued j as they are. O(cards on the node). */
int sc_cards_open(const void *state, const sim *s, const job *j, int n);

#endif
