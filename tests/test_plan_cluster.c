/* test_plan_cluster.c - what `plan` builds its candidates from: cluster
 * templates (counts that scale with N, instances the cluster loader
 * accepts, per-group prices in the report) and the feasibility check (each
 * reason a row can never be served, and rows that can).
 * SPDX-License-Identifier: MIT */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cluster_template.h"
#include "../cli/plan_feasible.h"
#include "../sim/sim_cluster.h"
#include "check.h"
#include "testutil.h"

static const char *const quarter_mig =
    "{\"name\": \"q\", \"nodes\": ["
    "{\"name\": \"h\", \"model\": \"H100-SXM5-80GB\", \"count\": \"N*3/4\", \"gpus\": 8, \"cpu\": 192, \"mem_gib\": 2048},"
    "{\"name\": \"m\", \"model\": \"H100-SXM5-80GB\", \"count\": \"N / 4\", \"gpus\": 8, \"cpu\": 192, \"mig\": \"all-1g.10gb\","
    " \"price_per_gpu_hour_usd\": 3},"
    "{\"name\": \"login\", \"model\": \"L4-24GB\", \"count\": 2, \"gpus\": 1, \"cpu\": 16, \"mem_gib\": 64}]}";

static void template_counts(void)
{
    cluster_template t;
    gs_error err;
    CHECK_EQ_INT(cluster_template_load(&t, tu_write_tmp(quarter_mig), &err), 0);
    /* ceil(3N/4) and ceil(N/4): the quarter holds at multiples of 4 */
    static const long n[] = {1, 2, 3, 4, 5, 8, 100};
    static const long whole[] = {1, 2, 3, 3, 4, 6, 75}, mig[] = {1, 1, 1, 1, 2, 2, 25};
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(cluster_template_count(&t, 0, n[i]), whole[i]);
        CHECK_EQ_INT(cluster_template_count(&t, 1, n[i]), mig[i]);
        CHECK_EQ_INT(cluster_template_count(&t, 2, n[i]), 2); /* fixed */
    }
    /* the instance at N=8 is a cluster file the loader takes, MIG key and price kept */
    cJSON *inst = cluster_template_instance(&t, 8);
    sim_cluster c;
    CHECK_EQ_INT(sim_cluster_from_json(&c, inst, "inst", tu_catalog(), &err), 0);
    CHECK_EQ_INT(c.nnodes, 6 + 2 + 2);
    CHECK_EQ_INT(c.ngpus, 64 + 2);
    CHECK(sim_cluster_node_mig(&c, 6) != NULL && sim_cluster_node_mig(&c, 0) == NULL);
    CHECK_NEAR(c.group_price[1], 3, 0, 0);
    CHECK(c.group_price[0] < 0);
    CHECK_STR_HAS(c.name, "q.N8");
    sim_cluster_free(&c);
    cJSON_Delete(inst);
    cluster_template_free(&t);
}

