/* sim_report.c - report.json and the summary table.
 * Every figure here is computed from the run's counters, gauges and
 * sketches; nothing is filled in from parameters. Part of the engine core:
 * the one reader of every counter of struct sim (sim_struct.h).
 * SPDX-License-Identifier: MIT */
#include "sim_report.h"
#include "sim_struct.h"

#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_trace.h"
#include "sim_backfill.h"
#include "sim_elastic.h"
#include "sim_module.h"

/* USD per GPU-hour of pool i's cards and where the price came from: --price
 * wins, then its node groups' prices from the cluster file (the model
 * file's list price for the pool's other cards), then the list price;
 * < 0 when none is known. A pool of groups at several prices gets their
 * mean per card. */
static double pool_price(const sim *s, int i, const char **source, double *pool_usd_h)
{
    const sim_pool *p = &s->cl->pools[i];
    double group_usd = 0;
    int group_gpus = 0;
    for (int n = 0; s->cl->group_price && n < s->cl->nnodes; n++) {
        const sim_node *nd = &s->cl->nodes[n];
        if (nd->pool == i && s->cl->group_price[nd->group] >= 0) {
            group_usd += nd->ngpus * s->cl->group_price[nd->group];
            group_gpus += nd->ngpus;
        }
    }
    if (p->price_override >= 0) {
        *source = "--price";
        *pool_usd_h = p->ngpus * p->price_override;
        return p->price_override;
    }
    if (group_gpus > 0 && (group_gpus == p->ngpus || p->model->price_per_hour_usd >= 0)) {
        *pool_usd_h =
            group_usd + (p->ngpus - group_gpus) * (group_gpus < p->ngpus ? p->model->price_per_hour_usd : 0);
        *source = group_gpus == p->ngpus ? "cluster file" : "cluster file and model file";
        return p->ngpus ? *pool_usd_h / p->ngpus : 0;
    }
    *source = "model file";
    *pool_usd_h = p->ngpus * p->model->price_per_hour_usd;
    return p->model->price_per_hour_usd >= 0 ? p->model->price_per_hour_usd : -1;
}

/* The cost of owning pool i's cards, USD per GPU-hour (means over its
 * cards): capital and power; both -1 when the cluster gives no TCO. */
static void pool_tco(const sim *s, int i, double *cap, double *pow)
{
    *cap = *pow = -1;
    if (!s->cl->group_tco)
        return;
    double c = 0, p = 0;
    int n = 0;
    for (int k = 0; k < s->cl->nnodes; k++) {
        const sim_node *nd = &s->cl->nodes[k];
        const sim_tco *t = &s->cl->group_tco[nd->group];
        if (nd->pool != i)
            continue;
        if (!t->given)
            return;
        c += nd->ngpus * sim_tco_capital_usd_h(t);
        p += nd->ngpus * sim_tco_power_usd_h(t);
        n += nd->ngpus;
    }
    if (n > 0) {
        *cap = c / n;
        *pow = p / n;
    }
}

/* inputs.cluster.tco: each node group's owning inputs, and where a default
 * came from (sim_tco.h). */
static void add_tco_inputs(cJSON *cl, const sim *s)
{
    if (!s->cl->group_tco || !s->cl->group_tco[0].given)
        return;
    cJSON *a = cJSON_AddArrayToObject(cl, "tco");
    for (int g = 0; g < s->cl->ngroups; g++) {
        const sim_tco *t = &s->cl->group_tco[g];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "group", g);
        cJSON_AddNumberToObject(o, "purchase_usd_per_gpu", t->purchase_usd_per_gpu);
        cJSON_AddNumberToObject(o, "depreciation_years", t->depreciation_years);
        cJSON_AddNumberToObject(o, "usd_per_kwh", t->usd_per_kwh);
        cJSON_AddNumberToObject(o, "pue", t->pue);
        cJSON_AddStringToObject(o, "pue_source", t->pue_default ? "default: Uptime Institute Global Data Center "
                                                                  "Survey 2023 average" : "cluster file");
        cJSON_AddNumberToObject(o, "power_w_per_gpu", t->power_w_per_gpu);
        cJSON_AddStringToObject(o, "power_source", t->power_default ? "model file tdp_w" : "cluster file");
        cJSON_AddNumberToObject(o, "capital_usd_per_gpu_hour", sim_tco_capital_usd_h(t));
        cJSON_AddNumberToObject(o, "power_usd_per_gpu_hour", sim_tco_power_usd_h(t));
        cJSON_AddItemToArray(a, o);
    }
}

