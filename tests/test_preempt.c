/* test_preempt.c - priorities, quotas, preemption and checkpoint costs (the
 * core's sim_preempt.c under policy `whole`) on hand-computed timelines, plus
 * a randomized check that quotas are never exceeded.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_report.h"
#include <gsl/gsl_rng.h>

#include "../base/gs_rng.h"
#include "check.h"
#include "testutil.h"

#define MAXJ 512

typedef struct rec {
    int n;
    char id[MAXJ][16];
    char tenant[MAXJ][16];
    double first_start_s[MAXJ], end_s[MAXJ];
    int gpus[MAXJ], starts[MAXJ];
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    if (r->n >= MAXJ)
        return;
    snprintf(r->id[r->n], 16, "%.15s", j->req.id);
    snprintf(r->tenant[r->n], 16, "%.15s", j->req.tenant);
    r->first_start_s[r->n] = gs_us_to_s(j->start_us);
    r->end_s[r->n] = -1; /* filled by the caller's clock below */
    r->gpus[r->n] = j->req.gpus;
    r->starts[r->n] = (int)j->starts;
    r->n++;
}

/* on_done runs at the completion instant: the clock is the end time. */
static sim *cur_sim;
static void record_end(void *ud, const job *j)
{
    rec *r = ud;
    record(ud, j);
    if (r->n <= MAXJ)
        r->end_s[r->n - 1] = gs_us_to_s(sim_now(cur_sim));
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

/* Runs trace text on a cluster (--gpus spec, or cluster JSON text when it
 * starts with '{') with sets; fills rec; returns the report (caller frees). */
static cJSON *run(tu_run *r, const char *trace, const char *cluster, const char *const *sets, rec *rc)
{
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = "whole";
    r->cfg.seed = 1;
    for (int i = 0; sets && sets[i]; i++) {
        char *kv = xstrdup(sets[i]), *eq = strchr(kv, '=');
        *eq = 0;
        r->cfg.sets[r->cfg.nsets].key = kv;
        r->cfg.sets[r->cfg.nsets++].value = eq + 1;
    }
    if (cluster[0] == '{')
        r->rc = sim_cluster_load(&r->cl, tu_write_tmp(cluster), tu_catalog(), &r->err);
    else
        r->rc = sim_cluster_from_spec(&r->cl, cluster, 8, tu_catalog(), &r->err);
    if (r->rc == 0)
        r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err);
    if (r->rc)
        return NULL;
    cur_sim = &r->s;
    sim_observe(&r->s, &(sim_observer){.job_done = record_end, .job_done_ud = rc});
    if ((r->rc = sim_run(&r->s)) != 0) {
        r->err = r->s.err;
        return NULL;
    }
    return sim_report_build(&r->s, 0, 0);
}

static double jnum(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : -1e300;
}

/* 40e9 bytes exactly: 20 s to write at 2 GB/s, 10 s to read at 4 GB/s. */
#define CKPT "37.252902984619140625"
static const char *const base_sets[] = {"preempt=on", "min_runtime=100", "checkpoint_every=60", "ckpt_write_gbps=2",
                                        "ckpt_read_gbps=4", "grace_period=30", NULL};

/* One node of 8. V (8 GPUs, 1000 s, preemptible, priority 0) starts at 0.
 * H (8 GPUs, 50 s, priority 10) arrives at 150: V has run 150 >= 100, so it
 * is a victim. It stops at 150 with 850 s of work left and writes its
 * checkpoint there; V holds its cards for grace 30 + write 20 = 50 s: H
 * starts at 200, ends at 250. The write completed, so it is the resume point:
 * nothing is lost. V is requeued with 850 + 10 (read) = 860 s, restarts at
 * 250 and ends at 1110. Checkpoint GPU-hours: write 20 s x 8, read 10 s x 8. */
