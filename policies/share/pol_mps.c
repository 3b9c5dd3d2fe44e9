/* pol_mps.c - NVIDIA Multi-Process Service (reference/mechanics.md section
 * 2): the clients on a card run concurrently on disjoint SM fractions (no
 * time-slice switching, so no switch cost), each capped at its active-thread
 * percentage whether or not the others are busy; each has a pinned memory
 * limit; a card serves at most client_limit clients; and there is no fault
 * isolation: one client's OOM takes down every client on the card. The
 * mechanics live in share_rule.h (the contention rule with caps always
 * enforced, memory and OOM, the fault propagation in share_sched.c); this
 * file reads parameters.
 * SPDX-License-Identifier: MIT */
#include "share_sched.h"

static const pol_param params[] = {
    {"replicas", "4", "clients per card the device plugin advertises; each gets active threads 100/N % and "
                      "memory physical/N (k8s-device-plugin MPS, reference/mechanics.md 2); 0: no split "
                      "(a client's own gpucores and gpumem only)", P_INT(0, 48)},
    {"client_limit", "48", "clients the MPS server serves per card (48 on Volta and later, 16 before; NVIDIA "
                           "MPS documentation)", P_INT(1, 48)},
    {"node_policy", "spread", "spread: least busy fitting node (clients per card), as the Kubernetes default "
                              "scheduler's LeastAllocated scoring (policies/README.md); binpack: busiest", P_ENUM(SC_SPREAD_CHOICES)},
    {"card_policy", "spread", "spread: card with the fewest clients; binpack: the most", P_ENUM(SC_SPREAD_CHOICES)},
    {"oom_retry", "0", "times a killed client (its own OOM or a co-tenant's fault) is resubmitted from scratch", SC_P_OOM_RETRY},
    {"oom_backoff_s", "10", "wait before a killed client is resubmitted (seconds)", P_DURATION(0, 1e9)},
    {"queue", "skip", "skip: a request that does not fit is passed over; fifo: strict head-of-line", P_ENUM("skip|fifo")},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

static int mps_init(sim *s, int index, void **state, gs_error *err)
{
    /* concurrent kernels: no switch cost; the thread cap never lifts */
    sc_config c = {.name = "mps", .hami = false, .mps = true, .throttle = SC_THROTTLE_ALWAYS, .swap_turn_s = 1,
                   .switch_cost = 0, .eff_floor = 1};
    sc_param_common(s, &c);
    long long replicas = sim_param_int(s, "replicas"), limit = sim_param_int(s, "client_limit");
    if (replicas > limit)
        return gs_err(err, GS_EUSAGE, "--set replicas=%lld: more clients than client_limit=%lld", replicas, limit);
    c.mps_split = (int)replicas;
    c.split_count = (int)(replicas > 0 ? replicas : limit);
    sc_state *st = NULL;
    int rc = sc_new(s, &c, index, &st, err);
    *state = st;
    return rc;
}

const pol_ops pol_mps = {
    .abi = POL_ABI,
    .name = "mps",
    .summary = "NVIDIA MPS: concurrent clients per card, thread-percentage caps, memory limits, no fault isolation",
    .kind = POL_SPACE,
    .params = params,
    .init = mps_init,
    .fini = sc_fini,
    .timer = sc_timer,
    .report = sc_report,
    .space = &sc_space,
    .failures_refused = "its books of each card's tenants do not learn a node leaving service (pol_space.node_changed)",
};
