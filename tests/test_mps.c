/* test_mps.c - the `mps` space policy on hand timelines: concurrent clients
 * capped at their active-thread percentage with no switch cost, the
 * per-client memory limit, fault propagation (one client's OOM takes down
 * its co-tenants, counted by cause) and the client limit per card.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

#define MAXR 64

typedef struct rec {
    int n;
    char id[MAXR][16];
    double start_s[MAXR], end_s[MAXR];
    const tu_run *r;
} rec;

static void on_done(void *ud, const job *j)
{
    rec *e = ud;
    if (e->n >= MAXR)
        return;
    snprintf(e->id[e->n], 16, "%.15s", j->req.id);
    e->start_s[e->n] = gs_us_to_s(j->start_us);
    e->end_s[e->n] = gs_us_to_s(e->r->s.now);
    e->n++;
}

static int find(const rec *e, const char *id)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->id[i], id))
            return i;
    return -1;
}

static int run(tu_run *r, rec *e, const char *trace, const char *pol, const char *const *sets)
{
    memset(e, 0, sizeof *e);
    e->r = r;
    return tu_run_trace(r, tu_write_tmp(trace), "H100-SXM5-80GB:1", 1, pol, sets, on_done, e);
}

static double rnum(const cJSON *root, const char *a, const char *b, const char *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    if (b)
        o = cJSON_GetObjectItemCaseSensitive(o, b);
    if (c)
        o = cJSON_GetObjectItemCaseSensitive(o, c);
    return cJSON_IsNumber(o) ? o->valuedouble : -1e300;
}

/* Two compute-bound clients of 100 s on one card. replicas=2: each gets the
 * daemon's 100/2 = 50% of the threads, concurrently and with no switch cost:
 * rate 0.5 each, both end at 200 s (2x solo). A client's own gpucores=50
 * with no split gives the same. Under timeslice (switch cost 0.05) the same
 * pair ends at 100 / 0.475 = 210.53 s. The cap does not grow when the other
 * idles: one client alone at 50% still takes 200 s. */
static void two_clients_half_each(void)
{
    tu_run r;
    rec e;
    const char *tr = "id,submit,duration,gpus\na,0,100,1\nb,0,100,1\n";
    const char *split2[] = {"replicas=2", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "mps", split2), 0);
    CHECK_EQ_INT(e.n, 2);
    CHECK_NEAR(e.end_s[find(&e, "a")], 200, 0, 1e-6);
    CHECK_NEAR(e.end_s[find(&e, "b")], 200, 0, 1e-6);
    tu_run_free(&r);

    const char *own = "id,submit,duration,gpus,gpucores\na,0,100,1,50\nb,0,100,1,50\n";
    const char *nosplit[] = {"replicas=0", NULL};
    CHECK_EQ_INT(run(&r, &e, own, "mps", nosplit), 0);
    CHECK_NEAR(e.end_s[find(&e, "a")], 200, 0, 1e-6);
    CHECK_NEAR(e.end_s[find(&e, "b")], 200, 0, 1e-6);
    tu_run_free(&r);

    CHECK_EQ_INT(run(&r, &e, tr, "timeslice", NULL), 0);
    CHECK_NEAR(e.end_s[find(&e, "a")], 100 / 0.475, 0, 1e-5);
    tu_run_free(&r);

    CHECK_EQ_INT(run(&r, &e, "id,submit,duration,gpus\na,0,100,1\n", "mps", split2), 0);
    CHECK_NEAR(e.end_s[find(&e, "a")], 200, 0, 1e-6);
    tu_run_free(&r);
}

/* No fault isolation. replicas=0 (no client memory limit), one H100 of
 * 81559 MiB: a (50000 MiB, 1000 s) and b (20000 MiB, 1000 s) run from 0; c
 * (20000 MiB) joins at 10 and takes the card past its memory: c is OOM
 * killed, and a and b with it, at 10. All three fail: one by OOM, two by
 * the co-tenant's fault; d, arriving at 20, runs alone (100 s, ends 120). */
static void oom_takes_down_co_tenants(void)
{
    tu_run r;
    rec e;
    const char *tr = "id,submit,duration,gpus,gpumem\na,0,1000,1,50000\nb,0,1000,1,20000\n"
                     "c,10,1000,1,20000\nd,20,100,1,1000\n";
    const char *nosplit[] = {"replicas=0", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "mps", nosplit), 0);
    CHECK_EQ_INT(e.n, 1);
    CHECK(find(&e, "d") >= 0);
    if (find(&e, "d") >= 0)
        CHECK_NEAR(e.end_s[find(&e, "d")], 120, 0, 1e-6);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "failed", NULL), 3, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "oom_killed", NULL), 1, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "failed_by_cause", "oom"), 1, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "failed_by_cause", "co_tenant_fault"), 2, 0, 0);
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(rep, "policy");
    CHECK_NEAR(rnum(pol, "mps", "co_tenant_fault_killed", NULL), 2, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);

    /* the same under timeslice: the OOM kills c alone; a and b finish */
    CHECK_EQ_INT(run(&r, &e, tr, "timeslice", NULL), 0);
    CHECK(find(&e, "a") >= 0 && find(&e, "b") >= 0);
    CHECK_NEAR((double)r.s.failed, 1, 0, 0);
    tu_run_free(&r);
}