static void hand_timeline(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,8,0,1," CKPT "\nH,150,50,8,10,0,\n",
                     "H100-SXM5-80GB:8", base_sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    int h = find(&rc, "H"), v = find(&rc, "V");
    CHECK_NEAR(rc.first_start_s[h], 200, 0, 1e-9);
    CHECK_NEAR(rc.end_s[h], 250, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[v], 0, 0, 1e-9);
    CHECK_EQ_INT(rc.starts[v], 2);
    CHECK_NEAR(rc.end_s[v], 1110, 0, 1e-6);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(rep, "preemption");
    CHECK_NEAR(jnum(p, "preemptions", NULL), 1, 0, 0);
    CHECK_NEAR(jnum(p, "restarts_from_scratch", NULL), 0, 0, 0);
    CHECK_NEAR(jnum(p, "lost_gpu_hours", NULL), 0, 0, 1e-12);
    CHECK_NEAR(jnum(p, "checkpoint_writes_completed", NULL), 1, 0, 0);
    CHECK_NEAR(jnum(p, "checkpoint_writes_cut", NULL), 0, 0, 0);
    CHECK_NEAR(jnum(p, "checkpoint_written_gb", NULL), 40, 1e-12, 0);
    CHECK_NEAR(jnum(p, "checkpoint_write_s", "max"), 20, 0.03, 0);
    CHECK_NEAR(jnum(p, "checkpoint_write_gpu_hours", NULL), 20.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "eviction_hold_gpu_hours", NULL), 50.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "checkpoint_read_gpu_hours", NULL), 10.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "preemptor_wait_s", "max"), 50, 0.03, 0); /* sketch: 2 % buckets */
    CHECK_NEAR(jnum(p, "preemptor_wait_s", "count"), 1, 0, 0);
    /* per class: H waited 50 s and completed in 100; V queued 0, completed at 1140 */
    const cJSON *bp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"), "by_priority");
    CHECK_EQ_INT(cJSON_GetArraySize(bp), 2);
    const cJSON *hi = cJSON_GetArrayItem(bp, 0), *lo = cJSON_GetArrayItem(bp, 1);
    CHECK_NEAR(jnum(hi, "priority", NULL), 10, 0, 0);
    CHECK_NEAR(jnum(hi, "queue_s", "max"), 50, 0.03, 0);
    CHECK_NEAR(jnum(hi, "jct_s", "max"), 100, 0.03, 0);
    CHECK_NEAR(jnum(lo, "jct_s", "max"), 1110, 0.03, 0);
    /* GPU-seconds held: V 0..200 and 250..1110, H 200..250, all 8 cards */
    CHECK_NEAR(r.s.g_alloc.area, 8.0 * (200 + 860 + 50), 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* The record of V's rare columns, touched by the preemption layer (its run
 * and its preemption counted there), is handed on to W's row (a
 * checkpoint column, after V ended): reset in full, W counts no
 * preemption of V's. */
typedef struct mores {
    const job_more *rec[2];
    uint32_t preemptions[2];
} mores;
static void more_at_end(void *ud, const job *j)
{
    mores *m = ud;
    int i = j->req.id[0] == 'W';
    if (j->req.id[0] == 'H')
        return;
    m->rec[i] = j->more;
    m->preemptions[i] = j->more ? j->more->preemptions : 99;
}

static void record_reset_for_next_row(void)
{
    tu_run r;
    mores m = {{NULL, NULL}, {0, 0}};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp("id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                                               "V,0,1000,8,0,1," CKPT "\nH,150,50,8,10,0,\nW,2000,10,1,0,0,1\n"),
                              "H100-SXM5-80GB:8", 8, "whole", base_sets, more_at_end, &m),
                 0);
    CHECK_EQ_INT(m.preemptions[0], 1);
    CHECK(m.rec[1] == m.rec[0]); /* W's record was V's */
    CHECK_EQ_INT(m.preemptions[1], 0);
    tu_run_free(&r);
}

/* The same preemption when the write at preemption cannot complete: with
 * ckpt_write_limit=10 the 20 s write is cut at 10 s (V is killed at grace 30
 * + 10 = 190) and V falls back to its periodic checkpoint at 120 (880 s
 * left): the work of 120..150 is lost (30 s x 8 GPUs), the 10 s of writing
 * are charged (10 s x 8) and the checkpoint read back (10 s x 8). H runs
 * 190..240; V restarts at 240 with 880 + 10 = 890 s and ends at 1130. */
