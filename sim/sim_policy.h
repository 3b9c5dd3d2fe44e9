/* sim_policy.h - the one interface between the simulation core and a policy.
 *
 * A policy is a `const pol_ops` record exported by policies/pol_<name>.c and
 * listed once in policies/registry.c. The engine never names a policy: the
 * caller hands it the table (sim_config.registry) and the engine calls a
 * policy only through the wrappers in sim.c.
 *
 * Kinds. A space policy (POL_SPACE, pol_space) decides how cards are cut and
 * where work goes; a policy of kind POL_TIME decides when held resources are
 * given back, either by watching jobs (a time policy proper, pol_time:
 * hibernate) or by taking over the service layer's replicas (a service
 * actuator, svc_actuator_ops in service/svc_actuator.h: dual-pod sleep). A
 * run is one space policy plus zero or more of the others, at most one
 * actuator, written "space+time".
 *
 * Versioning: `abi` says which version of these records the policy was
 * written for (POL_ABI); the core checks optional members for NULL.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_POLICY_H
#define GPUSIM_POLICY_H

#include <cJSON.h>

#include "../base/gs.h"
#include "../base/gs_param.h"
#include "sim_job.h"

/* 4: the record split in three: pol_ops (what every policy is), pol_space
 * (the questions a space policy answers; the core runs the queue) and
 * pol_time (a time policy's hooks). 5: pol_ops.actuator, a service
 * actuator's hooks, instead of an actuator installed from init(). 6: the
 * speed-ups of pol_space in their own record, pol_space.index;
 * pol_space.mem_per_card_mib and POL_CAP_MIG, so the engine and the tool
 * never ask a policy's name what it gives. 7: jobs across nodes
 * (POL_CAP_GANG, POL_CAP_WHOLE, pol_space.gang_cards),
 * pol_space.reject_reason, node states (POL_CAP_NODES,
 * pol_space.node_changed). 8: pol_ops.failures_refused. 9: shape_key
 * takes the policy's state. 10: pol_ops.columns_read. */
#define POL_ABI 10

/* The trace columns a layer reads only when it says so (sim_module and
 * pol_ops .columns_read): the run leaves them unread when no layer does
 * (wl_opts.unread; `run --check-all-columns` reads them all). The core
 * reads every other column, and cpu and mem_gib of placed work
 * (sim_kind_placed) where a node limits CPU or memory. */
#define SIM_COLS_DECLARED                                                                                        \
    (WL_COL_BIT(WL_COL_GPUMEM) | WL_COL_BIT(WL_COL_GPUCORES) | WL_COL_BIT(WL_COL_GPUMEM_PCT) |                  \
     WL_COL_BIT(WL_COL_PREEMPTIBLE) | WL_COL_BIT(WL_COL_CHECKPOINT_GIB) | WL_COL_BIT(WL_COL_PARAMS_B) |        \
     WL_COL_BIT(WL_COL_TENANT) | WL_COL_BIT(WL_COL_CPU) | WL_COL_BIT(WL_COL_MEM_GIB) |                          \
     WL_COL_BIT(WL_COL_TIME_LIMIT) | WL_COL_BIT(WL_COL_TIER))
/* Whether rows of kind `kind` become work the space policy places: jobs,
 * sessions, and a service's replicas (their request is the service row's
 * ask). What a layer reads of a request it reads of these kinds' rows. */
static inline bool sim_kind_placed(int kind)
{
    return kind == WL_KIND_JOB || kind == WL_KIND_SESSION || kind == WL_KIND_SERVICE;
}

/* pol_space.caps bits. POL_CAP_ADMIT: the policy narrows every placement
 * to sim_admit_pools(s, j) (tenant quotas, and the core's reservation of
 * what a hand-over frees). Quotas and preempt=on are refused for a space
 * policy without it. */
#define POL_CAP_ADMIT 1u
/* POL_CAP_MIG: requests may name a MIG profile (the mig column), which only
 * a MIG-enabled card offering it can take: a plan checks a trace's named
 * profiles against each candidate's MIG cards (cli/plan_feasible.c). */
