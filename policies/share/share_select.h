/* share_select.h - the gpu_select strategies other than HAMi's scores:
 * bestfit, dotprod, random, fgd (the policies of Weng et al., "Beware of
 * Fragmentation", USENIX ATC'23, Sec. 6) and fgdfit, gpusim's own
 * (policies/README.md argues it). share_select.c states each rule.
 * Cost: one scan of the nodes and their cards per placement.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_SELECT_H
#define GPUSIM_SHARE_SELECT_H

#include "share_state.h"

/* Chooses a node of pools (sim_admit_pools) and req.gpus cards for j (into
 * st->pick) by cfg.select (not SC_SEL_HAMI). Returns the node, or -1. */
int sc_place_select(sc_state *st, const job *j, uint64_t pools);

#endif
