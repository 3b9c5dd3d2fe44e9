/* test_owner.c - one owner per GPU: every holder of capacity (jobs, service
 * replicas, warm-pool sandboxes) gets it through the space policy, so no
 * card is ever booked twice, and one definition of a request's GPU memory
 * serves quotas, sharing and MIG.
 *
 * The audit wraps the run's space policy: after each of its calls it checks
 * that the allocated-GPU gauge never exceeds the cluster, that no node's CPU
 * or memory is over-committed, and, card by card, that the holders the
 * running jobs name agree with the ledger (under `whole` a card taken in the
 * ledger has exactly one holder; under the sharing policies a card is
 * taken in the ledger exactly while it has tenants, so the ledger's free
 * cards are the cards no work uses; under MIG a card named by a job is
 * taken).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_rng.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* {==== the audit ====} */

enum { KIND_WHOLE, KIND_SHARED, KIND_MIG };

static const pol_ops *audited;   /* the real space policy behind the wrapper */
static int audit_kind, audit_fail, audits;
static char audit_why[200];

static void flag(const sim *s, const char *why)
{
    if (!audit_fail)
        snprintf(audit_why, sizeof audit_why, "at %.6f s: %s", gs_us_to_s(s->now), why);
    audit_fail++;
}

/* Checks the books now; returns the number of problems found. */
static int audit_now(const sim *s)
{
    int before = audit_fail;
    char why[160];
    audits++;
    const sim_cluster *cl = s->cl;
    if (s->g_alloc.value > cl->ngpus + 1e-6 || s->g_alloc.value < -1e-6) {
        snprintf(why, sizeof why, "allocated %.4f GPUs of %d", s->g_alloc.value, cl->ngpus);
        flag(s, why);
    }
    int *holders = calloc((size_t)cl->ngpus + 1, sizeof *holders);
    uint32_t per_chunk = s->nchunks ? s->nslots / s->nchunks : 0;
    for (uint32_t c = 0; c < s->nchunks; c++)
        for (uint32_t i = 0; i < per_chunk; i++) {
            const job *j = &s->chunks[c][i];
            if (j->state != JOB_RUNNING)
                continue;
            for (int k = 0; k < job_gpus_held(j); k++) /* a job across nodes: every part's */
                if (job_gpu_ids(j)[k] >= 0 && job_gpu_ids(j)[k] < cl->ngpus)
                    holders[job_gpu_ids(j)[k]]++;
        }
    for (int n = 0; n < cl->nnodes; n++) {
        const sim_node *nd = &cl->nodes[n];
        if ((nd->cpu_total >= 0 && nd->cpu_used > nd->cpu_total + 1e-6) ||
            (nd->mem_total_gib >= 0 && nd->mem_used_gib > nd->mem_total_gib + 1e-6) || nd->free_gpus < 0 ||
            nd->free_gpus != __builtin_popcountll(nd->free_mask)) {
            char name[48];
            sim_cluster_node_name(cl, n, name, sizeof name);
            snprintf(why, sizeof why, "node %s over-committed (cpu %.2f/%.2f, mem %.2f/%.2f, free %d)", name,
                     nd->cpu_used, nd->cpu_total, nd->mem_used_gib, nd->mem_total_gib, nd->free_gpus);
            flag(s, why);
        }
        for (int k = 0; k < nd->ngpus; k++) {
            int g = nd->gpu0 + k;
            bool taken = !(nd->free_mask >> k & 1);
            bool bad = audit_kind == KIND_WHOLE    ? holders[g] > 1 || taken != (holders[g] == 1)
                       : audit_kind == KIND_SHARED ? taken != (holders[g] >= 1)
                                                   : holders[g] > 1 || (holders[g] == 1 && !taken);
            if (bad) {
                char name[48];
                sim_cluster_node_name(cl, n, name, sizeof name);
                snprintf(why, sizeof why, "GPU %d of node %s: %s in the ledger, %d holder(s)", g, name,
                         taken ? "taken" : "free", holders[g]);
                flag(s, why);
            }
        }
    }
    free(holders);
    return audit_fail - before;
}