void sim_report_add_inputs(cJSON *r, const sim *s)
{
    cJSON *in = cJSON_AddObjectToObject(r, "inputs");
    cJSON_AddStringToObject(in, "gpusim_version", GPUSIM_VERSION);
    cJSON_AddStringToObject(in, "trace", s->cfg->trace_path);
    cJSON_AddNumberToObject(in, "trace_rows",
                            (double)(s->arrived + s->bursts + s->not_arrived + s->module_rows));
    uint64_t unread = sim_unread_columns(s);
    if (unread) { /* columns no layer of this run reads: their values were not checked */
        cJSON *u = cJSON_AddArrayToObject(in, "unread_columns");
        for (int c = 0; c < 64; c++)
            if (unread >> c & 1)
                cJSON_AddItemToArray(u, cJSON_CreateString(wl_col_name(c)));
    }
    cJSON_AddStringToObject(in, "policy", s->cfg->policy);
    cJSON *params = cJSON_AddObjectToObject(in, "params");
    for (int p = 0; p < s->npol; p++)
        for (const pol_param *pp = s->pol[p]->params; pp && pp->name; pp++)
            cJSON_AddStringToObject(params, pp->name, sim_param(s, pp->name));
    for (int m = 0; m < s->nmod; m++) /* the core's own parameters */
        for (const pol_param *pp = s->mod[m]->params;
             pp && pp->name && !(s->mod[m]->params_quiet && s->mod[m]->params_quiet(s->mst[m])); pp++)
            cJSON_AddStringToObject(params, pp->name, sim_param(s, pp->name));
    cJSON_AddNumberToObject(in, "seed", (double)s->cfg->seed);
    if (s->cfg->until_us > 0)
        cJSON_AddNumberToObject(in, "until_s", gs_us_to_s(s->cfg->until_us));
    else
        cJSON_AddNullToObject(in, "until_s");
    cJSON_AddNumberToObject(in, "sample_s", gs_us_to_s(s->cfg->sample_us));
    cJSON *cl = cJSON_AddObjectToObject(in, "cluster");
    cJSON_AddStringToObject(cl, "name", s->cl->name);
    cJSON_AddNumberToObject(cl, "nodes", s->cl->nnodes);
    cJSON_AddNumberToObject(cl, "gpus", s->cl->ngpus);
    cJSON *models = cJSON_AddArrayToObject(cl, "models");
    double usd = 0;
    bool priced = true;
    for (int i = 0; i < s->cl->npools; i++) {
        const sim_pool *p = &s->cl->pools[i];
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "model", p->model->name);
        if (p->spot) /* spot groups' nodes: a pool of their own (sim_elastic.h) */
            cJSON_AddTrueToObject(m, "spot");
        cJSON_AddNumberToObject(m, "nodes", p->nnodes);
        cJSON_AddNumberToObject(m, "gpus", p->ngpus);
        const char *src;
        double pool_usd_h, price = pool_price(s, i, &src, &pool_usd_h);
        if (price >= 0) {
            cJSON_AddNumberToObject(m, "price_per_gpu_hour_usd", price);
            cJSON_AddStringToObject(m, "price_source", src);
            usd += pool_usd_h;
        } else {
            cJSON_AddNullToObject(m, "price_per_gpu_hour_usd");
            priced = false;
        }
        cJSON_AddItemToArray(models, m);
    }
    if (priced)
        cJSON_AddNumberToObject(cl, "cost_per_hour_usd", usd);
    else
        cJSON_AddNullToObject(cl, "cost_per_hour_usd");
    add_tco_inputs(cl, s);
}

