/* test_queue_index.c - the queue's demand index (sim/sim_queue.h): the same
 * starts, in the same order, as trying every class's head, and no try of a
 * class whose demand exceeds the room; with a host room, the same starts as
 * without it, and fewer tries.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_queue.h"
#include "check.h"

/* A toy cluster: one counter of free cards; a request of d cards starts
 * when d <= free. The room is the counter itself. */
typedef struct toy {
    int free;
    int tries;
    int tries_beyond; /* tries of a request that could not fit by its demand */
    int started[4096];
    int nstarted;
} toy;

static uint32_t demand_of(const job *j) { return (uint32_t)j->req.gpus; }

static bool toy_start(void *ud, job *j)
{
    toy *t = ud;
    t->tries++;
    if (j->req.gpus > t->free) {
        t->tries_beyond++;
        return false;
    }
    t->free -= j->req.gpus;
    t->started[t->nstarted++] = (int)j->arrival_no;
    return true;
}

static uint32_t toy_room(void *ud) { return (uint32_t)((toy *)ud)->free; }

static bool before(const job *a, const job *b)
{
    if (a->req.priority != b->req.priority)
        return a->req.priority > b->req.priority;
    if (a->req.submit_us != b->req.submit_us)
        return a->req.submit_us < b->req.submit_us;
    return a->arrival_no < b->arrival_no;
}

/* The reference: every waiting request in one list; a pass takes the best
 * request whose class has not failed in this pass (a class: the key). The
 * request leaves the list before its try, so a start may add others to it
 * (the list's order is no order: the best is chosen by before). */
static void ref_dispatch(job **w, int *nw, bool strict, bool (*start)(void *ud, job *j), void *ud)
{
    uint64_t failed[512];
    int nfailed = 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < *nw; i++) {
            bool f = false;
            for (int k = 0; k < nfailed && !f; k++)
                f = failed[k] == (uint64_t)w[i]->req.gpumem_mib;
            if (!f && (best < 0 || before(w[i], w[best])))
                best = i;
        }
        if (best < 0)
            return;
        job *j = w[best];
        w[best] = w[--*nw];
        if (start(ud, j))
            continue;
        w[(*nw)++] = j;
        if (strict)
            return;
        failed[nfailed++] = (uint64_t)j->req.gpumem_mib;
    }
}

/* in_order: every request of one priority, submitted in arrival order (a
 * class then stays in order: its heads are taken by moving its start) */
static void random_against_reference(bool strict, bool in_order)
{
    enum { N = 3000 };
    job *js = calloc(N, sizeof *js);
    job **w = calloc(N, sizeof *w);
    int nw = 0;
    toy a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.free = b.free = 8;
    sim_queue q;
    sim_queue_init(&q);
    unsigned seed = 12345;
    int running[N], nrun = 0;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        job *j = &js[i];
        j->arrival_no = (uint64_t)i;
        j->req.priority = in_order ? 0 : (int)(r % 3);
        j->req.submit_us = (gs_time_us)(in_order ? i : i - (int)(r >> 4 & 7));
        j->req.gpus = 1 + (int)(r >> 8 & 7);            /* 1..8 cards */
        j->req.gpumem_mib = j->req.gpus * 100 + (r >> 12 & 15); /* the class: 16 shapes per demand */
        sim_queue_push(&q, j, (uint64_t)j->req.gpumem_mib, demand_of(j));
        w[nw++] = j;
        if (r >> 16 & 1) { /* a release, then a pass on both */
            if (nrun) {
                int k = (int)(r >> 17) % nrun;
                a.free += js[running[k]].req.gpus;
                b.free += js[running[k]].req.gpus;
                running[k] = running[--nrun];
            }
            int s0 = a.nstarted;
            sim_queue_dispatch(&q, strict, toy_room, toy_start, &a);
            ref_dispatch(w, &nw, strict, toy_start, &b);
            for (int k = s0; k < a.nstarted; k++)
                running[nrun++] = a.started[k];
            if (a.nstarted > 4000 || b.nstarted > 4000)
                break;
        }
    }
    CHECK_EQ_INT(a.nstarted, b.nstarted);
    CHECK(memcmp(a.started, b.started, (size_t)a.nstarted * sizeof a.started[0]) == 0);
    CHECK_EQ_INT(sim_queue_len(&q), (size_t)nw);
    CHECK_EQ_INT(a.tries_beyond, 0); /* the index never tries what cannot fit */
    CHECK(a.tries < b.tries);
    CHECK(a.nstarted > 100);
    sim_queue_free(&q);
    free(js);
    free(w);
}

