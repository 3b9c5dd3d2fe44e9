/* cli_plan_checks.c - what plan checks around its search: the trace
 * before it (one reference card across candidates of several, token counts
 * for token terms, services by id, the milliseconds hint), each (candidate,
 * policy) against the rows no count could serve (the policy set up on one
 * instance of the candidate, its record asked what memory it gives a task),
 * and after a search that met at no count, whether the start-up transient
 * rather than capacity decides it.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/registry.h"
#include "../sim/sim.h"
#include "../sim/sim_cluster_file.h"
#include "cli_plan.h"
#include "trace_facts.h"

/* Does p's space policy (the name before any '+') let requests name a MIG
 * profile, so that a plan must check them against each candidate's MIG
 * cards? The policy record answers (POL_CAP_MIG). */
static bool names_mig_profiles(const cli_batch_policy *p)
{
    char space[sizeof p->name];
    snprintf(space, sizeof space, "%.*s", (int)strcspn(p->name, "+"), p->name);
    const pol_ops *op = pol_find(space);
    return op && op->space && (op->space->caps & POL_CAP_MIG);
}

/* Has the candidate a MIG-enabled card (a node group with a "mig" key on a
 * model with MIG)? O(nodes of one instance). */
static bool has_mig_cards(const candidate *cd)
{
    for (int n = 0; n < cd->unit.nnodes; n++)
        if (sim_cluster_node_mig(&cd->unit, n) && cd->unit.pools[cd->unit.nodes[n].pool].model->mig)
            return true;
    return false;
}

bool cli_plan_checks_mig_applies(const candidate *cd, const cli_batch_policy *pol)
{
    return !names_mig_profiles(pol) || has_mig_cards(cd);
}

/* The rows no count of candidate cd serves under pol (plan_feasible.h):
 * the policy is set up on one instance of the candidate with the plan's
 * parameters (a bad one is refused here, before any search), and its
 * record says what memory it gives a task per card. One read of the trace
 * per entry. */
int cli_plan_checks_feasibility(const cli_opts *o, const gpu_catalog *cat, const candidate *cd,
                                const cli_batch_policy *pol, plan_feasibility *f, gs_error *err)
{
    static sim_config cfg; /* the --set table: off the stack */
    memset(&cfg, 0, sizeof cfg);
    cfg.registry = pol_all();
    cfg.trace_path = o->trace;
    cfg.policy = pol->name;
    cfg.seed = 1;
    char *copies[CLI_OPTS_MAX_SETS + CLI_BATCH_MAX_SETS];
    for (int i = 0; i < o->nsets + pol->nsets && cfg.nsets < SIM_MAX_SETS; i++) {
        char *kv = copies[cfg.nsets] = xstrdup(i < o->nsets ? o->sets[i] : pol->sets[i - o->nsets]);
        char *eq = strchr(kv, '=');
        *eq = 0;
        cfg.sets[cfg.nsets++] = (sim_set){.key = kv, .value = eq + 1};
    }
    sim_cluster cl;
    int rc = cli_plan_cands_unit(cd, cat, &cl, err);
    bool built = rc == 0;
    sim *s = sim_create();
    if (rc == 0 && (rc = sim_init(s, &cfg, cat, &cl, NULL, err)) == 0) {
        const pol_ops *op = sim_policy_at(s, 0);
        plan_policy_ask ask = {op->space ? op->space->mem_per_card_mib : NULL, sim_policy_state(s, 0), op->name};
        rc = plan_feasible_check(&cd->unit, cat, o->trace, names_mig_profiles(pol), false, &ask, f, err);
    }
    sim_destroy(s);
    if (built)
        sim_cluster_free(&cl);
    for (int i = 0; i < cfg.nsets; i++)
        free(copies[i]);
    return rc;
}

/* The cold-start parameters a warm probe sets to nothing: replicas that
 * start at once (sim/service: pod start, imports, weight load, compile,
 * graph capture). */
static char *const warm_sets[] = {(char *)"svc_pod_start_s=0", (char *)"svc_import_s=0", (char *)"svc_load_gbps=1e6",
                                  (char *)"svc_compile_s=0", (char *)"svc_graph_s=0"};
#define NWARM (int)(sizeof warm_sets / sizeof *warm_sets)

/* Not met at any count searched: is a term decided by the start-up
 * transient (requests arriving while replicas cold-start), not by capacity?
 * The largest count searched is run again with replicas that start at
 * once; if it then meets every term, the verdict says so (decided_by). */
int cli_plan_checks_transient(entry *e, const planner *pl, gs_error *err)
{
    cli_batch_policy w = *e->pol;
    if (w.nsets + NWARM > CLI_BATCH_MAX_SETS)
        return 0;
    for (int i = 0; i < NWARM; i++)
        w.sets[w.nsets++] = warm_sets[i];
    snprintf(w.slug, sizeof w.slug, "%.180s-warm", e->pol->slug);
    long x = pl->pts[pl->npts - 1].x;
    bool met = false;
    cJSON *obj = NULL;
    int rc = cli_plan_search_probe(pl, &w, x, &met, &obj, err);
    if (rc || !obj)
        return rc;
    cJSON_AddItemToObject(e->obj, "warm_probe", obj); /* the same count, replicas starting at once */
    if (met) {
        cJSON_ReplaceItemInObjectCaseSensitive(e->obj, "verdict", cJSON_CreateString("not met: start-up transient"));
        cJSON_AddStringToObject(e->obj, "decided_by", "start-up transient");
    }
    return 0;
}

