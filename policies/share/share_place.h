/* share_place.h - gpu_select=hami: a shared-card task's node and cards by
 * HAMi's scores (reference/mechanics.md section 1a, "Scheduling";
 * share_score.h). The node: the first in HAMi's node order (binpack:
 * highest node score, spread: lowest; ties to the lower index) of an
 * allowed model with the task's host room and req.gpus cards that admit it
 * (share_host.c finds it in O(log nodes) plus the nodes whose cards turn it
 * down). The cards: those that admit it, by card score with the request
 * added (card_policy binpack: highest, spread: lowest; ties to the lower
 * index).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_PLACE_H
#define GPUSIM_SHARE_PLACE_H

#include "share_state.h"

/* Chooses a node of pools (sim_admit_pools) and req.gpus cards for j (into
 * st->pick). Returns the node, or -1 when nothing fits now. */
int sc_place_hami(sc_state *st, const job *j, uint64_t pools);

#endif