static void skipping_matches_reference(void) { random_against_reference(false, false); }
static void in_order_matches_reference(void)
{
    random_against_reference(false, true);
    random_against_reference(true, true);
}
static void strict_matches_reference(void) { random_against_reference(true, false); }

/* The cliff: many classes that cannot fit cost nothing at a pass that has
 * room for one card. */
static void classes_beyond_room_not_visited(void)
{
    enum { BIG = 1000 };
    job js[BIG + 1];
    memset(js, 0, sizeof js);
    sim_queue q;
    sim_queue_init(&q);
    for (int i = 0; i < BIG; i++) {
        js[i].arrival_no = (uint64_t)i;
        js[i].req.gpus = 8;
        sim_queue_push(&q, &js[i], (uint64_t)i + 1, 8); /* a class each */
    }
    js[BIG].arrival_no = BIG;
    js[BIG].req.gpus = 1;
    sim_queue_push(&q, &js[BIG], 0, 1);
    toy t;
    memset(&t, 0, sizeof t);
    t.free = 1;
    sim_queue_dispatch(&q, false, toy_room, toy_start, &t);
    CHECK_EQ_INT(t.tries, 1);
    CHECK_EQ_INT(t.nstarted, 1);
    CHECK_EQ_INT(t.started[0], BIG);
    CHECK_EQ_INT(sim_queue_len(&q), BIG);
    /* with room for everything, all are tried again (none was lost) */
    t.free = 8 * BIG;
    sim_queue_dispatch(&q, false, toy_room, toy_start, &t);
    CHECK_EQ_INT(t.nstarted, BIG + 1);
    CHECK_EQ_INT(sim_queue_len(&q), 0);
    sim_queue_free(&q);
}


/* ---- host CPU and memory (sim_queue_dispatch_host) ----
 * A toy cluster of nodes with free cards, cores and GiB; a request starts on
 * the first node with room for all three (the ledger's 1e-9 tolerance). The
 * same random sequence runs on two queues, one told the host room and one
 * not: the starts must be the same, in the same order. The toy counts its
 * gives like the ledger (sim_cluster_give) for a host that parks. With
 * `nest`, a start sometimes ends a running request, and that release runs a
 * pass inside the pass, as the engine's hand-back does. */
enum { HN = 6, HJOBS = 4000, HLOG = 256 };

typedef struct htoy {
    int cards[HN];
    double cpu[HN], mem[HN];
    int node_of[HJOBS];
    int tries, tries_short; /* tries, and those no node had the cores and GiB for */
    int fits_calls;         /* host->fits: a fit-index descent in the engine */
    int started[HJOBS];
    int nstarted;
    int run[HJOBS], nrun; /* running requests, in start order */
    bool on[HJOBS];       /* started */
    uint64_t gives;
    int glog[HLOG];
    /* nested passes: the queue, its host and order */
    bool nest;
    int depth;
    sim_queue *q;
    const sim_queue_host *host;
    bool strict;
    job *js;
} htoy;

static uint32_t htoy_room(void *ud);

static void htoy_release(htoy *t, int x)
{
    int ji = t->run[x];
    const job *d = &t->js[ji];
    int n = t->node_of[ji];
    t->cards[n] += d->req.gpus;
    t->cpu[n] += d->req.cpu;
    t->mem[n] += d->req.mem_gib;
    t->glog[t->gives++ % HLOG] = n;
    t->run[x] = t->run[--t->nrun];
}

static bool htoy_start(void *ud, job *j)
{
    htoy *t = ud;
    if (t->on[j->arrival_no])
        return false; /* a pass inside the start of j sees j still queued */
    t->tries++;
    bool host = false;
    for (int n = 0; n < HN; n++) {
        if (t->cpu[n] < j->req.cpu - 1e-9 || t->mem[n] < j->req.mem_gib - 1e-9)
            continue;
        host = true;
        if (t->cards[n] < j->req.gpus)
            continue;
        t->cards[n] -= j->req.gpus;
        t->cpu[n] -= j->req.cpu;
        t->mem[n] -= j->req.mem_gib;
        t->node_of[j->arrival_no] = n;
        t->started[t->nstarted++] = (int)j->arrival_no;
        t->run[t->nrun++] = (int)j->arrival_no;
        t->on[j->arrival_no] = true;
        if (t->nest && t->depth < 2 && j->arrival_no % 5 == 0 && t->nrun > 1) { /* the oldest ends: a pass inside */
            htoy_release(t, 0);
            t->depth++;
            sim_queue_dispatch_host(t->q, t->strict, htoy_room, t->host, htoy_start, t);
            t->depth--;
        }
        return true;
    }
    t->tries_short += !host;
    return false;
}

