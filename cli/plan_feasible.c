/* plan_feasible.c - see plan_feasible.h.
 * SPDX-License-Identifier: MIT */
#include "plan_feasible.h"

#include <stdio.h>
#include <string.h>

#include "../policies/mig_layout.h"
#include "../workloads/wl_trace.h"

const char *plan_feasible_kind(pf_kind k)
{
    static const char *const names[PF_NKINDS] = {"gpu_model",  "mig_profile", "node_gpus",    "node_cpu_memory",
                                                 "gpu_memory", "weights",     "policy_memory"};
    return names[k];
}

/* The largest node figures over the allowed pools. */
static void largest(const sim_cluster *cl, uint64_t pools, int *gpus, double *cpu, double *mem, int64_t *card_mib)
{
    *gpus = 0;
    *cpu = *mem = 0;
    *card_mib = 0;
    for (int pi = 0; pi < cl->npools; pi++) {
        if (!(pools >> pi & 1))
            continue;
        const sim_pool *p = &cl->pools[pi];
        if ((int64_t)p->model->memory_mib > *card_mib)
            *card_mib = (int64_t)p->model->memory_mib;
        for (int s = 0; s < p->nshapes; s++) {
            const node_shape *sh = &p->shapes[s];
            if (sh->ngpus > *gpus)
                *gpus = sh->ngpus;
            if (sh->cpu < 0 || sh->cpu > *cpu)
                *cpu = sh->cpu < 0 ? 1e300 : sh->cpu;
            if (sh->mem_gib < 0 || sh->mem_gib > *mem)
                *mem = sh->mem_gib < 0 ? 1e300 : sh->mem_gib;
        }
    }
}

/* Has an allowed pool a node without MIG (whole cards for a job across nodes)? */
static bool whole_cards(const sim_cluster *cl, uint64_t pools)
{
    for (int g = 0; g < cl->ngroups; g++) {
        int n = cl->group_first[g];
        if (n < cl->nnodes && (pools >> cl->nodes[n].pool & 1) && !sim_cluster_node_mig(cl, n) &&
            cl->nodes[n].ngpus > 0)
            return true;
    }
    return false;
}

/* Does a MIG-enabled group of an allowed pool offer profile name? */
static bool mig_offers(const sim_cluster *cl, uint64_t pools, const char *name)
{
    for (int n = 0; n < cl->nnodes; n++) {
        const sim_node *nd = &cl->nodes[n];
        const gpu_model *m = cl->pools[nd->pool].model;
        if ((pools >> nd->pool & 1) && sim_cluster_node_mig(cl, n) && m->mig && mig_profile_find(m->mig, name) >= 0)
            return true;
    }
    return false;
}

/* The most memory a card of an allowed pool gives row r's task under the
 * policy (its record's answer; a whole card without one). O(pools). */
static double given_mib(const sim_cluster *cl, uint64_t pools, const plan_policy_ask *ask, const wl_row *r,
                        int64_t card_mib)
{
    if (!ask || !ask->mem_per_card_mib)
        return (double)card_mib;
    job_req q;
    job_req_numbers(&q, r);
    q.mig = r->mig;
    double best = 0;
    for (int pi = 0; pi < cl->npools; pi++)
        if (pools >> pi & 1) {
            double v = ask->mem_per_card_mib(ask->state, cl->pools[pi].model, &q);
            best = v > best ? v : best;
        }
    return best;
}

/* Why the policy gives row r's task no card (given_mib 0), by what it asks. */
static void policy_why(const wl_row *r, const char *policy, int64_t card_mib, char *why, size_t n)
{
    if (r->mig[0])
        snprintf(why, n, "under %.40s no MIG layout of the cluster's cards offers profile %.31s", policy, r->mig);
    else if (r->gpumem_mib > 0 || r->gpumem_pct > 0)
        snprintf(why, n, "under %.40s no card gives its task memory (%lld MiB a GPU asked: above the share the "
                 "policy gives a task, e.g. an MPS client's, or every MIG profile the layouts offer)", policy,
                 (long long)wl_row_gpumem_mib(r, card_mib));
    else
        snprintf(why, n, "under %.40s no card is given to it whole (every card has MIG, and no layout has a "
                 "full-card instance)", policy);
}

static void flag(plan_feasibility *f, const wl_row *r, pf_kind k, const char *why)
{
    f->by_kind[k]++;
    if (f->nex < PF_MAX_EXAMPLES) {
        pf_example *e = &f->ex[f->nex++];
        e->line = r->line;
        snprintf(e->id, sizeof e->id, "%s", r->id);
        snprintf(e->why, sizeof e->why, "%s", why);
    }
}