static void report_modules(const sim *s, cJSON *r, int section)
{
    for (int m = 0; m < s->nmod; m++)
        if (s->mod[m]->report)
            s->mod[m]->report(s->mst[m], s, r, section);
}

/* The report's "jobs": counts, waits, backfill, rejections, sizes,
 * classes, then the modules' jobs sections. */
static void report_jobs(const sim *s, cJSON *r, double end_s)
{
    cJSON *jobs = cJSON_AddObjectToObject(r, "jobs");
    cJSON_AddNumberToObject(jobs, "arrived", (double)s->arrived);
    cJSON_AddNumberToObject(jobs, "completed", (double)s->completed);
    cJSON_AddNumberToObject(jobs, "running", (double)s->running);
    cJSON_AddNumberToObject(jobs, "queued", (double)s->queued);
    cJSON_AddNumberToObject(jobs, "rejected", (double)s->rejected);
    cJSON_AddNumberToObject(jobs, "suspended", (double)s->suspended);
    cJSON_AddNumberToObject(jobs, "failed", (double)s->failed);
    cJSON_AddNumberToObject(jobs, "not_arrived", (double)s->not_arrived);
    cJSON_AddNumberToObject(jobs, "bursts", (double)s->bursts); /* session activity rows, not jobs */
    sim_report_add_stats(jobs, "queue_s", &s->queue_s);
    sim_observed_report(&s->observed, jobs); /* an imported trace's observed starts */
    sim_report_add_stats(jobs, "jct_s", &s->jct_s);
    sim_report_add_stats(jobs, "slowdown", &s->slowdown);
    cJSON_AddNumberToObject(jobs, "mean_queued", end_s > 0 ? s->g_queued.area / end_s : 0.0);
    cJSON_AddNumberToObject(jobs, "peak_queued", s->g_queued.peak);
    if (s->bf) { /* queue=backfill: starts past a reserved head, reservations made */
        cJSON *bf = cJSON_AddObjectToObject(jobs, "backfill");
        cJSON_AddNumberToObject(bf, "backfilled", (double)sim_bf_backfilled(s->bf));
        cJSON_AddNumberToObject(bf, "reservations", (double)sim_bf_reservations(s->bf));
    }
    sim_reject_report(&s->rejects, jobs); /* when some job was rejected */
    if (s->spanned) { /* a job across nodes ran: the figures by job size */
        static const char *const label[SIM_SIZE_CLASSES] = {"1", "2-8", "9-64", "65-512", "513+"};
        cJSON *bs = cJSON_AddObjectToObject(jobs, "by_size");
        for (int c = 0; c < SIM_SIZE_CLASSES; c++) {
            cJSON *o = cJSON_AddObjectToObject(bs, label[c]);
            cJSON_AddNumberToObject(o, "count", (double)s->size_arrived[c]);
            bool run = s->size_only == c; /* the only size: its figures are the run's */
            sim_report_add_stats(o, "queue_s", run ? &s->queue_s : &s->size_queue_s[c]);
            sim_report_add_stats(o, "jct_s", run ? &s->jct_s : &s->size_jct_s[c]);
        }
    }
    sim_classes_report(&s->classes, jobs); /* a trace with a class column */
    report_modules(s, r, SIM_REPORT_JOBS); /* jobs.by_priority, preemption, tenants */
}

/* The report's "gpu" (capacity of the nodes in service) and, with node
 * states on, "nodes". */
