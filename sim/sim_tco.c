/* sim_tco.c - see sim_tco.h.
 * SPDX-License-Identifier: MIT */
#include "sim_tco.h"

#include <string.h>

#define HOURS_PER_YEAR 8760.0

/* A number member in [lo, hi]: 1 read, 0 absent, -1 wrong. */
static int member(const cJSON *o, const char *key, double lo, double hi, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x)
        return 0;
    if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi))
        return -1;
    *v = x->valuedouble;
    return 1;
}

int sim_tco_parse(sim_tco *t, const cJSON *o, double tdp_w, const char *path, int group, gs_error *err)
{
    memset(t, 0, sizeof *t);
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].tco: expected an object", path, group);
    static const struct {
        const char *key;
        double lo, hi;
        bool required;
        const char *want;
    } f[] = {
        {"purchase_usd_per_gpu", 0, 1e8, true, "US dollars from 0 to 1e8 (the card and its share of the server)"},
        {"depreciation_years", 0.1, 100, true, "years from 0.1 to 100"},
        {"usd_per_kwh", 0, 100, true, "US dollars per kWh from 0 to 100"},
        {"pue", 1, 10, false, "a power usage effectiveness from 1 to 10 (default 1.58)"},
        {"power_w_per_gpu", 0, 1e5, false, "watts from 0 to 1e5 (default: the model file's tdp_w)"},
    };
    double *dst[] = {&t->purchase_usd_per_gpu, &t->depreciation_years, &t->usd_per_kwh, &t->pue,
                     &t->power_w_per_gpu};
    const cJSON *k;
    cJSON_ArrayForEach(k, o)
    {
        bool known = !strcmp(k->string, "comment");
        for (size_t i = 0; i < sizeof f / sizeof *f; i++)
            known |= !strcmp(k->string, f[i].key);
        if (!known)
            return gs_err(err, GS_EINPUT,
                          "cluster '%s': nodes[%d].tco: unknown key '%s' (expected purchase_usd_per_gpu, "
                          "depreciation_years, usd_per_kwh, pue, power_w_per_gpu)", path, group, k->string);
    }
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        int r = member(o, f[i].key, f[i].lo, f[i].hi, dst[i]);
        if (r < 0 || (r == 0 && f[i].required))
            return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].tco.%s: %s %s", path, group, f[i].key,
                          r < 0 ? "expected" : "required:", f[i].want);
        if (r == 0 && i == 3) {
            t->pue = SIM_TCO_PUE_DEFAULT;
            t->pue_default = true;
        }
        if (r == 0 && i == 4) {
            if (tdp_w < 0)
                return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].tco.power_w_per_gpu: required: the model "
                              "file gives no tdp_w", path, group);
            t->power_w_per_gpu = tdp_w;
            t->power_default = true;
        }
    }
    t->given = true;
    return 0;
}

double sim_tco_capital_usd_h(const sim_tco *t) { return t->purchase_usd_per_gpu / (t->depreciation_years * HOURS_PER_YEAR); }

double sim_tco_power_usd_h(const sim_tco *t) { return t->power_w_per_gpu / 1000.0 * t->pue * t->usd_per_kwh; }