static void hand_timeline_write_cut(void)
{
    static const char *const sets[] = {"preempt=on", "min_runtime=100", "checkpoint_every=60",
                                       "ckpt_write_gbps=2", "ckpt_read_gbps=4", "grace_period=30",
                                       "ckpt_write_limit=10", NULL};
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,8,0,1," CKPT "\nH,150,50,8,10,0,\n",
                     "H100-SXM5-80GB:8", sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 190, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "H")], 240, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1130, 0, 1e-6);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(rep, "preemption");
    CHECK_NEAR(jnum(p, "restarts_from_scratch", NULL), 0, 0, 0);
    CHECK_NEAR(jnum(p, "lost_gpu_hours", NULL), 30.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "checkpoint_write_gpu_hours", NULL), 10.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "eviction_hold_gpu_hours", NULL), 40.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "checkpoint_read_gpu_hours", NULL), 10.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "checkpoint_writes_completed", NULL), 0, 0, 0);
    CHECK_NEAR(jnum(p, "checkpoint_writes_cut", NULL), 1, 0, 0);
    CHECK_NEAR(jnum(p, "checkpoint_written_gb", NULL), 0, 0, 1e-12);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* H arrives at 50, when V has run only 50 < 100 s: no preemption then. At
 * 100 V becomes eligible and H preempts it: it stops with 900 s left and
 * writes that checkpoint, holds until 150, H runs 150..200, V restarts at
 * 200 with 900 + 10 s and ends at 1110; nothing is lost. */
static void not_before_min_runtime(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,8,0,1," CKPT "\nH,50,50,8,10,0,\n",
                     "H100-SXM5-80GB:8", base_sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 150, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1110, 0, 1e-6);
    CHECK_NEAR(jnum(cJSON_GetObjectItemCaseSensitive(rep, "preemption"), "lost_gpu_hours", NULL), 0, 0, 1e-12);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* No victim of equal or higher priority, none that is not preemptible, none
 * at a protected priority, and nothing with preempt=off: H waits for V to
 * finish at 1000. */