static void template_errors(void)
{
    cluster_template t;
    gs_error err;
    const char *bad_count = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": \"M/2\", \"gpus\": 8}]}";
    CHECK_EQ_INT(cluster_template_load(&t, tu_write_tmp(bad_count), &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "nodes[0].count 'M/2'");
    cluster_template_free(&t);
    const char *fixed = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 2, \"gpus\": 8}]}";
    CHECK_EQ_INT(cluster_template_load(&t, tu_write_tmp(fixed), &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "no node group scales");
    cluster_template_free(&t);
    const char *zero = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": \"N*0\", \"gpus\": 8}]}";
    CHECK_EQ_INT(cluster_template_load(&t, tu_write_tmp(zero), &err), GS_EINPUT);
    cluster_template_free(&t);
    /* a cluster file with a scaling count says what it is */
    sim_cluster c;
    const char *tpl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": \"N\", \"gpus\": 8}]}";
    CHECK_EQ_INT(sim_cluster_load(&c, tu_write_tmp(tpl), tu_catalog(), &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "cluster template");
    const char *price = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8, \"price_per_gpu_hour_usd\": -1}]}";
    CHECK_EQ_INT(sim_cluster_load(&c, tu_write_tmp(price), tu_catalog(), &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "price_per_gpu_hour_usd");
}

/* A policy record's answer for a test: a task gets its request up to a
 * 20000 MiB share, nothing above it (an MPS client's limit). */
static double client_share(const void *state, const gpu_model *m, const job_req *r)
{
    (void)state;
    int64_t want = job_req_gpumem_mib(r, (int64_t)m->memory_mib);
    return want > 20000 ? 0 : 20000;
}

/* one row per reason, then rows that fit; the unit is the candidate at scale 1 */
static void feasibility_reasons(void)
{
    const char *trace =
        "id,submit,duration,gpus,kind,gpu_model,mig,cpu,mem_gib,gpumem,weights_gib\n"
        "pinned,0,10,1,job,A100-SXM4-80GB,,,,,\n"  /* gpu_model excludes H100 */
        "prof,1,10,1,job,,1g.5gb,,,,\n"              /* H100 has no 1g.5gb */
        "wide,2,,16,service,,,,,,\n"                 /* a replica of 16 GPUs, nodes of 8 (a job spans nodes) */
        "fat,3,10,1,session,,,300,,,\n"              /* 300 cores, nodes of 192 */
        "mem,4,10,1,job,,,,,90000,\n"                /* 90000 MiB per GPU */
        "llm,5,,1,service,,,,,,200\n"                /* 200 GiB of weights on one card */
        "ok1,6,10,8,job,H100-SXM5-80GB,1g.10gb,8,64,40000,\n"
        "ok2,7,,2,service,,,,,,100\n";
    const char *path = tu_write_tmp(trace);
    cluster_template t;
    gs_error err;
    CHECK_EQ_INT(cluster_template_load(&t, tu_write_tmp(quarter_mig), &err), 0);
    cJSON *inst = cluster_template_instance(&t, 1);
    sim_cluster c;
    CHECK_EQ_INT(sim_cluster_from_json(&c, inst, "inst", tu_catalog(), &err), 0);
    plan_feasibility f;
    CHECK_EQ_INT(plan_feasible_check(&c, tu_catalog(), path, true, false, NULL, &f, &err), 0);
    CHECK_EQ_INT(f.rows, 8);
    CHECK_EQ_INT(f.bad, 6);
    for (int k = 0; k < PF_NKINDS; k++) /* without a policy's answer, whole cards: no policy reason */
        CHECK_EQ_INT(f.by_kind[k], k == PF_POLICY_MEMORY ? 0 : 1);
    CHECK_EQ_INT(f.nex, 6);
    CHECK_STR_HAS(f.ex[0].id, "pinned");
    CHECK_STR_HAS(f.ex[2].why, "needs 16 GPUs on one node; the largest node has 8");
    CHECK_EQ_INT(f.ex[5].line, 7);
    /* not a MIG policy: a named profile is whole-card work, no reason */
    CHECK_EQ_INT(plan_feasible_check(&c, tu_catalog(), path, false, false, NULL, &f, &err), 0);
    CHECK_EQ_INT(f.bad, 5);
    CHECK_EQ_INT(f.by_kind[PF_MIG_PROFILE], 0);
    /* a policy that gives a task at most 20000 MiB a card (an MPS client's share): the 40000 MiB row
     * and the 100 GiB service on two cards cannot be served either, and the 200 GiB service's reason
     * is now the policy's */
    plan_policy_ask ask = {client_share, NULL, "mps"};
    CHECK_EQ_INT(plan_feasible_check(&c, tu_catalog(), path, false, false, &ask, &f, &err), 0);
    CHECK_EQ_INT(f.by_kind[PF_POLICY_MEMORY], 3);
    CHECK_EQ_INT(f.by_kind[PF_WEIGHTS], 0);
    CHECK_EQ_INT(f.bad, 7);
    sim_cluster_free(&c);
    cJSON_Delete(inst);
    cluster_template_free(&t);
    /* --gpu with --mig: the same profile check sees the MIG cards */
    CHECK_EQ_INT(sim_cluster_from_spec(&c, "H100-SXM5-80GB:8", 8, tu_catalog(), &err), 0);
    CHECK_EQ_INT(plan_feasible_check(&c, tu_catalog(), tu_write_tmp("id,submit,duration,gpus,mig\na,0,1,1,1g.10gb\n"),
                                     true, false, NULL, &f, &err), 0);
    CHECK_EQ_INT(f.by_kind[PF_MIG_PROFILE], 1);
    CHECK_EQ_INT(sim_cluster_set_mig(&c, "dynamic", &err), 0);
    CHECK_EQ_INT(plan_feasible_check(&c, tu_catalog(), tu_write_tmp("id,submit,duration,gpus,mig\na,0,1,1,1g.10gb\n"),
                                     true, false, NULL, &f, &err), 0);
    CHECK_EQ_INT(f.bad, 0);
    sim_cluster_free(&c);
    CHECK_EQ_INT(sim_cluster_from_spec(&c, "L40S-48GB:8", 8, tu_catalog(), &err), 0);
    CHECK_EQ_INT(sim_cluster_set_mig(&c, "dynamic", &err), GS_EUSAGE); /* L40S has no MIG */
    sim_cluster_free(&c);
}

const test_case tests_plan_cluster[] = {
    {"plan_cluster/template_counts_scale_and_load", template_counts},
    {"plan_cluster/template_errors", template_errors},
    {"plan_cluster/feasibility_reasons", feasibility_reasons},
    {NULL, NULL},
};
