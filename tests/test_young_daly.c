/* test_young_daly.c - failing hardware against theory and the Llama 3
 * paper (sim/sim_fail.h).
 *
 * Young/Daly: a job of work W that checkpoints every tau of work (write
 * C, durable when complete) on nodes failing at rate 1/M, restarting
 * after R (restart_s + the read-back; a failure during R starts R again),
 * takes by renewal-reward, segment by segment, E(a) = M e^{R/M}
 * (e^{a/M} - 1) for a segment of a = tau + C (the last one: its work
 * alone), the exact form of J. T. Daly, "A higher order estimate of the
 * optimum checkpoint interval for restart dumps", FGCS 22(3), 2006. Its
 * efficiency W / sum E(a) is compared with the simulated goodput (the
 * jobs' useful GPU-seconds over those they held: here they hold their
 * nodes throughout, a spare taking a failed node's place at once) over
 * seeds, on a grid of tau and M, within 2%; the first-order form 1 - C/tau
 * - (tau/2 + R)/M is printed beside it. A sweep of checkpoint_every finds
 * its best at sqrt(2 C M) (Young, CACM 17(9), 1974), the grid's middle.
 *
 * Llama 3 (Dubey et al. 2024, section 3.3.4): a 16,384-GPU job for the
 * paper's 54 days on H100 rates: interruptions within 10% of 419 in the
 * mean over seeds, each cause within 4 standard deviations (Poisson) of
 * its share of the paper's counts.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/service/svc.h"
#include "../sim/sim_fail.h"
#include "../sim/sim_hw.h"
#include "../sim/sim_preempt.h"
#include "check.h"
#include "failtest.h"
#include "testutil.h"

static const sim_module *const mods[] = {&hw_module, &svc_module, &preempt_module, &fail_module, NULL};

static const gpu_failures *h100(void)
{
    const gpu_model *from;
    return gpu_catalog_failures(tu_catalog(), gpu_catalog_find(tu_catalog(), GPU_FAIL_DEFAULT_MODEL), &from);
}

/* A cluster of n 8-GPU H100 nodes and `spares` spares whose every cause
 * is repaired in repair_h (the rates stay H100's). */
static char *cluster_json(int n, int spares, double repair_h)
{
    const gpu_failures *f = h100();
    size_t cap = 8192, len = 0;
    char *b = xmalloc(cap);
    len += (size_t)snprintf(b + len, cap - len,
                            "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": %d, \"gpus\": 8, \"spares\": %d, "
                            "\"failures\": {\"causes\": [", n, spares);
    for (int c = 0; c < f->n; c++)
        len += (size_t)snprintf(b + len, cap - len, "%s{\"cause\": \"%s\", \"repair_h\": %g}", c ? ", " : "",
                                f->cause[c].name, repair_h);
    snprintf(b + len, cap - len, "]}}]}");
    return b;
}

/* W / sum of E(a) over the job's segments (header). */
static double exact_efficiency(double W, double tau, double C, double R, double M)
{
    double full = ceil(W / tau) - 1, last = W - full * tau;
    double seg = M * exp(R / M) * (exp((tau + C) / M) - 1), tail = M * exp(R / M) * (exp(last / M) - 1);
    return W / (full * seg + tail);
}

/* C = 60 s (120e9 bytes at 2 GB/s), read 30 s at 4 GB/s, restart 240 s:
 * R = 270 s. */
#define CKPT_GIB "111.758708953857421875"
#define C_S 60.0
#define R_S 270.0

/* Simulated goodput of `jobs` 8-GPU jobs of W s on one node each, node
 * MTBF M, interval tau, over seeds 1..nseeds (each a run). */
static double sim_goodput(int jobs, double W, double tau, double M, int nseeds)
{
    double scale = 86400.0 / M / gpu_failures_node_per_day(h100(), 8);
    char *cl = cluster_json(jobs, jobs / 2 + 8, 0.05);
    size_t cap = 64 + (size_t)jobs * 64;
    char *trace = xmalloc(cap);
    size_t len = (size_t)snprintf(trace, cap, "id,submit,duration,gpus,checkpoint_gib\n");
    for (int i = 0; i < jobs; i++)
        len += (size_t)snprintf(trace + len, cap - len, "j%d,0,%.0f,8," CKPT_GIB "\n", i, W);
    char every[64], fs[64];
    snprintf(every, sizeof every, "checkpoint_every=%.0f", tau);
    snprintf(fs, sizeof fs, "fail_scale=%.17g", scale);
    const char *const sets[] = {"failures=on", fs, every, "ckpt_read_gbps=4", "restart_s=240", "spare_swap_s=0", NULL};
    double useful = 0, held = 0;
    for (int seed = 1; seed <= nseeds; seed++) {
        ft_run r;
        cJSON *rep = ft_run_until(&r, cl, trace, sets, mods, NULL, NULL, 0, (uint64_t)seed);
        CHECK_NEAR(ft_num(rep, "jobs.completed"), jobs, 0, 0);
        double h = ft_num(rep, "failures.held_gpu_hours");
        held += h;
        useful += h * ft_num(rep, "jobs.goodput");
        cJSON_Delete(rep);
        ft_run_free(&r);
    }
    free(cl);
    free(trace);
    return useful / held;
}

