/* sim_cost.c - see sim_cost.h.
 * SPDX-License-Identifier: MIT */
#include "sim_cost.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over kind, a 0 byte and name: the holder's place in the index */
static uint32_t holder_hash(const char *kind, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = kind; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ 0u) * 16777619u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

/* Puts holder i in the index (linear probing); the index is kept at most
 * half full, rebuilt at twice the size when it would be more. */
static void index_put(sim_cost *c, int i)
{
    if (2 * (c->nh + 1) > c->nslot) {
        int n = c->nslot ? 2 * c->nslot : 16;
        free(c->slot);
        c->slot = xmalloc((size_t)n * sizeof *c->slot);
        for (int k = 0; k < n; k++)
            c->slot[k] = -1;
        c->nslot = n;
        for (int k = 0; k < i; k++)
            index_put(c, k);
    }
    uint32_t m = (uint32_t)c->nslot - 1, k = holder_hash(c->h[i].kind, c->h[i].name) & m;
    while (c->slot[k] >= 0)
        k = (k + 1) & m;
    c->slot[k] = i;
}

static void add_holder(sim_cost *c, const char *kind, const char *name)
{
    if (c->nh == c->caph) {
        c->caph = c->caph ? c->caph * 2 : 8;
        c->h = xrealloc(c->h, (size_t)c->caph * sizeof *c->h);
        c->g = xrealloc(c->g, (size_t)c->caph * (size_t)c->npools * sizeof *c->g);
        c->done = xrealloc(c->done, (size_t)c->caph * sizeof *c->done);
    }
    c->done[c->nh] = 0;
    c->h[c->nh] = (sim_cost_holder){xstrdup(kind), xstrdup(name)};
    memset(&c->g[(size_t)c->nh * (size_t)c->npools], 0, (size_t)c->npools * sizeof *c->g);
    index_put(c, c->nh);
    c->nh++;
}

void sim_cost_init(sim_cost *c, int npools)
{
    memset(c, 0, sizeof *c);
    c->npools = npools > 0 ? npools : 1;
    add_holder(c, "jobs", "");   /* SIM_COST_JOBS */
    add_holder(c, "agents", ""); /* SIM_COST_AGENTS */
}

void sim_cost_free(sim_cost *c)
{
    for (int i = 0; i < c->nh; i++) {
        free(c->h[i].kind);
        free(c->h[i].name);
    }
    free(c->h);
    free(c->g);
    free(c->done);
    free(c->slot);
    memset(c, 0, sizeof *c);
}

int sim_cost_holder_of(sim_cost *c, const char *kind, const char *name)
{
    uint32_t m = (uint32_t)c->nslot - 1;
    for (uint32_t k = holder_hash(kind, name) & m; c->slot[k] >= 0; k = (k + 1) & m) {
        const sim_cost_holder *h = &c->h[c->slot[k]];
        if (!strcmp(h->kind, kind) && !strcmp(h->name, name))
            return c->slot[k];
    }
    add_holder(c, kind, name);
    return c->nh - 1;
}

double sim_cost_gpu_s(const sim_cost *c, int h, int p, gs_time_us now)
{
    return sim_gauge_area(&c->g[h * c->npools + p], now);
}

/* {==== the report's cost object ====} */

typedef struct cost_ctx {
    const sim_cost_pool *pools;
    int npools;
    double span_h, scale; /* scale: SIM_COST_MONTH_H / span_h, 0 when the span is 0 */
    bool priced;
    /* per pool: the GPU-hours paid for (its cards over the span, or its
     * bill's) and USD per GPU-hour held (< 0: unpriced) */
    double *cap_h, *rate;
} cost_ctx;

