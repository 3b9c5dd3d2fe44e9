/* sim_elastic_int.h - the elastic module's state, shared by its files:
 * sim_elastic.c (scale out on pending jobs, scale in when idle, the
 * module record), sim_elastic_spot.c (reclaims and their notice),
 * sim_elastic_report.c (bills, report, timeseries columns). Private to them.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_ELASTIC_INT_H
#define GPUSIM_SIM_ELASTIC_INT_H

#include <gsl/gsl_rng.h>

#include "sim_elastic.h"
#include "sim_metrics.h"
#include "sim.h"
#include "sim_module.h"

/* The module's events (aux); slot: a node, gen: its generation. */
enum { EL_EV_UP = 1, EL_EV_IDLE, EL_EV_SCAN, EL_EV_POOLED, EL_EV_NOTICE, EL_EV_RECLAIM,
       EL_EV_SAVED /* slot, gen: a job's checkpoint written within a notice; aux >> 8: the job's run (starts) */ };

/* A queued job, named so that it is recognised once its slot is reused. */
typedef struct el_ref {
    uint32_t slot, gen;
} el_ref;

typedef struct el_group {
    const sim_group_elastic *cfg;
    int index;                  /* in the cluster file's nodes */
    int first, count;           /* its nodes: first .. first + count - 1 */
    int pool, ngpus;            /* every node of a group has one model and shape */
    double cpu, mem_gib;
    double usd_gpu_h;           /* < 0: no price known */
    int alive;                  /* nodes provisioning, up or draining (billed) */
    int *absent, nabsent;       /* a stack of its absent nodes, lowest id on top */
    /* the node being provisioned that pending jobs still fit in (next fit,
     * so a decision never scans the nodes on the way), its room left */
    int open_node, open_gpus;
    double open_cpu, open_mem_gib;
    uint64_t scale_outs, scale_ins, reclaims, notices_saved, provision_waits;
    sim_gauge exist;             /* nodes billed, over time */
    sim_gauge used;              /* GPUs held by jobs on its nodes */
    sim_gauge provisioning;      /* nodes provisioning */
    sim_sketch provision_wait_s; /* decision to start, jobs that waited for a node of the group */
    int nstate[NODE_NSTATES];    /* its nodes in each state (on_state in sim_elastic.c), for the timeseries */
    int reserved_gpus;           /* reserved tier: GPUs paid for the whole run */
    gsl_rng *rng;                /* spot reclaims: the group's own stream */
    uint64_t interrupted;        /* jobs a reclaim stopped before they could write a checkpoint */
} el_group;

typedef struct el_node {
    uint32_t gen;          /* bumped when a job joins it or it changes state: voids its up and idle events */
    uint32_t spot_gen;     /* bumped when it goes: voids its notice and reclaim */
    gs_time_us decided_us; /* the decision to provision it */
    el_ref *wait;          /* jobs waiting for it while it provisions */
    int nwait, capwait;
} el_node;

typedef struct el_state {
    sim *s;
    int index; /* the module's index in the run */
    el_group *g;
    int ng;
    int *order; /* autoscaled groups, cheapest first (file order on ties) */
    int norder;
    int *group_of; /* [node]: index in g, or -1 */
    el_node *node; /* [node] */
    el_ref *watch; /* queued jobs an up node fitted when they came: looked at again every scan */
    int nwatch, capwatch;
    bool scan_pending;
    bool states; /* some group autoscales: node states are on */
    uint64_t spot_pools; /* the pools of spot nodes, a bit each */
    double mem_used_mib; /* GPU memory the jobs on nodes state (a card's whole memory when they state none) */
    bool pooled;         /* some group has the pooled trigger */
    bool pooled_pending; /* a pooled tick is scheduled */
} el_state;

/* sim_elastic_spot.c */
void el_spot_arm(el_state *e, int node);
void el_spot_event(el_state *e, uint32_t slot, uint32_t gen, int kind);
void el_spot_free(el_group *g);
/* Node's reclaim notice now (the drawn reclaim or a scripted one). */
void el_spot_notice(el_state *e, int node);
/* sim_elastic_pooled.c */
void el_pooled_arm(el_state *e);
void el_pooled_tick(el_state *e);
/* Would removing one up node of pooled group g pass its thresholds? */
bool el_pooled_keeps(const el_state *e, const el_group *g);
/* sim_elastic_report.c */
void el_report(const void *state, const sim *s, cJSON *root, int section);
/* sim_elastic_scale.c */
/* Moves node (sim_nodes.h), counted in its group's states. */
void el_scale_set_state(el_state *e, int node, int state);
/* One node of g provisioned (the open node of g), or a job's parts: j waits for them. */
void el_scale_provision(el_state *e, el_group *g, job *j);
/* Queued job j: watched when an up node fits it or no group can take it, else nodes are asked for. */
void el_scale_pending(el_state *e, job *j);
/* The scan: each watched job looked at again. */
void el_scale_scan(el_state *e);
/* Node goes absent (reclaimed or scaled in); the jobs waiting for it ask again. */
void el_scale_node_gone(el_state *e, int node, bool reclaimed);

static inline gs_time_us el_s_to_us(double s) { return (gs_time_us)(s * 1e6 + 0.5); }

#endif
