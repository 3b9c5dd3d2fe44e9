/* test_hw.c - the card decides: a job's duration is its time alone on the
 * reference card, and other placements run it at the ratio of the model
 * files' figures. Each expected figure below follows from the datasheet
 * figures in models/gpu/ (H100-SXM5-80GB 989.4 TFLOPS, 3350 GB/s;
 * A100-SXM4-80GB 312 TFLOPS, 2039 GB/s) or the MIG profile table.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_hw.h"
#include "../workloads/wl_gen.h"
#include "check.h"
#include "testutil.h"

/* One job of `duration` s with the given extra columns, alone on a cluster;
 * returns its completion time (the run's end), or -1. */
static double alone(const char *cols, const char *vals, const char *gpus, const char *policy, const char *const *sets)
{
    char trace[512];
    snprintf(trace, sizeof trace, "id,submit,duration,gpus%s\nj,0,100,1%s\n", cols, vals);
    tu_run r;
    double end = -1;
    if (tu_run_trace(&r, tu_write_tmp(trace), gpus, 8, policy, sets, NULL, NULL) == 0 && r.s.completed == 1)
        end = gs_us_to_s(r.s.now);
    else
        fprintf(stderr, "    run failed: %s\n", r.err.msg);
    tu_run_free(&r);
    return end;
}

/* A compute-bound job takes exactly the TFLOPS ratio longer on the slower
 * card, a memory-bound one the bandwidth ratio; its reference card runs it
 * at its duration. Completion is rounded up to the next microsecond. */
static void roofline_ratios(void)
{
    static const char *const ref_h100[] = {"ref_gpu=H100-SXM5-80GB", NULL};
    CHECK_NEAR(alone(",mem_bound", ",0", "A100-SXM4-80GB:1", "whole", ref_h100), 100 * 989.4 / 312, 0, 1e-6);
    CHECK_NEAR(alone(",mem_bound", ",1", "A100-SXM4-80GB:1", "whole", ref_h100), 100 * 3350.0 / 2039, 0, 1e-6);
    CHECK_NEAR(alone(",mem_bound", ",0.5", "A100-SXM4-80GB:1", "whole", ref_h100),
               100 * (0.5 * 989.4 / 312 + 0.5 * 3350.0 / 2039), 0, 1e-6);
    CHECK_NEAR(alone(",mem_bound", ",0", "H100-SXM5-80GB:1", "whole", ref_h100), 100, 0, 1e-9);
    /* the row's ref_gpu wins over the parameter; a faster card is faster */
    CHECK_NEAR(alone(",mem_bound,ref_gpu", ",0,A100-SXM4-80GB", "H100-SXM5-80GB:1", "whole", ref_h100),
               100 * 312 / 989.4, 0, 1e-6);
    /* default: the cluster's first model is the reference, so a one-model
     * cluster runs every job at its stated duration */
    CHECK_NEAR(alone("", "", "A100-SXM4-80GB:1", "whole", NULL), 100, 0, 1e-9);
    /* the default mem_bound_job (0.3) mixes the two ratios */
    CHECK_NEAR(alone("", "", "A100-SXM4-80GB:1", "whole", ref_h100),
               100 * (0.7 * 989.4 / 312 + 0.3 * 3350.0 / 2039), 0, 2e-6);
    /* shared cards keep their contention rule, applied to the card's own
     * speed: alone under timeslice it runs at the card's full speed */
    CHECK_NEAR(alone(",mem_bound", ",0", "A100-SXM4-80GB:1", "timeslice", ref_h100), 100 * 989.4 / 312, 0, 1e-6);
    /* two busy tasks share the card under timeslice at 0.475 each (the
     * contention rule, test_share.c), of the card's own speed */
    static const char *const ts[] = {"ref_gpu=H100-SXM5-80GB", "switch_cost=0.05", NULL};
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,mem_bound\na,0,10,1,0\nb,0,10,1,0\n"),
                              "A100-SXM4-80GB:1", 8, "timeslice", ts, NULL, NULL),
                 0);
    CHECK_EQ_INT(r.s.completed, 2);
    CHECK_NEAR(gs_us_to_s(r.s.now), 10 / 0.475 * 989.4 / 312, 0, 2e-6);
    tu_run_free(&r);
}

