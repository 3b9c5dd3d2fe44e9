/* cli_plan_search.c - plan's search for one (candidate, policy): a count
 * run on every seed is a point (each term's worst and mean figure over the
 * seeds, the seeds that met every term); rounds of counts run as child
 * processes or as a sweep on an engine; the serial walk that decides which
 * counts are evidence.
 *
 * ASSUMPTION (stated in the README): meeting the SLO is monotone in the card
 * count - more cards of the same model never make a queue or latency metric
 * worse. That holds for work-conserving placement of independent jobs in
 * expectation; a policy with placement anomalies could break it, and then
 * the answer is a count that meets the SLO, not necessarily the smallest.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plan.h"
#include "cli_plan_engine.h"
#include "plan_evidence.h"

/* {==== one count on every seed ====} */

/* The child runs' cluster for count x: a --gpus spec, or the template's
 * instance written to OUT/clusters/. */
static int child_common(planner *pl, long x, cli_opts *com, char *spec, size_t nspec, char *path, size_t npath,
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
    int rc = cli_batch_mkdirs(dir, err);
    if (rc)
        return rc;
    cJSON *inst = cluster_template_instance(&pl->cand->tpl, x);
    char *text = cJSON_Print(inst);
    char *withnl = cli_batch_fmt("%s\n", text);
    rc = cli_batch_write_text(path, withnl, err);
    free(withnl);
    free(text);
    cJSON_Delete(inst);
    com->cluster = path;
    return rc;
}

/* Keeps count x, run on every seed (runs[0..seeds-1]), among the counts
 * done; it becomes evidence when the search's path reaches it (take_point). */
static void measure_point(planner *pl, long x, cli_batch_run *runs)
{
    const plan_ctx *cx = pl->cx;
    point pt = {.x = x, .obj = cJSON_CreateObject()};
    double usd_h;
    cli_plan_cands_size(cx, pl->cand, x, &pt.gpus, &pt.nodes, &usd_h, NULL);
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
            if (!metrics_measured(runs[s].report, cx->slo[t].path, &v)) {
                ok[s] = false; /* never measured: cannot meet a term */
                absent++;
                continue;
            }
            bool h = cli_batch_slo_holds(&cx->slo[t], v);
            ok[s] &= h;
            held += h;
            sum += v;
            if (isnan(worst) || cli_batch_slo_worse(&cx->slo[t], v, worst))
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
        metrics_get(runs[s].report, "jobs.rejected", &rj);
        metrics_get(runs[s].report, "derived.replicas_unplaceable", &up);
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
            if (!metrics_measured(runs[0].report, cx->slo[t].path, &v))
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
    cli_batch_run *runs = xcalloc((size_t)(ntodo * S) + 1, sizeof *runs);
    cli_opts *coms = xcalloc((size_t)(ntodo * S) + 1, sizeof *coms);
    char (*specs)[200] = xcalloc((size_t)ntodo + 1, sizeof *specs);
    char (*paths)[1200] = xcalloc((size_t)ntodo + 1, sizeof *paths);
    for (int c = 0; c < ntodo && rc == 0; c++) {
        cli_opts com;
        rc = child_common(pl, todo[c], &com, specs[c], sizeof specs[c], paths[c], sizeof paths[c], err);
        for (long s = 0; s < S && rc == 0; s++) {
            coms[c * S + s] = com;
            if (cx->engine)
                continue;
            char rd[1250];
            snprintf(rd, sizeof rd, "%s/runs/%s.%s.g%ld.s%ld", cx->odir, pl->pol->slug, pl->cand->slug, todo[c], s + 1);
            cli_batch_run_init(&runs[c * S + s], &com, pl->pol, NULL, (uint64_t)(s + 1), rd);
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
        rc = cli_batch_run_all(runs, ntodo * (int)S, (int)cx->jobs, what, err);
        pl->rounds++;
    }
    /* a user term in a policy's section: the first report says whether that
     * number exists (a misspelling is a usage error, not "never met") */
    for (int t = 0; rc == 0 && ntodo && pl->ndone == 0 && t < cx->nuser; t++)
        if (metrics_known(cx->slo[t].path) == METRICS_OPEN)
            rc = metrics_check_path("--slo", cx->slo[t].path, runs[0].report, err);
    for (int c = 0; c < ntodo && rc == 0; c++)
        measure_point(pl, todo[c], runs + c * S);
    for (int i = 0; i < ntodo * S; i++)
        cli_batch_run_free(&runs[i]);
    free(runs), free(coms), free(specs), free(paths);
    return rc;
}

int cli_plan_search_cmp_point(const void *a, const void *b)
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
/* The margin probes above the answer (plan_evidence.h), run in rounds of
 * the width (those a speculative round ran already are taken as they are)
 * and taken into the evidence, each marked "margin". */
static int margin_probes(planner *pl, long answer, long max_x, gs_error *err)
{
    long xs[PLAN_MARGIN_MAX], todo[PLAN_MARGIN_MAX];
    int n = plan_evidence_probes(answer, max_x, (int)pl->cx->margin, xs), ntodo = 0;
    for (int i = 0; i < n; i++)
        if (!known(pl, xs[i]))
            todo[ntodo++] = xs[i];
    int rc = 0, K = pl->cx->width > 0 ? (int)pl->cx->width : 1;
    for (int at = 0; at < ntodo && rc == 0; at += K) /* rounds of at most the width */
        rc = try_counts(pl, todo + at, ntodo - at < K ? ntodo - at : K, err);
    for (int i = 0; i < n && rc == 0; i++) {
        point *p = known(pl, xs[i]);
        if (p->used)
            continue;
        cJSON_AddBoolToObject(p->obj, "margin", 1);
        take_point(pl, p);
    }
    return rc;
}

int cli_plan_search(planner *pl, long min_x, long max_x, long *answer, gs_error *err)
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
    if (rc == 0 && w.good > 0)
        rc = margin_probes(pl, w.good, max_x, err);
    if (rc == 0)
        *answer = w.good;
    return rc;
}

long cli_plan_search_max_scale(const plan_ctx *cx, const candidate *c, long max_gpus)
{
    long lo = 1, hi = 1, cards, nodes;
    double usd;
    for (;;) {
        cli_plan_cands_size(cx, c, hi * 2, &cards, &nodes, &usd, NULL);
        if (cards > max_gpus || hi > (1L << 40))
            break;
        hi *= 2;
    }
    long top = hi * 2;
    while (top - hi > 1) { /* largest in [hi, top) within the limit */
        long mid = hi + (top - hi) / 2;
        cli_plan_cands_size(cx, c, mid, &cards, &nodes, &usd, NULL);
        if (cards <= max_gpus)
            hi = mid;
        else
            top = mid;
    }
    return hi > lo ? hi : lo;
}

int cli_plan_search_probe(const planner *pl, const cli_batch_policy *pol, long x, bool *met, cJSON **obj,
                          gs_error *err)
{
    planner p2 = {.cx = pl->cx, .pol = pol, .cand = pl->cand};
    int rc = try_counts(&p2, &x, 1, err);
    *obj = NULL;
    if (rc == 0 && p2.ndone == 1) {
        *met = p2.done[0].met;
        *obj = p2.done[0].obj;
    } else {
        for (int i = 0; i < p2.ndone; i++)
            cJSON_Delete(p2.done[i].obj);
    }
    free(p2.done);
    return rc;
}