/* The client memory limit: replicas=2 pins each client to 81559 / 2 =
 * 40779 MiB. b asks 45000 MiB (the card would have room: 10000 + 45000 <
 * 81559) but could only crash each time it starts: it is rejected on
 * arrival; a runs alone at its 50% of the threads: 100 s of work end at 200.
 * Retries: with oom_retry=1 the OOM of oom_takes_down_co_tenants happens
 * twice: a, b and c are all resubmitted 10 s later (20), the third placed
 * crosses the card's memory again and all three fail for good: 2 OOM kills,
 * 4 co-tenant kills, 3 failures (1 by OOM, 2 by the co-tenant's fault). */
static void memory_limit_and_retry(void)
{
    tu_run r;
    rec e;
    const char *tr = "id,submit,duration,gpus,gpumem\na,0,100,1,10000\nb,5,100,1,45000\n";
    const char *split2[] = {"replicas=2", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "mps", split2), 0);
    CHECK_EQ_INT(e.n, 1);
    CHECK_NEAR(e.end_s[find(&e, "a")], 200, 0, 1e-6);
    CHECK_NEAR((double)r.s.rejected, 1, 0, 0);
    CHECK_NEAR((double)r.s.failed, 0, 0, 0);
    tu_run_free(&r);

    const char *oom = "id,submit,duration,gpus,gpumem\na,0,1000,1,50000\nb,0,1000,1,20000\nc,10,1000,1,20000\n";
    const char *retry[] = {"replicas=0", "oom_retry=1", NULL};
    CHECK_EQ_INT(run(&r, &e, oom, "mps", retry), 0);
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "failed", NULL), 3, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "oom_killed", NULL), 2, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "failed_by_cause", "oom"), 1, 0, 0);
    CHECK_NEAR(rnum(rep, "jobs", "failed_by_cause", "co_tenant_fault"), 2, 0, 0);
    CHECK_NEAR(rnum(cJSON_GetObjectItemCaseSensitive(rep, "policy"), "mps", "co_tenant_fault_killed", NULL), 4, 0, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* The client limit binds: with no split, 49 one-second compute-bound clients
 * on one card: 48 run at once (1/48 of the card each, no switch cost: all
 * end at 48 s), the 49th waits for them and runs alone, 48..49. replicas
 * above client_limit is refused (usage). */
static void client_limit_binds(void)
{
    char tr[49 * 24 + 64];
    size_t o = (size_t)snprintf(tr, sizeof tr, "id,submit,duration,gpus\n");
    for (int i = 0; i < 49; i++)
        o += (size_t)snprintf(tr + o, sizeof tr - o, "c%02d,0,1,1\n", i);
    tu_run r;
    rec e;
    const char *nosplit[] = {"replicas=0", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "mps", nosplit), 0);
    CHECK_EQ_INT(e.n, 49);
    int late = 0;
    for (int i = 0; i < e.n; i++) {
        if (e.start_s[i] > 0) {
            late++;
            CHECK_NEAR(e.start_s[i], 48, 0, 1e-6);
            CHECK_NEAR(e.end_s[i], 49, 0, 1e-6);
        } else {
            CHECK_NEAR(e.end_s[i], 48, 0, 1e-6);
        }
    }
    CHECK_EQ_INT(late, 1);
    tu_run_free(&r);
    /* a lower limit (pre-Volta 16) binds the same way */
    const char *pre[] = {"replicas=0", "client_limit=16", NULL};
    CHECK_EQ_INT(run(&r, &e, tr, "mps", pre), 0);
    double last = 0;
    for (int i = 0; i < e.n; i++)
        last = e.end_s[i] > last ? e.end_s[i] : last;
    CHECK_NEAR(last, 16 + 16 + 16 + 1, 0, 1e-6); /* three full rounds of 16, then one alone */
    tu_run_free(&r);
    const char *over[] = {"replicas=20", "client_limit=16", NULL};
    CHECK(run(&r, &e, tr, "mps", over) == GS_EUSAGE);
    tu_run_free(&r);
}

const test_case tests_mps[] = {
    {"mps/two_clients_at_half_finish_together_at_twice_solo", two_clients_half_each},
    {"mps/oom_takes_down_co_tenants", oom_takes_down_co_tenants},
    {"mps/client_memory_limit_and_retry", memory_limit_and_retry},
    {"mps/client_limit_binds", client_limit_binds},
    {NULL, NULL},
};