#define POL_CAP_MIG 2u
/* POL_CAP_GANG: the core places jobs across nodes (sim_gang.h) under this
 * policy, on whole free cards of the ledger. The policy keeps there
 * exactly the cards its own work does not use (whole and the MIG policies
 * by placing through it; a policy that shares cards by taking a card while
 * it has tenants) and places nothing on the cards a gang holds
 * (pol_space.gang_cards tells it which, where it needs telling). Without
 * it a job across nodes is rejected with that reason. */
#define POL_CAP_GANG 4u
/* POL_CAP_WHOLE: every placement of the policy holds whole cards of the
 * ledger (sim_place_whole), so the core's own dry runs may count a job's
 * cards as freed: jobs across nodes preempt, and are preempted, only under
 * such a policy. */
#define POL_CAP_WHOLE 8u
/* POL_CAP_NODES: nodes may leave and rejoin the cluster during a run
 * (sim_nodes.h: failures, autoscaling); the policy learns it through
 * pol_space.node_changed where its own books need it. */
#define POL_CAP_NODES 16u

typedef struct sim sim;
typedef struct svc_actuator_ops svc_actuator_ops; /* service/svc_actuator.h */
struct gpu_model;                                 /* models/gpu/gpu_model.h */

enum pol_kind { POL_SPACE = 1, POL_TIME = 2 };

/* A declared parameter: --set name=value; def is the default as text.
 * spec (base/gs_param.h) is its type and range: the core checks every value
 * in force (given or default) against it before any policy's init, so
 * sim_param_num() and friends only ever see valid values; `gpusim policies`
 * prints it. A parameter without a spec (type GS_P_TEXT) is parsed by its
 * owner. */
typedef struct pol_param {
    const char *name;
    const char *def;
    const char *help;
    gs_param_spec spec;
} pol_param;

/* Initializers for spec, so that a table row reads as its type. */
#define P_NUM(lo, hi, unit) {GS_P_NUM, (lo), (hi), (unit), NULL}
#define P_INT(lo, hi) {GS_P_INT, (lo), (hi), NULL, NULL}
#define P_ENUM(choices) {GS_P_ENUM, 0, 0, NULL, (choices)}
#define P_ONOFF {GS_P_ONOFF, 0, 0, NULL, NULL}
#define P_DURATION(lo, hi) {GS_P_DURATION, (lo), (hi), "s", NULL}
#define P_INT_OR(lo, hi, words) {GS_P_INT, (lo), (hi), NULL, (words)}
#define P_DURATION_OR(lo, hi, words) {GS_P_DURATION, (lo), (hi), "s", (words)}
#define P_NAME {GS_P_NAME, 0, 0, NULL, NULL}

/* Optional acceleration a space policy may offer (pol_space.index). Each
 * member is a promise that only ever spares the core work whose answer
 * would be "no": dropping the record changes no figure of a run, only its
 * cost. */
typedef struct pol_space_index {
    /* Both or neither: the queue's demand index (sim_queue.h). A request's
     * demand (one shape key, one demand) and the room now: a request whose
     * demand exceeds the room cannot be placed, so the core does not try
     * it (e.g. demand: cards on one node; room: the most cards that could
     * take anything on any node). room costs O(1) or O(cards per node). */
    uint32_t (*queue_demand)(const void *state, const job *j);
    uint32_t (*queue_room)(const void *state, const sim *s);
    /* With the demand index: true when place never starts a request on a
     * node whose free CPU cores or GiB are short of its req.cpu /
     * req.mem_gib (by the ledger's 1e-9), so the core skips the shapes
     * that ask more than the most any node has free
     * (sim_cluster_host_room). */
    bool queue_host;
    /* With pol_space.fits_if_released: how many cards of node `node` would
     * take queued j as they are now, nothing released. It lets the core's
     * search for preemption victims skip nodes: fits_if_released(j, node,
     * victims) holds only if this count plus the cards the victims hold on
     * that node (job_gpus_on) reaches j->req.gpus; the count depends on j only through
     * req.gpus, gpumem_mib, gpumem_pct and gpucores; and it grows only when
     * the ledger is given something back on that node (sim_cluster_give).
     * whole: the free cards; shared cards: the cards whose admission test
     * passes. */
    int (*cards_open)(const void *state, const sim *s, const job *j, int node);
} pol_space_index;

