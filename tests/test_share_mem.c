/* test_share_mem.c - what a task in flight costs the shared-card policies
 * (vgpu, timeslice, mps) beyond its job slot: nothing for a plain task on
 * one card (no record: its rate is handed to the core as computed); a
 * 16-byte record in the policy's slab and its cards' rates out of line for
 * a task on several; a card's tenant array only once a second tenant comes;
 * nothing for a queued job. Counted at the first completion, when every job
 * of the trace has arrived, from the policy's own structures.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../policies/share/share_state.h"
#include "check.h"
#include "testutil.h"

/* The per-task record, kept by a task on several cards, an internal one or
 * one OOM-killed: its rates' pointer, the OOM count and five flags.
 * Everything else a task needs is the job's (its GPU ids, its request). */
#define SC_TASK_MAX_BYTES 16
/* One per GPU of the cluster, whether used or not: its tenants (one job
 * slot, or a 32-bit handle of their array), its busy contribution, 32-bit
 * MiB counters, and its tenant count, reserved cores and closed flag in one
 * word; the swap state only under oversub=swap (sc_card_swap). Its pool
 * (from its index), physical memory (the pool's model's), its alloc
 * contribution (from its counters) and its doomed tenants (their records)
 * are computed, not kept. At 1M GPUs each 8 bytes here is 8 MiB. */
#define SC_CARD_MAX_BYTES 24

static void sizes(void)
{
    CHECK(sizeof(sc_task) <= SC_TASK_MAX_BYTES);
    CHECK(sizeof(sc_card) <= SC_CARD_MAX_BYTES);
    if (sizeof(sc_task) > SC_TASK_MAX_BYTES || sizeof(sc_card) > SC_CARD_MAX_BYTES)
        fprintf(stderr, "    sizeof(sc_task) = %zu, sizeof(sc_card) = %zu\n", sizeof(sc_task), sizeof(sc_card));
}

typedef struct seen {
    tu_run *r;
    int checked, in_flight, queued, live, wide, arrays;
    uint32_t trec; /* chunks of the records' table by job slot */
    size_t bytes; /* the policy's per-task bytes: records, out-of-line rates, tenant arrays */
} seen;

static int live_records(const sc_state *st)
{
    int n = 0;
    for (int c = 0; c < st->ntchunks; c++)
        for (int i = 0; i < SC_TASK_CHUNK; i++)
            n += st->tchunks[c][i].live;
    return n;
}

static void on_done(void *ud, const job *j)
{
    seen *v = ud;
    if (v->checked)
        return;
    v->checked = 1;
    const sim *s = &v->r->s;
    const sc_state *st = s->pst[0];
    uint32_t per_chunk = s->nchunks ? s->nslots / s->nchunks : 0;
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        const job *x = &s->chunks[slot / per_chunk][slot % per_chunk];
        if (x->state == JOB_QUEUED && !sc_task_of(st, x))
            v->queued++;
        if (x->state != JOB_RUNNING && x != j) /* j: completing now, still placed */
            continue;
        v->in_flight++;
        const sc_task *t = sc_task_of(st, x);
        if (t && t->wide) {
            v->wide++;
            v->bytes += sizeof(sc_task_more) + (size_t)x->ngpu_ids * sizeof(double);
        }
    }
    v->live = live_records(st);
    v->trec = st->ntrec;
    v->bytes += (size_t)v->live * sizeof(sc_task);
    for (int g = 0; g < st->ncards; g++)
        if (sc_card_cap(&st->cards[g]) > 1) {
            v->arrays++;
            v->bytes += (size_t)sc_card_cap(&st->cards[g]) * sizeof(uint32_t);
        }
}

/* n jobs of g GPUs each arriving at 0 on gpus_spec under policy: the first
 * running ones start at once, the rest (n - running) wait. Returns the
 * policy's bytes per job running; *v says how they were counted. */
