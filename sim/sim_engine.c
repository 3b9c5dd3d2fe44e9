/* sim_engine.c - the engine as the tool uses it: the event loop (sim.c)
 * with its standard layers above it, registered here and nowhere else. The
 * order is the order the loop calls them in, and the order their parameters
 * appear in inputs.params.
 * SPDX-License-Identifier: MIT */
#include "sim.h"
#include "sim_fail.h"
#include "sim_hw.h"
#include "sim_preempt.h"
#include "service/svc.h"

static const sim_module *const standard_modules[] = {&hw_module, &svc_module, &preempt_module, &fail_module, NULL};
static const pol_param *const standard_params[] = {hw_params, svc_params, preempt_params, fail_params, NULL};

int sim_init(sim *s, const sim_config *cfg, const gpu_catalog *cat, sim_cluster *cl, FILE *ts, gs_error *err)
{
    return sim_init_with(s, cfg, cat, cl, ts, standard_modules, err);
}

const pol_param *const *sim_core_params(void) { return standard_params; }