/* A space policy decides how cards are cut and where a request goes. It
 * answers questions; the core runs the queue (priority, then submit order;
 * FIFO or skipping a shape whose head does not fit), admission (tenant
 * quotas), the preemption hand-over and waits given up (sim.c). */
typedef struct pol_space {
    unsigned caps; /* POL_CAP_* */
    /* Could j fit on an empty cluster (its allowed pools)? false: rejected.
     * Asked once per arrival (new or resumed), before any place: a policy
     * may set up its per-job record here. */
    bool (*can_ever_fit)(void *state, const sim *s, const job *j);
    /* Place j now within sim_admit_pools(s, j) and start it
     * (sim_job_start), or change nothing and return false. */
    bool (*place)(void *state, sim *s, job *j);
    /* Give back what j held (it is done, suspended or failed). */
    void (*unplace)(void *state, sim *s, job *j);
    /* Requests with one key have one shape (the same answer from place):
     * a shape whose oldest request does not fit is skipped as a whole.
     * state: the policy's, for what the run's cluster and settings leave
     * out of a shape. */
    uint64_t (*shape_key)(const void *state, const job *j);
    /* Optional: strict head-of-line order instead of skipping. */
    bool (*fifo)(const void *state);
    /* Optional: EASY backfilling instead of either (sim_backfill.h), the
     * look-ahead of a pass (Slurm's bf_max_job_test) when > 0. Needs place
     * to hold whole cards through sim_place_whole / sim_release_whole. */
    int (*backfill)(const void *state);
    /* Optional (needed for preempt=on): a dry run. Would queued j be placed
     * on node `node` if the running jobs victims[0..nvictims) released what
     * they hold (j's pools narrowed to sim_admit_pools)? Changes nothing. */
    bool (*fits_if_released)(const void *state, const sim *s, const job *j, int node, job *const *victims,
                             int nvictims);
    /* Optional: at a hand-over the nominee did not fit in what was freed;
     * the policy may hold room for it that comes back later (dynmig: the
     * victims' slices after their destruction) and say so with
     * sim_preemptor_held. */
    void (*nominee_missed)(void *state, sim *s, job *nominee);
    /* Optional: before a dispatch pass, start the request the policy holds
     * room for if it fits now and return it (the core takes it out of the
     * queue); NULL when there is none or it does not fit yet. */
    job *(*dispatch_held)(void *state, sim *s);
    /* Optional: the cluster's fragmented GPUs now, as FGD measures it, or
     * < 0 when this run does not measure it (the timeseries gains a
     * frag_gpus column; `run --mode fill` samples it). */
    double (*frag_gpus)(const void *state);
    /* Optional: running internal task j went idle or busy (j->idle, set by
     * its owner through sim_task_set_busy): a policy whose cards are shared
     * recomputes what j and its co-tenants get. NULL: the policy ignores
     * load (whole cards, MIG instances: nobody else is on them). */
    void (*load_changed)(void *state, sim *s, job *j);
    /* Optional: the memory (MiB) the policy gives request r on each card
     * of model m, what a service replica's weights and KV cache must fit
     * in (sim_svc_hw.c sizes every replica with it): a vGPU's gpumem, an
     * MPS client's limit, a MIG instance's memory. 0: r can never run on m
     * under this policy. Reads r's card fields only (gpus, gpumem_mib,
     * gpumem_pct, gpucores, mig); asked once per service row and model.
     * NULL: the whole card. */
    double (*mem_per_card_mib)(const void *state, const struct gpu_model *m, const job_req *r);
    /* Optional: speed-ups (pol_space_index). NULL: the core tries every
     * request and searches every node for preemption victims. */
    const struct pol_space_index *index;
    /* Optional, with POL_CAP_GANG: the core took (held) or gave back whole
     * cards ids[0..n) of node for a job across nodes; the policy places
     * nothing of its own on them while they are held. NULL: the ledger is
     * the policy's only record of whole cards (whole, the MIG policies). */
    void (*gang_cards)(void *state, sim *s, int node, const int *ids, int n, bool held);
    /* Optional: why j can never fit (can_ever_fit said no), into why[cap]
     * ("MIG profile 9g.99gb: no card offers it"); leave it empty for the
     * core's own reason (sim_reject.h). */
    void (*reject_reason)(const void *state, const sim *s, const job *j, char *why, size_t cap);
    /* Optional, with POL_CAP_NODES: node left service (its jobs are being
     * stopped, the ledger does not offer it) or came back. NULL: the
     * ledger is the policy's only record of nodes (whole). */
    void (*node_changed)(void *state, sim *s, int node, bool in_service);
} pol_space;