static double per_job_waiting(const char *policy, const char *const *sets, const char *gpus_spec, int n, int g,
                              int running, seen *v)
{
    size_t cap = 64 + (size_t)n * 32;
    char *tr = xmalloc(cap);
    size_t used = (size_t)snprintf(tr, cap, "id,submit,duration,gpus\n");
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(tr + used, cap - used, "j%d,0,%d,%d\n", i, 10 + i % 7, g);
    tu_run r;
    memset(v, 0, sizeof *v);
    v->r = &r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), gpus_spec, 8, policy, sets, on_done, v), 0);
    CHECK_EQ_INT(v->in_flight, running);
    CHECK_EQ_INT(v->queued, n - running); /* queued, without a record */
    CHECK_EQ_INT(v->live, v->wide);       /* a record a running task on several cards, none for a plain one,
                                           * a waiting one or left by another */
    CHECK_EQ_INT(r.s.completed, n);
    CHECK_EQ_INT(live_records(r.s.pst[0]), 0); /* every record back on the free list */
    tu_run_free(&r);
    free(tr);
    return v->in_flight ? (double)v->bytes / v->in_flight : 0;
}

static double per_job(const char *policy, const char *const *sets, const char *gpus_spec, int n, int g, seen *v)
{
    return per_job_waiting(policy, sets, gpus_spec, n, g, n, v);
}

/* vgpu, whole-card shares: one tenant a card, no record: nothing beyond
 * the card's own slot. */
static void vgpu_one_card_costs_nothing(void)
{
    seen v;
    double b = per_job("vgpu", NULL, "A100-SXM4-80GB:1000", 1000, 1, &v);
    CHECK_EQ_INT(v.wide, 0);
    CHECK_EQ_INT(v.arrays, 0);
    CHECK_EQ_INT(v.live, 0);
    CHECK_EQ_INT(v.trec, 0); /* not even the table of records by slot */
    CHECK(b == 0);
}

/* vgpu, twice as many whole-card jobs as cards: the waiting half holds no
 * record (it gets one when it is placed). */
static void vgpu_queued_jobs_hold_nothing(void)
{
    seen v;
    double b = per_job_waiting("vgpu", NULL, "A100-SXM4-80GB:500", 1000, 1, 500, &v);
    CHECK_EQ_INT(v.wide, 0);
    CHECK(b == 0);
}

/* timeslice, four replicas a card: the card's array of four, shared by
 * them, and no record. */
static void timeslice_shares_a_cards_array(void)
{
    seen v;
    double b = per_job("timeslice", NULL, "A100-SXM4-80GB:250", 1000, 1, &v);
    CHECK_EQ_INT(v.wide, 0);
    CHECK_EQ_INT(v.arrays, 250);
    CHECK_EQ_INT(v.live, 0);
    CHECK(b <= sizeof(uint32_t)); /* four slots shared by four tenants */
}

/* mps, one client a card, two cards a task: their rates out of line (and
 * an LRU slot); the records' table by job slot (8 bytes a slot of its
 * 1,024-slot chunks, not counted here) has one chunk. */
static void mps_two_cards_rates_out_of_line(void)
{
    seen v;
    const char *const sets[] = {"replicas=1", NULL};
    double b = per_job("mps", sets, "A100-SXM4-80GB:1000", 500, 2, &v);
    CHECK_EQ_INT(v.wide, 500);
    CHECK_EQ_INT(v.arrays, 0);
    CHECK_EQ_INT(v.trec, 1); /* 500 slots: one chunk of the table */
    CHECK(b <= SC_TASK_MAX_BYTES + sizeof(sc_task_more) + 2 * sizeof(double));
}

/* Sessions paused by hibernate (suspended, their cards given back) that end
 * while paused never come back to the space policy: their records went at
 * the pause, so none is left when the run ends (memory follows the work in
 * flight, not the number of sessions). */
static void paused_sessions_leave_no_record(void)
{
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, "workloads/examples/agents.csv", "H100-SXM5-80GB:64", 8, "vgpu+hibernate", NULL,
                              NULL, NULL),
                 0);
    CHECK(r.s.completed > 0);
    CHECK_EQ_INT(r.s.running, 0);
    CHECK_EQ_INT(live_records(r.s.pst[0]), 0);
    tu_run_free(&r);
}

/* What a card keeps, read at the first completion: its tenant array's size
 * (4, then doubling), and its 32-bit memory counters within their bound
 * (in use at most physical without swap; committed kept under vgpu only). */
typedef struct cards_seen {
    tu_run *r;
    int checked, n, cap;
    int64_t committed, used, phys;
} cards_seen;