static void report_gpu(const sim *s, cJSON *r, double end_s)
{
    cJSON *gpu = cJSON_AddObjectToObject(r, "gpu");
    /* the GPUs of nodes in service only (sim_nodes.h); all of them on a fixed cluster */
    double cap_gpu_s = s->cl->ngpus * end_s - s->g_out.area;
    cJSON_AddNumberToObject(gpu, "count", s->cl->ngpus);
    cJSON_AddNumberToObject(gpu, "alloc_ratio", cap_gpu_s > 0 ? s->g_alloc.area / cap_gpu_s : 0.0);
    cJSON_AddNumberToObject(gpu, "gpu_hours", s->g_alloc.area / 3600.0);
    cJSON_AddNumberToObject(gpu, "capacity_gpu_hours", cap_gpu_s / 3600.0);
    cJSON_AddNumberToObject(gpu, "peak_alloc", s->g_alloc.peak);

    if (s->node_jobs) { /* node states were on (sim_nodes.h) */
        cJSON *nd = cJSON_AddObjectToObject(r, "nodes");
        cJSON_AddNumberToObject(nd, "out_of_service_gpu_hours", s->g_out.area / 3600.0);
        cJSON_AddNumberToObject(nd, "interruptions", (double)s->interruptions);
        cJSON_AddNumberToObject(nd, "lost_gpu_hours", s->interrupt_lost_gpu_s / 3600.0);
        cJSON_AddNumberToObject(nd, "checkpoint_read_gpu_hours", s->interrupt_read_gpu_s / 3600.0);
    }
}

/* The report's "cost": each pool's price and ownership terms, after the
 * services (their requests served). */
static void report_cost(const sim *s, cJSON *r)
{
    sim_cost_pool *pools = xcalloc((size_t)s->cl->npools + 1, sizeof *pools);
    for (int i = 0; i < s->cl->npools; i++) {
        const char *src;
        double pool_usd_h;
        pools[i] = (sim_cost_pool){s->cl->pools[i].model->name, s->cl->pools[i].ngpus,
                                   pool_price(s, i, &src, &pool_usd_h), -1, -1, false, 0, 0};
        pool_tco(s, i, &pools[i].own_capital_usd_h, &pools[i].own_power_usd_h);
        /* nodes that come and go: what they were billed */
        pools[i].billed = sim_elastic_pool_bill(s, i, &pools[i].billed_gpu_h, &pools[i].billed_usd);
    }
    sim_cost_report(&s->cost, pools, s->now, r); /* after the services: their requests served */
    free(pools);
}

/* The report's "sim": events, simulated and wall time, memory, the
 * timeseries' step. */
static void report_sim(const sim *s, cJSON *r, double end_s, double wall_s, double peak_rss_mib)
{
    cJSON *sm = cJSON_AddObjectToObject(r, "sim");
    cJSON_AddNumberToObject(sm, "events", (double)s->events);
    cJSON_AddNumberToObject(sm, "end_s", end_s);
    cJSON_AddNumberToObject(sm, "wall_s", wall_s);
    cJSON_AddNumberToObject(sm, "events_per_s", wall_s > 0 ? (double)s->events / wall_s : 0.0);
    cJSON_AddNumberToObject(sm, "peak_rss_mib", peak_rss_mib);
    /* the timeseries step in force at the end: the requested sample_s,
     * doubled each time the row cap was reached (sim_timeseries.h) */
    if (s->ts.out) {
        cJSON_AddNumberToObject(sm, "timeseries_step_s", gs_us_to_s(s->ts.step_us));
        cJSON_AddNumberToObject(sm, "timeseries_rows", (double)s->ts.n);
        cJSON_AddNumberToObject(sm, "timeseries_max_rows", (double)s->ts.max_rows);
    }
}