/* A measured throughput table overrides the roofline (Gavel's form). */
static void speedup_table(void)
{
    static const char *const ref_h100[] = {"ref_gpu=H100-SXM5-80GB", NULL};
    CHECK_NEAR(alone(",speedup", ",H100-SXM5-80GB:1|A100-SXM4-80GB:0.42", "A100-SXM4-80GB:1", "whole", ref_h100),
               100 / 0.42, 0, 1e-6);
    /* a card the table does not list falls back to the roofline */
    CHECK_NEAR(alone(",speedup,mem_bound", ",H100-SXM5-80GB:1|L4-24GB:0.1,0", "A100-SXM4-80GB:1", "whole",
                     ref_h100), 100 * 989.4 / 312, 0, 1e-6);
}

/* Speeds by a table are kept per distinct inputs (sim_hw.c's memo, 64
 * slots): 300 jobs in turn on one card, over 100 tables named in turn (so
 * more than fit the slots, each met again), three mem_bound values and a
 * table that lists not the card (the roofline decides), end when the sum
 * of their times says. */
static void speedup_kept_per_inputs(void)
{
    static const char *const ref_h100[] = {"ref_gpu=H100-SXM5-80GB", NULL};
    size_t cap = 300 * 80 + 64, len = 0;
    char *trace = malloc(cap);
    double want = 0;
    len += (size_t)snprintf(trace + len, cap - len, "id,submit,duration,gpus,speedup,mem_bound\n");
    for (int k = 0; k < 300; k++) {
        double f = 0.2 + (k % 100) * 0.01;
        if (k % 10 == 9) {
            len += (size_t)snprintf(trace + len, cap - len, "j%d,0,1,1,H100-SXM5-80GB:1|L4-24GB:0.1,0\n", k);
            want += 989.4 / 312;
        } else {
            len += (size_t)snprintf(trace + len, cap - len, "j%d,0,1,1,H100-SXM5-80GB:1|A100-SXM4-80GB:%.2f,%.1f\n",
                                    k, f, (k % 3) * 0.5);
            want += 1 / f;
        }
    }
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(trace), "A100-SXM4-80GB:1", 8, "whole", ref_h100, NULL, NULL), 0);
    CHECK_EQ_INT(r.s.completed, 300);
    CHECK_NEAR(gs_us_to_s(r.s.now), want, 0, 300e-6); /* each end rounded up to its microsecond */
    tu_run_free(&r);
    free(trace);
}

/* A 1g.10gb instance of an A100-80GB runs a compute-bound job at 1/7 of the
 * whole card (14 of the 7g instance's 98 SMs) and a memory-bound one at 1/8
 * (one of eight memory slices), under mig and dynmig alike. */
static void mig_slice_shares(void)
{
    static const char *const zero[] = {"create_s=0", "reconcile_s=0", "destroy_s=0", NULL};
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"gpus\": 1, \"mig\": "
                     "\"all-1g.10gb\"}]}";
    for (int dyn = 0; dyn < 2; dyn++) {
        for (int mb = 0; mb < 2; mb++) {
            char trace[256];
            snprintf(trace, sizeof trace, "id,submit,duration,gpus,mig,mem_bound\nj,0,100,1,1g.10gb,%d\n", mb);
            tu_run r;
            memset(&r, 0, sizeof r);
            r.cfg.trace_path = tu_write_tmp(trace);
            r.cfg.policy = dyn ? "dynmig" : "mig";
            r.cfg.seed = 1;
            tu_add_sets(&r.cfg, dyn ? zero : NULL);
            CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cl), tu_catalog(), &r.err), 0);
            CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
            CHECK_EQ_INT(sim_run(&r.s), 0);
            CHECK_EQ_INT(r.s.completed, 1);
            CHECK_NEAR(gs_us_to_s(r.s.now), mb ? 800 : 700, 0, 1e-6);
            tu_run_free(&r);
        }
    }
    /* the share model itself, on the table: Hopper's two-slice 1g profile has more SMs */
    const gpu_model *h = gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB");
    CHECK(h && h->mig);
    if (!h || !h->mig)
        return;
    for (int i = 0; i < h->mig->nprofiles; i++) {
        double c, m;
        sim_hw_mig_shares(h->mig, &h->mig->profiles[i], &c, &m);
        if (!strcmp(h->mig->profiles[i].name, "1g.20gb"))
            CHECK(c == 26.0 / 132 && m == 2.0 / 8);
        if (!strcmp(h->mig->profiles[i].name, "7g.80gb"))
            CHECK(c == 1 && m == 1);
    }
}