static uint32_t htoy_room(void *ud)
{
    const htoy *t = ud;
    int r = 0;
    for (int n = 0; n < HN; n++)
        r = t->cards[n] > r ? t->cards[n] : r;
    return (uint32_t)r;
}

static void htoy_host(void *ud, double *cpu, double *mem)
{
    const htoy *t = ud;
    *cpu = *mem = -1;
    for (int n = 0; n < HN; n++) {
        *cpu = t->cpu[n] > *cpu ? t->cpu[n] : *cpu;
        *mem = t->mem[n] > *mem ? t->mem[n] : *mem;
    }
}

static bool htoy_fits(void *ud, double cpu, double mem)
{
    htoy *t = ud;
    t->fits_calls++;
    for (int n = 0; n < HN; n++)
        if (t->cpu[n] >= cpu - 1e-9 && t->mem[n] >= mem - 1e-9)
            return true;
    return false;
}

static uint64_t htoy_gives(void *ud) { return ((const htoy *)ud)->gives; }

static int htoy_given_free(void *ud, uint64_t since, double *cpu, double *mem, int max)
{
    const htoy *t = ud;
    uint64_t n = t->gives - since;
    if (n > HLOG || n > (uint64_t)max)
        return -1;
    for (uint64_t k = 0; k < n; k++) {
        int nd = t->glog[(since + k) % HLOG];
        cpu[k] = t->cpu[nd];
        mem[k] = t->mem[nd];
    }
    return (int)n;
}

/* how much the host room tells the queue */
enum { H_ROOM, H_FITS, H_PARK };

typedef struct hrun {
    htoy *a, *b; /* a: the host room of `mode`; b: no host room */
} hrun;

/* The random sequence on a (host room of `mode`) and b (none); the caller
 * frees both toys. */
static hrun host_run(bool strict, unsigned seed, int mode, bool nest)
{
    job *js = calloc(HJOBS, sizeof *js);
    htoy *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    static const double cpus[] = {0, 0.5, 2, 3.25, 6, 7, 9, 12, 16, 21, 33, 64, 70};
    sim_queue qa, qb;
    sim_queue_init(&qa);
    sim_queue_init(&qb);
    sim_queue_host h = {htoy_host, mode >= H_FITS ? htoy_fits : NULL, mode == H_PARK ? htoy_gives : NULL,
                 mode == H_PARK ? htoy_given_free : NULL};
    a->nest = b->nest = nest;
    a->strict = b->strict = strict;
    a->js = b->js = js;
    a->q = &qa;
    a->host = &h;
    b->q = &qb; /* b's passes inside passes have no host room either */
    for (int n = 0; n < HN; n++) {
        a->cards[n] = b->cards[n] = 8;
        a->cpu[n] = b->cpu[n] = 64;
        a->mem[n] = b->mem[n] = 512;
    }
    for (int i = 0; i < HJOBS; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        job *j = &js[i];
        j->arrival_no = (uint64_t)i;
        j->req.priority = (int)(r % 3);
        j->req.submit_us = (gs_time_us)(i - (int)(r >> 4 & 7));
        j->req.gpus = (int)(r >> 8 & 3); /* 0..3 cards */
        /* 70 cores never fit: strict order would stop at it for good */
        int ci = (int)((r >> 10) % (sizeof cpus / sizeof cpus[0] - strict));
        j->req.cpu = cpus[ci];
        seed = seed * 1103515245u + 12345u;
        j->req.mem_gib = (double)(seed >> 8 & 255) + ((seed >> 16 & 1) ? 0.5 : 0); /* 0..255.5 */
        /* the key names cards and cores but not memory: one class holds
         * requests of several memory asks */
        uint64_t key = (uint64_t)j->req.gpus * 100 + (uint64_t)ci;
        sim_queue_push(&qa, j, key, (uint32_t)j->req.gpus);
        sim_queue_push(&qb, j, key, (uint32_t)j->req.gpus);
        if (r >> 16 & 1) { /* a release, then a pass on both */
            for (int k = 0; k < 2 && a->nrun; k++) {
                int x = (int)((r >> 17) + (unsigned)k * 7) % a->nrun;
                htoy_release(a, x);
                htoy_release(b, x);
            }
            sim_queue_dispatch_host(&qa, strict, htoy_room, &h, htoy_start, a);
            sim_queue_dispatch(&qb, strict, htoy_room, htoy_start, b);
        }
    }
    CHECK_EQ_INT(a->nstarted, b->nstarted);
    CHECK(memcmp(a->started, b->started, (size_t)a->nstarted * sizeof a->started[0]) == 0);
    for (int n = 0; n < HN; n++) {
        CHECK_EQ_INT(a->cards[n], b->cards[n]);
        CHECK(a->cpu[n] == b->cpu[n] && a->mem[n] == b->mem[n]);
    }
    CHECK_EQ_INT(sim_queue_len(&qa), sim_queue_len(&qb));
    CHECK(a->nstarted > 200);
    sim_queue_free(&qa);
    sim_queue_free(&qb);
    free(js);
    a->q = b->q = NULL;
    a->host = NULL;
    a->js = b->js = NULL;
    return (hrun){a, b};
}