static void add_or_null(cJSON *o, const char *key, bool known, double v)
{
    if (known)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* One line of the split: GPU-hours per pool in gpu_h[0..npools). */
static cJSON *holder_obj(const cost_ctx *x, const char *kind, const char *name, const double *gpu_h)
{
    double tot = 0, usd = 0, cap = 0;
    for (int p = 0; p < x->npools; p++) {
        tot += gpu_h[p];
        cap += x->cap_h[p];
        usd += gpu_h[p] * (x->rate[p] >= 0 ? x->rate[p] : 0);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "gpu_hours", tot);
    cJSON_AddNumberToObject(o, "share", cap > 0 ? tot / cap : 0.0);
    add_or_null(o, "usd", x->priced, usd);
    add_or_null(o, "usd_per_month", x->priced && x->scale > 0, usd * x->scale);
    if (x->npools > 1) {
        cJSON *bm = cJSON_AddObjectToObject(o, "gpu_hours_by_model");
        for (int p = 0; p < x->npools; p++) { /* pools of one model (spot beside the rest) sum */
            cJSON *have = cJSON_GetObjectItemCaseSensitive(bm, x->pools[p].model);
            if (have)
                cJSON_SetNumberValue(have, have->valuedouble + gpu_h[p]);
            else
                cJSON_AddNumberToObject(bm, x->pools[p].model, gpu_h[p]);
        }
    }
    return o;
}

/* The services' requests served (the report's "services": id, served >
 * 0), sorted by id and then by their order there, so that a holder's unit
 * cost is a search, not a walk of every service (a run of 2,048 services
 * walked them once a holder: O(services^2) cJSON lookups). */
typedef struct served_of {
    const char *id;
    double served;
    int order;
} served_of;

typedef struct served_index {
    served_of *v;
    int n;
} served_index;

static int served_cmp(const void *a, const void *b)
{
    const served_of *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static served_index served_index_of(const cJSON *r)
{
    const cJSON *svs = cJSON_GetObjectItemCaseSensitive(r, "services"), *sv;
    int cap = cJSON_GetArraySize(svs);
    served_index ix = {xcalloc(cap > 0 ? (size_t)cap : 1, sizeof *ix.v), 0};
    cJSON_ArrayForEach(sv, svs)
    {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id"));
        const cJSON *served = cJSON_GetObjectItemCaseSensitive(sv, "served");
        if (id && cJSON_IsNumber(served) && served->valuedouble > 0 && ix.n < cap) {
            ix.v[ix.n] = (served_of){id, served->valuedouble, ix.n};
            ix.n++;
        }
    }
    qsort(ix.v, (size_t)ix.n, sizeof *ix.v, served_cmp);
    return ix;
}

/* The unit costs: jobs per completed job, agents per completed session,
 * a service per million requests served (every service of its id, in the
 * report's order). */
static void unit_cost(const served_index *ix, cJSON *o, const sim_cost_holder *h, uint64_t done)
{
    const cJSON *usd = cJSON_GetObjectItemCaseSensitive(o, "usd");
    if (!cJSON_IsNumber(usd))
        return;
    if (!strcmp(h->kind, "jobs") || (!strcmp(h->kind, "agents") && !h->name[0])) {
        cJSON_AddNumberToObject(o, h->kind[0] == 'j' ? "completed" : "sessions_completed", (double)done);
        if (done > 0)
            cJSON_AddNumberToObject(o, h->kind[0] == 'j' ? "per_completed_job_usd" : "per_completed_session_usd",
                                    usd->valuedouble / (double)done);
        return;
    }
    if (strcmp(h->kind, "service") != 0)
        return;
    int lo = 0, hi = ix->n; /* the first entry of id >= h->name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(ix->v[mid].id, h->name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < ix->n && !strcmp(ix->v[i].id, h->name); i++)
        cJSON_AddNumberToObject(o, "per_million_requests_usd", usd->valuedouble / ix->v[i].served * 1e6);
}

/* Owning against renting, per month: capital (straight-line depreciation)
 * and power (at each card's power every hour), when every pool has both. */
static void report_tco(cJSON *o, const sim_cost_pool *pools, int npools, double rent_per_h, bool priced,
                       double span_h)
{
    double cap = 0, pow = 0;
    for (int p = 0; p < npools; p++) {
        if (pools[p].own_capital_usd_h < 0 || pools[p].own_power_usd_h < 0)
            return;
        cap += pools[p].ngpus * pools[p].own_capital_usd_h;
        pow += pools[p].ngpus * pools[p].own_power_usd_h;
    }
    cJSON *t = cJSON_AddObjectToObject(o, "tco");
    cJSON_AddNumberToObject(t, "owned_usd_per_month", (cap + pow) * SIM_COST_MONTH_H);
    cJSON_AddNumberToObject(t, "capital_usd_per_month", cap * SIM_COST_MONTH_H);
    cJSON_AddNumberToObject(t, "power_usd_per_month", pow * SIM_COST_MONTH_H);
    cJSON_AddNumberToObject(t, "owned_usd", (cap + pow) * span_h);
    add_or_null(t, "rented_usd_per_month", priced, rent_per_h * SIM_COST_MONTH_H);
    add_or_null(t, "owned_over_rented", priced && rent_per_h > 0, (cap + pow) / rent_per_h);
}

/* Fills x's per-pool capacity and rate; returns the bill over the span
 * when some pool is billed (sim_cost_pool.billed), else -1 (the cluster is
 * paid per hour: *per_h). */
static double pool_rates(cost_ctx *x, const sim_cost_pool *pools, double *per_h)
{
    double bill = 0;
    bool billed = false;
    *per_h = 0;
    for (int p = 0; p < x->npools; p++) {
        const sim_cost_pool *q = &pools[p];
        double price = q->usd_per_gpu_h;
        x->cap_h[p] = q->ngpus * x->span_h;
        x->rate[p] = price;
        if (q->billed) { /* nodes that come and go: what they were billed */
            billed = true;
            x->cap_h[p] = q->billed_gpu_h;
            x->rate[p] = q->billed_usd < 0 ? -1 : q->billed_gpu_h > 0 ? q->billed_usd / q->billed_gpu_h : price;
            price = q->billed_usd < 0 ? -1 : price;
            bill += q->billed_usd >= 0 ? q->billed_usd : 0;
        } else {
            bill += q->ngpus * (price >= 0 ? price : 0) * x->span_h;
        }
        x->priced = x->priced && price >= 0;
        *per_h += q->ngpus * (price >= 0 ? price : 0);
    }
    return billed ? bill : -1;
}

void sim_cost_report(const sim_cost *c, const sim_cost_pool *pools, gs_time_us end_us, cJSON *r)
{
    cost_ctx x = {.pools = pools, .npools = c->npools, .span_h = gs_us_to_s(end_us) / 3600.0, .priced = true};
    x.scale = x.span_h > 0 ? SIM_COST_MONTH_H / x.span_h : 0;
    x.cap_h = xcalloc((size_t)c->npools, sizeof *x.cap_h);
    x.rate = xcalloc((size_t)c->npools, sizeof *x.rate);
    double per_h, bill = pool_rates(&x, pools, &per_h);
    cJSON *o = cJSON_AddObjectToObject(r, "cost");
    cJSON_AddNumberToObject(o, "span_s", gs_us_to_s(end_us));
    cJSON_AddNumberToObject(o, "span_hours", x.span_h);
    cJSON_AddNumberToObject(o, "month_hours", SIM_COST_MONTH_H);
    add_or_null(o, "month_scale", x.scale > 0, x.scale);
    cJSON_AddBoolToObject(o, "priced", x.priced);
    if (bill >= 0) {
        double cap = 0;
        for (int p = 0; p < c->npools; p++)
            cap += x.cap_h[p];
        cJSON_AddNumberToObject(o, "billed_gpu_hours", cap);
        add_or_null(o, "cluster_usd", x.priced, bill);
        add_or_null(o, "cluster_usd_per_month", x.priced && x.scale > 0, bill * x.scale);
        per_h = x.span_h > 0 ? bill / x.span_h : 0; /* renting, per hour of the span (the TCO's comparison) */
    } else {
        add_or_null(o, "cluster_usd", x.priced, per_h * x.span_h);
        add_or_null(o, "cluster_usd_per_month", x.priced, per_h * SIM_COST_MONTH_H);
    }
    cJSON *hs = cJSON_AddArrayToObject(o, "holders");
    served_index served = served_index_of(r);
    double *gh = xcalloc((size_t)c->npools, sizeof *gh), *idle = xcalloc((size_t)c->npools, sizeof *idle);
    for (int p = 0; p < c->npools; p++)
        idle[p] = x.cap_h[p];
    for (int h = 0; h < c->nh; h++) {
        double tot = 0;
        for (int p = 0; p < c->npools; p++) {
            gh[p] = sim_cost_gpu_s(c, h, p, end_us) / 3600.0;
            idle[p] -= gh[p];
            tot += gh[p];
        }
        if (h != SIM_COST_JOBS && tot == 0)
            continue;
        cJSON *ho = holder_obj(&x, c->h[h].kind, c->h[h].name, gh);
        unit_cost(&served, ho, &c->h[h], c->done[h]);
        cJSON_AddItemToArray(hs, ho);
    }
    cJSON_AddItemToArray(hs, holder_obj(&x, "idle", "", idle));
    free(served.v);
    free(gh);
    free(idle);
    free(x.cap_h);
    free(x.rate);
    report_tco(o, pools, c->npools, per_h, x.priced, x.span_h);
}