/* A slice slows a job only as far as its demand exceeds the slice: a 3g.40gb
 * of an A100-80GB has 42 of the 98 SMs of the 7g instance (3/7) and four of
 * eight memory slices (1/2). A job keeping a tenth of a whole card busy
 * (util 0.1) runs there as on the card: 100 s. At util 0.6 it needs more
 * than the slice: a compute-bound job takes 100 x 0.6 / (3/7) = 140 s, a
 * memory-bound one 100 x 0.6 / 0.5 = 120 s. Without util (a busy card) the
 * slice's own shares: 100 x 7/3 = 233.3 s and 200 s. Under mig and dynmig. */
static void mig_slice_follows_demand(void)
{
    static const char *const zero[] = {"create_s=0", "reconcile_s=0", "destroy_s=0", NULL};
    const char *cl = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"gpus\": 1, \"mig\": "
                     "\"all-3g.40gb\"}]}";
    static const struct {
        const char *util;
        int mb;
        double want_s;
    } cases[] = {{"0.1", 0, 100}, {"0.1", 1, 100}, {"0.6", 0, 140}, {"0.6", 1, 120}, {"", 0, 700.0 / 3}, {"", 1, 200}};
    for (int dyn = 0; dyn < 2; dyn++)
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            char trace[256];
            snprintf(trace, sizeof trace, "id,submit,duration,gpus,mig,mem_bound,util\nj,0,100,1,3g.40gb,%d,%s\n",
                     cases[k].mb, cases[k].util);
            tu_run r;
            memset(&r, 0, sizeof r);
            r.cfg.trace_path = tu_write_tmp(trace);
            r.cfg.policy = dyn ? "dynmig" : "mig";
            r.cfg.seed = 1;
            tu_add_sets(&r.cfg, dyn ? zero : NULL);
            CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cl), tu_catalog(), &r.err), 0);
            CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
            CHECK_EQ_INT(sim_run(&r.s), 0);
            CHECK_EQ_INT(r.s.completed, 1);
            CHECK_NEAR(gs_us_to_s(r.s.now), cases[k].want_s, 0, 1e-6);
            tu_run_free(&r);
        }
}

typedef struct waits {
    double *w;
} waits;

static void collect(void *ud, const job *j) { ((waits *)ud)->w[j->arrival_no] = gs_us_to_s(j->start_us - j->req.submit_us); }

/* M/M/c where it applies on other cards: (a) 8 H100s running compute-bound
 * jobs whose durations are given on the A100-80GB: every service time is
 * scaled by 312 / 989.4, so durations of mean 989.4 / 312 s make it M/M/8
 * with mean 1 s; (b) a mixed cluster of 4 H100 and 4 A100 whose jobs carry a
 * throughput table rating both alike: M/M/8 across card types. Each mean wait
 * within 4 batch-means standard errors of Erlang C at load 0.9. */