/* A time policy decides when held resources are given back (hibernate,
 * dual-pod sleep). It watches jobs and may suspend, resume, withdraw and
 * end them, and make internal tasks of its own. */
typedef struct pol_time {
    /* Something happened to job j (enum pol_job_event), after the space
     * policy acted, for every time policy in order. ARRIVED: a trace row
     * became a job (j->state: started, queued or rejected; a rejected job is
     * freed right after). STARTED: placed and started (first start or after
     * a resume). ENDING: about to be freed (done, failed): last look.
     * POL_TASK_*: one of its own internal tasks (told to its owner only). */
    void (*job_event)(void *state, sim *s, job *j, int ev);
    /* Optional: a trace row that is not a job (kind burst: activity of a
     * session) arrived at its submit time. */
    void (*row)(void *state, sim *s, const wl_row *r);
} pol_time;

/* What every policy is: a `const pol_ops` exported by
 * policies/pol_<name>.c, listed once in policies/registry.c. */
typedef struct pol_ops {
    int abi;
    const char *name;
    const char *summary;
    int kind;                /* POL_SPACE, or POL_TIME (after the space policy) */
    const pol_param *params; /* terminated by {NULL} */
    /* Reads parameters with sim_param(s, name) and builds the policy's state.
     * index is the policy's place in the run (0: the space policy), the one
     * sim_timer and sim_task_new's SIM_OWNER_POLICY take. Returns 0, or
     * GS_EUSAGE with a message in err for a bad value. */
    int (*init)(sim *s, int index, void **state, gs_error *err);
    void (*fini)(void *state); /* NULL-safe */
    /* Optional: a timer set with sim_timer() fired; j is NULL for timers not
     * tied to a job. */
    void (*timer)(void *state, sim *s, job *j, uint32_t tag);
    /* Optional: adds the policy's figures to the report: its own object
     * under root's "policy", and may add fields to "gpu" and "jobs" (never
     * change ones the core wrote). */
    void (*report)(const void *state, const sim *s, cJSON *root);
    const pol_space *space; /* kind POL_SPACE */
    /* Kind POL_TIME: exactly one of the two. */
    const pol_time *time;
    /* A service actuator: the service layer calls these with the state
     * init() made (service/svc_actuator.h). At most one in a run. */
    const svc_actuator_ops *actuator;
    /* Optional: why failing hardware (failures=on, sim_fail.h) is not
     * modelled with this policy: the core refuses such a run with this
     * reason. NULL: it is (a space policy needs POL_CAP_NODES too). */
    const char *failures_refused;
    /* Optional: of SIM_COLS_DECLARED, the columns the policy reads from
     * rows of kind `kind` (WL_KIND_*; its jobs' and tasks' requests, and
     * what decides a figure, a reason or a class) in this run, asked once
     * after init() with its state. NULL: all of them. */
    uint64_t (*columns_read)(const void *state, int kind);
} pol_ops;

/* POL_TASK_*: an internal task the time policy made (sim_task_new with
 * SIM_OWNER_POLICY) was started by the space policy, rejected (it can never
 * fit; freed right after), or killed (freed right after). */
enum pol_job_event {
    POL_JOB_ARRIVED = 1, POL_JOB_STARTED = 2, POL_JOB_ENDING = 3,
    POL_TASK_STARTED = 4, POL_TASK_REJECTED = 5, POL_TASK_LOST = 6
};

#endif