cJSON *sim_report_build(const sim *s, double wall_s, double peak_rss_mib)
{
    cJSON *r = cJSON_CreateObject();
    sim_report_add_inputs(r, s);
    if (s->nwarnings > 0) {
        cJSON *w = cJSON_AddArrayToObject(r, "warnings");
        for (int i = 0; i < s->nwarnings; i++)
            cJSON_AddItemToArray(w, cJSON_CreateString(s->warnings[i]));
    }
    double end_s = gs_us_to_s(s->now);

    report_jobs(s, r, end_s);
    report_gpu(s, r, end_s);
    report_modules(s, r, SIM_REPORT_GPU); /* services, requests */
    report_cost(s, r);
    cJSON_AddObjectToObject(r, "policy");
    for (int p = 0; p < s->npol; p++)
        if (s->pol[p]->report)
            s->pol[p]->report(s->pst[p], s, r);

    report_sim(s, r, end_s, wall_s, peak_rss_mib);
    return r;
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : 0.0;
}

/* "cost  $X over N h simulated, $Y/month (x K): jobs 40%, ..., idle 20%". */
static void summary_cost(FILE *out, const cJSON *co)
{
    if (!co)
        return;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(co, "priced")))
        fprintf(out, "  cost      $%.0f over %.1f h simulated ($%.0f per month = x %.1f); GPU-time:", num(co, "cluster_usd", NULL),
                num(co, "span_hours", NULL), num(co, "cluster_usd_per_month", NULL), num(co, "month_scale", NULL));
    else
        fprintf(out, "  cost      no price known; GPU-time over %.1f h simulated:", num(co, "span_hours", NULL));
    const cJSON *h;
    const char *sep = " ";
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(co, "holders"))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "name"));
        fprintf(out, "%s%s%s%s %.1f%%", sep, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "kind")),
                name && *name ? " " : "", name ? name : "", 100 * num(h, "share", NULL));
        sep = ", ";
    }
    fputc('\n', out);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(co, "tco");
    if (t) {
        fprintf(out, "  own       $%.0f per month (capital $%.0f, power $%.0f)", num(t, "owned_usd_per_month", NULL),
                num(t, "capital_usd_per_month", NULL), num(t, "power_usd_per_month", NULL));
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "rented_usd_per_month")))
            fprintf(out, " against $%.0f renting at the prices above", num(t, "rented_usd_per_month", NULL));
        fputc('\n', out);
    }
}

/* One row of a statistic object: mean, p50, p95, p99, max at prec
 * decimals, or "-" in each column when its sample is empty (a statistic
 * of nothing is not 0). */
static void stats_row(FILE *out, const char *label, const cJSON *o, int prec)
{
    static const char *const st[] = {"mean", "p50", "p95", "p99", "max"};
    bool empty = num(o, "count", NULL) <= 0;
    fprintf(out, "  %-9s", label);
    for (int i = 0; i < 5; i++)
        empty ? fprintf(out, " %10s", "-") : fprintf(out, " %10.*f", prec, num(o, st[i], NULL));
    fputc('\n', out);
}

/* The summary's first lines: policy and cluster, job counts, the wait and
 * completion times, the run's warnings. */
static void summary_jobs(FILE *out, const cJSON *r)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "inputs");
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(r, "jobs");
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(r, "gpu");
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(jobs, "queue_s");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(jobs, "jct_s");
    fprintf(out, "policy %-24s cluster %s (%g GPUs)\n",
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "policy")),
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(in, "cluster"), "name")),
            num(gpu, "count", NULL));
    fprintf(out, "  jobs      arrived %.0f  completed %.0f  running %.0f  queued %.0f  rejected %.0f  failed %.0f  "
            "suspended %.0f\n",
            num(jobs, "arrived", NULL), num(jobs, "completed", NULL), num(jobs, "running", NULL),
            num(jobs, "queued", NULL), num(jobs, "rejected", NULL), num(jobs, "failed", NULL),
            num(jobs, "suspended", NULL));
    fprintf(out, "  %-9s %10s %10s %10s %10s %10s\n", "seconds", "mean", "p50", "p95", "p99", "max");
    stats_row(out, "queue", q, 2);
    sim_observed_print(jobs, out);
    stats_row(out, "jct", c, 2);
    const cJSON *wn = cJSON_GetObjectItemCaseSensitive(r, "warnings"), *w;
    cJSON_ArrayForEach(w, wn)
    {
        fprintf(out, "  warning   %s\n", cJSON_GetStringValue(w));
    }
}

