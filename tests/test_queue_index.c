/* test_queue_index.c - the queue's demand index (sim/sim_queue.h): the same
 * starts, in the same order, as trying every class's head, and no try of a
 * class whose demand exceeds the room.
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
 * request whose class has not failed in this pass (a class: the key). */
static void ref_dispatch(job **w, int *nw, bool strict, toy *t)
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
        if (toy_start(t, w[best])) {
            w[best] = w[--*nw];
            continue;
        }
        if (strict)
            return;
        failed[nfailed++] = (uint64_t)w[best]->req.gpumem_mib;
    }
}

static void random_against_reference(bool strict)
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
    sq_init(&q);
    unsigned seed = 12345;
    int running[N], nrun = 0;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        job *j = &js[i];
        j->arrival_no = (uint64_t)i;
        j->req.priority = (int)(r % 3);
        j->req.submit_us = (gs_time_us)(i - (int)(r >> 4 & 7));
        j->req.gpus = 1 + (int)(r >> 8 & 7);            /* 1..8 cards */
        j->req.gpumem_mib = j->req.gpus * 100 + (r >> 12 & 15); /* the class: 16 shapes per demand */
        sq_push(&q, j, (uint64_t)j->req.gpumem_mib, demand_of(j));
        w[nw++] = j;
        if (r >> 16 & 1) { /* a release, then a pass on both */
            if (nrun) {
                int k = (int)(r >> 17) % nrun;
                a.free += js[running[k]].req.gpus;
                b.free += js[running[k]].req.gpus;
                running[k] = running[--nrun];
            }
            int s0 = a.nstarted;
            sq_dispatch(&q, strict, toy_room, toy_start, &a);
            ref_dispatch(w, &nw, strict, &b);
            for (int k = s0; k < a.nstarted; k++)
                running[nrun++] = a.started[k];
            if (a.nstarted > 4000 || b.nstarted > 4000)
                break;
        }
    }
    CHECK_EQ_INT(a.nstarted, b.nstarted);
    CHECK(memcmp(a.started, b.started, (size_t)a.nstarted * sizeof a.started[0]) == 0);
    CHECK_EQ_INT(sq_len(&q), (size_t)nw);
    CHECK_EQ_INT(a.tries_beyond, 0); /* the index never tries what cannot fit */
    CHECK(a.tries < b.tries);
    CHECK(a.nstarted > 100);
    sq_free(&q);
    free(js);
    free(w);
}

static void skipping_matches_reference(void) { random_against_reference(false); }
static void strict_matches_reference(void) { random_against_reference(true); }

/* The cliff: many classes that cannot fit cost nothing at a pass that has
 * room for one card. */
static void classes_beyond_room_not_visited(void)
{
    enum { BIG = 1000 };
    job js[BIG + 1];
    memset(js, 0, sizeof js);
    sim_queue q;
    sq_init(&q);
    for (int i = 0; i < BIG; i++) {
        js[i].arrival_no = (uint64_t)i;
        js[i].req.gpus = 8;
        sq_push(&q, &js[i], (uint64_t)i + 1, 8); /* a class each */
    }
    js[BIG].arrival_no = BIG;
    js[BIG].req.gpus = 1;
    sq_push(&q, &js[BIG], 0, 1);
    toy t;
    memset(&t, 0, sizeof t);
    t.free = 1;
    sq_dispatch(&q, false, toy_room, toy_start, &t);
    CHECK_EQ_INT(t.tries, 1);
    CHECK_EQ_INT(t.nstarted, 1);
    CHECK_EQ_INT(t.started[0], BIG);
    CHECK_EQ_INT(sq_len(&q), BIG);
    /* with room for everything, all are tried again (none was lost) */
    t.free = 8 * BIG;
    sq_dispatch(&q, false, toy_room, toy_start, &t);
    CHECK_EQ_INT(t.nstarted, BIG + 1);
    CHECK_EQ_INT(sq_len(&q), 0);
    sq_free(&q);
}

const test_case tests_queue_index[] = {
    {"queue index: skipping order matches trying every class", skipping_matches_reference},
    {"queue index: strict order matches trying every class", strict_matches_reference},
    {"queue index: classes beyond the room are not visited", classes_beyond_room_not_visited},
    {NULL, NULL},
};