/* Candidates of different cards with the trace's durations stated on no
 * card: under ref_gpu=cluster each candidate would run them as measured on
 * its own first model, sizing each for different work. Refused (usage). */
static int check_ref(const cli_opts *o, const candidate *cands, int ncands, const cli_batch_policy *pol, int npol,
                     const trace_facts *tf, gs_error *err)
{
    const gpu_model *first = NULL;
    char list[600] = "";
    bool differ = false;
    for (int c = 0; c < ncands; c++) {
        const candidate *cd = &cands[c];
        const gpu_model *m = cd->model ? cd->model : cd->unit.npools ? cd->unit.pools[0].model : NULL;
        for (int p = 0; p < npol && m; p++) {
            const char *ref = cli_batch_param(o, &pol[p], "ref_gpu");
            if (ref && strcmp(ref, "cluster"))
                continue; /* stated: the same work on every card */
            if (first && m != first)
                differ = true;
            if (!strstr(list, m->name))
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", m->name);
            first = first ? first : m;
        }
    }
    if (!differ || tf->no_ref == 0)
        return 0;
    return gs_err(err, GS_EUSAGE, "plan: the candidates would run the durations of '%s' as measured on different "
                  "cards (%s: ref_gpu=cluster takes each cluster's first model), so each would be sized for other "
                  "work; %ld rows state no ref_gpu (the first at line %ld): give --set ref_gpu=MODEL, the card the "
                  "durations were measured on, or a ref_gpu column in the trace",
                  o->trace, list, tf->no_ref, tf->first_no_ref_line);
}

/* One candidate cluster of several card models (a template) takes the
 * durations no row states a card for as measured on its first model
 * (ref_gpu=cluster), the same at every count, so it is sized for one work;
 * but they may have been measured on another card: said loudly (stderr,
 * the table, plan.json), as compare does. buf "" when it does not apply. */
static void warn_mixed(const cli_opts *o, const candidate *cands, int ncands, const cli_batch_policy *pol, int npol,
                       const trace_facts *tf, char *buf, size_t n)
{
    buf[0] = 0;
    bool implicit = false;
    for (int p = 0; p < npol; p++) {
        const char *ref = cli_batch_param(o, &pol[p], "ref_gpu");
        implicit |= !ref || !strcmp(ref, "cluster");
    }
    for (int c = 0; c < ncands && implicit && tf->no_ref > 0; c++) {
        const sim_cluster *u = &cands[c].unit;
        int models = 0;
        for (int p = 0; p < u->npools; p++) { /* distinct models: O(pools^2), a few pools */
            bool seen = false;
            for (int q = 0; q < p; q++)
                seen |= u->pools[q].model == u->pools[p].model;
            models += !seen;
        }
        if (models < 2)
            continue;
        snprintf(buf, n, "cluster '%s' has %d card models and %ld rows of '%s' state no ref_gpu (the first at line "
                 "%ld): their durations are taken as measured on %s, its first model (ref_gpu=cluster), and the other "
                 "cards run them at their speed relative to it; if they were measured on another card, give --set "
                 "ref_gpu=MODEL", cands[c].label, models, tf->no_ref, o->trace, tf->first_no_ref_line,
                 u->pools[0].model->name);
        fprintf(stderr, "gpusim: warning: %s\n", buf);
        return; /* the first such candidate: the advice is the same for every one */
    }
}

/* What the trace must say for the plan to mean something: one reference
 * card across candidates of several, services' token counts for token
 * terms and token SLOs, each services.<id> a service of it; and the
 * milliseconds hint. One read of the trace. */
int cli_plan_checks_trace(const cli_opts *o, plan_ctx *cx, const candidate *cands, int ncands,
                          const cli_batch_policy *pol, int npol, bool *services, gs_error *err)
{
    trace_facts tf;
    int rc = trace_facts_read(o->trace, 0, false, &tf, err);
    if (rc)
        return rc;
    rc = check_ref(o, cands, ncands, pol, npol, &tf, err);
    if (rc == 0)
        warn_mixed(o, cands, ncands, pol, npol, &tf, cx->ref_warning, sizeof cx->ref_warning);
    for (int i = 0; i < tf.nsvc; i++)
        *services |= tf.svc[i].line > 0;
    for (int t = 0; rc == 0 && t < cx->nuser; t++)
        rc = trace_facts_check_path(&tf, o->trace, "--slo", cx->slo[t].path, err);
    if (rc == 0)
        rc = trace_facts_check_services(&tf, o->trace, err);
    char hint[600];
    trace_facts_units_hint(&tf, o->trace, hint, sizeof hint);
    if (rc == 0 && hint[0])
        fprintf(stderr, "gpusim: hint: %s\n", hint);
    trace_facts_free(&tf);
    return rc;
}
