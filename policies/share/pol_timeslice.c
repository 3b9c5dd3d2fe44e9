/* pol_timeslice.c - NVIDIA device-plugin time-slicing (mechanics.md section
 * 2): each card is advertised as `replicas` copies; tasks on a card share
 * its time equally (no caps), pay a context-switch cost, and have no memory
 * isolation: the task whose memory takes the card past physical is OOM
 * killed. The mechanics live in share_rule.h and share_sched.h; this file
 * reads parameters.
 * SPDX-License-Identifier: MIT */
#include "share_sched.h"

static const pol_param params[] = {
    {"replicas", "4", "tasks per card (sharing.timeSlicing replicas; docs example 4, reference/mechanics.md 2b); "
                      "0 = unlimited", P_INT(0, 100000)},
    {"node_policy", "spread", "spread: least busy fitting node (tasks per card), as the Kubernetes default scheduler's "
                              "LeastAllocated scoring (policies/README.md); binpack: busiest", P_ENUM(SC_SPREAD_CHOICES)},
    {"card_policy", "spread", "spread: card with the fewest tasks; binpack: the most", P_ENUM(SC_SPREAD_CHOICES)},
    {"oom_retry", "0", "times an OOM-killed task is resubmitted from scratch", SC_P_OOM_RETRY},
    {"oom_backoff_s", "10", "wait before an OOM-killed task is resubmitted (seconds)", P_DURATION(0, 1e9)},
    {"switch_cost", "0.05", "efficiency lost per extra running tenant (reference/mechanics.md 2, [U])", P_NUM(0, 1, NULL)},
    {"eff_floor", "0.75", "lowest efficiency however many tenants (reference/mechanics.md 2, [U])", P_NUM(0.01, 1, NULL)},
    {"queue", "skip", "skip: a request that does not fit is passed over; fifo: strict head-of-line", P_ENUM("skip|fifo")},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

static int ts_init(sim *s, int index, void **state, gs_error *err)
{
    sc_config c = {.name = "timeslice", .hami = false, .throttle = SC_THROTTLE_NEVER, .swap_turn_s = 1};
    sc_param_common(s, &c);
    c.split_count = (int)sim_param_int(s, "replicas");
    c.switch_cost = sim_param_num(s, "switch_cost");
    c.eff_floor = sim_param_num(s, "eff_floor");
    sc_state *st = NULL;
    int rc = sc_new(s, &c, index, &st, err);
    *state = st;
    return rc;
}

const pol_ops pol_timeslice = {
    .abi = POL_ABI,
    .name = "timeslice",
    .summary = "NVIDIA time-slicing: replicas per card, equal turns, switch cost, OOM without isolation",
    .kind = POL_SPACE,
    .params = params,
    .init = ts_init,
    .fini = sc_fini,
    .timer = sc_timer,
    .report = sc_report,
    .space = &sc_space,
    .failures_refused = "its books of each card's tenants do not learn a node leaving service (pol_space.node_changed)",
};
