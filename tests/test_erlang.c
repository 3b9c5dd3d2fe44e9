/* test_erlang.c - validation against queueing theory: M/M/c under policy
 * `whole` (1 GPU per job, c GPUs) must match the Erlang C mean wait and
 * probability of waiting.
 *
 * Tolerance: the standard error of the simulated mean wait is estimated by
 * batch means (30 batches after discarding the first 10% of jobs as warm-up),
 * and the simulated figure must lie within 4 standard errors of the formula,
 * plus 1e-4 s absolute for the light-load cases where the wait is ~0. A wrong
 * model (e.g. an off-by-one server, or queueing that ignores free cards) is
 * off by far more than that at these sample sizes.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_gen.h"
#include "check.h"
#include "testutil.h"

typedef struct waits {
    double *w;
    long n;
} waits;

static void collect(void *ud, const job *j)
{
    waits *w = ud;
    w->w[j->arrival_no] = gs_us_to_s(j->start_us - j->req.submit_us);
}

static void check_mmc(int c, double rho, long jobs)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    wl_mmc_opts o = {.jobs = jobs, .servers = c, .util = rho, .mean_s = 1.0, .gpus_per_job = 1,
                     .seed = 1000 + (uint64_t)c};
    gs_error err;
    CHECK_EQ_INT(wl_gen_mmc(mem, &o, &err), 0);
    fclose(mem);
    const char *path = tu_write_tmp(buf);
    free(buf);

    char spec[64];
    snprintf(spec, sizeof spec, "H100-SXM5-80GB:%d", c);
    waits w = {calloc((size_t)jobs, sizeof(double)), jobs};
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, path, spec, 8, "whole", NULL, collect, &w), 0);
    CHECK_EQ_INT(r.s.completed, jobs);
    tu_run_free(&r);

    double se, mean = tu_batch_means(w.w, jobs, &se), pwait = 0;
    long warm = jobs / 10;
    for (long i = warm; i < jobs; i++)
        pwait += w.w[i] > 0;
    pwait /= (double)(jobs - warm);

    double a = rho * c, pc = tu_erlang_c(c, a), wq = pc / (c * 1.0 - a);
    printf("    M/M/%d rho=%.1f: mean wait %.5f s (Erlang C %.5f, SE %.5f), P(wait) %.4f (Erlang C %.4f)\n", c, rho,
           mean, wq, se, pwait, pc);
    CHECK_NEAR(mean, wq, 0, 4 * se + 1e-4);
    /* P(wait) per-job indicator: its batch SE is at most ~ the mean-wait one
     * scaled; use a binomial bound inflated 5x for autocorrelation */
    double se_p = 5 * sqrt(pc * (1 - pc) / (double)(jobs - warm));
    CHECK_NEAR(pwait, pc, 0, 4 * se_p + 1e-3);
    free(w.w);
}

static void c8_rho05(void) { check_mmc(8, 0.5, 100000); }
static void c8_rho09(void) { check_mmc(8, 0.9, 300000); }
static void c64_rho05(void) { check_mmc(64, 0.5, 100000); }
static void c64_rho09(void) { check_mmc(64, 0.9, 300000); }

static void formula_sanity(void)
{
    /* textbook values: M/M/1 P(wait) = rho; M/M/2 with a=1: C = 1/3 */
    CHECK_NEAR(tu_erlang_c(1, 0.7), 0.7, 1e-12, 0);
    CHECK_NEAR(tu_erlang_c(2, 1.0), 1.0 / 3.0, 1e-12, 0);
}

const test_case tests_erlang[] = {
    {"erlang/formula_textbook_values", formula_sanity},
    {"erlang/mmc_c8_rho0.5", c8_rho05},
    {"erlang/mmc_c8_rho0.9", c8_rho09},
    {"erlang/mmc_c64_rho0.5", c64_rho05},
    {"erlang/mmc_c64_rho0.9", c64_rho09},
    {NULL, NULL},
};