static int w_init(sim *s, int index, void **state, gs_error *err) { return audited->init(s, index, state, err); }
static void w_fini(void *state) { audited->fini(state); }
static bool w_place(void *st, sim *s, job *j)
{
    bool r = audited->space->place(st, s, j);
    audit_now(s);
    return r;
}
static void w_unplace(void *st, sim *s, job *j)
{
    audited->space->unplace(st, s, j);
    audit_now(s);
}
static void w_timer(void *st, sim *s, job *j, uint32_t tag)
{
    if (audited->timer)
        audited->timer(st, s, j, tag);
    audit_now(s);
}
static void w_report(const void *st, const sim *s, cJSON *root)
{
    if (audited->report)
        audited->report(st, s, root);
}
static job *w_dispatch_held(void *st, sim *s)
{
    job *j = audited->space->dispatch_held(st, s);
    audit_now(s);
    return j;
}

/* The registry of a run: the wrapped space policy under its own name (every
 * placement and release audited: the core runs the queue through them),
 * then the shipped time policies. */
static const pol_ops *const *audit_registry(const pol_ops *space)
{
    static pol_ops w;
    static pol_space ws;
    static const pol_ops *reg[16];
    audited = space;
    ws = *space->space; /* caps and the dry runs: the real one's */
    ws.place = w_place;
    ws.unplace = w_unplace;
    ws.dispatch_held = space->space->dispatch_held ? w_dispatch_held : NULL;
    w = *space; /* name, kind, params: the real one's */
    w.init = w_init;
    w.fini = w_fini;
    w.timer = w_timer;
    w.report = w_report;
    w.space = &ws;
    int n = 0;
    reg[n++] = &w;
    for (const pol_ops *const *p = pol_all(); *p; p++)
        if ((*p)->kind == POL_TIME)
            reg[n++] = *p;
    reg[n] = NULL;
    return reg;
}

/* {==== runs ====} */

static cJSON *run_spec(tu_run *r, const char *trace, const char *cluster, const char *policy,
                       const char *const *sets, const pol_ops *const *reg)
{
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = policy;
    r->cfg.seed = 3;
    r->cfg.registry = reg;
    tu_add_sets(&r->cfg, sets);
    if (cluster[0] == '{')
        r->rc = sim_cluster_load(&r->cl, tu_write_tmp(cluster), tu_catalog(), &r->err);
    else
        r->rc = sim_cluster_from_spec(&r->cl, cluster, 8, tu_catalog(), &r->err);
    if (r->rc == 0)
        r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err);
    if (r->rc == 0)
        r->rc = sim_run(&r->s);
    if (r->rc) {
        printf("    %s: %s\n", policy, r->rc == r->s.err.code && r->s.err.code ? r->s.err.msg : r->err.msg);
        return NULL;
    }
    return sim_report_build(&r->s, 0, 0);
}

static double num(const cJSON *rep, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(rep, a);
    if (b)
        o = cJSON_GetObjectItemCaseSensitive(o, b);
    return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}

/* The double allocation: vgpu kept its own cards while the hibernate warm
 * pool took GPUs straight from the ledger, so a 2-GPU pool sandbox on a
 * 2-GPU cluster and the jobs vgpu placed on the same cards added up to 2x
 * the cluster (alloc_ratio 1.76, peak_alloc 4 on the agents example). Now
 * the sandbox is a task vgpu places: the pool holds both cards and nothing
 * else fits on them. */
