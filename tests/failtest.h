/* failtest.h - what the failure tests share (test_failures.c,
 * test_young_daly.c): a run on a cluster file's text with given modules
 * and sets, its report, and a report's number at a dotted path.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_FAILTEST_H
#define GPUSIM_FAILTEST_H

#include <cJSON.h>
#include <string.h>

#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

typedef struct ft_run {
    tu_run r;
} ft_run;

/* The run in progress (an observer reads its clock). */
static const sim *ft_current;

/* The number at a dotted path ("failures.by_cause.faulty GPU"; a key may
 * hold spaces, not dots); -1e300 when absent. */
static inline double ft_num(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = buf, *dot; o && k; k = dot ? dot + 1 : NULL) {
        dot = strchr(k, '.');
        if (dot)
            *dot = 0;
        o = cJSON_GetObjectItemCaseSensitive(o, k);
    }
    return cJSON_IsNumber(o) ? o->valuedouble : -1e300;
}

/* Runs trace (text) on the cluster (JSON text) under whole with the sets
 * and modules; until_s > 0 stops there. The report (caller frees), NULL
 * with a failed check when the run fails. */
static inline cJSON *ft_run_until(ft_run *f, const char *cluster, const char *trace, const char *const *sets,
                                  const sim_module *const *mods, void (*on_done)(void *, const job *), void *ud,
                                  double until_s, uint64_t seed)
{
    tu_run *r = &f->r;
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = "whole";
    r->cfg.seed = seed;
    r->cfg.registry = pol_all();
    r->cfg.until_us = (gs_time_us)(until_s * 1e6);
    tu_add_sets(&r->cfg, sets);
    cJSON *cj = cJSON_Parse(cluster);
    r->rc = sim_cluster_from_json(&r->cl, cj, "test-cluster.json", tu_catalog(), &r->err);
    cJSON_Delete(cj);
    if (r->rc == 0)
        r->rc = sim_init_with(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, mods, &r->err);
    ft_current = &r->s;
    if (r->rc == 0) {
        sim_observe(&r->s, &(sim_observer){.job_done = on_done, .job_done_ud = ud});
        r->rc = sim_run(&r->s);
    }
    CHECK_EQ_INT(r->rc, 0);
    if (r->rc)
        fprintf(stderr, "run failed: %s\n", r->rc == r->s.err.code ? r->s.err.msg : r->err.msg);
    return r->rc == 0 ? sim_report_build(&r->s, 0, 0) : NULL;
}

static inline cJSON *ft_run_cluster(ft_run *f, const char *cluster, const char *trace, const char *const *sets,
                                    const sim_module *const *mods, void (*on_done)(void *, const job *), void *ud)
{
    return ft_run_until(f, cluster, trace, sets, mods, on_done, ud, 0, 1);
}

static inline void ft_run_free(ft_run *f)
{
    ft_current = NULL;
    tu_run_free(&f->r);
}

#endif