static void mmc_one(const char *gpus, const char *const *sets, double mean_s, const char *extra_col,
                    const char *extra_val, const char *what)
{
    const long jobs = 60000;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    wl_mmc_opts o = {.jobs = jobs, .servers = 8, .util = 0.9 * mean_s, .mean_s = mean_s, .gpus_per_job = 1, .seed = 15};
    gs_error err;
    CHECK_EQ_INT(wl_gen_mmc(mem, &o, &err), 0);
    fclose(mem);
    char *out = xmalloc(len + (size_t)jobs * (strlen(extra_val) + 2) + 64), *w = out;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        w += sprintf(w, "%s,%s\n", line, w == out ? extra_col : extra_val);
    free(buf);
    waits wt = {xcalloc((size_t)jobs, sizeof(double))};
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(out), gpus, 4, "whole", sets, collect, &wt), 0);
    free(out);
    CHECK_EQ_INT(r.s.completed, jobs);
    tu_run_free(&r);
    double se, mean = tu_batch_means(wt.w, jobs, &se);
    double a = 0.9 * 8, wq = tu_erlang_c(8, a) / (8 - a);
    printf("    %s: mean wait %.4f s (Erlang C %.4f, SE %.4f)\n", what, mean, wq, se);
    CHECK_NEAR(mean, wq, 0, 4 * se);
    free(wt.w);
}

static void mmc_scaled(void)
{
    static const char *const ref_a100[] = {"ref_gpu=A100-SXM4-80GB", NULL};
    mmc_one("H100-SXM5-80GB:8", ref_a100, 989.4 / 312, "mem_bound", "0", "M/M/8 on H100s, durations on A100");
    mmc_one("H100-SXM5-80GB:4,A100-SXM4-80GB:4", NULL, 1.0, "speedup", "H100-SXM5-80GB:1|A100-SXM4-80GB:1",
            "M/M/8 on 4 H100 + 4 A100 rated alike");
}

/* Bad names are input errors naming line and column; the report lists the
 * figures a run relied on, unverified ones marked. */
static void bad_names_and_report(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,ref_gpu\nj,0,1,1,Z80\n"), "L4-24GB:1", 8,
                              "whole", NULL, NULL, NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 2, column 5 ('ref_gpu')");
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,speedup\nj,0,1,1,L4-24GB=3\n"), "L4-24GB:1",
                              8, "whole", NULL, NULL, NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "column 5 ('speedup')");
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,speedup\nj,0,1,1,Z80:3\n"), "L4-24GB:1", 8,
                              "whole", NULL, NULL, NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "expected known GPU models");
    tu_run_free(&r);
    static const char *const bad_ref[] = {"ref_gpu=Z80", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus\nj,0,1,1\n"), "L4-24GB:1", 8, "whole",
                              bad_ref, NULL, NULL),
                 GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "parameter ref_gpu");
    tu_run_free(&r);
    static const char *const ref_h100[] = {"ref_gpu=H100-SXM5-80GB", NULL};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus\nj,0,1,1\n"), "T4-16GB:1", 8, "whole",
                              ref_h100, NULL, NULL),
                 0);
    cJSON *rep = cJSON_CreateObject();
    r.s.mod[0]->report(r.s.mst[0], &r.s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    CHECK_STR_HAS(txt, "\"model\":\"T4-16GB\",\"tensor_tflops\":65,\"mem_bw_gbps\":320,\"unverified\":[\"mem_bw_gbps\"]");
    CHECK_STR_HAS(txt, "\"model\":\"H100-SXM5-80GB\",\"tensor_tflops\":989.4,\"mem_bw_gbps\":3350,\"unverified\":[]");
    free(txt);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* The pair of names admitted last is taken as found (sim_hw.c hw_admit):
 * each row still gets its reference card, and a bad name after a good
 * pair is still an input error naming its line. */
static void admitted_pair_kept(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,ref_gpu,mem_bound\n"
                                               "a,0,1,1,A100-SXM4-80GB,0\nb,2,1,1,A100-SXM4-80GB,0\n"),
                              "H100-SXM5-80GB:1", 8, "whole", NULL, NULL, NULL),
                 0);
    cJSON *rep = cJSON_CreateObject();
    r.s.mod[0]->report(r.s.mst[0], &r.s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    CHECK_STR_HAS(txt, "\"placements\":2,\"placements_scaled\":2"); /* both on H100 against A100 */
    free(txt);
    cJSON_Delete(rep);
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,ref_gpu,speedup\n"
                                               "a,0,1,1,L4-24GB,L4-24GB:1\nb,1,1,1,Z80,L4-24GB:1\n"),
                              "L4-24GB:1", 8, "whole", NULL, NULL, NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 3, column 5 ('ref_gpu')");
    tu_run_free(&r);
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,ref_gpu,speedup\n"
                                               "a,0,1,1,L4-24GB,L4-24GB:1\nb,1,1,1,L4-24GB,L4-24GB=1\n"),
                              "L4-24GB:1", 8, "whole", NULL, NULL, NULL),
                 GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 3, column 6 ('speedup')");
    tu_run_free(&r);
}