static void warm_pool_no_double_allocation(void)
{
    static const char *const sets[] = {"warm_pool=1", "pool_gpus=2", NULL};
    for (int k = 0; k < 3; k++) {
        static const char *const spaces[] = {"vgpu", "whole", "timeslice"};
        char pol[32];
        snprintf(pol, sizeof pol, "%s+hibernate", spaces[k]);
        tu_run r;
        memset(&r, 0, sizeof r);
        r.cfg.trace_path = "workloads/examples/agents.csv";
        r.cfg.policy = pol;
        r.cfg.seed = 1;
        tu_add_sets(&r.cfg, sets);
        CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:2", 8, tu_catalog(), &r.err), 0);
        CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
        CHECK_EQ_INT(sim_run(&r.s), 0);
        cJSON *rep = sim_report_build(&r.s, 0, 0);
        printf("    %s: alloc_ratio %.4f, peak_alloc %.0f\n", pol, num(rep, "gpu", "alloc_ratio"),
               num(rep, "gpu", "peak_alloc"));
        CHECK(num(rep, "gpu", "alloc_ratio") <= 1 + 1e-9);
        CHECK(num(rep, "gpu", "peak_alloc") <= 2 + 1e-9);
        CHECK(num(rep, "gpu", "peak_alloc") >= 2 - 1e-9); /* the pool does hold both cards */
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* A GPU job next to a 1-GPU warm-pool sandbox on 2 cards: under vgpu the
 * job asking for 2 whole cards waits while the sandbox holds one, and the
 * pool's card is never also given to a job. */
static void warm_pool_card_is_taken(void)
{
    const char *tr = "id,submit,duration,gpus,kind\n"
                     "big,10,100,2,job\n"
                     "one,20,100,1,job\n";
    static const char *const sets[] = {"warm_pool=1", "pool_gpus=1", NULL};
    tu_run r;
    cJSON *rep = run_spec(&r, tr, "H100-SXM5-80GB:2", "vgpu+hibernate", sets, NULL);
    CHECK(rep != NULL);
    if (rep) {
        CHECK_EQ_INT((int)num(rep, "jobs", "completed"), 1); /* "one" on the free card */
        CHECK_EQ_INT((int)num(rep, "jobs", "queued"), 1);    /* "big" never fits beside the sandbox */
        CHECK(num(rep, "gpu", "peak_alloc") <= 2 + 1e-9);
        cJSON_Delete(rep);
    }
    tu_run_free(&r);
}

/* gpumem_pct=25 on an 80 GB card is 20 GiB for a tenant quota, as vgpu
 * admits it (it was charged a whole card: the cap of 40 GiB made every
 * such task unplaceable). Three tasks, cap 40 GiB: two at a time. */
static void quota_counts_gpumem_pct(void)
{
    const char *tr = "id,submit,duration,gpus,gpumem_pct,tenant\n"
                     "a,0,100,1,25,t\n"
                     "b,0,100,1,25,t\n"
                     "c,0,100,1,25,t\n";
    const char *cl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 1, \"gpus\": 4}], "
                     "\"tenants\": [{\"name\": \"t\", \"gpu_mem_gib\": 40}]}";
    double card_gib = (double)gpu_catalog_find(tu_catalog(), "H100-SXM5-80GB")->memory_mib / 1024.0;
    tu_run r;
    cJSON *rep = run_spec(&r, tr, cl, "vgpu", NULL, NULL);
    CHECK(rep != NULL);
    if (rep) {
        const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "tenants"), 0);
        double peak = cJSON_GetObjectItemCaseSensitive(t, "peak_gpu_mem_gib")->valuedouble;
        const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(rep, "jobs");
        printf("    peak %.2f GiB of 40, completed %.0f, jct max %.0f s\n", peak, num(rep, "jobs", "completed"),
               num(jobs, "jct_s", "max"));
        CHECK_EQ_INT((int)num(rep, "jobs", "completed"), 3);
        CHECK_EQ_INT((int)num(rep, "jobs", "rejected"), 0);
        CHECK_NEAR(peak, 2 * floor(card_gib * 1024 * 25 / 100) / 1024, 1e-9, 0); /* two quarters at once */
        CHECK_NEAR(num(jobs, "jct_s", "max"), 200, 1e-9, 0);                     /* the third waits for one */
        cJSON_Delete(rep);
    }
    tu_run_free(&r);
}