/* The grid: M 4 h and 16 h, tau 600, 1800, 5400 s. */
static void young_daly_grid(void)
{
    static const double Ms[] = {4 * 3600.0, 16 * 3600.0}, taus[] = {600, 1800, 5400};
    for (int m = 0; m < 2; m++)
        for (int t = 0; t < 3; t++) {
            double M = Ms[m], tau = taus[t], W = 25 * M;
            double want = exact_efficiency(W, tau, C_S, R_S, M), first = 1 - C_S / tau - (tau / 2 + R_S) / M;
            double got = sim_goodput(48, W, tau, M, 3);
            printf("  M %5.0f s tau %5.0f s: simulated %.4f, exact %.4f, first order %.4f\n", M, tau, got, want, first);
            CHECK_NEAR(got, want, 0.02, 0);
        }
}

/* checkpoint_every at sqrt(2 C M) / 2^k, k = -2..2: the middle wins. */
static void checkpoint_sweep_finds_sqrt_2cm(void)
{
    double M = 8 * 3600.0, opt = sqrt(2 * C_S * M), best = -1, best_tau = 0;
    for (int k = -2; k <= 2; k++) {
        double tau = round(opt * pow(2, k));
        double g = sim_goodput(48, 20 * M, tau, M, 3);
        printf("  tau %5.0f s: goodput %.4f (exact %.4f)\n", tau, g, exact_efficiency(20 * M, tau, C_S, R_S, M));
        if (g > best) {
            best = g;
            best_tau = tau;
        }
    }
    CHECK_NEAR(best_tau, round(opt), 0, 0);
}

/* The Llama 3 snapshot: 2,048 nodes in service (64 spares), one job on
 * all of them, 54 days. */
static void llama3_interruptions(void)
{
    const gpu_failures *f = h100();
    static const char cluster[] = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 2048, \"gpus\": 8, "
                                  "\"spares\": 64}]}";
    static const char trace[] = "id,submit,duration,gpus,params_b\nllama3,0,6000000,16384,405\n";
    static const char *const sets[] = {"failures=on", "checkpoint_every=1800", NULL};
    enum { SEEDS = 6 };
    double total = 0, by[GPU_FAIL_MAX_CAUSES] = {0}, goodput = 0;
    for (int seed = 1; seed <= SEEDS; seed++) {
        ft_run r;
        cJSON *rep = ft_run_until(&r, cluster, trace, sets, mods, NULL, NULL, 54 * 86400.0, (uint64_t)seed);
        total += ft_num(rep, "failures.interruptions");
        goodput += ft_num(rep, "jobs.goodput") / SEEDS;
        for (int c = 0; c < f->n; c++) {
            char path[96];
            snprintf(path, sizeof path, "failures.by_cause.%s", f->cause[c].name);
            by[c] += ft_num(rep, path);
        }
        cJSON_Delete(rep);
        ft_run_free(&r);
    }
    printf("  mean interruptions %.1f (paper 419), goodput %.4f\n", total / SEEDS, goodput);
    CHECK_NEAR(total / SEEDS, 419, 0.10, 0);
    double per_day_all = gpu_failures_node_per_day(f, 8);
    for (int c = 0; c < f->n; c++) {
        double want = total * gpu_failures_cause_per_day(f, c, 8) / per_day_all;
        CHECK_NEAR(by[c], want, 0, 4 * sqrt(want) + 1);
    }
}

const test_case tests_young_daly[] = {
    {"young_daly/goodput_on_a_grid_of_tau_and_mtbf", young_daly_grid},
    {"young_daly/checkpoint_sweep_best_at_sqrt_2CM", checkpoint_sweep_finds_sqrt_2cm},
    {"young_daly/llama3_54_days_419_interruptions", llama3_interruptions},
    {NULL, NULL},
};
