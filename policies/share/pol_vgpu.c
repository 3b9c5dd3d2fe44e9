/* pol_vgpu.c - HAMi-style vGPU sharing (reference/mechanics.md section 1): a card
 * holds up to split_count tasks, each with a memory and a cores share;
 * memory and cores may be overcommitted by scaling; contention, memory in
 * use, OOM and swap follow share_rule.h and share_sched.h. This file only
 * reads parameters.
 * SPDX-License-Identifier: MIT */
#include <math.h>

#include "../../base/gs_rng.h"
#include "share_paper.h"
#include "share_sched.h"

static const pol_param params[] = {
    {"split_count", "10", "tasks per card (HAMi deviceSplitCount; reference/mechanics.md 1b)", P_INT(1, 1000)},
    {"mem_scaling", "1.0", "card admits physical memory x this (HAMi deviceMemoryScaling; > 1 overcommits)", P_NUM(0.1, 100, NULL)},
    {"core_scaling", "1.0", "card has 100 x this cores (HAMi deviceCoreScaling; 1.2 = 120 shares)", P_NUM(1, 100, NULL)},
    {"node_policy", "binpack", "binpack: busiest fitting node by HAMi's node score; spread: least busy", P_ENUM(SC_SPREAD_CHOICES)},
    {"card_policy", "spread", "spread: least used fitting cards by HAMi's card score; binpack: most used", P_ENUM(SC_SPREAD_CHOICES)},
    {"exclusive_cores", "on", "on: a task asking neither gpucores nor a memory share (or gpumem_pct=100) reserves 100 "
                              "cores, the card to itself (HAMi v2.7.0 and later, its admission webhook); off: 0 cores "
                              "(HAMi v2.6 and earlier)", P_ONOFF},
    {"core_policy", "default", "default: cap at gpucores only while another task is on the card; force: always; "
                               "disable: never", P_ENUM("default|force|disable")},
    {"oversub", "oom", "memory in use past the physical card: oom (the task that crosses fails) or swap (to host)", P_ENUM("oom|swap")},
    {"oom_retry", "0", "times an OOM-killed task is resubmitted from scratch", SC_P_OOM_RETRY},
    {"oom_backoff_s", "10", "wait before an OOM-killed task is resubmitted (seconds)", P_DURATION(0, 1e9)},
    {"swap_turn_s", "1", "oversub=swap: compute time a tenant gets per turn while the card thrashes [U]", P_DURATION(1e-3, 1e6)},
    {"switch_cost", "0.05", "efficiency lost per extra running tenant (reference/mechanics.md 2, [U])", P_NUM(0, 1, NULL)},
    {"eff_floor", "0.75", "lowest efficiency however many tenants (reference/mechanics.md 2, [U])", P_NUM(0.01, 1, NULL)},
    {"queue", "skip", "skip: a request that does not fit is passed over; fifo: strict head-of-line", P_ENUM("skip|fifo")},
    {"gpu_select", "hami", "hami: node_policy/card_policy scores; bestfit, dotprod, random (seeded), fgd "
                           "(fragmentation gradient descent, ATC'23) fgdfit (gpusim's own: fgd with scarce models last and exact "
                           "fits first) or fgdhost (fgdfit, least GPU stranded by host CPU and memory); policies/README.md", P_ENUM(SC_SELECT_CHOICES)},
    {"frag_model", "exact", "exact: gpusim's fragmentation measure, every request shape with memory, exact scores; "
                            "paper: the FGD artifact's measure, typical shapes, integer scores and seeded ties "
                            "(reproduces the published fill-up figures; policies/README.md)", P_ENUM("exact|paper")},
    {"frag", "on", "on: measure fragmentation against the trace's request shapes (report gpu.frag_*, timeseries); "
                   "off: skip it (gpu_select=fgd, fgdfit, fgdhost and frag_model=paper need it on)", P_ONOFF},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

static int vgpu_init(sim *s, int index, void **state, gs_error *err)
{
    /* core_policy's choices in their order: default, force, disable */
    static const int throttle[] = {SC_THROTTLE_CONTENDED, SC_THROTTLE_ALWAYS, SC_THROTTLE_NEVER};
    sc_config c = {.name = "vgpu", .hami = true};
    sc_param_common(s, &c);
    c.split_count = (int)sim_param_int(s, "split_count");
    c.mem_scaling = sim_param_num(s, "mem_scaling");
    /* HAMi registers 100 x deviceCoreScaling cores, truncated
     * (pkg/device-plugin/nvidiadevice/nvinternal/plugin/register.go) */
    c.total_cores = (int)(100 * sim_param_num(s, "core_scaling"));
    c.exclusive_cores = sim_param_on(s, "exclusive_cores");
    c.throttle = throttle[sim_param_choice(s, "core_policy")];
    c.swap = sim_param_choice(s, "oversub") == 1;
    c.swap_turn_s = sim_param_number(s, "swap_turn_s");
    c.switch_cost = sim_param_num(s, "switch_cost");
    c.eff_floor = sim_param_num(s, "eff_floor");
    c.select = sim_param_choice(s, "gpu_select");
    c.select_name = sim_param(s, "gpu_select");
    c.frag = sim_param_on(s, "frag");
    c.paper = sim_param_choice(s, "frag_model") == 1;
    if (c.paper && !c.frag)
        return gs_err(err, GS_EUSAGE, "--set frag_model=paper needs frag=on");
    if (sc_sel_frag(c.select) && !c.frag)
        return gs_err(err, GS_EUSAGE, "--set gpu_select=%s needs frag=on", c.select_name);

    int rc;
    sc_state *st;
    if ((rc = sc_new(s, &c, index, &st, err)))
        return rc;
    if (c.select == SC_SEL_RANDOM) /* its own stream: other draws do not shift it */
        st->rng = gs_rng_new(sim_seed(s), RNG_POLICY + 7);
    if (c.paper || sc_sel_fit(c.select))
        st->rank = sc_paper_rank_new(sim_seed(s), sim_cluster_of(s)->nnodes);
    *state = st;
    return 0;
}

const pol_ops pol_vgpu = {
    .abi = POL_ABI,
    .name = "vgpu",
    .summary = "HAMi-style vGPU: memory and core shares per card, overcommit, contention, OOM or swap",
    .kind = POL_SPACE,
    .params = params,
    .init = vgpu_init,
    .fini = sc_fini,
    .timer = sc_timer,
    .report = sc_report,
    .space = &sc_space,
    .failures_refused = "its books of each card's tenants do not learn a node leaving service (pol_space.node_changed)",
};