static void no_ineligible_victims(void)
{
    static const char *const traces[] = {
        "id,submit,duration,gpus,priority,preemptible\nV,0,1000,8,10,1\nH,150,50,8,10,0\n",
        "id,submit,duration,gpus,priority,preemptible\nV,0,1000,8,20,1\nH,150,50,8,10,0\n",
        "id,submit,duration,gpus,priority,preemptible\nV,0,1000,8,0,0\nH,150,50,8,10,0\n",
    };
    static const char *const off[] = {"preempt=off", NULL};
    static const char *const prot[] = {"preempt=on", "min_runtime=100", "protect_priority=0", NULL};
    for (int t = 0; t < 5; t++) {
        tu_run r;
        static rec rc;
        memset(&rc, 0, sizeof rc);
        cJSON *rep;
        if (t < 3)
            rep = run(&r, traces[t], "H100-SXM5-80GB:8", base_sets, &rc);
        else /* preempt=off, then a protected priority, on a trace that would preempt */
            rep = run(&r, "id,submit,duration,gpus,priority,preemptible\nV,0,1000,8,0,1\nH,150,50,8,10,0\n",
                      "H100-SXM5-80GB:8", t == 3 ? off : prot, &rc);
        CHECK(rep != NULL);
        if (!rep)
            continue;
        CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 1000, 0, 1e-9);
        CHECK_EQ_INT(rc.starts[find(&rc, "V")], 1);
        CHECK_NEAR(jnum(cJSON_GetObjectItemCaseSensitive(rep, "preemption"), "preemptions", NULL), 0, 0, 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

/* A job without a checkpoint loses everything: no write (hold = grace 30),
 * H runs 180..230, V restarts from scratch (1000 s, nothing to read). */
static void no_checkpoint_loses_all(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r, "id,submit,duration,gpus,priority,preemptible\nV,0,1000,8,0,1\nH,150,50,8,10,0\n",
                     "H100-SXM5-80GB:8", base_sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 180, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1230, 0, 1e-6);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(rep, "preemption");
    CHECK_NEAR(jnum(p, "restarts_from_scratch", NULL), 1, 0, 0);
    CHECK_NEAR(jnum(p, "lost_gpu_hours", NULL), 150.0 * 8 / 3600, 1e-9, 0);
    CHECK_NEAR(jnum(p, "checkpoint_read_gpu_hours", NULL), 0, 0, 1e-12);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* The preemptor gets what its victims free: Y (priority 20, 8 GPUs) arrives
 * at 160 while V is being evicted for H (V is no longer a candidate, so Y
 * queues). At the hand-over (200) the room is reserved for H although Y
 * ranks higher; Y starts when H ends at 250. */
static void freed_resources_go_to_preemptor(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "V,0,1000,8,0,1," CKPT "\nH,150,50,8,10,0,\nY,160,10,8,20,0,\n",
                     "H100-SXM5-80GB:8", base_sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 200, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[find(&rc, "Y")], 250, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[find(&rc, "V")], 0, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 260 + 860, 0, 1e-6); /* restarts after Y: 850 + 10 s read */
    CHECK_NEAR(jnum(cJSON_GetObjectItemCaseSensitive(rep, "preemption"), "preemptor_misses", NULL), 0, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Checkpoint size from a parameter count: 1e9 params x 14 B = 14e9 B, 7 s to
 * write at 2 GB/s, 3.5 s to read at 4 GB/s. H starts at 150 + 30 + 7 = 187,
 * ends 237; V restarts then with 850 + 3.5 s and ends at 1090.5. */
static void checkpoint_from_params(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,params_b\n"
                     "V,0,1000,8,0,1,1\nH,150,50,8,10,0,\n",
                     "H100-SXM5-80GB:8", base_sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 187, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "V")], 1090.5, 0, 1e-6);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Two 4-GPU victims on one node; H wants 4. Their 20 s writes at
 * preemption would be cut at ckpt_write_limit=10, so each would fall back to
 * its periodic checkpoint: A (start 0) last checkpointed at 120 and would
 * lose 30 s; B (start 10) at 130 and would lose 20 s (the cut write and the
 * read cost both the same): B is chosen. B holds until 190 (grace 30 + 10),
 * H runs 190..240, B restarts at 240 with 880 + 10 s and ends at 1130; A is
 * untouched (1000). */
static void least_lost_work_victim(void)
{
    static const char *const cut_sets[] = {"preempt=on", "min_runtime=100", "checkpoint_every=60",
                                           "ckpt_write_gbps=2", "ckpt_read_gbps=4", "grace_period=30",
                                           "ckpt_write_limit=10", NULL};
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,priority,preemptible,checkpoint_gib\n"
                     "A,0,1000,4,0,1," CKPT "\nB,10,1000,4,0,1," CKPT "\nH,150,50,4,10,0,\n",
                     "H100-SXM5-80GB:8", cut_sets, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_EQ_INT(rc.starts[find(&rc, "A")], 1);
    CHECK_NEAR(rc.end_s[find(&rc, "A")], 1000, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[find(&rc, "H")], 190, 0, 1e-9);
    CHECK_NEAR(rc.end_s[find(&rc, "B")], 1130, 0, 1e-6);
    CHECK_NEAR(jnum(cJSON_GetObjectItemCaseSensitive(rep, "preemption"), "lost_gpu_hours", NULL), 20.0 * 4 / 3600,
               1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Tenant a may hold 4 GPUs of the 8. a1 (4 GPUs, 0..10) fills it; a2 (2
 * GPUs at 1) is quota-blocked until 10 although cards are free; b1 (no
 * quota) starts at once; a3 (8 GPUs) can never fit and is rejected. */
static const char *quota_cluster =
    "{\"name\": \"q\", \"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 1, \"gpus\": 8}],"
    " \"tenants\": [{\"name\": \"a\", \"gpus\": 4}, {\"name\": \"c\", \"gpu_mem_gib\": 100,"
    " \"cards\": {\"H100-SXM5-80GB\": 1}}]}";

static void quota_hand_timeline(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r,
                     "id,submit,duration,gpus,tenant,gpumem\n"
                     "a1,0,10,4,a,\na2,1,5,2,a,\nb1,2,3,2,b,\na3,3,1,8,a,\n"
                     "c1,4,10,1,c,40000\nc2,5,10,1,c,\nc3,6,1,2,c,1000\n",
                     quota_cluster, NULL, &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "a2")], 10, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[find(&rc, "b1")], 2, 0, 1e-9);
    CHECK(find(&rc, "a3") < 0);
    /* c: 1 card of H100 and 100 GiB. c1 asks 1 card with 40000 MiB; c2 asks a
     * whole card (80 GiB): over the card cap until c1 ends at 14; c3 (2 cards)
     * can never fit the card cap and is rejected. */
    CHECK_NEAR(rc.first_start_s[find(&rc, "c1")], 4, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[find(&rc, "c2")], 14, 0, 1e-9);
    CHECK(find(&rc, "c3") < 0);
    CHECK_EQ_INT(r.s.rejected, 2);
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(rep, "tenants");
    const cJSON *a = cJSON_GetArrayItem(tn, 0), *c = cJSON_GetArrayItem(tn, 1);
    CHECK_NEAR(jnum(a, "quota_blocked", NULL), 1, 0, 0);
    CHECK_NEAR(jnum(a, "quota_rejected", NULL), 1, 0, 0);
    CHECK_NEAR(jnum(a, "peak_gpus", NULL), 4, 0, 0);
    CHECK_NEAR(jnum(a, "quota_blocked_queue_s", "mean"), 9, 0.03, 0);
    CHECK_NEAR(jnum(c, "quota_blocked", NULL), 1, 0, 0);
    /* a whole H100 card as the catalog gives it (81559 MiB) outweighs c1's 40000 MiB */
    CHECK_NEAR(jnum(c, "peak_gpu_mem_gib", NULL), 81559 / 1024.0, 1e-9, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* A request blocked by its tenant's quota does not hold back another
 * tenant's request of the same shape behind it: a2 (tenant a, capped at 2)
 * and b2 queue while f fills the node; when f ends at 5, b2 starts at once
 * and a2 waits for a1 (10). */
static void quota_blocked_does_not_block_others(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    const char *cl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8}], \"tenants\": [{\"name\": \"a\", "
                     "\"gpus\": 2}]}";
    cJSON *rep = run(&r, "id,submit,duration,gpus,tenant\na1,0,10,2,a\nf,0,5,6,f\na2,1,1,2,a\nb2,2,1,2,b\n", cl, NULL,
                     &rc);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_NEAR(rc.first_start_s[find(&rc, "b2")], 5, 0, 1e-9);
    CHECK_NEAR(rc.first_start_s[find(&rc, "a2")], 10, 0, 1e-9);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* Randomized: 300 jobs of 3 tenants with caps on a 32-GPU cluster; from the
 * completed jobs' own start and end times, each tenant's GPUs in use never
 * exceed its cap at any instant, and the caps do bind (some jobs blocked). */
static void quota_never_exceeded(void)
{
    gsl_rng *g = gs_rng_new(42, 7);
    size_t cap = 64 * 300, n = 0;
    char *t = xmalloc(cap);
    n += (size_t)snprintf(t + n, cap - n, "id,submit,duration,gpus,tenant,priority,preemptible\n");
    double at = 0;
    static const char *const names[] = {"x", "y", "z"};
    for (int i = 0; i < 300; i++) {
        at += gsl_rng_uniform(g) * 4;
        n += (size_t)snprintf(t + n, cap - n, "j%d,%.3f,%.3f,%d,%s,%d,%d\n", i, at, 5 + gsl_rng_uniform(g) * 60,
                              1 + (int)(gsl_rng_uniform(g) * 6), names[i % 3], (int)(gsl_rng_uniform(g) * 3),
                              (int)(gsl_rng_uniform(g) * 2));
    }
    gs_rng_free(g);
    const char *cl = "{\"name\": \"q\", \"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 4, \"gpus\": 8}],"
                     " \"tenants\": [{\"name\": \"x\", \"gpus\": 10}, {\"name\": \"y\", \"gpus\": 7}]}";
    static const char *const sets[] = {"preempt=on", "min_runtime=5", "checkpoint_every=10", NULL};
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r, t, cl, sets, &rc);
    free(t);
    CHECK(rep != NULL);
    if (!rep)
        return;
    CHECK_EQ_INT(rc.n, 300);
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(rep, "preemption");
    printf("    %.0f preemptions, %.0f restarts from scratch, %.3f lost GPU-h\n", jnum(pre, "preemptions", NULL),
           jnum(pre, "restarts_from_scratch", NULL), jnum(pre, "lost_gpu_hours", NULL));
    CHECK(jnum(pre, "preemptions", NULL) > 0); /* preemption and quotas interplay here */
    const double caps[] = {10, 7};
    for (int k = 0; k < 2; k++) {
        /* usage only changes at starts, so its maximum is reached at one:
         * O(n^2) over 100 jobs. Preempted jobs (starts > 1) are left out of
         * the interval check (their first start is not their last); the
         * core's own peak covers them. */
        for (int i = 0; i < rc.n; i++) {
            if (strcmp(rc.tenant[i], names[k]))
                continue;
            double use = 0;
            for (int q = 0; q < rc.n; q++)
                if (!strcmp(rc.tenant[q], names[k]) && rc.starts[q] == 1 && rc.first_start_s[q] <= rc.first_start_s[i] &&
                    rc.end_s[q] > rc.first_start_s[i])
                    use += rc.gpus[q];
            CHECK(use <= caps[k]);
        }
        const cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "tenants"), k);
        CHECK(jnum(o, "peak_gpus", NULL) <= caps[k]);
        CHECK(jnum(o, "peak_gpus", NULL) >= caps[k] - 5); /* the cap binds: usage gets close to it */
        CHECK(jnum(o, "quota_blocked", NULL) > 0);
    }
    cJSON_Delete(rep);
    tu_run_free(&r);
}