static void on_done_cards(void *ud, const job *j)
{
    (void)j;
    cards_seen *v = ud;
    if (v->checked++)
        return;
    const sc_state *st = v->r->s.pst[0];
    const sc_card *c = (&st->cards[0]);
    v->n = c->n;
    v->cap = sc_card_cap(c);
    v->committed = c->mem_committed;
    v->used = c->mem_used;
    v->phys = sc_card_phys_mib(st, 0);
}

static void card_on(const char *policy, const char *const *sets, int n, cards_seen *v)
{
    char tr[4096];
    size_t used = (size_t)snprintf(tr, sizeof tr, "id,submit,duration,gpus,gpumem\n");
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(tr + used, sizeof tr - used, "j%d,0,%d,1,1000\n", i, 10 + i);
    tu_run r;
    memset(v, 0, sizeof *v);
    v->r = &r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), "A100-SXM4-80GB:1", 8, policy, sets, on_done_cards, v), 0);
    CHECK_EQ_INT(r.s.completed, n);
    CHECK_EQ_INT(((const sc_state *)r.s.pst[0])->cards[0].n, 0);
    tu_run_free(&r);
}

/* timeslice without a replica limit: nine tenants on one card, an array of
 * 16 (4, 8, 16, from the slabs); no committed memory kept (timeslice admits
 * none), the memory in use the nine tenants' 1000 MiB each, within the
 * card. */
static void timeslice_card_counters(void)
{
    cards_seen v;
    const char *const sets[] = {"replicas=0", NULL};
    card_on("timeslice", sets, 9, &v);
    CHECK_EQ_INT(v.n, 9);
    CHECK_EQ_INT(v.cap, 16);
    CHECK_EQ_INT((int)v.committed, 0);
    CHECK_EQ_INT((int)v.used, 9000);
    CHECK_EQ_INT((int)v.phys, 81920);
    /* forty: past the slabs' arrays (4, 8, 16), one of 64 from malloc */
    card_on("timeslice", sets, 40, &v);
    CHECK_EQ_INT(v.n, 40);
    CHECK_EQ_INT(v.cap, 64);
}

/* vgpu: three tenants, an array of four; committed memory kept. */
static void vgpu_card_counters(void)
{
    cards_seen v;
    card_on("vgpu", NULL, 3, &v);
    CHECK_EQ_INT(v.n, 3);
    CHECK_EQ_INT(v.cap, 4);
    CHECK_EQ_INT((int)v.committed, 3000);
    CHECK_EQ_INT((int)v.used, 3000);
}

/* timeslice, four tenants a card joining one by one: each join changes the
 * rates of the card's earlier tenants and voids their completion events
 * (six void for four live a card). The heap is cleared of them when it
 * fills instead of doubling (heap_reclaim in sim.c): its room stays within
 * an eighth of the live events (4,311 slots for 4,096 here), where it held
 * 2.5 events a job before (16,384 slots). */
static void timeslice_heap_clears_void_completions(void)
{
    int n = 4096;
    size_t cap = 64 + (size_t)n * 32;
    char *tr = xmalloc(cap);
    size_t used = (size_t)snprintf(tr, cap, "id,submit,duration,gpus\n");
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(tr + used, cap - used, "j%d,0,1000,1\n", i);
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), "A100-SXM4-80GB:1024", 8, "timeslice", NULL, NULL, NULL), 0);
    CHECK_EQ_INT(r.s.completed, n);
    CHECK(r.s.heap.cap <= (size_t)n + (size_t)n / 8);
    if (r.s.heap.cap > (size_t)n + (size_t)n / 8)
        fprintf(stderr, "    heap room %zu for %d jobs\n", r.s.heap.cap, n);
    tu_run_free(&r);
    free(tr);
}

/* A card no task joined keeps the zero bytes calloc gave it (its pool is
 * not kept, its empty record open), so a cluster's idle cards cost no
 * written pages: 8 tasks on 64 cards fill node 0 under binpack, and at the
 * first completion the 56 others are all zero. */
typedef struct idle_seen {
    tu_run *r;
    int checked, zero, used;
} idle_seen;

static void on_done_idle(void *ud, const job *j)
{
    (void)j;
    idle_seen *v = ud;
    if (v->checked++)
        return;
    const sc_state *st = v->r->s.pst[0];
    static const sc_card zero;
    for (int g = 0; g < st->ncards; g++) {
        v->zero += memcmp((&st->cards[g]), &zero, sizeof zero) == 0;
        v->used += (&st->cards[g])->n > 0;
    }
}

