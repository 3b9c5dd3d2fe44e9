/* sim_fit_index.h - host CPU/memory fit index of one free-card bucket.
 *
 * A bucket of the cluster ledger (sim_cluster.h) is a list of nodes with the
 * same number of free cards, newest link first; sim_cluster_find_node takes
 * the first node of that order with room for a request's CPU cores and
 * memory. When most nodes lack that room the walk visits the whole bucket:
 * O(nodes) per placement. This index keeps the bucket's nodes in link order
 * as slots of a max segment tree (free cores, free GiB), so the newest node
 * with room is found by a descent from the right, pruning every subtree
 * whose largest free CPU or largest free memory is short.
 *
 * Costs, n = slots (at most 2 x (nodes in the bucket + 1) after compaction):
 *   insert (append at the newest end)  O(log n), plus an amortized O(1)
 *     compaction when the slots run out (live nodes renumbered in order);
 *   remove                             O(log n);
 *   find                               O(log n) when one resource binds; a
 *     subtree whose CPU maximum and memory maximum come from different nodes
 *     is entered only when one of its nodes has both within a factor of two
 *     (the cells), so it may still come back empty: a crafted mix can cost
 *     more.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_FIT_INDEX_H
#define GPUSIM_SIM_FIT_INDEX_H

typedef struct sim_fit_index {
    int cap;      /* leaves (a power of two); 0 before the first insert */
    int top;      /* next slot to hand out: slots >= top are unused */
    int live;     /* nodes in the index */
    double *cpu;  /* [2 cap]: max free cores under each tree node (leaf: -inf when empty) */
    double *mem;  /* [2 cap]: max free GiB likewise; an unlimited resource is +inf */
    /* [2 cap]: bit 8 c + m set when a node under the tree node has free
     * cores at level c and free GiB at level m (fit_level): the maxima above
     * may come from two different nodes, this says whether one node has
     * both roughly, so a descent skips a subtree where none could */
    unsigned long long *cells;
    int *node;    /* [cap]: node id in each slot, -1 when empty */
} sim_fit_index;

/* Appends node as the newest entry with cpu_free cores and mem_free GiB free
 * (+INFINITY: unlimited); writes its slot into slot_of[node]. A compaction
 * rewrites slot_of of every node it moves. */
void sim_fit_index_insert(sim_fit_index *f, int node, double cpu_free, double mem_free, int *slot_of);
/* Removes the node in slot (its slot_of entry); may compact, rewriting slot_of. */
void sim_fit_index_remove(sim_fit_index *f, int slot, int *slot_of);
/* The newest node with cpu_free >= cpu - 1e-9 and mem_free >= mem - 1e-9
 * (the ledger's own tolerance), or -1. Adds the tree nodes it entered to
 * *visits when visits is not NULL (tests bound the work by it). */
int sim_fit_index_find(const sim_fit_index *f, double cpu, double mem, long *visits);
void sim_fit_index_free(sim_fit_index *f);

#endif