/* a names A100 as its reference and runs on an H100 (faster than its 10
 * s); b, after it, gives only a checkpoint column and takes a's record
 * (untouched: not reset in full), yet has no reference of its own: 10 s. */
static void record_handed_on_drops_ref(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,ref_gpu,checkpoint_gib\n"
                                               "a,0,10,1,A100-SXM4-80GB,\nb,20,10,1,,5\n"),
                              "H100-SXM5-80GB:1", 8, "whole", NULL, NULL, NULL),
                 0);
    CHECK_EQ_INT(r.s.completed, 2);
    CHECK_NEAR(gs_us_to_s(r.s.now), 30, 0, 1e-6);
    tu_run_free(&r);
}

/* Starts on the run's reference card: a and b name it and a table that
 * lists it (b the pair admitted last: its admission's answer), c names
 * another reference through the same table (twice as fast: 5 s), d gives
 * only a checkpoint. Three starts by the table, one scaled. */
static void on_ref_card_by_admission(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,ref_gpu,speedup,checkpoint_gib\n"
                                               "a,0,10,1,H100-SXM5-80GB,H100-SXM5-80GB:1|A100-SXM4-80GB:0.5,\n"
                                               "b,0,10,1,H100-SXM5-80GB,H100-SXM5-80GB:1|A100-SXM4-80GB:0.5,\n"
                                               "c,0,10,1,A100-SXM4-80GB,H100-SXM5-80GB:1|A100-SXM4-80GB:0.5,\n"
                                               "d,0,10,1,,,3\n"),
                              "H100-SXM5-80GB:1", 8, "whole", NULL, NULL, NULL),
                 0);
    CHECK_NEAR(gs_us_to_s(r.s.now), 35, 0, 1e-6);
    cJSON *rep = cJSON_CreateObject();
    r.s.mod[0]->report(r.s.mst[0], &r.s, rep, SIM_REPORT_GPU);
    char *txt = cJSON_PrintUnformatted(rep);
    CHECK_STR_HAS(txt, "\"placements\":4,\"placements_scaled\":1,\"placements_by_speedup_table\":3");
    free(txt);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

const test_case tests_hw[] = {
    {"hw/roofline_tflops_and_bandwidth_ratios", roofline_ratios},
    {"hw/speedup_table_overrides", speedup_table},
    {"hw/speedup_kept_per_distinct_inputs", speedup_kept_per_inputs},
    {"hw/mig_1g10gb_runs_at_1_7_and_1_8", mig_slice_shares},
    {"hw/mig_slice_slows_only_demand_above_its_share", mig_slice_follows_demand},
    {"hw/mmc_scaled_service_times_erlang_c", mmc_scaled},
    {"hw/bad_names_and_figures_relied_on", bad_names_and_report},
    {"hw/admitted_pair_kept_bad_names_still_errors", admitted_pair_kept},
    {"hw/record_handed_on_drops_its_reference", record_handed_on_drops_ref},
    {"hw/on_ref_card_answered_at_admission", on_ref_card_by_admission},
    {NULL, NULL},
};