int plan_feasible_check(const sim_cluster *cl, const gpu_catalog *cat, const char *trace, bool mig_policy,
                        bool allow_extra_columns, const plan_policy_ask *ask, plan_feasibility *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    wl_opts o = {.allow_extra_columns = allow_extra_columns};
    wl_trace *t = wl_trace_open(trace, &o, err);
    if (!t)
        return err->code;
    char models[1024];
    models[0] = 0;
    for (int pi = 0; pi < cl->npools; pi++)
        snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s", pi ? ", " : "",
                 cl->pools[pi].model->name);
    const wl_row *r;
    int rc;
    while ((rc = wl_trace_next(t, &r, err)) == 1) {
        if (r->kind != WL_KIND_JOB && r->kind != WL_KIND_SESSION && r->kind != WL_KIND_SERVICE)
            continue;
        out->rows++;
        if (r->mig[0] && !gpu_catalog_has_mig_profile(cat, r->mig)) { /* as the run says: a typo, not a rejection */
            gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('mig'): expected a MIG profile a card of the "
                   "catalog offers, such as '1g.10gb' (gpusim models), found '%s'", trace, r->line, r->mig_col, r->mig);
            rc = -1;
            break;
        }
        char why[240];
        gs_error e2;
        uint64_t pools = sim_cluster_model_mask(cl, cat, r->gpu_model, &e2);
        if (!pools) {
            snprintf(why, sizeof why, "gpu_model '%.80s' allows none of the cards (%.100s)", r->gpu_model, models);
            flag(out, r, PF_GPU_MODEL, why);
            out->bad++;
            continue;
        }
        int ng;
        double cpu, mem;
        int64_t card_mib;
        largest(cl, pools, &ng, &cpu, &mem, &card_mib);
        bool bad = true;
        if (mig_policy && r->mig[0] && !mig_offers(cl, pools, r->mig)) {
            snprintf(why, sizeof why, "MIG profile %.31s: no MIG-enabled card of the cluster offers it (cards: %.100s)",
                     r->mig, models);
            flag(out, r, PF_MIG_PROFILE, why);
        } else if (r->gpus > ng && (r->kind == WL_KIND_SERVICE || (mig_policy && !whole_cards(cl, pools)))) {
            /* a job wider than a node spans nodes (sim_gang.h), on cards
             * without MIG under the MIG policies; a replica never does */
            snprintf(why, sizeof why, "needs %d GPUs on one node; the largest node has %d%s", r->gpus, ng,
                     r->kind == WL_KIND_SERVICE ? "" : " and every card has MIG (a job across nodes takes whole cards)");
            flag(out, r, PF_NODE_GPUS, why);
        } else if (!sim_cluster_can_ever_fit(cl, pools, r->gpus < ng ? r->gpus : ng, r->cpu, r->mem_gib)) {
            snprintf(why, sizeof why, "needs %g CPU cores and %g GiB host memory with %d GPUs on one node; no node "
                     "has that (largest: %g cores, %g GiB)", r->cpu, r->mem_gib, r->gpus, cpu, mem);
            flag(out, r, PF_NODE_HOST, why);
        } else if (r->gpumem_mib > card_mib) {
            snprintf(why, sizeof why, "asks %lld MiB per GPU; the largest card has %lld MiB", (long long)r->gpumem_mib,
                     (long long)card_mib);
            flag(out, r, PF_GPU_MEMORY, why);
        } else if (r->kind != WL_KIND_SERVICE && r->gpus > 0 && given_mib(cl, pools, ask, r, card_mib) <= 0) {
            policy_why(r, ask->policy, card_mib, why, sizeof why);
            flag(out, r, PF_POLICY_MEMORY, why);
        } else if (r->kind == WL_KIND_SERVICE && r->weights_gib > 0 && r->gpus > 0 &&
                   r->weights_gib * 1024.0 > (double)r->gpus * given_mib(cl, pools, ask, r, card_mib)) {
            double g = given_mib(cl, pools, ask, r, card_mib);
            if (g < (double)card_mib)
                snprintf(why, sizeof why, "weights of %g GiB fit no replica of %d card%s given %.0f MiB each by "
                         "%.40s (cards of %lld MiB)", r->weights_gib, r->gpus, r->gpus > 1 ? "s" : "", g,
                         ask->policy, (long long)card_mib);
            else
                snprintf(why, sizeof why, "weights of %g GiB fit no replica of %d card%s of %lld MiB", r->weights_gib,
                         r->gpus, r->gpus > 1 ? "s" : "", (long long)card_mib);
            flag(out, r, g < (double)card_mib ? PF_POLICY_MEMORY : PF_WEIGHTS, why);
        } else {
            bad = false;
        }
        out->bad += bad;
    }
    wl_trace_close(t);
    return rc < 0 ? err->code : 0;
}
