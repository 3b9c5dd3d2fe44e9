/* cli_plan.c - `gpusim plan`: the smallest cluster of each candidate (a
 * card model, or a cluster template that scales) whose runs meet every SLO
 * term on every seed (or a stated fraction), for each policy, and the
 * buyer's table of the answers sorted by cost.
 *
 * Before searching, each candidate is checked for rows no count of it could
 * serve (plan_feasible.c): such a candidate is "impossible", named with the
 * rows and why, unless --allow-rejected sets them aside.
 *
 * Search: doubling from --min-gpus until a count meets the SLO, then
 * bisection between the last count that failed and the first that met, so
 * about 2 log2(answer) counts are run (each on every seed, in parallel).
 * For a template the count searched is its scale N (cluster_template.h).
 * ASSUMPTION (stated in the README): meeting the SLO is monotone in the card
 * count - more cards of the same model never make a queue or latency metric
 * worse. That holds for work-conserving placement of independent jobs in
 * expectation; a policy with placement anomalies could break it, and then
 * the answer is a count that meets the SLO, not necessarily the smallest.
 *
 * Implicit terms (cli_plan_terms.h) keep a failed run from passing: nothing
 * rejected, failed or dropped, every replica placed; a metric that was
 * never measured is not met.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
#include "../base/gs_json.h"
#include "cli.h"
#include "../sim/sim_cluster_file.h"
#include "cli_batch.h"
#include "cli_plan_engine.h"
#include "cli_plan_terms.h"
#include "cluster_template.h"
#include "plan_feasible.h"

#define HOURS_PER_MONTH 730.0 /* 8760 h / 12 */
#define MAX_CANDS 16
#define MAX_PRICES 16
/* the default width's cap: past 15 (four bisection levels a round) the
 * speculative runs a round wastes outnumber the ones it uses */
#define PLAN_WIDTH_MAX 15

static void plan_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim plan --trace FILE (--policy P | --policies P1,P2,...)\n"
            "                   (--gpu MODEL[,MODEL...] | --cluster-template FILE)... --slo TERMS [options]\n"
            "\n"
            "  --gpu MODELS          card models to size, comma separated ('gpusim models')\n"
            "  --gpus-per-node N     cards per node for --gpu (default 8; the last node may be partial)\n"
            "  --mig LAYOUT          --gpu cards run MIG: all-<profile>, balanced, whole, dynamic (dynmig)\n"
            "  --cluster-template F  a cluster file whose node groups scale: \"count\": \"N\", \"N/4\", ...\n"
            "                        (repeatable; sized beside any --gpu models)\n"
            "  --price MODEL=USD     price per GPU-hour of a model (repeatable); wins over a template's\n"
            "                        price_per_gpu_hour_usd and the model file's list price\n"
            "  --slo TERMS           any report metric path with <=, <, >=, >; e.g.\n"
            "                        'jobs.queue_s.p99<=600,jobs.jct_s.p99<=7200'; short names: queue_p99,\n"
            "                        queue_p50, queue_mean, jct_p99, latency_p99, ttft_p99, slo_attainment,\n"
            "                        utilization, busy_ratio, cost_usd ('queue_p99<=600,latency_p99<=0.2');\n"
            "                        a metric never measured (nothing served) is not met\n"
            "  --seeds N             seeds 1..N per card count (default 1)\n"
            "  --fraction F          share of seeds that must meet every term (default 1)\n"
            "  --min-gpus N          first count tried (default 1); --max-gpus N give up above (default 65536)\n"
            "  implicit terms, each left out by its flag:\n"
            "  --allow-rejected      jobs.rejected<=0 (and rows no count could serve are set aside)\n"
            "  --allow-failed        jobs.failed<=0 (OOM-killed, timed out)\n"
            "  --allow-dropped       no inference request dropped\n"
            "  --allow-unplaceable   no service replica that could not be placed\n"
            "  --set KEY=VALUE       parameter for every policy; --policies entries may carry their own:\n"
            "                        whole,whole[queue=fifo]\n"
            "  --jobs N              parallel runs (default: the number of cores)\n"
            "  --width K             counts run per round (default: --jobs over --seeds, at most 15);\n"
            "                        1: one at a time. The evidence is the same at any width\n"
            "  --engine E            run each round as a sweep on slurm (sbatch --array, waited for),\n"
            "                        parallel (GNU parallel) or local, in OUT/sweep.<policy>.<candidate>/\n"
            "  --format F            text (default) or json\n"
            "  --out DIR             runs and plan.json (default results/plan.<trace>)\n"
            "  --until S, --models DIR   passed to each run\n"
            "Exit 1 when every candidate is impossible for the trace (rows named). Assumes meeting the SLO\n"
            "is monotone in the card count (see README).\n");
}

/* {==== candidates and prices ====} */

typedef struct price_override {
    const gpu_model *model;
    double usd;
} price_override;

typedef struct candidate {
    char label[160];        /* what the table shows */
    char slug[160];         /* file-name safe */
    const gpu_model *model; /* --gpu candidate; NULL for a template */
    cluster_template tpl;   /* template candidate */
    sim_cluster unit;       /* the candidate at scale 1: feasibility */
} candidate;

typedef struct plan_ctx {
    const cb_common *com;
    const gpu_catalog *cat;
    const char *odir;
    const cb_slo *slo;
    int nslo, nuser; /* terms [nuser, nslo) are implicit */
    long seeds, jobs, need;
    price_override prices[MAX_PRICES];
    int nprices;
    long width;         /* counts tried per round (1: bisection) */
    const char *engine; /* NULL: child processes here; else each round is a sweep on it */
} plan_ctx;

/* The price of one GPU-hour of model m and where it comes from: --price,
 * else the node group's price in the template (group >= 0), else the model
 * file's list price. NAN when none is known. */
static double price_of(const plan_ctx *cx, const candidate *c, int group, const gpu_model *m, const char **src)
{
    for (int i = 0; i < cx->nprices; i++)
        if (cx->prices[i].model == m) {
            *src = "--price";
            return cx->prices[i].usd;
        }
    if (c->model == NULL && group >= 0) {
        const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c->tpl.doc, "nodes"), group);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "price_per_gpu_hour_usd");
        if (cJSON_IsNumber(p)) {
            *src = "cluster template";
            return p->valuedouble;
        }
    }
    *src = "model file";
    return m->price_per_hour_usd >= 0 ? m->price_per_hour_usd : NAN;
}

/* Cards, nodes and cost per hour of candidate c at scale x; sources (a
 * JSON array, may be NULL) gets one entry per model and source. */
