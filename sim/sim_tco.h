/* sim_tco.h - what owning the cards costs, beside renting them: a node
 * group's "tco" object in a cluster file or template.
 *
 *   "tco": {"purchase_usd_per_gpu": 30000, "depreciation_years": 5,
 *           "usd_per_kwh": 0.08, "pue": 1.58, "power_w_per_gpu": 700}
 *
 * purchase_usd_per_gpu (the card and its share of the server, network and
 * installation), depreciation_years (straight line, no residual value) and
 * usd_per_kwh are required: they are the buyer's own, and no public figure
 * stands for them. pue defaults to 1.58, the industry average of the
 * Uptime Institute Global Data Center Survey 2023 (its Intelligence update
 * "Large data centers are mostly more efficient, analysis confirms", Nov
 * 2023); power_w_per_gpu to the model file's tdp_w (the datasheet's maximum
 * board power; required when the model file has none). Power is counted at
 * that figure every hour, an upper bound: an idle card draws less.
 *
 * Owning per GPU-hour = purchase / (years x 8760 h) + power_w / 1000 x pue x
 * usd_per_kwh.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_TCO_H
#define GPUSIM_SIM_TCO_H

#include <cJSON.h>
#include <stdbool.h>

#include "../base/gs.h"

#define SIM_TCO_PUE_DEFAULT 1.58 /* Uptime Institute, Global Data Center Survey 2023 average */

typedef struct sim_tco {
    bool given;
    double purchase_usd_per_gpu, depreciation_years, usd_per_kwh, pue, power_w_per_gpu;
    bool pue_default, power_default; /* taken from the defaults above (the report says so) */
} sim_tco;

/* Parses group i's "tco" (o may be NULL: not given) for cards of
 * tdp_w watts (< 0: unknown). 0 or GS_EINPUT naming path, the group and
 * the field. */
int sim_tco_parse(sim_tco *t, const cJSON *o, double tdp_w, const char *path, int group, gs_error *err);
/* USD per GPU-hour of owning: capital, power, and their sum. */
double sim_tco_capital_usd_h(const sim_tco *t);
double sim_tco_power_usd_h(const sim_tco *t);

#endif
