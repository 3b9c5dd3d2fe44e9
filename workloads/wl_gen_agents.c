/* wl_gen_agents.c - `gpusim gen agents`: agent sessions and their bursts
 * (see wl_gen.h for the distributions).
 *
 * Rows must come out in submit order, and the bursts of many live sessions
 * interleave, so live sessions sit in a binary heap keyed by the time of
 * their next row: memory is O(live sessions), never O(trace length). Each
 * quantity draws from its own seeded stream (session arrivals, session
 * lengths, sizes, burst lengths, idle gaps, wake kinds).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "../base/gs_rng.h"
#include "wl_gen.h"

/* Streams of this generator (ids apart from gs_rng.h's shared ones). */
enum { RNG_AG_BURSTS = 40, RNG_AG_GAPS = 41, RNG_AG_WAKES = 42 };

typedef struct ag_sess {
    long id;
    double end_s;          /* start + length */
    double next_s;         /* submit time of its next burst row */
    double burst_s;        /* start of that burst */
    double dur_s;          /* its length */
    bool sched;            /* scheduled (registered at next_s, due at burst_s) */
    int k;                 /* bursts emitted */
} ag_sess;

typedef struct ag_heap {
    ag_sess *v;
    size_t n, cap;
} ag_heap;

static bool ag_before(const ag_sess *a, const ag_sess *b)
{
    return a->next_s != b->next_s ? a->next_s < b->next_s : a->id < b->id;
}

static void ag_push(ag_heap *h, ag_sess x)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->v = xrealloc(h->v, h->cap * sizeof *h->v);
    }
    size_t i = h->n++;
    while (i > 0 && ag_before(&x, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static ag_sess ag_pop(ag_heap *h)
{
    ag_sess top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= h->n)
            break;
        if (k + 1 < h->n && ag_before(&h->v[k + 1], &h->v[k]))
            k++;
        if (!ag_before(&h->v[k], &last))
            break;
        h->v[i] = h->v[k];
        i = k;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* Plans the burst after one that ended at prev_end_s; false past the end. */
static bool plan_next(ag_sess *x, double prev_end_s, gsl_rng *rg, gsl_rng *rb, gsl_rng *rw, const wl_agents_opts *o)
{
    double start = prev_end_s + gs_rng_exp(rg, o->gap_mean_s);
    if (start >= x->end_s)
        return false;
    x->burst_s = start;
    x->dur_s = gs_rng_exp(rb, o->burst_mean_s);
    x->sched = gsl_rng_uniform(rw) < o->scheduled_share;
    /* a scheduled wake is registered when the previous burst ends (the agent
     * sets its timer then); a user-driven one arrives when it starts */
    x->next_s = x->sched ? prev_end_s : start;
    return true;
}

int wl_gen_agents(FILE *out, const wl_agents_opts *o, gs_error *err)
{
    gsl_rng *ra = gs_rng_new(o->seed, RNG_ARRIVALS), *rl = gs_rng_new(o->seed, RNG_DURATIONS),
            *rs = gs_rng_new(o->seed, RNG_SIZES), *rb = gs_rng_new(o->seed, RNG_AG_BURSTS),
            *rg = gs_rng_new(o->seed, RNG_AG_GAPS), *rw = gs_rng_new(o->seed, RNG_AG_WAKES);
    ag_heap h = {0};
    double rate_per_s = (double)o->sessions / (o->hours * 3600.0);
    long made = 0;
    double next_arrival = o->sessions > 0 ? gs_rng_exp(ra, 1.0 / rate_per_s) : 0;
    fprintf(out, "id,submit,duration,gpus,cpu,mem_gib,kind,session,wake,due\n");
    while (made < o->sessions || h.n) {
        if (made < o->sessions && (!h.n || next_arrival <= h.v[0].next_s)) {
            /* a new session: its row, then its first burst (user-driven) at once */
            double len = o->session_min_s + gs_rng_exp(rl, o->session_mean_s - o->session_min_s);
            int gpus = gsl_rng_uniform(rs) < o->gpu_share ? 1 : 0;
            fprintf(out, "s%ld,%.6f,%.6f,%d,%g,%g,session,,,\n", made, next_arrival, len, gpus, o->cpu, o->mem_gib);
            ag_sess x = {.id = made, .end_s = next_arrival + len, .next_s = next_arrival, .burst_s = next_arrival,
                         .dur_s = gs_rng_exp(rb, o->burst_mean_s), .sched = false};
            ag_push(&h, x);
            made++;
            if (made < o->sessions)
                next_arrival += gs_rng_exp(ra, 1.0 / rate_per_s);
            continue;
        }
        ag_sess x = ag_pop(&h);
        if (x.sched)
            fprintf(out, "s%ld.b%d,%.6f,%.6f,,,,burst,s%ld,scheduled,%.6f\n", x.id, x.k, x.next_s, x.dur_s, x.id,
                    x.burst_s);
        else
            fprintf(out, "s%ld.b%d,%.6f,%.6f,,,,burst,s%ld,user,\n", x.id, x.k, x.next_s, x.dur_s, x.id);
        x.k++;
        if (plan_next(&x, x.burst_s + x.dur_s, rg, rb, rw, o))
            ag_push(&h, x);
    }
    free(h.v);
    gs_rng_free(ra);
    gs_rng_free(rl);
    gs_rng_free(rs);
    gs_rng_free(rb);
    gs_rng_free(rg);
    gs_rng_free(rw);
    if (fflush(out) != 0 || ferror(out))
        return gs_err(err, GS_EWRITE, "cannot write the generated trace");
    return 0;
}