static void host_random(bool strict, unsigned seed, int mode)
{
    hrun r = host_run(strict, seed, mode, false);
    /* the host room saves tries: most of those no node had the host for */
    CHECK(r.b->tries_short > 100);
    CHECK(r.a->tries_short * 2 < r.b->tries_short);
    CHECK(r.a->tries < r.b->tries);
    free(r.a);
    free(r.b);
}

static void host_skipping_matches(void)
{
    host_random(false, 7, H_ROOM);
    host_random(false, 99, H_ROOM);
    host_random(false, 7, H_FITS);
    host_random(false, 99, H_FITS);
}

static void host_strict_matches(void)
{
    host_random(true, 7, H_ROOM);
    host_random(true, 99, H_FITS);
    host_random(true, 7, H_PARK); /* a strict pass does not park */
}

/* Parking (a host that counts its gives): the same starts in the same order
 * as no host room, and fewer fit tests and tries than the host room without
 * it, on sequences with and without passes inside passes. */
static void host_parking_matches(void)
{
    static const unsigned seeds[] = {7, 99, 12345};
    for (int k = 0; k < 3; k++)
        for (int nest = 0; nest < 2; nest++) {
            hrun p = host_run(false, seeds[k], H_PARK, nest);
            hrun f = host_run(false, seeds[k], H_FITS, nest);
            CHECK_EQ_INT(p.a->nstarted, f.a->nstarted);
            CHECK(memcmp(p.a->started, f.a->started, (size_t)p.a->nstarted * sizeof p.a->started[0]) == 0);
            CHECK(p.a->tries_short <= f.a->tries_short);
            CHECK(p.a->tries <= f.a->tries);
            CHECK(p.a->fits_calls <= f.a->fits_calls);
            if (nest)
                CHECK(p.a->gives > (uint64_t)p.a->nstarted / 5); /* passes inside passes happened */
            free(p.a);
            free(p.b);
            free(f.a);
            free(f.b);
        }
}

/* A thousand shapes asking more cores than any node has free cost no try
 * at a release that frees a few cores. */
static void host_shapes_beyond_not_visited(void)
{
    enum { BIG = 1000 };
    job *js = calloc(BIG + 1, sizeof *js);
    htoy *t = calloc(1, sizeof *t);
    t->cards[0] = 8;
    t->cpu[0] = 4;
    t->mem[0] = 512;
    sim_queue q;
    sim_queue_init(&q);
    for (int i = 0; i < BIG; i++) {
        js[i].arrival_no = (uint64_t)i;
        js[i].req.gpus = 1;
        js[i].req.cpu = 5 + i * 0.01;
        sim_queue_push(&q, &js[i], (uint64_t)i + 1, 1); /* a class each */
    }
    js[BIG].arrival_no = BIG;
    js[BIG].req.gpus = 1;
    js[BIG].req.cpu = 4;
    sim_queue_push(&q, &js[BIG], 0, 1);
    sim_queue_dispatch_host(&q, false, htoy_room, &(sim_queue_host){htoy_host, htoy_fits, NULL, NULL}, htoy_start, t);
    CHECK_EQ_INT(t->tries, 1);
    CHECK_EQ_INT(t->nstarted, 1);
    CHECK_EQ_INT(t->started[0], BIG);
    CHECK_EQ_INT(sim_queue_len(&q), BIG);
    /* with the cores back, every shape is tried again (none was lost) */
    t->cpu[0] = 1e6;
    sim_queue_dispatch_host(&q, false, htoy_room, &(sim_queue_host){htoy_host, htoy_fits, NULL, NULL}, htoy_start, t);
    CHECK_EQ_INT(t->nstarted, 8); /* the cards bind now: 8 in all */
    sim_queue_free(&q);
    free(js);
    free(t);
}