static void size_of(const plan_ctx *cx, const candidate *c, long x, long *cards, long *nodes, double *usd_h,
                    cJSON *sources)
{
    *cards = *nodes = 0;
    *usd_h = 0;
    if (c->model) {
        long gpn = cx->com->gpus_per_node;
        const char *src;
        double p = price_of(cx, c, -1, c->model, &src);
        *cards = x;
        *nodes = (x + gpn - 1) / gpn;
        *usd_h = p * (double)x;
        if (sources) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "model", c->model->name);
            cJSON_AddNumberToObject(o, "gpus", (double)x);
            isnan(p) ? cJSON_AddNullToObject(o, "price_per_gpu_hour_usd")
                     : cJSON_AddNumberToObject(o, "price_per_gpu_hour_usd", p);
            cJSON_AddStringToObject(o, "source", src);
            cJSON_AddItemToArray(sources, o);
        }
        return;
    }
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(c->tpl.doc, "nodes");
    for (int g = 0; g < c->tpl.ngroups; g++) {
        const cJSON *gr = cJSON_GetArrayItem(groups, g);
        const gpu_model *m =
            gpu_catalog_find(cx->cat, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(gr, "model")));
        long n = cluster_template_count(&c->tpl, g, x);
        long per = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(gr, "gpus"));
        const char *src;
        double p = m ? price_of(cx, c, g, m, &src) : NAN;
        *nodes += n;
        *cards += n * per;
        *usd_h += p * (double)(n * per);
        if (sources && m) {
            cJSON *o = cJSON_CreateObject();
            const char *gn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(gr, "name"));
            cJSON_AddStringToObject(o, "group", gn ? gn : "");
            cJSON_AddStringToObject(o, "model", m->name);
            cJSON_AddNumberToObject(o, "gpus", (double)(n * per));
            isnan(p) ? cJSON_AddNullToObject(o, "price_per_gpu_hour_usd")
                     : cJSON_AddNumberToObject(o, "price_per_gpu_hour_usd", p);
            cJSON_AddStringToObject(o, "source", src);
            cJSON_AddItemToArray(sources, o);
        }
    }
}

/* {==== one count on every seed ====} */

typedef struct point {
    long x;            /* the count searched: cards, or a template's N */
    long gpus, nodes;
    int seeds_met;
    bool met;
    bool absent_only;  /* a user term was measured on no seed although every implicit term held */
    char absent[128];  /* with absent_only: the last user term never measured on the first seed */
    char term_sig[600]; /* every term's worst figure, to see a plateau */
    bool starved;       /* a job rejected or a replica unplaceable: too small to judge a plateau */
    bool used;          /* on the search's path: in the evidence (not a speculative run it never needed) */
    cJSON *obj;
} point;

typedef struct planner {
    const plan_ctx *cx;
    const cb_policy *pol;
    const candidate *cand;
    point *pts; /* the evidence: the counts the serial search visits, in its order */
    int npts;
    point *done; /* every count run so far, on the path or speculative */
    int ndone;
    char absent_path[128]; /* set when the search stopped on a metric the report never has */
    bool plateau;          /* stopped: every term's figure stayed the same over 3 doublings */
    int rounds;            /* batches of runs (one per count at width 1) */
} planner;

/* The child runs' cluster for count x: a --gpus spec, or the template's
 * instance written to OUT/clusters/. */
static int child_common(planner *pl, long x, cb_common *com, char *spec, size_t nspec, char *path, size_t npath,
                        gs_error *err)
{
    *com = *pl->cx->com;
    if (pl->cand->model) {
        snprintf(spec, nspec, "%s:%ld", pl->cand->model->name, x);
        com->gpus = spec;
        com->cluster = NULL;
        return 0;
    }
    com->gpus = NULL;
    com->gpus_per_node = 0;
    com->mig = NULL;
    snprintf(path, npath, "%s/clusters/%s.N%ld.json", pl->cx->odir, pl->cand->slug, x);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/clusters", pl->cx->odir);
    int rc = cb_mkdirs(dir, err);
    if (rc)
        return rc;
    cJSON *inst = cluster_template_instance(&pl->cand->tpl, x);
    char *text = cJSON_Print(inst);
    char *withnl = cb_fmt("%s\n", text);
    rc = cb_write_text(path, withnl, err);
    free(withnl);
    free(text);
    cJSON_Delete(inst);
    com->cluster = path;
    return rc;
}

/* Keeps count x, run on every seed (runs[0..seeds-1]), among the counts
 * done; it becomes evidence when the search's path reaches it (take_point). */
static void measure_point(planner *pl, long x, cb_run *runs)
{
    const plan_ctx *cx = pl->cx;
    point pt = {.x = x, .obj = cJSON_CreateObject()};
    double usd_h;
    size_of(cx, pl->cand, x, &pt.gpus, &pt.nodes, &usd_h, NULL);
    cJSON_AddNumberToObject(pt.obj, "gpus", (double)pt.gpus);
    cJSON_AddNumberToObject(pt.obj, "nodes", (double)pt.nodes);
    if (!pl->cand->model)
        cJSON_AddNumberToObject(pt.obj, "scale", (double)x);
    cJSON *terms = cJSON_AddArrayToObject(pt.obj, "terms");
    bool *ok = xcalloc((size_t)cx->seeds, sizeof *ok);
    for (long s = 0; s < cx->seeds; s++)
        ok[s] = true;
    bool implicit_all = true, user_absent = false;
    for (int t = 0; t < cx->nslo; t++) {
        double worst = NAN, sum = 0, v;
        long absent = 0, held = 0;
        for (long s = 0; s < cx->seeds; s++) {
            if (!plan_metric_measured(runs[s].report, cx->slo[t].path, &v)) {
                ok[s] = false; /* never measured: cannot meet a term */
                absent++;
                continue;
            }
            bool h = cb_slo_holds(&cx->slo[t], v);
            ok[s] &= h;
            held += h;
            sum += v;
            if (isnan(worst) || cb_slo_worse(&cx->slo[t], v, worst))
                worst = v;
        }
        if (t >= cx->nuser && held < cx->seeds)
            implicit_all = false;
        snprintf(pt.term_sig + strlen(pt.term_sig), sizeof pt.term_sig - strlen(pt.term_sig),
                 "%.17g;", worst);
        if (t < cx->nuser && absent == cx->seeds)
            user_absent = true;
        cJSON *to = cJSON_CreateObject();
        cJSON_AddStringToObject(to, "path", cx->slo[t].path);
        isnan(worst) ? cJSON_AddNullToObject(to, "worst") : cJSON_AddNumberToObject(to, "worst", worst);
        long measured = cx->seeds - absent;
        measured ? cJSON_AddNumberToObject(to, "mean", sum / (double)measured) : cJSON_AddNullToObject(to, "mean");
        cJSON_AddNumberToObject(to, "seeds_held", (double)held);
        if (absent)
            cJSON_AddNumberToObject(to, "seeds_absent", (double)absent);
        cJSON_AddItemToArray(terms, to);
    }
    pt.absent_only = user_absent && implicit_all;
    for (long s = 0; s < cx->seeds; s++) {
        double rj = 0, up = 0;
        cb_metric(runs[s].report, "jobs.rejected", &rj);
        cb_metric(runs[s].report, "derived.replicas_unplaceable", &up);
        pt.starved |= rj > 0 || up > 0;
    }
    for (long s = 0; s < cx->seeds; s++)
        pt.seeds_met += ok[s];
    free(ok);
    pt.met = pt.seeds_met >= cx->need;
    cJSON_AddNumberToObject(pt.obj, "seeds_met", pt.seeds_met);
    cJSON_AddBoolToObject(pt.obj, "met", pt.met);
    const cJSON *wn = cJSON_GetObjectItemCaseSensitive(runs[0].report, "warnings");
    if (wn) /* e.g. a MIG policy on cards without MIG: the buyer must see it beside the answer */
        cJSON_AddItemToObject(pt.obj, "warnings", cJSON_Duplicate(wn, 1));
    cJSON *ru = cJSON_AddArrayToObject(pt.obj, "runs");
    for (long s = 0; s < cx->seeds; s++)
        cJSON_AddItemToArray(ru, cJSON_CreateString(runs[s].out_dir));
    if (pt.absent_only) /* the last user term never measured: named if the search stops on it */
        for (int t = 0; t < cx->nuser; t++) {
            double v;
            if (!plan_metric_measured(runs[0].report, cx->slo[t].path, &v))
                snprintf(pt.absent, sizeof pt.absent, "%s", cx->slo[t].path);
        }
    pl->done = xrealloc(pl->done, (size_t)(pl->ndone + 1) * sizeof *pl->done);
    pl->done[pl->ndone++] = pt;
}

