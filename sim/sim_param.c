/* sim_param.c - parameter values in force (sim_param.h). Part of the
 * engine core (sim_struct.h).
 * SPDX-License-Identifier: MIT */
#include "sim_param.h"
#include "sim_module.h"
#include "sim_struct.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The declaration of name among the running policies and modules. */
static const pol_param *param_decl(const sim *s, const char *name)
{
    for (int m = 0; m < s->nmod; m++)
        for (const pol_param *pp = s->mod[m]->params; pp && pp->name; pp++)
            if (strcmp(pp->name, name) == 0)
                return pp;
    for (int p = 0; p < s->npol; p++)
        for (const pol_param *pp = s->pol[p]->params; pp && pp->name; pp++)
            if (strcmp(pp->name, name) == 0)
                return pp;
    return NULL;
}

/* The value in force, parsed: valid by sim_params_check, so a failure here is a
 * caller asking for a type the parameter does not have. */
static gs_param_value param_value(const sim *s, const char *name, int type)
{
    const pol_param *pp = param_decl(s, name);
    if (!pp || pp->spec.type != type)
        GS_BUG("sim_param_*: parameter not declared with this type");
    gs_param_value v;
    gs_error e;
    if (gs_param_parse(name, sim_param(s, name), &pp->spec, &v, &e) != 0)
        GS_BUG("sim_param_*: a value sim_params_check let through does not parse");
    return v;
}

double sim_param_num(const sim *s, const char *name) { return param_value(s, name, GS_P_NUM).num; }
double sim_param_number(const sim *s, const char *name)
{
    const pol_param *pp = param_decl(s, name);
    int t = pp ? pp->spec.type : GS_P_TEXT;
    if (t != GS_P_NUM && t != GS_P_INT && t != GS_P_DURATION)
        GS_BUG("sim_param_number: not a numeric parameter");
    return param_value(s, name, t).num;
}
long long sim_param_int(const sim *s, const char *name) { return param_value(s, name, GS_P_INT).i; }
int sim_param_choice(const sim *s, const char *name)
{
    const pol_param *pp = param_decl(s, name); /* an enum, or a number that also takes words */
    if (!pp || (pp->spec.type != GS_P_ENUM && !pp->spec.choices))
        GS_BUG("sim_param_choice: parameter has no choices");
    return param_value(s, name, pp->spec.type).choice;
}
bool sim_param_on(const sim *s, const char *name) { return param_value(s, name, GS_P_ONOFF).choice == 1; }
gs_time_us sim_param_us(const sim *s, const char *name)
{
    return (gs_time_us)llround(param_value(s, name, GS_P_DURATION).num * 1e6);
}

const char *sim_param(const sim *s, const char *name)
{
    for (int i = s->cfg->nsets - 1; i >= 0; i--)
        if (strcmp(s->cfg->sets[i].key, name) == 0)
            return s->cfg->sets[i].value;
    for (int m = 0; m < s->nmod; m++) /* the core's own parameters: its modules' */
        for (const pol_param *pp = s->mod[m]->params; pp && pp->name; pp++)
            if (strcmp(pp->name, name) == 0)
                return pp->def;
    for (int p = 0; p < s->npol; p++)
        for (const pol_param *pp = s->pol[p]->params; pp && pp->name; pp++)
            if (strcmp(pp->name, name) == 0)
                return pp->def;
    GS_BUG("sim_param: parameter not declared by any running policy");
}

int sim_params_check(sim *s, gs_error *err)
{
    for (int i = 0; i < s->cfg->nsets; i++) {
        bool found = false;
        for (int m = 0; m < s->nmod && !found; m++)
            for (const pol_param *pp = s->mod[m]->params; pp && pp->name; pp++)
                found |= strcmp(pp->name, s->cfg->sets[i].key) == 0;
        for (int p = 0; p < s->npol && !found; p++)
            for (const pol_param *pp = s->pol[p]->params; pp && pp->name; pp++)
                found |= strcmp(pp->name, s->cfg->sets[i].key) == 0;
        if (!found) {
            char names[512] = "";
            size_t used = 0;
            for (int p = 0; p < s->npol; p++)
                for (const pol_param *pp = s->pol[p]->params; pp && pp->name; pp++)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                             pp->name);
            return gs_err(err, GS_EUSAGE, "--set: policy '%s' has no parameter '%s' (parameters: %s; and the "
                          "core's svc_* parameters, see 'gpusim policies')",
                          s->cfg->policy, s->cfg->sets[i].key, used ? names : "none");
        }
    }
    /* every typed value in force, given or default, against its declared range */
    for (int m = 0; m <= s->nmod + s->npol; m++) {
        const pol_param *pp = m < s->nmod ? s->mod[m]->params : m - s->nmod < s->npol ? s->pol[m - s->nmod]->params
                                                                                     : NULL;
        for (; pp && pp->name; pp++) {
            gs_param_value v;
            int rc = gs_param_parse(pp->name, sim_param(s, pp->name), &pp->spec, &v, err);
            if (rc)
                return rc;
        }
    }
    return 0;
}
