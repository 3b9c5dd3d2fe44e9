/* sim_bf_index.h - when each node will have g GPUs free, judged by the
 * running jobs' time limits: the question EASY backfilling asks of the
 * cluster (sim_backfill.c).
 *
 * Per node: its free GPUs and the jobs on it, each with its GPUs there and
 * its planned end (its latest start plus its time limit; BF_NEVER for work
 * with no limit), kept in end order. From them, for g = 1 .. the largest
 * node of its pool, T_n(g): BF_NOW when n has g GPUs free now, else the
 * planned end of the job whose release brings n to g free (the first end
 * at which free + the GPUs of the jobs ending by then >= g), BF_NEVER when
 * the listed jobs never do. Per pool and g, the pool's nodes sit in a
 * binary min-heap by (T_n(g), node id).
 *
 * Invariant: every heap key is T_n(g) of the node's jobs and free GPUs now.
 * The index knows only what it is told (bf_index_add, bf_index_remove):
 * GPUs taken from the ledger for anything else (a backfill pass's hold)
 * are not its business, so a hold never moves a planned time.
 *
 * Costs: a job added or removed on node n: O(jobs on n + G) for its list
 * and its stale marks (G: the largest node of n's pool). A heap (pool, g)
 * follows at the next question about g, once per node changed since:
 * O(jobs on n + log nodes) each. Then the earliest node for g over a set
 * of pools: O(pools); the nodes in T_n(g) order, k of them: O(k log k)
 * (bf_index_walk); T_n(g) of one node, O(jobs on it).
 * Memory: O(GPUs) for the heaps, O(jobs running) for the lists.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_BF_INDEX_H
#define GPUSIM_SIM_BF_INDEX_H

#include "../base/gs.h"
#include "sim_cluster.h"

#define BF_NOW INT64_MIN
#define BF_NEVER INT64_MAX

typedef struct bf_index bf_index;

/* An index of cl's nodes, every GPU free and no job listed. */
bf_index *bf_index_new(const sim_cluster *cl);
void bf_index_free(bf_index *x); /* NULL-safe */
/* Job `key` now holds gpus GPUs of node, planned to end at end_us (BF_NEVER:
 * no limit). A key is on a node at most once. */
void bf_index_add(bf_index *x, int node, uint32_t key, int gpus, gs_time_us end_us);
/* Job `key` gave back what it held on node (a bug when it holds nothing). */
void bf_index_remove(bf_index *x, int node, uint32_t key);
/* T_n(g) (BF_NEVER for g above the node's pool's largest node). */
gs_time_us bf_index_when(bf_index *x, int node, int g);
/* The node of the pools in mask with the least T_n(g) (ties: the lowest
 * id; each pool's heap top), its time in *t; -1 when every such node has
 * BF_NEVER. O(pools). */
int bf_index_first(bf_index *x, uint64_t pools, int g, gs_time_us *t);
/* Free GPUs of node now, and at time t by the planned ends (ends <= t
 * counted). O(1) and O(jobs on node). */
int bf_index_free_now(const bf_index *x, int node);
int bf_index_free_by(const bf_index *x, int node, gs_time_us t);
/* Moves at every add and remove: a cached answer is stale when it moved. */
uint64_t bf_index_epoch(const bf_index *x);

/* The nodes of the pools in mask in (T_n(g), id) order, one per call:
 * bf_index_walk_start, then bf_index_walk_next until it returns -1 (or the
 * caller has enough). The index must not change during a walk. Each call
 * O(log visited x pools). */
typedef struct bf_front { int heap, i; } bf_front; /* a heap slot not yet visited */
typedef struct bf_walk {
    const bf_index *x;
    int g;
    bf_front *f; /* the frontier, a min-heap by its slots' keys */
    int n, cap;
} bf_walk;
void bf_index_walk_start(bf_walk *w, bf_index *x, uint64_t pools, int g);
int bf_index_walk_next(bf_walk *w, gs_time_us *t);
void bf_index_walk_end(bf_walk *w);

#endif