/* The requests served by services, their latency and replica time (when
 * the run had services). */
static void summary_requests(FILE *out, const cJSON *r)
{
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(r, "requests");
    if (rq) {
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(rq, "latency_s");
        const cJSON *tt = cJSON_GetObjectItemCaseSensitive(rq, "ttft_s");
        char att[32] = "-"; /* of nothing served: no attainment */
        if (num(rq, "served", NULL) > 0)
            snprintf(att, sizeof att, "%.3f", num(rq, "slo_attainment", NULL));
        fprintf(out, "  requests  arrived %.0f  served %.0f  dropped %.0f  queued %.0f  SLO attainment %s\n",
                num(rq, "arrived", NULL), num(rq, "served", NULL),
                num(rq, "dropped_queue_full", NULL) + num(rq, "dropped_timeout", NULL) +
                    num(rq, "dropped_after_end", NULL) + num(rq, "dropped_replica_lost", NULL) +
                    num(rq, "dropped_unplaceable", NULL),
                num(rq, "queued", NULL), att);
        stats_row(out, "latency", lat, 3);
        if (tt)
            stats_row(out, "ttft", tt, 3);
        fprintf(out, "  replicas  %.1f replica-hours, %.1f GPU-hours, %.0f cold starts\n",
                num(rq, "replica_hours", NULL), num(rq, "gpu_hours", NULL), num(rq, "cold_starts", NULL));
    }
}

/* GPU time, cost, speed against the reference card, fragmentation, the
 * event loop's figures. */
static void summary_gpu(FILE *out, const cJSON *r)
{
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(r, "gpu");
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(r, "sim");
    fprintf(out, "  gpu       alloc_ratio %.3f  gpu_hours %.1f of %.1f\n", num(gpu, "alloc_ratio", NULL),
            num(gpu, "gpu_hours", NULL), num(gpu, "capacity_gpu_hours", NULL));
    summary_cost(out, cJSON_GetObjectItemCaseSensitive(r, "cost"));
    const cJSON *hw = cJSON_GetObjectItemCaseSensitive(r, "hardware"), *bm;
    if (num(hw, "placements_scaled", NULL) > 0) { /* some job ran off its reference card's speed */
        fprintf(out, "  speed     vs %s:", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hw, "ref_gpu")));
        const char *sep = "";
        cJSON_ArrayForEach(bm, cJSON_GetObjectItemCaseSensitive(hw, "by_model"))
        {
            fprintf(out, "%s %s %.3fx (%.0f job starts)", sep,
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(bm, "model")), num(bm, "mean_speed", NULL),
                    num(bm, "starts", NULL));
            sep = ",";
        }
        fputc('\n', out);
    }
    if (cJSON_GetObjectItemCaseSensitive(gpu, "frag_pct_mean")) /* a policy that measures fragmentation */
        fprintf(out, "  frag      mean %.2f%% of capacity, at end %.2f%% (%.2f%% of idle)\n", num(gpu, "frag_pct_mean", NULL),
                num(gpu, "frag_pct_end", NULL), num(gpu, "frag_of_idle_pct_end", NULL));
    fprintf(out, "  sim       %.0f events, simulated %.0f s, %.3f s wall (%.0f events/s)",
            num(sm, "events", NULL), num(sm, "end_s", NULL), num(sm, "wall_s", NULL),
            num(sm, "events_per_s", NULL));
    if (cJSON_GetObjectItemCaseSensitive(sm, "setup_s")) /* `run` times its setup apart */
        fprintf(out, " after %.3f s setup", num(sm, "setup_s", NULL));
    fputc('\n', out);
}

/* Priorities, classes and preemption: only when there is something to
 * say. */
