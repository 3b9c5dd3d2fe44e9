/* test_names.c - names resolved once: the core keeps what a gpu_model list,
 * a ref_gpu, a speedup table or a tenant resolved to by the reader's name
 * number (sim_symmap.h), and a row naming the previous row's mig,
 * gpu_model, ref_gpu and speedup takes that row's answers; rows whose
 * names alternate, or repeat in runs, must each get their own name's
 * answer, exactly as if resolved afresh: the allowed cards, the speed from
 * their own reference card and table, their own tenant and mig.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_hw.h"
#include "check.h"
#include "testutil.h"

static const char *const models[] = {"A100-SXM4-80GB", "H100-SXM5-80GB", "A100-SXM4-80GB|H100-SXM5-80GB", ""};
static const char *const refs[] = {"A100-SXM4-80GB", "H100-SXM5-80GB", ""};
static const char *const tables[] = {"", "A100-SXM4-80GB:1|H100-SXM5-80GB:2", "H100-SXM5-80GB:1|A100-SXM4-80GB:0.25"};
static const char *const migs[] = {"", "1g.10gb", "7g.80gb", "1g.10gb", "3g.40gb"};
enum { ROWS = 240 };
/* names_of: every name changes at every row (alternating), or each
 * column in runs of its own length (staggered) */
static bool staggered;

typedef struct {
    const tu_run *r;
    long done, wrong_card, wrong_time, wrong_tenant, wrong_mig;
} audit;

/* Row i's names: each list cycles with its own period, so that every
 * combination comes. Alternating: no gpu_model repeats its previous row's.
 * Staggered: speedup in runs of 2 rows, ref_gpu 3, gpu_model 5, mig 7, so
 * a row names its previous row's four, or changes one, two, ... */
static void names_of(int i, const char **m, const char **ref, const char **tab)
{
    *m = models[(staggered ? i / 5 : i) % 4];
    *ref = refs[(staggered ? i / 3 : i) % 3];
    *tab = tables[(i / 2) % 3];
}
static const char *mig_of_row(int i) { return migs[(staggered ? i / 7 : i) % 5]; }

/* What row i takes on a card of model m, resolved afresh: the table's
 * factor ratio when it lists both cards, else the roofline from its
 * reference card (the run's ref_gpu, A100, when the row names none). */
static double expected_s(int i, const gpu_model *m)
{
    const char *mn, *rn, *tn;
    names_of(i, &mn, &rn, &tn);
    const gpu_model *ref = gpu_catalog_find(tu_catalog(), rn[0] ? rn : "A100-SXM4-80GB");
    if (tn[0]) {
        double fm = -1, fr = -1;
        char copy[128];
        snprintf(copy, sizeof copy, "%s", tn);
        for (char *save = NULL, *it = strtok_r(copy, "|", &save); it; it = strtok_r(NULL, "|", &save)) {
            char *colon = strrchr(it, ':');
            *colon = 0;
            const gpu_model *g = gpu_catalog_find(tu_catalog(), it);
            double f = atof(colon + 1);
            fm = g == m ? f : fm;
            fr = g == ref ? f : fr;
        }
        if (fm > 0 && fr > 0)
            return 100.0 * fr / fm;
    }
    return 100.0 * sim_hw_time_ratio(ref, m, 0.3, 1, 1); /* mem_bound_job 0.3 */
}

static void on_done(void *ud, const job *j)
{
    audit *a = ud;
    int i = atoi(j->req.id + 1);
    a->done++;
    const char *mn, *rn, *tn;
    names_of(i, &mn, &rn, &tn);
    const gpu_model *m = a->r->cl.pools[a->r->cl.nodes[j->node].pool].model;
    if (mn[0] && !strstr(mn, m->name))
        a->wrong_card++;
    double took = gs_us_to_s(j->req.dur_us) / j->speed;
    if (took < expected_s(i, m) - 1e-6 || took > expected_s(i, m) + 1e-6)
        a->wrong_time++;
    char tenant[16];
    snprintf(tenant, sizeof tenant, "t%d", i % 5);
    if (strcmp(j->req.tenant, tenant))
        a->wrong_tenant++;
    if (strcmp(j->req.mig, mig_of_row(i)))
        a->wrong_mig++;
}

static void names_in_runs(bool stagger)
{
    staggered = stagger;
    static char trace[ROWS * 176 + 128];
    size_t n = (size_t)snprintf(trace, sizeof trace, "id,submit,duration,gpus,gpu_model,ref_gpu,speedup,tenant,mig\n");
    for (int i = 0; i < ROWS; i++) {
        const char *m, *ref, *tab;
        names_of(i, &m, &ref, &tab);
        n += (size_t)snprintf(trace + n, sizeof trace - n, "j%d,%d,100,1,%s,%s,%s,t%d,%s\n", i, i * 1000, m, ref, tab,
                              i % 5, mig_of_row(i));
    }
    tu_run r;
    audit a = {.r = &r};
    /* preempt=on: a run that reads the tenant column (one priority: no job is preempted) */
    static const char *const sets[] = {"preempt=on", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(trace), "A100-SXM4-80GB:8,H100-SXM5-80GB:8", 8, "whole", sets, on_done,
                              &a),
                 0);
    CHECK_EQ_INT(a.done, ROWS);
    CHECK_EQ_INT(a.wrong_card, 0);
    CHECK_EQ_INT(a.wrong_time, 0);
    CHECK_EQ_INT(a.wrong_tenant, 0);
    CHECK_EQ_INT(a.wrong_mig, 0);
    tu_run_free(&r);
    staggered = false;
}

static void alternating_names(void) { names_in_runs(false); }
static void staggered_names(void) { names_in_runs(true); }

/* A row naming a gpu_model or mig the catalog lacks, after rows that
 * named the same four names as each other: still an input error naming
 * its line and column. */
static void bad_name_after_a_run(void)
{
    static const char *const bad[] = {
        "a,0,1,1,A100-SXM4-80GB,\nb,1,1,1,A100-SXM4-80GB,\nc,2,1,1,Z80,\n",
        "a,0,1,1,A100-SXM4-80GB,1g.10gb\nb,1,1,1,A100-SXM4-80GB,1g.10gb\nc,2,1,1,A100-SXM4-80GB,banana\n"};
    static const char *const want[] = {"line 4, column 5 ('gpu_model')", "line 4, column 6 ('mig')"};
    for (int k = 0; k < 2; k++) {
        char trace[256];
        snprintf(trace, sizeof trace, "id,submit,duration,gpus,gpu_model,mig\n%s", bad[k]);
        tu_run r;
        CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(trace), "A100-SXM4-80GB:8", 8, "whole", NULL, NULL, NULL),
                     GS_EINPUT);
        CHECK_STR_HAS(r.err.msg, want[k]);
        tu_run_free(&r);
    }
}

const test_case tests_names[] = {
    {"names/alternating_names_each_resolved_as_its_own", alternating_names},
    {"names/staggered_runs_take_the_last_rows_answers_only_for_the_same_four", staggered_names},
    {"names/bad_name_after_a_run_still_an_error", bad_name_after_a_run},
    {NULL, NULL},
};