static point *known(const planner *pl, long x)
{
    for (int i = 0; i < pl->ndone; i++)
        if (pl->done[i].x == x)
            return &pl->done[i];
    return NULL;
}

/* Count p (done) joins the evidence: the serial search has reached it. */
static void take_point(planner *pl, point *p)
{
    p->used = true;
    pl->pts = xrealloc(pl->pts, (size_t)(pl->npts + 1) * sizeof *pl->pts);
    pl->pts[pl->npts++] = *p;
    if (p->absent_only)
        snprintf(pl->absent_path, sizeof pl->absent_path, "%s", p->absent);
}

/* Runs counts todo[0..ntodo-1] (not done yet, distinct) on every seed in
 * one batch, a round: child processes here, or one sweep on the engine. */
static int try_counts(planner *pl, const long *todo, int ntodo, gs_error *err)
{
    const plan_ctx *cx = pl->cx;
    long S = cx->seeds;
    int rc = 0;
    cb_run *runs = xcalloc((size_t)(ntodo * S) + 1, sizeof *runs);
    cb_common *coms = xcalloc((size_t)(ntodo * S) + 1, sizeof *coms);
    char (*specs)[200] = xcalloc((size_t)ntodo + 1, sizeof *specs);
    char (*paths)[1200] = xcalloc((size_t)ntodo + 1, sizeof *paths);
    for (int c = 0; c < ntodo && rc == 0; c++) {
        cb_common com;
        rc = child_common(pl, todo[c], &com, specs[c], sizeof specs[c], paths[c], sizeof paths[c], err);
        for (long s = 0; s < S && rc == 0; s++) {
            coms[c * S + s] = com;
            if (cx->engine)
                continue;
            char rd[1250];
            snprintf(rd, sizeof rd, "%s/runs/%s.%s.g%ld.s%ld", cx->odir, pl->pol->slug, pl->cand->slug, todo[c], s + 1);
            cb_run_init(&runs[c * S + s], &com, pl->pol, NULL, (uint64_t)(s + 1), rd);
        }
    }
    if (rc == 0 && ntodo && cx->engine) {
        uint64_t *sd = xcalloc((size_t)(ntodo * S), sizeof *sd);
        for (int i = 0; i < ntodo * S; i++)
            sd[i] = (uint64_t)(i % S + 1);
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/sweep.%s.%s", cx->odir, pl->pol->slug, pl->cand->slug);
        rc = plan_round_engine(cx->engine, dir, coms, pl->pol, runs, sd, ntodo * (int)S, err);
        free(sd);
        pl->rounds++;
    } else if (rc == 0 && ntodo) {
        char what[400];
        snprintf(what, sizeof what, "plan %s on %s: %ld%s", pl->pol->label, pl->cand->label, todo[0],
                 ntodo > 1 ? ".." : "");
        rc = cb_run_all(runs, ntodo * (int)S, (int)cx->jobs, what, err);
        pl->rounds++;
    }
    for (int c = 0; c < ntodo && rc == 0; c++)
        measure_point(pl, todo[c], runs + c * S);
    for (int i = 0; i < ntodo * S; i++)
        cb_run_free(&runs[i]);
    free(runs), free(coms), free(specs), free(paths);
    return rc;
}

static int cmp_point(const void *a, const void *b)
{
    long x = ((const point *)a)->x, y = ((const point *)b)->x;
    return (x > y) - (x < y);
}

/* {==== the search ====}
 *
 * The search is serial: doubling from min_x until a count meets every term,
 * then bisection of the bracket (bad, good). Its evidence is exactly the
 * counts that serial walk visits, whatever the width. With width W > 1 a
 * round runs, beside the count the walk needs now, the counts it would need
 * next under either outcome (breadth first down the tree of outcomes: with
 * W = 3, the bisection's next two levels), so a round settles about
 * log2(W + 1) steps; a speculative count the walk never reaches is run but
 * left out of the evidence (the report of the search counts them). */

enum { WALK_DOUBLE, WALK_BISECT, WALK_DONE };

typedef struct walk {
    int phase;
    long c;         /* doubling: the count to try */
    long bad, good; /* the bracket: bad failed (or is min_x - 1), good met (0: none yet) */
} walk;

static long walk_need(const walk *w)
{
    return w->phase == WALK_DOUBLE ? w->c : w->phase == WALK_BISECT ? w->bad + (w->good - w->bad) / 2 : 0;
}

/* The walk after its count met (or not); stop: the doubling gives up (a
 * plateau, a metric that never appears). */
static walk walk_step(walk w, bool met, long max_x, bool stop)
{
    long x = walk_need(&w);
    if (w.phase == WALK_DOUBLE) {
        if (met) {
            w.good = x;
            w.phase = w.good - w.bad > 1 ? WALK_BISECT : WALK_DONE;
        } else {
            w.bad = x;
            if (x >= max_x || stop)
                w.phase = WALK_DONE;
            else
                w.c = x * 2 > max_x ? max_x : x * 2;
        }
    } else if (w.phase == WALK_BISECT) {
        *(met ? &w.good : &w.bad) = x;
        if (w.good - w.bad <= 1)
            w.phase = WALK_DONE;
    }
    return w;
}

