/* sim_node_bound.h - nodes keyed by a lower bound, least first: an indexed
 * binary min-heap over node ids 0..n-1 (sim_preempt.c keeps there a bound of
 * the cheapest preemption on each node, so a search can stop at the first
 * node whose bound exceeds the best plan found).
 *
 * Costs: nb_lower and nb_pop O(log n); nb_top O(1); memory 3 x n words.
 * Ties between equal keys go to the lower id (any order would do for a
 * search that visits every node whose key is <= its best).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_NODE_BOUND_H
#define GPUSIM_SIM_NODE_BOUND_H

#include <stdbool.h>

typedef struct nb_heap {
    int n;       /* ids in the heap */
    int cap;     /* ids 0..cap-1 may be held */
    int *heap;   /* [cap]: ids in heap order */
    int *pos;    /* [cap]: place of each id in heap[], -1 when absent */
    double *key; /* [cap]: the key of each id held */
} nb_heap;

void nb_init(nb_heap *h, int cap);
void nb_free(nb_heap *h);
/* id in with key, or its key down to key if it is held with a greater one. */
void nb_lower(nb_heap *h, int id, double key);
/* The least id (its key in *key), -1 when empty. */
int nb_top(const nb_heap *h, double *key);
/* Takes the least id out; -1 when empty. */
int nb_pop(nb_heap *h);
static inline bool nb_holds(const nb_heap *h, int id) { return h->pos[id] >= 0; }
#endif
