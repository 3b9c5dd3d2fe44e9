/* test_gang_policies.c - jobs across nodes under the sharing and MIG
 * policies: a gang takes whole cards no tenant uses, as under whole, and
 * while it holds them no tenant joins them; under mig and dynmig it takes
 * the cards without MIG and, on a cluster of MIG cards only, is rejected
 * with that reason; the policies' own reasons for requests that never fit.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

typedef struct rec {
    int n;
    char id[16][16];
    double start_s[16], end_s[16];
    int nodes[16][8], nparts[16], card0[16];
    const sim *s;
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    if (r->n >= 16)
        return;
    int i = r->n++;
    snprintf(r->id[i], 16, "%.15s", j->req.id);
    r->start_s[i] = gs_us_to_s(j->start_us);
    r->end_s[i] = gs_us_to_s(sim_now(r->s));
    r->nparts[i] = job_spans(j) ? j->gpu.span->nparts : 1;
    for (int k = 0; k < r->nparts[i] && k < 8; k++)
        r->nodes[i][k] = job_spans(j) ? j->gpu.span->part[k].node : j->node;
    r->card0[i] = job_gpus_held(j) > 0 ? job_gpu_ids(j)[0] : -1;
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

/* Runs trace on cluster (a --gpus spec, or JSON text starting with '{');
 * the report (caller frees). */
static cJSON *run(const char *policy, const char *cluster, const char *trace, rec *rc)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    memset(rc, 0, sizeof *rc);
    r.cfg.trace_path = tu_write_tmp(trace);
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    if (cluster[0] == '{')
        r.rc = sim_cluster_load(&r.cl, tu_write_tmp(cluster), tu_catalog(), &r.err);
    else
        r.rc = sim_cluster_from_spec(&r.cl, cluster, 8, tu_catalog(), &r.err);
    if (r.rc == 0)
        r.rc = tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err);
    rc->s = &r.s;
    if (r.rc == 0) {
        sim_observe(&r.s, &(sim_observer){.job_done = record, .job_done_ud = rc});
        r.rc = sim_run(&r.s);
    }
    CHECK_EQ_INT(r.rc, 0);
    cJSON *rep = r.rc == 0 ? sim_report_build(&r.s, 0, 0) : NULL;
    tu_run_free(&r);
    return rep;
}

/* Three nodes of 8. t (10 GiB, half a card's time) joins card 0 of node 0 at
 * 0; the gang G (16) at 1 finds two nodes without a tenant (1 and 2) and
 * starts at once; u (another share) at 2 joins a card of node 0, not one
 * of G's; H (16) at 3 waits for G: node 0 has a tenant. G ends at 101, H
 * starts then. The same under vgpu, timeslice and mps. */
static void sharing_policies_keep_gang_cards_whole(void)
{
    const char *trace = "id,submit,duration,gpus,gpumem,util\nt,0,1000,1,10240,0.5\nG,1,100,16,,\nu,2,1000,1,10240,0.5\n"
                        "H,3,100,16,,\n";
    static const char *const pols[] = {"vgpu", "timeslice", "mps"};
    for (size_t p = 0; p < sizeof pols / sizeof *pols; p++) {
        static rec rc;
        cJSON *rep = run(pols[p], "H100-SXM5-80GB:24", trace, &rc);
        if (!rep)
            continue;
        int g = find(&rc, "G"), h = find(&rc, "H"), u = find(&rc, "u");
        CHECK(g >= 0 && h >= 0 && u >= 0);
        if (g < 0 || h < 0 || u < 0) {
            cJSON_Delete(rep);
            continue;
        }
        CHECK_NEAR(rc.start_s[g], 1, 0, 1e-9);
        CHECK(rc.nparts[g] == 2 && rc.nodes[g][0] == 1 && rc.nodes[g][1] == 2);
        CHECK_EQ_INT(rc.nodes[u][0], 0); /* a tenant never joins a gang's card */
        CHECK_NEAR(rc.start_s[h], 101, 0, 1e-9);
        if (rc.start_s[h] != 101 || rc.nodes[u][0] != 0)
            printf("    %s: H starts at %g, u on node %d\n", pols[p], rc.start_s[h], rc.nodes[u][0]);
        cJSON_Delete(rep);
    }
}