/* An overloaded queue bound by CPU and memory: one node has cores but no
 * memory free, another memory but no cores, so the most free of each (the
 * host room) admits every bucket and only a fit test per bucket refuses
 * it. A release of a core on the first node then costs no fit test once
 * the buckets are parked, where the host room alone asks every bucket at
 * every pass; the starts match a queue without a host room throughout. */
static void host_parked_cost(void)
{
    enum { Q = 300, ROUNDS = 50 };
    static job js[Q + 2];
    memset(js, 0, sizeof js);
    htoy *t[3];
    sim_queue q[3];
    sim_queue_host hf = {htoy_host, htoy_fits, NULL, NULL}, hp = {htoy_host, htoy_fits, htoy_gives, htoy_given_free};
    for (int k = 0; k < 3; k++) { /* 0: no host room, 1: fits, 2: parking */
        t[k] = calloc(1, sizeof *t[k]);
        t[k]->js = js;
        t[k]->cards[0] = t[k]->cards[1] = 8;
        t[k]->cpu[0] = 64;
        t[k]->mem[1] = 512;
        sim_queue_init(&q[k]);
    }
    unsigned seed = 5;
    for (int i = 0; i < Q; i++) {
        seed = seed * 1103515245u + 12345u;
        js[i].arrival_no = (uint64_t)i;
        js[i].req.gpus = 1;
        js[i].req.cpu = 1 + (double)(seed >> 8 & 63) * 0.9;    /* 1 .. 57.7 cores */
        js[i].req.mem_gib = 1 + (double)(seed >> 16 & 511);     /* 1 .. 512 GiB */
        for (int k = 0; k < 3; k++)
            sim_queue_push(&q[k], &js[i], (uint64_t)i, 1); /* a class each */
    }
    for (int r = 0; r < ROUNDS; r++) { /* a core comes back to node 0, and is taken again */
        for (int k = 0; k < 3; k++) {
            t[k]->cpu[0] += 1;
            t[k]->glog[t[k]->gives++ % HLOG] = 0;
        }
        sim_queue_dispatch(&q[0], false, htoy_room, htoy_start, t[0]);
        sim_queue_dispatch_host(&q[1], false, htoy_room, &hf, htoy_start, t[1]);
        sim_queue_dispatch_host(&q[2], false, htoy_room, &hp, htoy_start, t[2]);
        for (int k = 0; k < 3; k++)
            t[k]->cpu[0] -= 1;
    }
    for (int k = 0; k < 3; k++)
        CHECK_EQ_INT(t[k]->nstarted, 0);
    CHECK(t[1]->fits_calls >= ROUNDS * 50); /* every pass asks every bucket */
    CHECK(t[2]->fits_calls <= t[1]->fits_calls / ROUNDS + 1); /* about one pass's worth, once */
    CHECK_EQ_INT(t[2]->tries, 0);
    /* memory comes back to node 0: the woken buckets start, in order */
    for (int k = 0; k < 3; k++) {
        t[k]->mem[0] = 512;
        t[k]->glog[t[k]->gives++ % HLOG] = 0;
    }
    sim_queue_dispatch(&q[0], false, htoy_room, htoy_start, t[0]);
    sim_queue_dispatch_host(&q[1], false, htoy_room, &hf, htoy_start, t[1]);
    sim_queue_dispatch_host(&q[2], false, htoy_room, &hp, htoy_start, t[2]);
    CHECK(t[0]->nstarted > 0);
    for (int k = 1; k < 3; k++) {
        CHECK_EQ_INT(t[k]->nstarted, t[0]->nstarted);
        CHECK(memcmp(t[k]->started, t[0]->started, (size_t)t[0]->nstarted * sizeof t[0]->started[0]) == 0);
        CHECK_EQ_INT(sim_queue_len(&q[k]), sim_queue_len(&q[0]));
    }
    for (int k = 0; k < 3; k++) {
        sim_queue_free(&q[k]);
        free(t[k]);
    }
}