/* The counts of the next round, at most K, the first being the one the walk
 * needs now (not done): breadth first over the outcomes still unknown;
 * counts already done follow their real outcome. */
static int next_round(const planner *pl, walk w, long max_x, long K, long *xs)
{
    enum { QMAX = 512 };
    walk q[QMAX];
    int head = 0, tail = 0, n = 0;
    q[tail++] = w;
    while (head < tail && n < K) {
        walk s = q[head++];
        long x = walk_need(&s);
        if (!x)
            continue;
        const point *p = known(pl, x);
        if (p) {
            if (tail < QMAX)
                q[tail++] = walk_step(s, p->met, max_x, false);
            continue;
        }
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup |= xs[i] == x;
        if (!dup)
            xs[n++] = x;
        if (tail + 2 <= QMAX) { /* doubling: "not met" is the likely outcome, so its branch goes first */
            bool first = s.phase != WALK_DOUBLE;
            q[tail++] = walk_step(s, first, max_x, false);
            q[tail++] = walk_step(s, !first, max_x, false);
        }
    }
    return n;
}

/* *answer = 0 when even max_x fails, or when a user term's metric stays
 * absent although every job and request was served (more cards cannot make
 * it appear: a wrong path, or e.g. TTFT asked of requests without tokens). */
static int search(planner *pl, long min_x, long max_x, long *answer, gs_error *err)
{
    long K = pl->cx->width > 0 ? pl->cx->width : 1;
    long *xs = xcalloc((size_t)K, sizeof *xs);
    walk w = {.phase = WALK_DOUBLE, .c = min_x, .bad = min_x - 1, .good = 0};
    int rc = 0;
    *answer = 0;
    while (rc == 0 && w.phase != WALK_DONE) {
        long x = walk_need(&w);
        point *p = known(pl, x);
        if (!p) {
            rc = try_counts(pl, xs, next_round(pl, w, max_x, K, xs), err);
            continue;
        }
        take_point(pl, p);
        bool stop = false;
        if (w.phase == WALK_DOUBLE && !p->met) {
            /* more cards stopped helping: every term's worst figure is the
             * same at c/4, c/2 and c (e.g. jobs a sharing policy OOM-kills at
             * any size, or a fixed node group of a template that the pinned
             * rows queue for); doubling on to --max-gpus would only burn
             * runs. Not while anything is rejected or unplaceable: a cluster
             * smaller than one job or replica shows the same figures until
             * it is big enough */
            int k = pl->npts - 1;
            pl->plateau = k >= 2 && !pl->pts[k].starved && !pl->pts[k - 1].starved && !pl->pts[k - 2].starved &&
                          !strcmp(pl->pts[k].term_sig, pl->pts[k - 1].term_sig) &&
                          !strcmp(pl->pts[k].term_sig, pl->pts[k - 2].term_sig);
            stop = pl->absent_path[0] || pl->plateau;
        }
        w = walk_step(w, p->met, max_x, stop);
    }
    free(xs);
    if (rc == 0)
        *answer = w.good;
    return rc;
}

/* The largest scale of a template whose cards stay <= max_gpus (>= 1). */
static long template_max_scale(const plan_ctx *cx, const candidate *c, long max_gpus)
{
    long lo = 1, hi = 1, cards, nodes;
    double usd;
    for (;;) {
        size_of(cx, c, hi * 2, &cards, &nodes, &usd, NULL);
        if (cards > max_gpus || hi > (1L << 40))
            break;
        hi *= 2;
    }
    long top = hi * 2;
    while (top - hi > 1) { /* largest in [hi, top) within the limit */
        long mid = hi + (top - hi) / 2;
        size_of(cx, c, mid, &cards, &nodes, &usd, NULL);
        if (cards <= max_gpus)
            hi = mid;
        else
            top = mid;
    }
    return hi > lo ? hi : lo;
}

/* {==== feasibility ====} */

static bool is_mig_policy(const cb_policy *p)
{
    size_t n = strcspn(p->name, "+");
    return (n == 3 && !strncmp(p->name, "mig", 3)) || (n == 6 && !strncmp(p->name, "dynmig", 6));
}

static cJSON *feasibility_json(const plan_feasibility *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rows_checked", (double)f->rows);
    cJSON_AddNumberToObject(o, "rows_impossible", (double)f->bad);
    cJSON *k = cJSON_AddObjectToObject(o, "by_reason");
    for (int i = 0; i < PF_NKINDS; i++)
        if (f->by_kind[i])
            cJSON_AddNumberToObject(k, plan_feasible_kind((pf_kind)i), (double)f->by_kind[i]);
    cJSON *ex = cJSON_AddArrayToObject(o, "examples");
    for (int i = 0; i < f->nex; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "line", (double)f->ex[i].line);
        cJSON_AddStringToObject(e, "id", f->ex[i].id);
        cJSON_AddStringToObject(e, "why", f->ex[i].why);
        cJSON_AddItemToArray(ex, e);
    }
    return o;
}

static void print_impossible(FILE *out, const char *what, const plan_feasibility *f, bool set_aside)
{
    fprintf(out, "%s: %ld of %ld rows can never be served by any count of it%s:\n", what, f->bad, f->rows,
            set_aside ? " (set aside by --allow-rejected: they count as rejected)" : "");
    for (int i = 0; i < f->nex; i++)
        fprintf(out, "  line %ld %s: %s\n", f->ex[i].line, f->ex[i].id, f->ex[i].why);
    if (f->bad > f->nex)
        fprintf(out, "  ... and %ld more rows\n", f->bad - f->nex);
}

/* {==== the command ====} */

static int add_price(plan_ctx *cx, const gpu_catalog *cat, const char *arg, gs_error *err)
{
    const gpu_model *m;
    double usd;
    int rc = sim_price_parse(cat, arg, &m, &usd, err);
    if (rc)
        return rc;
    if (cx->nprices == MAX_PRICES)
        return gs_err(err, GS_EUSAGE, "--price: at most %d models", MAX_PRICES);
    cx->prices[cx->nprices++] = (price_override){m, usd};
    return 0;
}

static void slugify(char *dst, size_t n, const char *src)
{
    size_t l = 0;
    for (; *src && l + 1 < n; src++) {
        unsigned char ch = (unsigned char)*src;
        dst[l++] = (char)(isalnum(ch) || ch == '-' || ch == '.' ? ch : '_');
    }
    dst[l] = 0;
}

/* Cards of the first of the plateau's points: the last three of the sorted
 * evidence (for the table's message). */