/* A node group with MIG and one without: a gang takes the cards without
 * MIG (nodes 2, 3); on a cluster whose every card has MIG it is rejected,
 * the reason naming the whole cards. */
static void mig_policies_use_cards_without_mig(void)
{
    const char *mixed = "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 8, \"mig\": \"all-1g.10gb\"},"
                        " {\"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 8}]}";
    const char *all = "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"count\": 4, \"gpus\": 8, \"mig\": \"all-1g.10gb\"}]}";
    const char *trace = "id,submit,duration,gpus,mig\nm,0,100,1,1g.10gb\nG,1,100,16,\n";
    static const char *const pols[] = {"mig", "dynmig"};
    for (size_t p = 0; p < 2; p++) {
        static rec rc;
        const char *cl = p == 1 ? "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 8, \"mig\": "
                                  "\"dynamic\"}, {\"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 8}]}"
                                : mixed;
        cJSON *rep = run(pols[p], cl, trace, &rc);
        if (!rep)
            continue;
        int g = find(&rc, "G");
        CHECK(g >= 0 && rc.nparts[g] == 2 && rc.nodes[g][0] == 2 && rc.nodes[g][1] == 3);
        CHECK_NEAR(rc.start_s[g], 1, 0, 1e-9);
        cJSON_Delete(rep);
        const char *cl_all = p == 1 ? "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"count\": 4, \"gpus\": 8, \"mig\": "
                                      "\"dynamic\"}]}"
                                    : all;
        rep = run(pols[p], cl_all, trace, &rc);
        if (!rep)
            continue;
        const cJSON *rr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"),
                                                           "rejected_reasons"), *e;
        int seen = 0;
        cJSON_ArrayForEach(e, rr)
        {
            CHECK_STR_HAS(e->string, "needs 16 GPUs, the cluster has 0 whole A100-SXM4-80GB cards");
            seen++;
        }
        CHECK_EQ_INT(seen, 1);
        cJSON_Delete(rep);
    }
}

/* The policies' own reasons: an mps client over its memory limit; a MIG
 * profile no card offers; a vGPU asking more memory than a card admits. */
static void policy_reasons(void)
{
    static rec rc;
    struct {
        const char *policy, *cluster, *trace, *want;
    } cases[] = {
        {"mps", "H100-SXM5-80GB:8", "id,submit,duration,gpus,gpumem\na,0,10,1,40960\n",
         "an MPS client of a H100-SXM5-80GB is limited to 20389"},
        {"mig", "{\"nodes\": [{\"model\": \"A100-SXM4-80GB\", \"count\": 1, \"gpus\": 8, \"mig\": \"all-1g.10gb\"}]}",
         "id,submit,duration,gpus,mig\na,0,10,1,3g.40gb\n", "MIG profile 3g.40gb: no MIG card of its models offers it"},
        {"vgpu", "H100-SXM5-80GB:8", "id,submit,duration,gpus,gpumem\na,0,10,1,900000\n",
         "asks 900000 MiB per GPU, a H100-SXM5-80GB admits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *rep = run(cases[i].policy, cases[i].cluster, cases[i].trace, &rc);
        if (!rep)
            continue;
        const cJSON *rr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"),
                                                           "rejected_reasons");
        const cJSON *e = rr ? rr->child : NULL;
        CHECK(e != NULL);
        if (e)
            CHECK_STR_HAS(e->string, cases[i].want);
        cJSON_Delete(rep);
    }
}

const test_case tests_gang_policies[] = {
    {"gang_policies/sharing_policies_keep_gang_cards_whole", sharing_policies_keep_gang_cards_whole},
    {"gang_policies/mig_policies_use_cards_without_mig", mig_policies_use_cards_without_mig},
    {"gang_policies/policy_reasons", policy_reasons},
    {NULL, NULL},
};
