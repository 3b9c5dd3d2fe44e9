/* plan_feasible.h - what no count of a candidate cluster could ever serve,
 * found before `plan` searches: a row whose gpu_model excludes every card of
 * the candidate, a named MIG profile no MIG card of it offers (under mig and
 * dynmig), a service replica wider than any node, a job wider than any
 * node on a cluster of MIG cards only under mig and dynmig (elsewhere it
 * spans nodes), CPU cores or host memory beyond any node, memory
 * per GPU above the card's, service weights that fit no replica. Scaling
 * the candidate adds nodes of the same shapes, so one instance of it (one
 * node per group) answers for every count.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_PLAN_FEASIBLE_H
#define GPUSIM_PLAN_FEASIBLE_H

#include "../sim/sim_cluster.h"
#include "../sim/sim_job.h"

#define PF_MAX_EXAMPLES 10

typedef enum {
    PF_GPU_MODEL,   /* gpu_model excludes every card */
    PF_MIG_PROFILE, /* named MIG profile not offered */
    PF_NODE_GPUS,   /* more GPUs than any node has */
    PF_NODE_HOST,   /* more CPU or host memory than any node has */
    PF_GPU_MEMORY,  /* more memory per GPU than the card */
    PF_WEIGHTS,     /* service weights larger than a replica's cards */
    PF_POLICY_MEMORY, /* the space policy gives it no memory on any card (an MPS client's limit, a MIG profile) */
    PF_NKINDS
} pf_kind;

typedef struct pf_example {
    long line;
    char id[128];
    char why[240];
} pf_example;

typedef struct plan_feasibility {
    long rows;                  /* job, session and service rows checked */
    long bad;                   /* rows no count could serve */
    long by_kind[PF_NKINDS];
    pf_example ex[PF_MAX_EXAMPLES];
    int nex;
} plan_feasibility;

/* What the space policy gives a task per card, asked of its record
 * (pol_space.mem_per_card_mib) in a run set up on the candidate with the
 * plan's parameters: 0 when the request could never fit (an MPS client's
 * limit below it, a MIG profile the card lacks). */
typedef struct plan_policy_ask {
    double (*mem_per_card_mib)(const void *state, const struct gpu_model *m, const job_req *r);
    const void *state;
    const char *policy; /* its name, for the reasons */
} plan_policy_ask;

/* Reads the trace and checks each row against cl (an instance of the
 * candidate). mig_policy: the space policy lets requests name MIG profiles
 * (they need a MIG card offering them). ask (NULL: whole cards) sizes a
 * task's and a replica's memory as the policy does. Returns 0, or GS_EINPUT
 * for a bad trace. */
int plan_feasible_check(const sim_cluster *cl, const gpu_catalog *cat, const char *trace, bool mig_policy,
                        bool allow_extra_columns, const plan_policy_ask *ask, plan_feasibility *out, gs_error *err);
/* A short name of a kind ("gpu_model", "mig_profile", ...). */
const char *plan_feasible_kind(pf_kind k);

#endif