/* {==== the randomized audit ====} */

/* A mixed trace: jobs (whole, gpumem, gpumem_pct, MIG-sized), agent
 * sessions with bursts, and two services with generated traffic; rows are
 * made out of order (a session's bursts come later) and sorted by submit. */
typedef struct row {
    double at;
    int seq;
    char text[128];
} row;

static int row_cmp(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    return a->at < b->at ? -1 : a->at > b->at ? 1 : a->seq - b->seq;
}

static char *random_trace(uint64_t seed)
{
    gsl_rng *g = gs_rng_new(seed, 21);
    row *rows = xcalloc(1024, sizeof *rows);
    int nr = 0;
#define ROW(t, ...) (rows[nr].at = (t), rows[nr].seq = nr, snprintf(rows[nr].text, sizeof rows[nr].text, __VA_ARGS__), nr++)
    ROW(0, "svcA,0,3000,1,service,,,,,,0,2,16,0.05,500");
    ROW(0, "svcB,0,3000,1,service,,,,,,1,2,40,0.02,800");
    double at = 1;
    int nsess = 0;
    for (int i = 0; i < 160; i++) {
        at += gsl_rng_uniform(g) * 15;
        double u = gsl_rng_uniform(g), dur = 20 + gsl_rng_uniform(g) * 300;
        if (u < 0.15) { /* a session of 0 or 1 GPU and a few bursts */
            int id = nsess++;
            ROW(at, "s%d,%.3f,%.3f,%d,session,,,2,4,,,,,,", id, at, dur * 3, gsl_rng_uniform(g) < 0.5);
            for (int b = 0; b < 3; b++)
                ROW(at + b * dur, "s%d.b%d,%.3f,%.3f,,burst,,,,,s%d,,,,,", id, b, at + b * dur,
                    5 + gsl_rng_uniform(g) * 20, id);
        } else if (u < 0.45) {
            ROW(at, "j%d,%.3f,%.3f,%d,job,,,4,16,,,,,,", i, at, dur, 1 + (int)(gsl_rng_uniform(g) * 2));
        } else if (u < 0.75) {
            static const int mem[] = {5000, 10000, 20000, 40000};
            ROW(at, "j%d,%.3f,%.3f,1,job,%d,,2,8,,,,,,", i, at, dur, mem[(int)(gsl_rng_uniform(g) * 4)]);
        } else {
            static const int pct[] = {10, 25, 50};
            ROW(at, "j%d,%.3f,%.3f,1,job,,%d,2,8,,,,,,", i, at, dur, pct[(int)(gsl_rng_uniform(g) * 3)]);
        }
    }
#undef ROW
    gs_rng_free(g);
    qsort(rows, (size_t)nr, sizeof *rows, row_cmp);
    size_t cap = (size_t)nr * 130 + 256, n = 0;
    char *t = xmalloc(cap);
    n += (size_t)snprintf(t + n, cap - n, "id,submit,duration,gpus,kind,gpumem,gpumem_pct,cpu,mem_gib,session,"
                                          "replicas_min,replicas_max,weights_gib,rate,svc_mean_ms\n");
    for (int i = 0; i < nr; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s\n", rows[i].text);
    free(rows);
    return t;
}

/* Every space policy with no time policy, with hibernate (a warm pool of
 * GPU sandboxes) and with dualpod, on a cluster of whole and MIG A100s:
 * the books agree after every call of the space policy. */
static void audit_every_space_and_time_policy(void)
{
    static const char *const spaces[] = {"whole", "vgpu", "timeslice", "mig", "dynmig"};
    static const char *const times[] = {"", "+hibernate", "+dualpod"};
    const char *cl = "{\"nodes\": ["
                     "{\"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 4, \"cpu\": 64, \"mem_gib\": 256},"
                     "{\"model\": \"A100-SXM4-80GB\", \"count\": 1, \"gpus\": 4, \"cpu\": 64, \"mem_gib\": 256, "
                     "\"mig\": [{\"profile\": \"3g.40gb\", \"start\": 0}, {\"profile\": \"2g.20gb\", \"start\": 4}, "
                     "{\"profile\": \"1g.10gb\", \"start\": 6}]}]}";
    static const char *const sets[] = {"warm_pool=2", "pool_gpus=1", "pause_after=60", "probe_period=10",
                                       "svc_idle_s=20", NULL};
    static const char *const sets_dp[] = {"svc_idle_s=20", NULL};
    static const char *const sets_none[] = {"svc_idle_s=20", NULL};
    for (int seed = 1; seed <= 2; seed++) {
        char *tr = random_trace((uint64_t)seed);
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 3; b++) {
                char pol[48];
                snprintf(pol, sizeof pol, "%s%s", spaces[a], times[b]);
                audit_kind = a == 0 ? KIND_WHOLE : a <= 2 ? KIND_SHARED : KIND_MIG;
                audit_fail = audits = 0;
                audit_why[0] = 0;
                tu_run r;
                cJSON *rep = run_spec(&r, tr, cl, pol, b == 1 ? sets : b == 2 ? sets_dp : sets_none,
                                      audit_registry(pol_find(spaces[a])));
                CHECK(rep != NULL);
                if (audit_fail)
                    printf("    %s seed %d: %d problems in %d audits, first %s\n", pol, seed, audit_fail, audits,
                           audit_why);
                CHECK_EQ_INT(audit_fail, 0);
                CHECK(audits > 100);
                if (rep) {
                    CHECK(num(rep, "gpu", "alloc_ratio") <= 1 + 1e-9);
                    CHECK(num(rep, "gpu", "peak_alloc") <= 12 + 1e-9);
                    CHECK(num(rep, "jobs", "completed") > 50);
                    cJSON_Delete(rep);
                }
                tu_run_free(&r);
            }
        free(tr);
    }
}