static void summary_preempt(FILE *out, const cJSON *r)
{
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(r, "jobs");
    const cJSON *bp = cJSON_GetObjectItemCaseSensitive(jobs, "by_priority"), *cls;
    if (cJSON_GetArraySize(bp) > 1)
        cJSON_ArrayForEach(cls, bp)
        {
            fprintf(out, "  prio %-4.0f queue mean %.1f p99 %.1f s, jct mean %.1f p99 %.1f s (%.0f jobs)\n",
                    num(cls, "priority", NULL), num(cls, "queue_s", "mean"), num(cls, "queue_s", "p99"),
                    num(cls, "jct_s", "mean"), num(cls, "jct_s", "p99"), num(cls, "arrivals", NULL));
        }
    sim_classes_print(jobs, out);
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(r, "preemption");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pr, "enabled")))
        fprintf(out, "  preempt   %.0f preemptions, lost %.2f GPU-h, ckpt write %.2f read %.2f GPU-h, "
                "preemptor wait mean %.1f s\n", num(pr, "preemptions", NULL), num(pr, "lost_gpu_hours", NULL),
                num(pr, "checkpoint_write_gpu_hours", NULL), num(pr, "checkpoint_read_gpu_hours", NULL),
                num(pr, "preemptor_wait_s", "mean"));
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pr, "enabled")) && num(pr, "checkpoint_gb", "count") > 0)
        fprintf(out, "  ckpt      %.0f written at preemption, %.0f cut; size mean %.1f GB, write mean %.1f s "
                "(max %.1f s); min_runtime %.0f s\n", num(pr, "checkpoint_writes_completed", NULL),
                num(pr, "checkpoint_writes_cut", NULL), num(pr, "checkpoint_gb", "mean"),
                num(pr, "checkpoint_write_s", "mean"), num(pr, "checkpoint_write_s", "max"),
                num(pr, "min_runtime_s", NULL));
}

/* Swap, failures by cause, tenants' quotas: only when there is something
 * to say. */
static void summary_rest(FILE *out, const cJSON *r)
{
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(r, "jobs");
    /* shared cards: idle replicas swapped to host and back (oversub=swap),
     * MPS failures by cause: only when there is something to say */
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(r, "swap");
    if (num(sw, "swap_ins", NULL) > 0 || num(sw, "idle_evictions", NULL) > 0)
        fprintf(out, "  swap      %.0f swap-ins of idle replicas (%.0f MiB), wait p99 %.3f s; %.0f evictions freed "
                "%.0f MiB; thrashing %.2f GB in\n", num(sw, "swap_ins", NULL), num(sw, "swapped_in_mib", NULL),
                num(sw, "swap_in_wait_s", "p99"), num(sw, "idle_evictions", NULL), num(sw, "idle_freed_mib", NULL),
                num(sw, "bytes_in", NULL) / 1e9);
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(jobs, "failed_by_cause");
    double failed = num(jobs, "failed", NULL), oom = num(fc, "oom", NULL), co = num(fc, "co_tenant_fault", NULL);
    if (fc && failed > 0) {
        fprintf(out, "  failed    by cause: oom %.0f, co-tenant fault %.0f", oom, co);
        if (failed > oom + co) /* a time policy's (a wake that timed out) */
            fprintf(out, ", other %.0f", failed - oom - co);
        fprintf(out, "; %.0f OOM kills (retried tasks and service replicas included)\n", num(jobs, "oom_killed", NULL));
    }
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(r, "tenants"), *t;
    cJSON_ArrayForEach(t, tn)
    {
        fprintf(out, "  tenant %-12s quota-blocked %.0f (queue mean %.1f s), rejected %.0f, peak %.0f GPUs\n",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")), num(t, "quota_blocked", NULL),
                num(t, "quota_blocked_queue_s", "mean"), num(t, "quota_rejected", NULL), num(t, "peak_gpus", NULL));
    }
}

void sim_report_summary(FILE *out, const cJSON *r)
{
    summary_jobs(out, r);
    summary_requests(out, r);
    summary_gpu(out, r);
    summary_preempt(out, r);
    summary_rest(out, r);
}
