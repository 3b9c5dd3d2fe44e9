/* pol_vgpu.c - HAMi-style vGPU sharing (reference/mechanics.md section 1): a card
 * holds up to split_count tasks, each with a memory and a cores share;
 * memory and cores may be overcommitted by scaling; contention, memory in
 * use, OOM and swap follow share_rule.h and share_sched.h. This file only
 * reads parameters.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "../../base/sim_rng.h"
#include "share_paper.h"
#include "share_sched.h"

static const pol_param params[] = {
    {"split_count", "10", "tasks per card (HAMi deviceSplitCount; reference/mechanics.md 1b)", P_INT(1, 1000)},
    {"mem_scaling", "1.0", "card admits physical memory x this (HAMi deviceMemoryScaling; > 1 overcommits)", P_NUM(0.1, 100, NULL)},
    {"core_scaling", "1.0", "card has 100 x this cores (HAMi deviceCoreScaling; 1.2 = 120 shares)", P_NUM(1, 100, NULL)},
    {"node_policy", "binpack", "binpack: busiest fitting node by HAMi's node score; spread: least busy", P_ENUM("binpack|spread")},
    {"card_policy", "spread", "spread: least used fitting cards by HAMi's card score; binpack: most used", P_ENUM("binpack|spread")},
    {"core_policy", "default", "default: cap at gpucores only while another task is on the card; force: always; "
                               "disable: never", P_ENUM("default|force|disable")},
    {"oversub", "oom", "memory in use past the physical card: oom (the task that crosses fails) or swap (to host)", P_ENUM("oom|swap")},
    {"oom_retry", "0", "times an OOM-killed task is resubmitted from scratch", P_INT(0, 1000)},
    {"oom_backoff_s", "10", "wait before an OOM-killed task is resubmitted (seconds)", P_DURATION(0, 1e9)},
    {"swap_turn_s", "1", "oversub=swap: compute time a tenant gets per turn while the card thrashes [U]", P_DURATION(1e-3, 1e6)},
    {"switch_cost", "0.05", "efficiency lost per extra running tenant (reference/mechanics.md 2, [U])", P_NUM(0, 1, NULL)},
    {"eff_floor", "0.75", "lowest efficiency however many tenants (reference/mechanics.md 2, [U])", P_NUM(0.01, 1, NULL)},
    {"queue", "skip", "skip: a request that does not fit is passed over; fifo: strict head-of-line", P_ENUM("skip|fifo")},
    {"gpu_select", "hami", "hami: node_policy/card_policy scores; bestfit, dotprod, random (seeded), fgd "
                           "(fragmentation gradient descent, ATC'23) or fgdfit (gpusim's own: fgd with scarce models last and exact "
                           "fits first); policies/README.md", P_ENUM("hami|bestfit|dotprod|random|fgd|fgdfit")},
    {"frag_model", "exact", "exact: gpusim's fragmentation measure, every request shape with memory, exact scores; "
                            "paper: the FGD artifact's measure, typical shapes, integer scores and seeded ties "
                            "(reproduces the published fill-up figures; policies/README.md)", P_ENUM("exact|paper")},
    {"frag", "on", "on: measure fragmentation against the trace's request shapes (report gpu.frag_*, timeseries); "
                   "off: skip it (gpu_select=fgd and fgdfit and frag_model=paper need it on)", P_ONOFF},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

static int vgpu_init(sim *s, int index, void **state, gs_error *err)
{
    sc_config c = {.name = "vgpu", .hami = true};
    double split, cores;
    const char *cp = sim_param(s, "core_policy");
    int rc = 0;
    if ((rc = sc_param_num(s, "split_count", 1, 1000, &split, err)) ||
        (rc = sc_param_num(s, "mem_scaling", 0.1, 100, &c.mem_scaling, err)) ||
        (rc = sc_param_num(s, "core_scaling", 1, 100, &cores, err)) ||
        (rc = sc_param_common(s, &c, err)) ||
        (rc = sc_param_pick(s, "oversub", "oom", "swap", &c.swap, err)) ||
        (rc = sc_param_num(s, "swap_turn_s", 1e-3, 1e6, &c.swap_turn_s, err)) ||
        (rc = sc_param_num(s, "switch_cost", 0, 1, &c.switch_cost, err)) ||
        (rc = sc_param_num(s, "eff_floor", 0.01, 1, &c.eff_floor, err)))
        return rc;
    if (!strcmp(cp, "default"))
        c.throttle = SC_THROTTLE_CONTENDED;
    else if (!strcmp(cp, "force"))
        c.throttle = SC_THROTTLE_ALWAYS;
    else if (!strcmp(cp, "disable"))
        c.throttle = SC_THROTTLE_NEVER;
    else
        return gs_err(err, GS_EUSAGE, "--set core_policy='%s': expected default, force or disable", cp);
    if (split != floor(split))
        return gs_err(err, GS_EUSAGE, "--set split_count takes a whole number");
    c.split_count = (int)split;
    c.total_cores = (int)floor(100 * cores + 0.5);
    static const char *const sel[] = {"hami", "bestfit", "dotprod", "random", "fgd", "fgdfit"};
    const char *gs = sim_param(s, "gpu_select");
    c.select = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(gs, sel[i]))
            c.select = i;
    if (c.select < 0)
        return gs_err(err, GS_EUSAGE, "--set gpu_select='%s': expected hami, bestfit, dotprod, random, fgd or fgdfit", gs);
    bool off;
    if ((rc = sc_param_pick(s, "frag", "on", "off", &off, err)))
        return rc;
    c.frag = !off;
    if ((rc = sc_param_pick(s, "frag_model", "exact", "paper", &c.paper, err)))
        return rc;
    if (c.paper && !c.frag)
        return gs_err(err, GS_EUSAGE, "--set frag_model=paper needs frag=on");
    if ((c.select == SC_SEL_FGD || c.select == SC_SEL_FGDFIT) && !c.frag)
        return gs_err(err, GS_EUSAGE, "--set gpu_select=%s needs frag=on", gs);

    sc_state *st;
    if ((rc = sc_new(s, &c, index, &st, err)))
        return rc;
    if (c.select == SC_SEL_RANDOM) /* its own stream: other draws do not shift it */
        st->rng = sim_rng_new(sim_seed(s), RNG_POLICY + 7);
    if (c.paper || c.select == SC_SEL_FGDFIT)
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
};