/* The audit is not blind: a GPU taken from the ledger behind the space
 * policy's back (as the warm pool used to) is caught at once. */
static void audit_catches_a_second_owner(void)
{
    const char *tr = "id,submit,duration,gpus\nj,0,100,1\n";
    static const char *const kinds[] = {"whole", "vgpu"};
    for (int k = 0; k < 2; k++) {
        audit_kind = k == 0 ? KIND_WHOLE : KIND_SHARED;
        tu_run r;
        memset(&r, 0, sizeof r);
        r.cfg.trace_path = tu_write_tmp(tr);
        r.cfg.policy = kinds[k];
        r.cfg.seed = 1;
        r.cfg.registry = audit_registry(pol_find(kinds[k]));
        CHECK_EQ_INT(sim_cluster_from_spec(&r.cl, "H100-SXM5-80GB:2", 8, tu_catalog(), &r.err), 0);
        CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
        audit_fail = 0;
        CHECK_EQ_INT(audit_now(&r.s), 0);
        int ids[1];
        sim_cluster_take(&r.cl, 0, 1, 0, 0, ids); /* a second owner */
        CHECK(audit_now(&r.s) > 0);
        sim_cluster_give(&r.cl, 0, ids, 1, 0, 0);
        audit_fail = 0;
        tu_run_free(&r);
    }
}

const test_case tests_owner[] = {
    {"owner/warm_pool_no_double_allocation", warm_pool_no_double_allocation},
    {"owner/warm_pool_card_is_taken", warm_pool_card_is_taken},
    {"owner/quota_counts_gpumem_pct", quota_counts_gpumem_pct},
    {"owner/audit_catches_a_second_owner", audit_catches_a_second_owner},
    {"owner/audit_every_space_and_time_policy", audit_every_space_and_time_policy},
    {NULL, NULL},
};