/* Without a host room (host_blind): one bucket per demand whatever the
 * CPU and memory asks, and the same tries in the same order as buckets
 * split by host level, in both orders. */
static void host_blind_one_bucket_per_demand(void)
{
    enum { N = 3000 };
    for (int strict = 0; strict < 2; strict++) {
        job *js = calloc(N, sizeof *js);
        toy *t = calloc(2, sizeof *t);
        sim_queue q[2];
        int running[N], nrun = 0;
        for (int k = 0; k < 2; k++) {
            sim_queue_init(&q[k]);
            t[k].free = 8;
        }
        q[1].host_blind = true;
        unsigned seed = 777;
        for (int i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 8;
            job *j = &js[i];
            j->arrival_no = (uint64_t)i;
            j->req.priority = (int)(r % 3);
            j->req.submit_us = (gs_time_us)(i - (int)(r >> 4 & 7));
            j->req.gpus = 1 + (int)(r >> 8 & 3);          /* 1..4 cards */
            j->req.cpu = 1 + (double)(r >> 10 & 15);       /* 16 core asks */
            j->req.mem_gib = 4 + (double)(r >> 14 & 63); /* 64 memory asks */
            /* the class names cards, cores and GiB, as pol_whole's shape key */
            uint64_t key = (uint64_t)j->req.gpus << 16 | (uint64_t)j->req.cpu << 8 | (uint64_t)j->req.mem_gib;
            for (int k = 0; k < 2; k++)
                sim_queue_push(&q[k], j, key, demand_of(j));
            if (r >> 16 & 1) { /* a release, then a pass on both */
                if (nrun) {
                    int x = (int)(r >> 17) % nrun;
                    for (int k = 0; k < 2; k++)
                        t[k].free += js[running[x]].req.gpus;
                    running[x] = running[--nrun];
                }
                int s0 = t[0].nstarted;
                for (int k = 0; k < 2; k++)
                    sim_queue_dispatch(&q[k], strict, toy_room, toy_start, &t[k]);
                for (int x = s0; x < t[0].nstarted; x++)
                    running[nrun++] = t[0].started[x];
                if (t[0].nstarted > 4000)
                    break;
            }
        }
        CHECK_EQ_INT(t[1].nstarted, t[0].nstarted);
        CHECK(memcmp(t[1].started, t[0].started, (size_t)t[0].nstarted * sizeof t[0].started[0]) == 0);
        CHECK_EQ_INT(t[1].tries, t[0].tries);
        CHECK(t[0].nstarted > 100);
        CHECK(q[1].nbk <= 4);
        CHECK(q[0].nbk > 40);
        for (int k = 0; k < 2; k++)
            sim_queue_free(&q[k]);
        free(js);
        free(t);
    }
}

/* One bucket (one demand, no host room): the pass that takes the bucket as
 * its list tries what trying every class's head tries, in the same order,
 * with refusals besides the cards (a quota's, changing from pass to pass),
 * and a start that queues a request of a second demand in the middle of
 * a pass (the general pass goes on from there). */
typedef struct spawn_toy {
    toy t;
    int pass;                /* refusals: the class (gpumem_mib) plus the pass, a multiple of 5; spawns from 2000 */
    sim_queue *q;            /* where a spawned request goes: the queue, or */
    job **w;                 /* the reference's list */
    int *nw;
    job *spare;              /* requests to spawn, in order */
    int nspare, nspawned;
} spawn_toy;

static bool spawn_start(void *ud, job *j)
{
    spawn_toy *st = ud;
    if (j->req.gpus <= st->t.free && (j->req.gpumem_mib + st->pass) % 5 == 0) { /* fits, refused */
        st->t.tries++;
        return false;
    }
    if (!toy_start(&st->t, j))
        return false;
    if (st->pass >= 2000 && j->arrival_no % 10 == 7 && st->nspawned < st->nspare) { /* a second demand, mid-pass */
        job *n = &st->spare[st->nspawned++];
        if (st->q)
            sim_queue_push(st->q, n, (uint64_t)n->req.gpumem_mib, demand_of(n));
        else
            st->w[(*st->nw)++] = n;
    }
    return true;
}

