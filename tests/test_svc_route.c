/* test_svc_route.c - least-loaded routing through the load heap against a
 * scan of every replica in creation order (the rule it replaces: the
 * fewest requests, the first made among equals, with a batch slot and KV
 * room; the ready ones are only in the heap, retired from any place), under random
 * arrivals, completions, replicas made ready and retired, and requests of
 * random KV size so that memory binds often; and the heap's KV figures
 * turning away a request that fits nowhere without visiting replicas.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_rng.h"
#include "../sim/service/svc_types.h"
#include "check.h"

enum { NREP = 300 };

/* the rule, by a scan of the ready ones of reps[0..n) (creation order) */
static replica *scan_pick(const service *v, replica *reps, int nrep, double kv_tok)
{
    replica *best = NULL;
    for (int i = 0; i < nrep; i++) {
        replica *p = &reps[i];
        if (p->state != R_READY)
            continue;
        int n = p->nactive + p->npending;
        bool room = n < v->max_batch && (n == 0 || p->kv_used + kv_tok <= p->hw.kv_cap_tok);
        if (room && (!best || n < best->nactive + best->npending))
            best = p;
    }
    return best;
}

static void random_against_scan(void)
{
    gsl_rng *r = gs_rng_new(11, 2);
    svc_layer layer;
    memset(&layer, 0, sizeof layer);
    service v;
    memset(&v, 0, sizeof v);
    v.L = &layer;
    v.max_batch = 8;
    replica *reps = calloc(NREP, sizeof *reps);
    layer.hpos = calloc(NREP, sizeof *layer.hpos);
    for (int i = 0; i < NREP; i++) {
        reps[i].idx = (uint32_t)i;
        reps[i].sn = (uint32_t)i;
        reps[i].svc = &v;
        layer.hpos[i] = -1;
        reps[i].state = R_PLACING;
        reps[i].hw.kv_cap_tok = 1000 + 100 * (i % 7); /* cards of several sizes */
    }
    long picks = 0, none = 0, bound = 0;
    for (int step = 0; step < 200000; step++) {
        int op = (int)gsl_rng_uniform_int(r, 100);
        replica *p = &reps[gsl_rng_uniform_int(r, NREP)];
        if (op < 3 && p->state != R_READY) { /* ready, with what it holds */
            p->state = R_READY;
            svc_ready_add(&v, p);
        } else if (op < 5 && p->state == R_READY && v.nready > 1) { /* retired */
            svc_ready_del(&v, p);
            p->state = R_PLACING;
        } else if (op < 55) { /* a request: routed as the product routes it */
            double kv = (double)(1 + gsl_rng_uniform_int(r, 600));
            replica *want = scan_pick(&v, reps, NREP, kv);
            bound += v.nready > 0 && v.heap_on && want != v.lheap[0];
            replica *got = svc_least_loaded(&v, kv);
            CHECK(got == want);
            if (got != want)
                break;
            if (got) {
                got->npending++;
                got->kv_used += kv;
                svc_load_changed(got);
                picks++;
            } else {
                none++;
            }
        } else if (p->npending > 0) { /* a request done: its share of the KV back */
            double kv = p->kv_used / p->npending;
            p->npending--;
            p->kv_used = p->npending ? p->kv_used - kv : 0;
            svc_load_changed(p);
        }
    }
    /* the run covered every case: picks, requests fitting nowhere, and
     * picks other than the top of the heap (KV binding) */
    CHECK(picks > 1000 && none > 1000 && bound > 1000);
    svc_ready_free(&v);
    free(reps);
    free(layer.hpos);
    gs_rng_free(r);
}

/* The load bitsets (no KV binding: every card holds any batch) against the
 * scan: 1,200 replicas (serial numbers past a bitset's first 1,024, so it
 * grows with replicas ready), made ready and retired at random, loads below
 * the bitsets' 64 levels for 100,000 steps; then max_batch 100 and no
 * request done let them past: the heap takes over there, picking as before. */
static void bitsets_against_scan(void)
{
    enum { N = 1200 };
    gsl_rng *r = gs_rng_new(12, 3);
    svc_layer layer;
    memset(&layer, 0, sizeof layer);
    service v;
    memset(&v, 0, sizeof v);
    v.L = &layer;
    v.max_batch = 40;
    replica *reps = calloc(N, sizeof *reps);
    layer.hpos = calloc(N, sizeof *layer.hpos);
    for (int i = 0; i < N; i++) {
        reps[i].idx = (uint32_t)i;
        reps[i].sn = (uint32_t)i;
        reps[i].svc = &v;
        layer.hpos[i] = -1;
        reps[i].state = R_PLACING;
        reps[i].hw.kv_cap_tok = 1e12;
    }
    bool bitsets_held = true;
    for (int step = 0; step < 250000; step++) {
        if (step == 100000) {
            bitsets_held = !v.heap_on;
            v.max_batch = 100;
        }
        int op = (int)gsl_rng_uniform_int(r, 100);
        /* the first 1,000 replicas first, so that later ones join a grown bitset */
        int span = step < 20000 ? 1000 : N;
        replica *p = &reps[gsl_rng_uniform_int(r, span)];
        if (op < 3 && p->state != R_READY) {
            p->state = R_READY;
            svc_ready_add(&v, p);
        } else if (op < 5 && p->state == R_READY && v.nready > 1) {
            svc_ready_del(&v, p);
            p->state = R_PLACING;
        } else if (op < 60) {
            replica *want = scan_pick(&v, reps, N, 1);
            replica *got = svc_least_loaded(&v, 1);
            CHECK(got == want);
            if (got != want)
                break;
            if (got) {
                got->npending++;
                got->kv_used += 1;
                svc_load_changed(got);
            }
        } else if (p->npending > 0 && v.max_batch < 100) {
            p->npending--;
            p->kv_used -= 1;
            svc_load_changed(p);
        }
    }
    CHECK(bitsets_held);
    CHECK(v.heap_on); /* loads of 64 and more */
    svc_ready_free(&v);
    free(reps);
    free(layer.hpos);
    gs_rng_free(r);
}

const test_case tests_svc_route[] = {
    {"svc_route/least_loaded_heap_equals_scan", random_against_scan},
    {"svc_route/least_loaded_bitsets_equal_scan", bitsets_against_scan},
    {NULL, NULL},
};