static void bad_inputs(void)
{
    tu_run r;
    rec rc;
    static const char *const bad[] = {"preempt=maybe", NULL}, *const bad2[] = {"min_runtime=-1", NULL};
    CHECK(run(&r, "id,submit,duration,gpus\na,0,1,1\n", "H100-SXM5-80GB:8", bad, &rc) == NULL);
    CHECK_EQ_INT(r.rc, GS_EUSAGE);
    CHECK_STR_HAS(r.err.msg, "expected on or off");
    tu_run_free(&r);
    CHECK(run(&r, "id,submit,duration,gpus\na,0,1,1\n", "H100-SXM5-80GB:8", bad2, &rc) == NULL);
    CHECK_STR_HAS(r.err.msg, "min_runtime");
    tu_run_free(&r);
    static const char *const on[] = {"preempt=on", NULL}; /* a run that reads params_b (the checkpoint's size) */
    CHECK(run(&r, "id,submit,duration,gpus,params_b\na,0,1,1,-3\n", "H100-SXM5-80GB:8", on, &rc) == NULL);
    CHECK_EQ_INT(r.rc, GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 2, column 5 ('params_b')");
    tu_run_free(&r);
    cJSON *rep = run(&r, "id,submit,duration,gpus,params_b\na,0,1,1,-3\n", "H100-SXM5-80GB:8", NULL, &rc);
    CHECK(rep != NULL && sim_unread_columns(&r.s) == WL_COL_BIT(WL_COL_PARAMS_B)); /* no preemption: never read */
    cJSON_Delete(rep);
    tu_run_free(&r);
    CHECK(run(&r, "id,submit,duration,gpus\na,0,1,1\n",
              "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8}], \"tenants\": [{\"name\": \"a\", "
              "\"cards\": {\"V100\": 2}}]}",
              NULL, &rc) == NULL);
    CHECK_EQ_INT(r.rc, GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "tenants[0].cards: unknown GPU model 'V100'");
    tu_run_free(&r);
    CHECK(run(&r, "id,submit,duration,gpus\na,0,1,1\n",
              "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8}], \"tenants\": [{\"name\": \"a\", "
              "\"gpus\": -2}]}",
              NULL, &rc) == NULL);
    CHECK_STR_HAS(r.err.msg, "tenants[0].gpus: expected an integer >= 0");
    tu_run_free(&r);
}

/* Without preemption, quotas or a second priority the start and stop hooks
 * are dropped; a second priority brings them back, and a job started
 * without them still ends in its class: A (priority 0) runs 0..100, B
 * (priority 5) arrives at 10 and waits for A's cards (queued 90 s, done at
 * 150). */
static void quiet_hooks_dropped_then_back(void)
{
    tu_run r;
    static rec rc;
    memset(&rc, 0, sizeof rc);
    cJSON *rep = run(&r, "id,submit,duration,gpus,priority\nA,0,100,8,0\nC,1,5,1,0\n", "H100-SXM5-80GB:8", NULL, &rc);
    CHECK(rep != NULL);
    CHECK_EQ_INT(r.s.with_started, 0);
    CHECK_EQ_INT(r.s.with_stopped, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
    memset(&rc, 0, sizeof rc);
    rep = run(&r, "id,submit,duration,gpus,priority\nA,0,100,8,0\nB,10,50,8,5\n", "H100-SXM5-80GB:8", NULL, &rc);
    CHECK(rep != NULL);
    CHECK(r.s.with_started != 0 && r.s.with_stopped != 0);
    const cJSON *bp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"), "by_priority");
    CHECK_EQ_INT(cJSON_GetArraySize(bp), 2);
    const cJSON *hi = cJSON_GetArrayItem(bp, 0), *lo = cJSON_GetArrayItem(bp, 1);
    CHECK_NEAR(jnum(hi, "priority", NULL), 5, 0, 0);
    CHECK_NEAR(jnum(hi, "queue_s", "max"), 90, 0.03, 0);
    CHECK_NEAR(jnum(hi, "jct_s", "count"), 1, 0, 0);
    CHECK_NEAR(jnum(hi, "jct_s", "max"), 140, 0.03, 0);
    CHECK_NEAR(jnum(lo, "queue_s", "count"), 1, 0, 0);
    CHECK_NEAR(jnum(lo, "jct_s", "count"), 1, 0, 0);
    CHECK_NEAR(jnum(lo, "jct_s", "max"), 100, 0.03, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

const test_case tests_preempt[] = {
    {"preempt/quiet_run_drops_start_stop_hooks_second_priority_brings_them_back", quiet_hooks_dropped_then_back},
    {"preempt/hand_timeline_checkpoint_write_read_lost_work", hand_timeline},
    {"preempt/hand_timeline_write_cut_falls_back_to_periodic", hand_timeline_write_cut},
    {"preempt/victims_record_reset_for_the_next_row", record_reset_for_next_row},
    {"preempt/not_before_min_runtime_then_when_eligible", not_before_min_runtime},
    {"preempt/no_equal_higher_or_non_preemptible_victim", no_ineligible_victims},
    {"preempt/no_checkpoint_loses_everything", no_checkpoint_loses_all},
    {"preempt/victim_with_least_lost_work", least_lost_work_victim},
    {"preempt/checkpoint_size_from_params_b", checkpoint_from_params},
    {"preempt/freed_resources_reserved_for_preemptor", freed_resources_go_to_preemptor},
    {"quota/hand_timeline_block_reject_cards_memory", quota_hand_timeline},
    {"quota/randomized_never_exceeded", quota_never_exceeded},
    {"quota/blocked_request_does_not_hold_back_other_tenants", quota_blocked_does_not_block_others},
    {"quota/bad_params_and_cluster_file", bad_inputs},
    {NULL, NULL},
};