static void one_bucket_matches_reference(void)
{
    enum { N = 3000, SPARE = 40 };
    job *js = calloc(N, sizeof *js), *spare = calloc(SPARE, sizeof *spare);
    job **w = calloc(N + SPARE, sizeof *w);
    int nw = 0;
    sim_queue q;
    sim_queue_init(&q);
    spawn_toy a = {.q = &q, .spare = spare, .nspare = SPARE}, b = {.w = w, .nw = &nw, .spare = spare, .nspare = SPARE};
    a.t.free = b.t.free = 8;
    for (int i = 0; i < SPARE; i++) {
        spare[i].arrival_no = (uint64_t)(N + i);
        spare[i].req.submit_us = N + i;
        spare[i].req.gpus = 2;
        spare[i].req.gpumem_mib = 201;
    }
    unsigned seed = 4242;
    int running[N + SPARE], nrun = 0, passes_one = 0, passes_two = 0;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        job *j = &js[i];
        j->arrival_no = (uint64_t)i;
        j->req.priority = (int)(r % 3);
        j->req.submit_us = (gs_time_us)(i - (int)(r >> 4 & 7));
        j->req.gpus = 1;
        j->req.gpumem_mib = 100 + (r >> 12 & 15); /* 16 classes of one demand */
        sim_queue_push(&q, j, (uint64_t)j->req.gpumem_mib, demand_of(j));
        w[nw++] = j;
        if (r >> 16 & 1) { /* a release, then a pass on both */
            if (nrun) {
                int k = (int)(r >> 17) % nrun;
                int g = (int)(running[k] < N ? js[running[k]].req.gpus : spare[running[k] - N].req.gpus);
                a.t.free += g;
                b.t.free += g;
                running[k] = running[--nrun];
            }
            a.pass = b.pass = i;
            int s0 = a.t.nstarted;
            passes_one += q.nbk == 1 && q.len > 0;
            passes_two += q.nbk > 1;
            sim_queue_dispatch(&q, false, toy_room, spawn_start, &a);
            ref_dispatch(w, &nw, false, spawn_start, &b);
            for (int k = s0; k < a.t.nstarted; k++)
                running[nrun++] = a.t.started[k];
            if (a.t.nstarted > 4000 || b.t.nstarted > 4000)
                break;
        }
    }
    CHECK_EQ_INT(a.t.nstarted, b.t.nstarted);
    CHECK(memcmp(a.t.started, b.t.started, (size_t)a.t.nstarted * sizeof a.t.started[0]) == 0);
    CHECK_EQ_INT(a.t.tries_beyond, 0);
    CHECK_EQ_INT(a.t.tries, b.t.tries - b.t.tries_beyond); /* the same refusals, none past the room */
    CHECK_EQ_INT(sim_queue_len(&q), (size_t)nw);
    CHECK(a.nspawned > 10);
    CHECK(passes_one > 500 && passes_two > 100); /* both kinds of pass ran, and one switched */
    CHECK(a.t.nstarted > 100);
    sim_queue_free(&q);
    free(js);
    free(spare);
    free(w);
}

const test_case tests_queue_index[] = {
    {"queue index: skipping order matches trying every class", skipping_matches_reference},
    {"queue index: strict order matches trying every class", strict_matches_reference},
    {"queue index: requests in arrival order, both orders match trying every class", in_order_matches_reference},
    {"queue index: classes beyond the room are not visited", classes_beyond_room_not_visited},
    {"queue index: host room, skipping order matches no host room", host_skipping_matches},
    {"queue index: host room, strict order matches no host room", host_strict_matches},
    {"queue index: shapes beyond the host room are not visited", host_shapes_beyond_not_visited},
    {"queue index: parked buckets, the same starts with fewer fit tests", host_parking_matches},
    {"queue index: parked buckets cost no fit test until a node that could take them is given", host_parked_cost},
    {"queue index: no host room, one bucket per demand and the same tries", host_blind_one_bucket_per_demand},
    {"queue index: one bucket, the same tries as every class's head, a second demand mid-pass", one_bucket_matches_reference},
    {NULL, NULL},
};
