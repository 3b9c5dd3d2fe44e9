/* sim_cost.h - who held the cards: GPU-time allocated, split by holder and
 * GPU model, so that each kind of work pays for the cards it held and idle
 * capacity is its own line.
 *
 * A holder is what the report splits cost by: trace jobs ("jobs": training,
 * batch, notebooks), agent sessions ("agents"), each inference service
 * ("service", by id), other internal tasks (by their owner: a time policy's
 * warm pool), and "other" for allocation no job caused. Every change of the
 * allocated-GPU gauge (sim_alloc_add_for) goes to the holder of the job that
 * made it, on its card's pool: under whole cards and MIG a job holds its
 * cards or its instance's compute share; on a shared card a tenant is charged
 * its marginal allocation (the card's allocation after its join minus before,
 * and the same at its leave), so the holders of a card always sum to the
 * card's allocation, and the holders of the run to gpu.gpu_hours exactly.
 *
 * Cost: O(1) per change (one gauge); O(1) to name a holder (a hash index on
 * kind and name), done per service replica and per internal task's first
 * change (job_more.cost_holder). Memory: holders x pools gauges.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_COST_H
#define GPUSIM_SIM_COST_H

#include <cJSON.h>

#include "../base/gs.h"
#include "sim_metrics.h"

enum { SIM_COST_JOBS = 0, SIM_COST_AGENTS = 1 }; /* the holders every run has */

typedef struct sim_cost_holder {
    char *kind; /* jobs, agents, service, task, other */
    char *name; /* a service's id, a task owner's name; "" for jobs and agents */
} sim_cost_holder;

typedef struct sim_cost {
    sim_cost_holder *h;
    int nh, caph;
    int npools;
    sim_gauge *g; /* [holder * npools + pool]: GPUs held */
    uint64_t *done; /* [holder]: completions (trace jobs and sessions), the unit costs' denominators */
    int *slot, nslot; /* hash index on (kind, name): holder numbers, -1 empty; nslot a power of 2 */
} sim_cost;

/* The two fixed holders (jobs, agents) on npools pools. */
void sim_cost_init(sim_cost *c, int npools);
void sim_cost_free(sim_cost *c);
/* The holder (kind, name), added on first use. O(1) expected. */
int sim_cost_holder_of(sim_cost *c, const char *kind, const char *name);
/* Holder h's GPUs on pool p change by dv at now. */
static inline void sim_cost_add(sim_cost *c, int h, int p, gs_time_us now, double dv)
{
    sim_gauge_add(&c->g[h * c->npools + p], now, dv);
}
/* A trace job or session of holder h completed. */
static inline void sim_cost_done(sim_cost *c, int h) { c->done[h]++; }
/* GPU-seconds holder h held on pool p up to now. */
double sim_cost_gpu_s(const sim_cost *c, int h, int p, gs_time_us now);

/* What a pool's cards cost: its model, cards, USD per GPU-hour (< 0: no
 * price known). */
typedef struct sim_cost_pool {
    const char *model;
    int ngpus;
    double usd_per_gpu_h;
    /* owning its cards (sim_tco.h), USD per GPU-hour, means over the pool's
     * cards; both < 0 when the cluster gives no TCO */
    double own_capital_usd_h, own_power_usd_h;
    /* billed: its nodes come and go (sim_elastic.h) and were billed
     * billed_gpu_h GPU-hours for billed_usd (< 0: unpriced); false on a
     * fixed pool, whose cards are paid for the whole span at usd_per_gpu_h */
    bool billed;
    double billed_gpu_h, billed_usd;
} sim_cost_pool;

#define SIM_COST_MONTH_H 730.0 /* 8760 h / 12 */

/* Adds "cost" to report r (whose jobs and services objects are already
 * there): the simulated span the figures cover, the cluster's cost over it
 * and per month (scaled from the span: x SIM_COST_MONTH_H / span hours),
 * and each holder's GPU-hours, share of capacity, cost over the span and
 * per month, then idle capacity (capacity minus every holder); jobs also per
 * completed job, a service per million requests served. A billed pool's
 * capacity is its billed GPU-hours and its rate their mean price (bill /
 * billed GPU-hours), so the holders and idle sum to the bill; the object
 * then has billed_gpu_hours. A holder other than
 * jobs that held nothing is left out. When every pool has its owning
 * cost, "tco": owning per month (capital and power) beside renting at the
 * prices above. O(holders x pools + services). */
void sim_cost_report(const sim_cost *c, const sim_cost_pool *pools, gs_time_us end_us, cJSON *r);

#endif
