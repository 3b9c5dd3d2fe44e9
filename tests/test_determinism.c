/* test_determinism.c - the same inputs and seed give an identical report
 * (byte for byte, timing fields aside), two simulations can run in one
 * process, and the generator's seed matters.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_report.h"
#include "../workloads/wl_gen.h"
#include "check.h"
#include "testutil.h"

static char *report_text(const char *trace, const char *cluster_file)
{
    sim_config cfg = {.trace_path = trace, .policy = "whole", .seed = 5, .sample_us = 60 * GS_US_PER_S};
    sim_cluster cl;
    gs_error err;
    sim s;
    if (sim_cluster_load(&cl, cluster_file, tu_catalog(), &err) != 0)
        return NULL;
    char *ts_buf = NULL;
    size_t ts_len = 0;
    FILE *ts = open_memstream(&ts_buf, &ts_len);
    char *out = NULL;
    if (tu_sim_init(&s, &cfg, tu_catalog(), &cl, ts, &err) == 0 && sim_run(&s) == 0) {
        cJSON *r = sim_report_build(&s, 0.0, 0.0); /* timing fields fixed at 0 */
        char *text = cJSON_Print(r);
        fclose(ts);
        ts = NULL;
        out = malloc(strlen(text) + ts_len + 2);
        sprintf(out, "%s\n%s", text, ts_buf);
        free(text);
        cJSON_Delete(r);
    }
    if (ts)
        fclose(ts);
    free(ts_buf);
    sim_free(&s);
    sim_cluster_free(&cl);
    return out;
}

static void same_run_twice(void)
{
    char *a = report_text("workloads/examples/day.csv", "workloads/examples/cluster.json");
    char *b = report_text("workloads/examples/day.csv", "workloads/examples/cluster.json");
    CHECK(a && b);
    if (a && b) {
        CHECK(strcmp(a, b) == 0);
        CHECK_STR_HAS(a, "\"arrived\":");
        CHECK(strlen(a) > 1000);
    }
    free(a);
    free(b);
}

static void two_sims_interleaved(void)
{
    /* two runs alive at once must not share state */
    const char *path = tu_write_tmp("id,submit,duration,gpus\na,0,10,4\nb,1,10,8\nc,2,1,2\n");
    tu_run r1, r2;
    CHECK_EQ_INT(tu_run_trace(&r1, path, "H100-SXM5-80GB:8", 8, "whole", NULL, NULL, NULL), 0);
    CHECK_EQ_INT(tu_run_trace(&r2, "workloads/examples/day.csv", "H100-SXM5-80GB:64", 8, "whole", NULL, NULL, NULL), 0);
    CHECK_EQ_INT(r1.s.completed, 3);
    CHECK_EQ_INT(r1.s.now, 20 * GS_US_PER_S);
    CHECK(r2.s.completed > 100);
    tu_run_free(&r1);
    tu_run_free(&r2);
}

static char *gen(uint64_t seed)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wl_mmc_opts o = {.jobs = 1000, .servers = 8, .util = 0.7, .mean_s = 2, .gpus_per_job = 1, .seed = seed};
    gs_error err;
    wl_gen_mmc(f, &o, &err);
    fclose(f);
    return buf;
}

static void generator_seed(void)
{
    char *a = gen(1), *b = gen(1), *c = gen(2);
    CHECK(strcmp(a, b) == 0);
    CHECK(strcmp(a, c) != 0);
    free(a);
    free(b);
    free(c);
}

const test_case tests_determinism[] = {
    {"determinism/same_inputs_identical_report", same_run_twice},
    {"determinism/two_sims_in_one_process", two_sims_interleaved},
    {"determinism/generator_seed", generator_seed},
    {NULL, NULL},
};