static long first_gpus(const cJSON *entry_obj)
{
    double g = 0;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(entry_obj, "points");
    int n = cJSON_GetArraySize(pts);
    for (int i = n - 3; i < n && n >= 3; i++) /* the plateau is the last three doublings */
        if (cb_metric(cJSON_GetArrayItem(pts, i), "gpus", &g))
            break;
    return (long)g;
}

typedef struct entry {
    const candidate *cand;
    const cb_policy *pol;
    cJSON *obj;
    long gpus, nodes; /* 0: no answer */
    double usd_h;
    bool impossible;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int rx = x->gpus ? (isnan(x->usd_h) ? 1 : 0) : 2, ry = y->gpus ? (isnan(y->usd_h) ? 1 : 0) : 2;
    if (rx != ry)
        return rx - ry; /* priced answers, unpriced answers, then no answer */
    if (rx == 0 && x->usd_h != y->usd_h)
        return x->usd_h < y->usd_h ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return 0; /* qsort is not stable: the caller breaks ties by index */
}

typedef struct ranked {
    entry e;
    int idx;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int c = cmp_entry(&x->e, &y->e);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

int cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {
        {"trace", required_argument, 0, 't'},    {"policy", required_argument, 0, 'p'},
        {"policies", required_argument, 0, 'P'}, {"gpu", required_argument, 0, 'G'},
        {"gpus-per-node", required_argument, 0, 'n'}, {"slo", required_argument, 0, 'L'},
        {"seeds", required_argument, 0, 's'},    {"fraction", required_argument, 0, 'F'},
        {"min-gpus", required_argument, 0, 'a'}, {"max-gpus", required_argument, 0, 'b'},
        {"allow-rejected", no_argument, 0, 'R'}, {"set", required_argument, 0, 'S'},
        {"jobs", required_argument, 0, 'J'},     {"format", required_argument, 0, 'f'},
        {"out", required_argument, 0, 'o'},      {"until", required_argument, 0, 'u'},
        {"models", required_argument, 0, 'm'},   {"help", no_argument, 0, 'h'},
        {"allow-failed", no_argument, 0, '1'},   {"allow-dropped", no_argument, 0, '2'},
        {"allow-unplaceable", no_argument, 0, '3'}, {"cluster-template", required_argument, 0, 'T'},
        {"price", required_argument, 0, '$'},    {"mig", required_argument, 0, 'M'},
        {"width", required_argument, 0, 'W'},    {"engine", required_argument, 0, 'E'},
        {0, 0, 0, 0},
    };
    cb_common com = {.gpus_per_node = 8};
    const char *policies = NULL, *models = NULL, *slo_spec = NULL, *format = "text", *out = NULL;
    const char *templates[8], *price_args[MAX_PRICES];
    int ntemplates = 0, nprice_args = 0;
    long seeds = 1, jobs = cb_default_jobs(), min_gpus = 1, max_gpus = 65536, width = 0; /* 0: from --jobs */
    double fraction = 1.0;
    const char *engine = NULL;
    bool allow[PLAN_NIMPLICIT] = {0};
    gs_error err = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 't': com.trace = optarg; break;
        case 'p':
        case 'P':
            if (policies)
                return cli_fail(&(gs_error){GS_EUSAGE, "plan: give --policy or --policies once"});
            policies = optarg;
            break;
        case 'G':
            if (models)
                return cli_fail(&(gs_error){GS_EUSAGE, "plan: give --gpu once, with models comma separated"});
            models = optarg;
            break;
        case 'n':
            com.gpus_per_node = cli_strtol(optarg, &end);
            if (*end || com.gpus_per_node < 1 || com.gpus_per_node > CL_MAX_NODE_GPUS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--gpus-per-node: expected an integer 1..64"});
            break;
        case 'M': com.mig = optarg; break;
        case 'T':
            if (ntemplates == 8)
                return cli_fail(&(gs_error){GS_EUSAGE, "--cluster-template: at most 8"});
            templates[ntemplates++] = optarg;
            break;
        case '$':
            if (nprice_args == MAX_PRICES)
                return cli_fail(&(gs_error){GS_EUSAGE, "--price: at most 16"});
            price_args[nprice_args++] = optarg;
            break;
        case 'L': slo_spec = optarg; break;
        case 's':
            seeds = cli_strtol(optarg, &end);
            if (*end || seeds < 1 || seeds > 1000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--seeds: expected an integer 1..1000"});
            break;
        case 'F':
            fraction = cli_strtod(optarg, &end);
            if (*end || !(fraction > 0 && fraction <= 1))
                return cli_fail(&(gs_error){GS_EUSAGE, "--fraction: expected a number in (0, 1]"});
            break;
        case 'a':
        case 'b': {
            long v = cli_strtol(optarg, &end);
            if (*end || v < 1 || v > 100000000)
                return cli_fail(&(gs_error){GS_EUSAGE, "--min-gpus/--max-gpus: expected a positive integer"});
            *(c == 'a' ? &min_gpus : &max_gpus) = v;
            break;
        }
        case 'R': allow[0] = true; break;
        case '1': allow[1] = true; break;
        case '2': allow[2] = true; break;
        case '3': allow[3] = true; break;
        case 'S':
            if (com.nsets == CB_MAX_SETS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--set: too many parameters"});
            com.sets[com.nsets++] = optarg;
            break;
        case 'J':
            jobs = cli_strtol(optarg, &end);
            if (*end || jobs < 1 || jobs > 1024)
                return cli_fail(&(gs_error){GS_EUSAGE, "--jobs: expected an integer 1..1024"});
            break;
        case 'f': format = optarg; break;
        case 'o': out = optarg; break;
        case 'u': com.until = optarg; break;
        case 'm': com.models = optarg; break;
        case 'W':
            width = cli_strtol(optarg, &end);
            if (*end || width < 1 || width > 64)
                return cli_fail(&(gs_error){GS_EUSAGE, "--width: expected an integer 1..64"});
            break;
        case 'E':
            if (strcmp(optarg, "slurm") && strcmp(optarg, "parallel") && strcmp(optarg, "local"))
                return cli_fail(&(gs_error){GS_EUSAGE, "--engine: expected slurm, parallel or local"});
            engine = optarg;
            break;
        case 'h': plan_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "plan: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (optind < argc) {
        gs_err(&err, GS_EUSAGE, "plan: unexpected argument '%s'", argv[optind]);
        return cli_fail(&err);
    }
    if (!com.trace || !policies || (!models && !ntemplates) || !slo_spec)
        return cli_fail(&(gs_error){GS_EUSAGE, "plan: --trace, --policy (or --policies), --gpu (or "
                                               "--cluster-template) and --slo are required"});
    if (strcmp(format, "text") && strcmp(format, "json"))
        return cli_fail(&(gs_error){GS_EUSAGE, "--format: expected text or json"});
    if (min_gpus > max_gpus)
        return cli_fail(&(gs_error){GS_EUSAGE, "plan: --min-gpus is above --max-gpus"});
    if (models && (strchr(models, ':') || !gs_text_list_ok(models, ','))) /* "," or "A,,B" name no model */
        return cli_fail(&(gs_error){GS_EUSAGE, "--gpu: expected model names, comma separated ('gpusim models')"});
    if (com.mig && !models)
        return cli_fail(&(gs_error){GS_EUSAGE, "--mig goes with --gpu (a template says \"mig\" per node group)"});

    /* the catalog: card facts for feasibility and prices */
    char mdir[512];
    if (com.models)
        snprintf(mdir, sizeof mdir, "%s", com.models);
    else
        gpu_catalog_default_dir(mdir, sizeof mdir);
    gpu_catalog cat;
    if (gpu_catalog_load(&cat, mdir, &err))
        return cli_fail(&err);
    if (width == 0) /* one count per free worker: --jobs (the online cores) over the seeds a count runs */
        width = jobs / seeds < 1 ? 1 : jobs / seeds > PLAN_WIDTH_MAX ? PLAN_WIDTH_MAX : jobs / seeds;
    plan_ctx cx = {.com = &com, .cat = &cat, .seeds = seeds, .jobs = jobs, .width = width, .engine = engine};
    int rc = 0;
    for (int i = 0; i < nprice_args && rc == 0; i++)
        rc = add_price(&cx, &cat, price_args[i], &err);
    for (int i = 0; i < nprice_args; i++) /* the runs' reports then carry the same prices */
        com.prices[com.nprices++] = price_args[i];

    candidate *cands = xcalloc(MAX_CANDS, sizeof *cands);
    int ncands = 0;
    char *mcopy = models ? xstrdup(models) : NULL, *save = NULL;
    for (char *tok = mcopy ? strtok_r(mcopy, ",", &save) : NULL; tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        if (ncands == MAX_CANDS) {
            rc = gs_err(&err, GS_EUSAGE, "plan: at most %d candidates", MAX_CANDS);
            break;
        }
        candidate *cd = &cands[ncands];
        cd->model = gpu_catalog_find(&cat, tok);
        if (!cd->model) {
            char names[2048];
            gpu_catalog_names(&cat, names, sizeof names);
            rc = gs_err(&err, GS_EUSAGE, "--gpu: unknown GPU model '%s' (known: %s)", tok, names);
            break;
        }
        snprintf(cd->label, sizeof cd->label, "%s", cd->model->name);
        slugify(cd->slug, sizeof cd->slug, cd->model->name);
        char spec[200];
        snprintf(spec, sizeof spec, "%s:%ld", cd->model->name, com.gpus_per_node);
        if ((rc = sim_cluster_from_spec(&cd->unit, spec, (int)com.gpus_per_node, &cat, &err)) != 0)
            break;
        ncands++;
        if (com.mig && (rc = sim_cluster_set_mig(&cd->unit, com.mig, &err)) != 0)
            break;
    }
    free(mcopy);
    for (int i = 0; i < ntemplates && rc == 0; i++) {
        if (ncands == MAX_CANDS) {
            rc = gs_err(&err, GS_EUSAGE, "plan: at most %d candidates", MAX_CANDS);
            break;
        }
        candidate *cd = &cands[ncands];
        if ((rc = cluster_template_load(&cd->tpl, templates[i], &err)) != 0) {
            cluster_template_free(&cd->tpl);
            break;
        }
        ncands++;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cd->tpl.doc, "name");
        const char *base = strrchr(templates[i], '/');
        snprintf(cd->label, sizeof cd->label, "%s", cJSON_IsString(nm) ? nm->valuestring : base ? base + 1 : templates[i]);
        char sl[160];
        slugify(sl, sizeof sl, cd->label);
        snprintf(cd->slug, sizeof cd->slug, "t%d-%.100s", i, sl);
        cJSON *inst = cluster_template_instance(&cd->tpl, 1);
        rc = sim_cluster_from_json(&cd->unit, inst, templates[i], &cat, &err); /* checks every group's keys */
        cJSON_Delete(inst);
    }

    cb_policy *pol = NULL;
    int npol = 0;
    cb_slo *slo = NULL;
    int nslo = 0;
    if (rc == 0)
        rc = cb_policies_parse(policies, &pol, &npol, &err);
    if (rc == 0)
        rc = cb_slo_parse(slo_spec, &slo, &nslo, &err);
    int nuser = nslo;
    for (int t = 0; rc == 0 && t < PLAN_NIMPLICIT; t++)
        if (!allow[t]) {
            slo = xrealloc(slo, (size_t)(nslo + 1) * sizeof *slo);
            slo[nslo] = (cb_slo){.op = CB_LE, .value = 0};
            snprintf(slo[nslo].path, sizeof slo[nslo].path, "%s", plan_implicit_terms[t].path);
            nslo++;
        }
    cx.slo = slo;
    cx.nslo = nslo;
    cx.nuser = nuser;
    /* at least ceil(fraction * seeds) seeds must meet every term */
    cx.need = (long)ceil(fraction * (double)seeds - 1e-9);

    char odir[900];
    if (out) {
        snprintf(odir, sizeof odir, "%s", out);
    } else if (rc == 0) { /* names the candidates: two plans of one trace do not overwrite each other */
        char base[400];
        cb_default_out(base, sizeof base, "plan", com.trace);
        snprintf(odir, sizeof odir, "%s.%s%s", base, cands[0].slug, ncands > 1 ? "-and-more" : "");
    }
    cx.odir = odir;

    cJSON *doc = cJSON_CreateObject();
    entry *ents = xcalloc((size_t)(ncands * (npol ? npol : 1)) + 1, sizeof *ents);
    int nents = 0, nimpossible = 0;
    if (rc == 0) {
        cJSON_AddStringToObject(doc, "kind", "plan");
        cJSON_AddStringToObject(doc, "trace", com.trace);
        char gl[1200] = "";
        for (int i = 0; i < ncands; i++)
            snprintf(gl + strlen(gl), sizeof gl - strlen(gl), "%s%s", i ? "," : "", cands[i].label);
        cJSON_AddStringToObject(doc, "gpu", gl);
        cJSON_AddNumberToObject(doc, "gpus_per_node", (double)com.gpus_per_node);
        if (com.mig)
            cJSON_AddStringToObject(doc, "mig", com.mig);
        cJSON_AddNumberToObject(doc, "seeds", (double)seeds);
        cJSON_AddNumberToObject(doc, "fraction", fraction);
        cJSON *sa = cJSON_AddArrayToObject(doc, "slo");
        for (int t = 0; t < nslo; t++) {
            cJSON *to = cJSON_CreateObject();
            cJSON_AddStringToObject(to, "path", slo[t].path);
            cJSON_AddStringToObject(to, "op", cb_op_str(slo[t].op));
            cJSON_AddNumberToObject(to, "value", slo[t].value);
            if (t >= nuser) { /* plot leaves implicit terms out of the figure */
                cJSON_AddBoolToObject(to, "implicit", 1);
                cJSON_AddStringToObject(to, "relax_flag", plan_term_flag(slo[t].path));
            }
            cJSON_AddItemToArray(sa, to);
        }
    }
    cJSON *pa = cJSON_AddArrayToObject(doc, "policies");
    cJSON *sdoc = cJSON_CreateObject(); /* OUT/search.json: the rounds and runs behind the evidence */
    cJSON_AddNumberToObject(sdoc, "width", (double)width);
    cJSON_AddNumberToObject(sdoc, "jobs", (double)jobs);
    cJSON *sra = cJSON_AddArrayToObject(sdoc, "policies");
    plan_feasibility(*fcache)[2] = xcalloc(MAX_CANDS, sizeof *fcache);
    bool fdone[MAX_CANDS][2] = {{0}};
    for (int ci = 0; ci < ncands && rc == 0; ci++)
        for (int p = 0; p < npol && rc == 0; p++) {
            candidate *cd = &cands[ci];
            entry *e = &ents[nents++];
            e->cand = cd;
            e->pol = &pol[p];
            e->obj = cJSON_CreateObject();
            char label[400];
            if (ncands > 1)
                snprintf(label, sizeof label, "%s on %s", pol[p].label, cd->label);
            else
                snprintf(label, sizeof label, "%s", pol[p].label);
            cJSON_AddStringToObject(e->obj, "label", label);
            cJSON_AddStringToObject(e->obj, "policy", pol[p].name);
            cJSON_AddStringToObject(e->obj, "candidate", cd->label);
            cJSON_AddStringToObject(e->obj, "candidate_kind", cd->model ? "gpu" : "cluster-template");
            /* the trace is read once per candidate and kind of policy (MIG or not) */
            int mk = is_mig_policy(&pol[p]);
            if (!fdone[ci][mk] &&
                (rc = plan_feasible_check(&cd->unit, &cat, com.trace, mk, false, &fcache[ci][mk], &err)) != 0)
                break;
            fdone[ci][mk] = true;
            const plan_feasibility f = fcache[ci][mk];
            cJSON_AddItemToObject(e->obj, "feasibility", feasibility_json(&f));
            cJSON *ev = NULL;
            if (f.bad > 0 && !allow[0]) {
                e->impossible = true;
                nimpossible++;
                cJSON_AddNullToObject(e->obj, "gpus");
                cJSON_AddStringToObject(e->obj, "verdict", "impossible");
                cJSON_AddArrayToObject(e->obj, "points");
                char what[600];
                snprintf(what, sizeof what, "plan: %s on %s is impossible", pol[p].label, cd->label);
                print_impossible(stderr, what, &f, false);
                cJSON_AddItemToArray(pa, e->obj);
                continue;
            }
            if (f.bad > 0)
                cJSON_AddNumberToObject(e->obj, "rows_set_aside", (double)f.bad);
            planner pl = {.cx = &cx, .pol = &pol[p], .cand = cd};
            long min_x = min_gpus, max_x = max_gpus, answer = 0;
            if (!cd->model) { /* a template searches its scale N */
                min_x = 1;
                max_x = template_max_scale(&cx, cd, max_gpus);
            }
            rc = search(&pl, min_x, max_x, &answer, &err);
            if (pl.npts > 1) /* a round that failed first left none (and qsort must not see NULL) */
                qsort(pl.pts, (size_t)pl.npts, sizeof *pl.pts, cmp_point);
            if (rc == 0) {
                if (answer) {
                    cJSON *src = cJSON_CreateArray();
                    size_of(&cx, cd, answer, &e->gpus, &e->nodes, &e->usd_h, src);
                    cJSON_AddNumberToObject(e->obj, "gpus", (double)e->gpus);
                    cJSON_AddNumberToObject(e->obj, "nodes", (double)e->nodes);
                    if (!cd->model)
                        cJSON_AddNumberToObject(e->obj, "scale", (double)answer);
                    cJSON_AddStringToObject(e->obj, "verdict", "met");
                    if (!isnan(e->usd_h)) {
                        cJSON_AddNumberToObject(e->obj, "price_per_gpu_hour_usd", e->usd_h / (double)e->gpus);
                        cJSON_AddNumberToObject(e->obj, "cost_per_hour_usd", e->usd_h);
                        cJSON_AddNumberToObject(e->obj, "cost_per_month_usd", e->usd_h * HOURS_PER_MONTH);
                    }
                    cJSON_AddItemToObject(e->obj, "prices", src);
                } else {
                    cJSON_AddNullToObject(e->obj, "gpus");
                    cJSON_AddStringToObject(e->obj, "verdict", pl.absent_path[0] ? "metric absent"
                                                               : pl.plateau    ? "not met: plateau"
                                                                               : "not met");
                    if (pl.absent_path[0])
                        cJSON_AddStringToObject(e->obj, "absent_metric", pl.absent_path);
                }
                ev = cJSON_AddArrayToObject(e->obj, "points");
                for (int i = 0; i < pl.npts; i++)
                    cJSON_AddItemToArray(ev, pl.pts[i].obj);
                cJSON_AddItemToArray(pa, e->obj);
            } else {
                for (int i = 0; i < pl.npts; i++)
                    cJSON_Delete(pl.pts[i].obj);
                cJSON_Delete(e->obj);
                nents--;
            }
            int unused = 0;
            for (int i = 0; i < pl.ndone; i++)
                if (!pl.done[i].used) {
                    unused++;
                    cJSON_Delete(pl.done[i].obj);
                }
            if (rc == 0) { /* how the search went: not evidence (it depends on the width), so not in plan.json */
                cJSON *so = cJSON_CreateObject();
                cJSON_AddStringToObject(so, "label", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "label")));
                cJSON_AddNumberToObject(so, "rounds", pl.rounds);
                cJSON_AddNumberToObject(so, "counts_run", pl.ndone);
                cJSON_AddNumberToObject(so, "counts_in_evidence", pl.npts);
                cJSON_AddNumberToObject(so, "runs", (double)pl.ndone * (double)seeds);
                cJSON_AddItemToArray(sra, so);
                fprintf(stderr, "plan: %s: %d count%s in %d round%s at width %ld (%d speculative, not on the "
                        "search's path)\n", cJSON_GetStringValue(so->child), pl.ndone, pl.ndone == 1 ? "" : "s",
                        pl.rounds, pl.rounds == 1 ? "" : "s", width, unused);
            }
            free(pl.done);
            free(pl.pts);
            if (rc == 0 && f.bad > 0 && !strcmp(format, "text")) {
                char what[600];
                snprintf(what, sizeof what, "note: %s on %s", pol[p].label, cd->label);
                print_impossible(stdout, what, &f, true);
            }
        }
    char *text = NULL, *withnl = NULL;
    if (rc == 0) {
        text = NULL;
        withnl = gs_json_print(doc, NULL);
        char path[1000];
        snprintf(path, sizeof path, "%s/plan.json", odir);
        if ((rc = cb_mkdirs(odir, &err)) == 0)
            rc = cb_write_text(path, withnl, &err);
        char *stext = gs_json_print(sdoc, NULL);
        snprintf(path, sizeof path, "%s/search.json", odir);
        if (rc == 0)
            rc = cb_write_text(path, stext, &err);
        free(stext);
    }
    if (rc == 0 && !strcmp(format, "json")) {
        fputs(withnl, stdout);
    } else if (rc == 0) {
        printf("plan: %s, %ld seed%s, %s of seeds must meet:", com.trace, seeds, seeds > 1 ? "s" : "",
               cx.need == seeds ? "all" : "a share");
        for (int t = 0; t < nuser; t++)
            printf(" %s%s%g", slo[t].path, cb_op_str(slo[t].op), slo[t].value);
        printf("\nimplicit terms (a failed run never passes; each is left out by its flag):");
        for (int t = nuser; t < nslo; t++)
            printf(" %s<=0 (%s)", slo[t].path, plan_term_flag(slo[t].path));
        if (nuser == nslo)
            printf(" none");
        printf("\n\nbuyer's table, cheapest first ($/month = 730 h):\n");
        printf("%-24s %-26s %7s %6s %12s %14s  %s\n", "policy", "card or cluster", "cards", "nodes", "$/hour",
               "$/month", "price from");
        ranked *rk = xcalloc((size_t)nents + 1, sizeof *rk);
        for (int i = 0; i < nents; i++)
            rk[i] = (ranked){ents[i], i};
        qsort(rk, (size_t)nents, sizeof *rk, cmp_ranked);
        for (int i = 0; i < nents; i++) {
            const entry *e = &rk[i].e;
            if (e->impossible) {
                double nb = 0;
                cb_metric(e->obj, "feasibility.rows_impossible", &nb);
                printf("%-24s %-26s %7s %6s   impossible: %.0f row%s no count of it can serve (listed on stderr)\n",
                       e->pol->label, e->cand->label, "-", "-", nb, nb == 1 ? "" : "s");
                continue;
            }
            if (!e->gpus) {
                const char *am = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "absent_metric"));
                const char *vd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e->obj, "verdict"));
                if (vd && strstr(vd, "plateau"))
                    printf("%-24s %-26s %7s %6s   not met: the figures stay the same from %ld cards on (more "
                           "cards do not help; see evidence)\n", e->pol->label, e->cand->label, "-", "-",
                           first_gpus(e->obj));
                else if (am)
                    printf("%-24s %-26s %7s %6s   metric absent: '%s' was never measured although every job and "
                           "request was served (check the path)\n", e->pol->label, e->cand->label, "-", "-", am);
                else
                    printf("%-24s %-26s %7s %6s   not met up to %ld cards\n", e->pol->label, e->cand->label, "-", "-",
                           max_gpus);
                continue;
            }
            char srcs[400] = "";
            const cJSON *ps;
            cJSON_ArrayForEach(ps, cJSON_GetObjectItemCaseSensitive(e->obj, "prices"))
            {
                const char *sname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ps, "source"));
                if (sname && !strstr(srcs, sname))
                    snprintf(srcs + strlen(srcs), sizeof srcs - strlen(srcs), "%s%s", srcs[0] ? ", " : "", sname);
            }
            if (isnan(e->usd_h))
                printf("%-24s %-26s %7ld %6ld %12s %14s  %s\n", e->pol->label, e->cand->label, e->gpus, e->nodes, "?",
                       "?", "no price known");
            else
                printf("%-24s %-26s %7ld %6ld %12.2f %14.0f  %s\n", e->pol->label, e->cand->label, e->gpus, e->nodes,
                       e->usd_h, e->usd_h * HOURS_PER_MONTH, srcs);
        }
        free(rk);
        for (int i = 0; i < nents; i++) { /* the runs' warnings, once per entry */
            const cJSON *pt0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ents[i].obj, "points"), 0);
            const cJSON *w;
            cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(pt0, "warnings"))
            {
                printf("warning (%s on %s): %s\n", ents[i].pol->label, ents[i].cand->label, cJSON_GetStringValue(w));
            }
        }
        for (int i = 0; i < nents; i++) {
            const entry *e = &ents[i];
            if (e->impossible)
                continue;
            printf("\nevidence for %s on %s (worst seed per term; 'absent': never measured, not met):\n%8s %6s %6s "
                   "%9s", e->pol->label, e->cand->label, "cards", "nodes", "met", "seeds_ok");
            for (int t = 0; t < nslo; t++)
                printf(" %26s", slo[t].path);
            printf("\n");
            const cJSON *pt;
            cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(e->obj, "points"))
            {
                double g = 0, nd = 0, sm = 0;
                cb_metric(pt, "gpus", &g);
                cb_metric(pt, "nodes", &nd);
                cb_metric(pt, "seeds_met", &sm);
                printf("%8.0f %6.0f %6s %5.0f/%-3ld", g, nd,
                       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "met")) ? "yes" : "no", sm, seeds);
                const cJSON *to;
                cJSON_ArrayForEach(to, cJSON_GetObjectItemCaseSensitive(pt, "terms"))
                {
                    double w;
                    if (cb_metric(to, "worst", &w))
                        printf(" %26.6g", w);
                    else
                        printf(" %26s", "absent");
                }
                printf("\n");
            }
        }
        printf("\nruns and plan.json: %s\n", odir);
    }
    if (rc == 0 && nimpossible > 0 && nimpossible == nents)
        rc = gs_err(&err, GS_EFAIL, "plan: no candidate can serve every row of %s (rows and reasons above); "
                    "--allow-rejected sets them aside", com.trace);
    free(text);
    free(withnl);
    free(ents);
    free(fcache);
    cJSON_Delete(doc);
    cJSON_Delete(sdoc);
    free(slo);
    cb_policies_free(pol, npol);
    for (int i = 0; i < ncands; i++) {
        sim_cluster_free(&cands[i].unit);
        if (!cands[i].model)
            cluster_template_free(&cands[i].tpl);
    }
    free(cands);
    gpu_catalog_free(&cat);
    return rc ? cli_fail(&err) : 0;
}
