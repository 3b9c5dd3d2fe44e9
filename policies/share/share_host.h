/* share_host.h - index: every node of the cluster in HAMi's node order
 * (share_score.h) with its free CPU cores, free GiB and open cards, for
 * gpu_select=hami. A placement asks for the first node in order that has
 * the host room, an allowed model and the open cards a request needs and
 * that the caller's card test admits, in O(log nodes) plus the nodes that
 * test turns down; a task asking no card (an agent session, a CPU-only job)
 * takes the first node with room.
 *
 * The ledger's nodes and the open-card counts (share_room.c) are read, not
 * copied: after either changes on node ni the owner calls sc_host_update
 * (or sc_host_rescore with the node's new score).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_HOST_H
#define GPUSIM_SHARE_HOST_H

#include "share_state.h"

typedef struct sc_horder sc_horder;

/* Every node of cl, in the order of score[] (spread: lowest first, else
 * highest; ties to the lower index), reading open[] for its open cards. */
sc_horder *sc_host_new(const sim_cluster *cl, const uint8_t *open, bool spread, const double *score);
void sc_host_free(sc_horder *h); /* NULL-safe */
/* Node ni's score is now score (its host room or open cards may have
 * changed too); sc_host_update: they changed, its score did not. */
void sc_host_rescore(sc_horder *h, int ni, double score);
void sc_host_update(sc_horder *h, int ni);
/* The first node in order of an allowed pool with cpu cores and mem_gib
 * GiB free and `want` open cards that admits(ud, ni) says yes to, or -1. */
int sc_host_first(sc_horder *h, uint64_t pools, double cpu, double mem_gib, int want,
                  bool (*admits)(void *ud, int ni), void *ud);
/* Nodes sc_host_first has looked at so far (a cost counter for tests). */
long sc_host_visits(const sc_horder *h);

#endif