static void idle_cards_stay_zero(void)
{
    const char *tr = "id,submit,duration,gpus\nj0,0,10,1\nj1,0,11,1\nj2,0,12,1\nj3,0,13,1\n"
                     "j4,0,14,1\nj5,0,15,1\nj6,0,16,1\nj7,0,17,1\n";
    const char *pol[] = {"vgpu", "timeslice", "mps"};
    for (int p = 0; p < 3; p++) {
        tu_run r;
        idle_seen v = {.r = &r};
        CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), "A100-SXM4-80GB:64", 8, pol[p], NULL, on_done_idle, &v), 0);
        CHECK_EQ_INT(v.used, 8);
        CHECK_EQ_INT(v.zero, 56);
        tu_run_free(&r);
    }
}

/* A card's pool is not kept: it is found from the card's index, by ranges
 * of consecutive cards of one pool (one load where one range covers the
 * cluster). Three groups, 80, 40 and 80 GB cards, make three ranges of two
 * pools; 24 tasks asking 50,000 MiB each start on the 16 cards of 80 GB
 * and the other 8 wait for them. */
typedef struct pools_seen {
    tu_run *r;
    int checked, running;
    int64_t phys[24];
    int pool[24], nrange, pool1;
} pools_seen;

static void on_done_pools(void *ud, const job *j)
{
    (void)j;
    pools_seen *v = ud;
    if (v->checked++)
        return;
    const sc_state *st = v->r->s.pst[0];
    for (int g = 0; g < 24; g++) {
        v->phys[g] = sc_card_phys_mib(st, g);
        v->pool[g] = sc_card_pool(st, g);
        v->running += (&st->cards[g])->n;
    }
    v->nrange = st->nrange;
    v->pool1 = st->pool1;
}

static void card_pools_by_range(void)
{
    char tr[2048];
    size_t used = (size_t)snprintf(tr, sizeof tr, "id,submit,duration,gpus,gpumem\n");
    for (int i = 0; i < 24; i++)
        used += (size_t)snprintf(tr + used, sizeof tr - used, "j%d,0,%d,1,50000\n", i, 10 + i);
    tu_run r;
    pools_seen v = {.r = &r};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), "A100-SXM4-80GB:8,A100-SXM4-40GB:8,A100-SXM4-80GB:8", 8, "vgpu",
                              NULL, on_done_pools, &v),
                 0);
    CHECK_EQ_INT(r.s.completed, 24);
    CHECK_EQ_INT(v.nrange, 3);
    CHECK_EQ_INT(v.pool1, -1);
    for (int g = 0; g < 24; g++) {
        bool small = g >= 8 && g < 16;
        CHECK_EQ_INT(v.pool[g], small ? 1 : 0);
        CHECK_EQ_INT((int)v.phys[g], small ? 40960 : 81920);
    }
    CHECK_EQ_INT(v.running, 16); /* the 80 GB cards, one task each */
    tu_run_free(&r);
    /* one pool, one range: every card's pool without a search */
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), "A100-SXM4-80GB:24", 8, "vgpu", NULL, NULL, NULL), 0);
    const sc_state *st = r.s.pst[0];
    CHECK_EQ_INT(st->nrange, 1);
    CHECK_EQ_INT(st->pool1, 0);
    tu_run_free(&r);
}

const test_case tests_share_mem[] = {
    {"share_mem/card_pools_by_range", card_pools_by_range},
    {"share_mem/idle_cards_stay_zero", idle_cards_stay_zero},
    {"share_mem/timeslice_heap_clears_void_completions", timeslice_heap_clears_void_completions},
    {"share_mem/timeslice_card_counters", timeslice_card_counters},
    {"share_mem/vgpu_card_counters", vgpu_card_counters},
    {"share_mem/sizes", sizes},
    {"share_mem/vgpu_one_card_costs_nothing", vgpu_one_card_costs_nothing},
    {"share_mem/vgpu_queued_jobs_hold_nothing", vgpu_queued_jobs_hold_nothing},
    {"share_mem/timeslice_shares_a_cards_array", timeslice_shares_a_cards_array},
    {"share_mem/mps_two_cards_rates_out_of_line", mps_two_cards_rates_out_of_line},
    {"share_mem/paused_sessions_leave_no_record", paused_sessions_leave_no_record},
    {NULL, NULL},
};
