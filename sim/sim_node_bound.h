/* sim_node_bound.h - nodes keyed by a lower bound that grows with time,
 * least first (sim_preempt.c keeps there a bound of the cheapest preemption
 * on each node, so a search can stop at the first node whose bound exceeds
 * the best plan found).
 *
 * A node's bound is a line: value v at the time it was set, rising from then
 * on at least at a slope a (us of cost per us of time: a preemption's lost
 * work grows while its victims run). Lines of different slopes cross, so one
 * heap ordered by value would need re-keying as time passes; instead the
 * slopes are rounded down to a few classes (0 and powers of two, NB_SLOPES in
 * all) and each class has its own binary min-heap keyed by v - A x t, the
 * line's value at time 0 under the class slope A, an order that time does
 * not change. The least node now is the least of the class heaps' tops at
 * now. A bound with a lower slope, or a lower value, only brings a node's
 * line down (sim_node_bound_lower); a line that rose too fast for a term
 * that slowed is brought down to that term's class (sim_node_bound_slow).
 *
 * Costs: sim_node_bound_lower, _set, _slow, _remove and _pop
 * O(log n + NB_SLOPES); sim_node_bound_top O(NB_SLOPES); memory 20 bytes per node. Ties between equal values go
 * to the lower id (any order would do for a search that visits every node
 * whose value is <= its best).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_NODE_BOUND_H
#define GPUSIM_SIM_NODE_BOUND_H

#include <stdbool.h>

/* slope classes: 0, then 2^(c - NB_ONE) for c = 1 .. NB_SLOPES - 1 (1/8 .. 8) */
enum { NB_SLOPES = 8, NB_ONE = 4 };

typedef struct sim_node_bound_part {
    int n, cap;
    int *ids; /* heap order */
} sim_node_bound_part;

/* One id's slot: what a heap step reads and writes together, in one
 * record (one place a step, not three arrays). */
typedef struct sim_node_bound_slot {
    double key; /* v - A x t of the id held (its line at time 0) */
    int pos;    /* place in its class's heap, -1 when absent */
    int cls;    /* the class of the id held */
} sim_node_bound_slot;

typedef struct sim_node_bound {
    int n;                   /* ids held, all classes */
    int cap;                 /* ids 0..cap-1 may be held */
    sim_node_bound_part part[NB_SLOPES]; /* a heap per slope class */
    sim_node_bound_slot *at;             /* [cap] */
} sim_node_bound;

void sim_node_bound_init(sim_node_bound *h, int cap);
void sim_node_bound_free(sim_node_bound *h);
/* The slope class a line of slope a >= 0 goes in (its slope rounded down). */
int sim_node_bound_class(double slope);
/* The slope of class c. */
double sim_node_bound_slope(int c);
/* id in with the line (value at now, slope), or, held, its line brought
 * down to the least of both (the lesser value at now, the lesser class). */
void sim_node_bound_lower(sim_node_bound *h, int id, double value, double slope, double now);
/* Held id's line from now on rises no faster than slope (a term of its
 * bound slowed down); nothing when absent. */
void sim_node_bound_slow(sim_node_bound *h, int id, double slope, double now);
/* id's line, held or not, replaced by (value at now, slope): a fresh bound,
 * higher or lower (in place when the class stays: one sift). */
void sim_node_bound_set(sim_node_bound *h, int id, double value, double slope, double now);
/* id out (its line is no bound any more: a fresh one may be higher);
 * nothing when absent. */
void sim_node_bound_remove(sim_node_bound *h, int id);
/* The least id at now (its value then in *value), -1 when empty. */
int sim_node_bound_top(const sim_node_bound *h, double now, double *value);
/* Takes the least id at now out; -1 when empty. */
int sim_node_bound_pop(sim_node_bound *h, double now);
static inline bool sim_node_bound_holds(const sim_node_bound *h, int id) { return h->at[id].pos >= 0; }
#endif
