/* sim_backfill.c - EASY backfilling (see sim_backfill.h).
 * SPDX-License-Identifier: MIT */
#include "sim_backfill.h"

#include <stdlib.h>
#include <string.h>

#include "sim_bf_index.h"
#include "sim_gang.h"

/* A node of the reservation: what the head takes there at T, and the hold. */
typedef struct bf_rnode {
    int node;
    int extra; /* its GPUs free at T beyond the head's part: left to requests that run past T */
    int nheld; /* GPU ids taken from the ledger, at held[off ..] */
    int off;
} bf_rnode;

struct sim_bf {
    const gs_time_us *now_us; /* the run's clock */
    sim_cluster *cl;
    sim_bf_index *ix;
    size_t look_ahead;
    /* the reservation, kept while `valid` and the index's epoch is `epoch` */
    bool valid, none;
    uint64_t epoch;
    const job *head;
    uint32_t head_slot, head_gen;
    gs_time_us t_us; /* T: the head's planned start */
    /* its shape: `count` parts of `need` GPUs in `pools` (and, across nodes,
     * one more of `rest` in the same pool; rest 0: none) */
    uint64_t pools;
    int need, count, rest;
    /* a head that must stay inside one rack or block: the level
     * (TOPO_RACK, TOPO_BLOCK; -1: none) and the domain reserved */
    int level, domain;
    int *dcount, *dtouched, ntouched; /* [domain]: nodes a walk counted in it (reserve_inside) */
    bf_rnode *r;     /* its nodes */
    int nr, r_cap;
    int *rix;        /* [node]: its index in r, or -1 */
    uint32_t *mark, stamp; /* [node]: == stamp when a walk counted it (reserve) */
    int *held;       /* the holds' GPU ids, each node's slice as long as its GPUs */
    int held_cap, nheld; /* nheld: all nodes' */
    int room_r;      /* the most GPUs free on one reserved node, holds aside (bf_room) */
    size_t tries_left; /* of the look-ahead, after the last pass */
    /* a pass running; one asked for during it */
    bool in_pass, again;
    const sim_bf_ops *ops;
    uint64_t backfilled, reservations;
};

/* A request's time limit: what the reservation plans with (Slurm's
 * backfill plans with --time, not with how long a job will really run):
 * the trace's time_limit, else its duration (work at full speed); work
 * with no end (an internal task) has none. A job still running past its
 * limit is planned to end at once (no job is stopped at its limit). */
static gs_time_us limit_us(const job *j) { return j->internal ? BF_NEVER : job_req_time_limit_us(j); }

static gs_time_us end_after(gs_time_us now, gs_time_us limit)
{
    return limit == BF_NEVER || limit > BF_NEVER - now ? BF_NEVER : now + limit;
}

sim_bf *sim_bf_new(const gs_time_us *now_us, sim_cluster *cl, size_t look_ahead)
{
    sim_bf *b = xcalloc(1, sizeof *b);
    b->now_us = now_us;
    b->cl = cl;
    b->ix = sim_bf_index_new(b->cl);
    b->look_ahead = look_ahead;
    b->rix = xmalloc((size_t)(b->cl->nnodes ? b->cl->nnodes : 1) * sizeof *b->rix);
    b->mark = xcalloc((size_t)(b->cl->nnodes ? b->cl->nnodes : 1), sizeof *b->mark);
    b->level = b->domain = -1;
    if (b->cl->topo) {
        b->dcount = xcalloc((size_t)(b->cl->nnodes ? b->cl->nnodes : 1), sizeof *b->dcount);
        b->dtouched = xmalloc((size_t)(b->cl->nnodes ? b->cl->nnodes : 1) * sizeof *b->dtouched);
    }
    for (int n = 0; n < b->cl->nnodes; n++)
        b->rix[n] = -1;
    return b;
}

void sim_bf_free(sim_bf *b)
{
    if (!b)
        return;
    sim_bf_index_free(b->ix);
    free(b->r);
    free(b->rix);
    free(b->mark);
    free(b->dcount);
    free(b->dtouched);
    free(b->held);
    free(b);
}

void sim_bf_taken(sim_bf *b, const job *j)
{
    gs_time_us end = end_after(*b->now_us, limit_us(j));
    if (!job_spans(j)) {
        sim_bf_index_add(b->ix, j->node, j->slot, j->ngpu_ids, end);
        return;
    }
    const job_span *sp = j->gpu.span;
    for (int i = 0; i < sp->nparts; i++)
        sim_bf_index_add(b->ix, sp->part[i].node, j->slot, sp->part[i].ngpus, end);
}

void sim_bf_given(sim_bf *b, const job *j)
{
    if (!job_spans(j)) {
        sim_bf_index_remove(b->ix, j->node, j->slot);
        return;
    }
    const job_span *sp = j->gpu.span;
    for (int i = 0; i < sp->nparts; i++)
        sim_bf_index_remove(b->ix, sp->part[i].node, j->slot);
}

uint64_t sim_bf_class_key(const job *j)
{
    /* the shape across nodes too: a class shares a demand (sim_bf_demand) */
    uint64_t k = (uint64_t)limit_us(j) * 0x9E3779B97F4A7C15ULL ^
                 ((uint64_t)j->req.gpus_per_node << 8 | j->req.topology) * 0xC2B2AE3D27D4EB4FULL;
    return k ^ (k >> 31);
}

uint64_t sim_bf_backfilled(const sim_bf *b) { return b->backfilled; }
uint64_t sim_bf_reservations(const sim_bf *b) { return b->reservations; }

/* {==== the hold ====} */

/* Holds on reserved node i what a request running past T may not use: its
 * free GPUs beyond the extra. O(GPUs moved). */
static void hold_node(sim_bf *b, int i)
{
    bf_rnode *rn = &b->r[i];
    int want = sim_bf_index_free_now(b->ix, rn->node) - rn->extra; /* extra: at T, by the index now */
    if (want < 0)
        want = 0;
    if (want > rn->nheld)
        sim_cluster_take(b->cl, rn->node, want - rn->nheld, 0, 0, b->held + rn->off + rn->nheld);
    else if (want < rn->nheld)
        sim_cluster_give(b->cl, rn->node, b->held + rn->off + want, rn->nheld - want, 0, 0);
    b->nheld += want - rn->nheld;
    rn->nheld = want;
}

static void hold_all(sim_bf *b)
{
    for (int i = 0; i < b->nr; i++)
        hold_node(b, i);
}

static void hold_release(sim_bf *b)
{
    for (int i = 0; b->nheld && i < b->nr; i++) {
        bf_rnode *rn = &b->r[i];
        if (rn->nheld)
            sim_cluster_give(b->cl, rn->node, b->held + rn->off, rn->nheld, 0, 0);
        b->nheld -= rn->nheld;
        rn->nheld = 0;
    }
}

/* The most GPUs free on one reserved node, holds aside: O(reserved nodes). */
static void room_of_reserved(sim_bf *b)
{
    b->room_r = 0;
    for (int i = 0; i < b->nr; i++) {
        int f = sim_bf_index_free_now(b->ix, b->r[i].node);
        b->room_r = f > b->room_r ? f : b->room_r;
    }
}

/* {==== the reservation ====} */

static bool cache_valid(const sim_bf *b, const job *h)
{
    return b->valid && b->epoch == sim_bf_index_epoch(b->ix) && h == b->head && h->slot == b->head_slot &&
           h->gen == b->head_gen;
}

/* Forgets the reserved nodes (no hold is on them). */
static void clear_nodes(sim_bf *b)
{
    for (int i = 0; i < b->nr; i++)
        b->rix[b->r[i].node] = -1;
    b->nr = 0;
}

/* Adds node to the reservation with the head's part of `need` GPUs there. */
static void reserve_node(sim_bf *b, int node, int need)
{
    if (b->nr == b->r_cap) {
        b->r_cap = b->r_cap ? 2 * b->r_cap : 4;
        b->r = xrealloc(b->r, (size_t)b->r_cap * sizeof *b->r);
    }
    int off = b->nr ? b->r[b->nr - 1].off + b->cl->nodes[b->r[b->nr - 1].node].ngpus : 0;
    int end = off + b->cl->nodes[node].ngpus;
    if (end > b->held_cap) {
        b->held_cap = end > 2 * b->held_cap ? end : 2 * b->held_cap;
        b->held = xrealloc(b->held, (size_t)b->held_cap * sizeof *b->held);
    }
    b->rix[node] = b->nr;
    b->r[b->nr++] = (bf_rnode){node, sim_bf_index_free_by(b->ix, node, b->t_us) - need, 0, off};
}

/* What node n would hold for a part of `need` GPUs at T: its free GPUs now
 * beyond its extra then. */
static int hold_cost(sim_bf *b, int node, int need)
{
    int extra = sim_bf_index_free_by(b->ix, node, b->t_us) - need;
    int h = sim_bf_index_free_now(b->ix, node) - extra;
    return h > 0 ? h : 0;
}

/* The reserved nodes for T: `count` parts of `need` GPUs on nodes of the
 * pools planned to have them by T (T_n(need) <= T), those that would hold
 * the least first (the nodes whose jobs free the most by T: a node free
 * now is held whole, one that a job ending by T frees not at all), ties in
 * (T_n, id) order. Chosen again after every start past the head: what the
 * start did to a node moves its cost, never T. O(c log c) for the c nodes
 * planned free by the count-th one's time (count, and the ties at it). */
/* The domain of node n at the reserved level (the cluster file's nodes in
 * order form racks, racks form blocks: sim_topo.h), -1 without one. */
static int domain_of(const sim_bf *b, int n)
{
    if (b->level < 0)
        return -1;
    int rack = n / b->cl->topo->rack_nodes;
    return b->level == TOPO_RACK ? rack : rack / b->cl->topo->block_racks;
}

static void select_nodes(sim_bf *b, uint64_t pools, int need, int count)
{
    sim_bf_index_walk w;
    sim_bf_index_walk_start(&w, b->ix, pools, need);
    typedef struct { int cost, rank, node; } cand;
    cand stack_c[8], *c = stack_c;
    int nc = 0, cap = 8, node;
    gs_time_us t, last = BF_NOW;
    while ((node = sim_bf_index_walk_next(&w, &t)) >= 0 && t <= b->t_us && (nc < count || t == last)) {
        if (b->rix[node] >= 0 || (b->domain >= 0 && domain_of(b, node) != b->domain))
            continue; /* a part of g took it (the part of r goes elsewhere), or outside the domain */
        if (nc == cap) {
            cap *= 2;
            c = c == stack_c ? memcpy(xmalloc((size_t)cap * sizeof *c), stack_c, sizeof stack_c)
                             : xrealloc(c, (size_t)cap * sizeof *c);
        }
        c[nc] = (cand){hold_cost(b, node, need), nc, node};
        nc++;
        last = t;
    }
    sim_bf_index_walk_end(&w);
    for (int i = 1; i < nc; i++) { /* insertion sort by (cost, rank): few candidates */
        cand x = c[i];
        int k = i;
        while (k > 0 && (c[k - 1].cost > x.cost || (c[k - 1].cost == x.cost && c[k - 1].rank > x.rank))) {
            c[k] = c[k - 1];
            k--;
        }
        c[k] = x;
    }
    for (int i = 0; i < nc && i < count; i++)
        reserve_node(b, c[i].node, need);
    if (c != stack_c)
        free(c);
}

/* The reservation's nodes from T and the head's shape; no hold on them. */
static void reselect(sim_bf *b)
{
    clear_nodes(b);
    if (!b->none) {
        select_nodes(b, b->pools, b->need, b->count);
        if (b->rest)
            select_nodes(b, b->pools, b->rest, 1);
    }
    room_of_reserved(b);
}

/* The planned time of the count-th node of pool mask `pools` with `need`
 * GPUs, none of them marked with `avoid` (0: any); marks those it counts
 * with the current stamp. BF_NEVER when there are not that many. */
static gs_time_us nth_time(sim_bf *b, uint64_t pools, int need, int count, uint32_t avoid)
{
    sim_bf_index_walk w;
    sim_bf_index_walk_start(&w, b->ix, pools, need);
    gs_time_us t = BF_NOW, last = count > 0 ? BF_NEVER : BF_NOW;
    int node, got = 0;
    while (got < count && (node = sim_bf_index_walk_next(&w, &t)) >= 0) {
        if (avoid && b->mark[node] == avoid)
            continue;
        b->mark[node] = b->stamp;
        last = t;
        got++;
    }
    sim_bf_index_walk_end(&w);
    return got == count ? last : BF_NEVER;
}

/* A head across nodes: in each pool it may use, its shape (sim_gang.h: k
 * nodes, k - 1 parts of g and one of r); T there is the later of the
 * (k - 1)-th node's time for g and the first other node's for r (k nodes
 * for g when r = g). The pool with the least T wins (the first on ties).
 * O((k + ties) log k) a pool. */
/* A head that must stay inside one domain, shape (g, k, r) in pool p: the
 * nodes in T_n(g) order, counted by domain, until one domain has k (the
 * part of r planned as one of g: a little late at worst, never early).
 * O(v log v) for the v nodes walked, at worst the pool's. */
static gs_time_us inside_time(sim_bf *b, int p, const gang_shape *sh, int *domain)
{
    sim_bf_index_walk w;
    sim_bf_index_walk_start(&w, b->ix, 1ULL << p, sh->g);
    gs_time_us t = BF_NEVER, tn;
    int node;
    *domain = -1;
    while ((node = sim_bf_index_walk_next(&w, &tn)) >= 0) {
        int d = domain_of(b, node);
        if (b->dcount[d]++ == 0)
            b->dtouched[b->ntouched++] = d;
        if (b->dcount[d] == sh->k) {
            t = tn;
            *domain = d;
            break;
        }
    }
    sim_bf_index_walk_end(&w);
    for (int i = 0; i < b->ntouched; i++)
        b->dcount[b->dtouched[i]] = 0;
    b->ntouched = 0;
    return t;
}

static void reserve_span(sim_bf *b, const job *h)
{
    b->t_us = BF_NEVER;
    b->level = !b->cl->topo || h->req.topology == JOB_TOPO_ANY ? -1
               : h->req.topology == JOB_TOPO_RACK                ? TOPO_RACK
                                                                  : TOPO_BLOCK;
    for (int p = 0; p < b->cl->npools; p++) {
        gang_shape sh;
        if (!(h->pools >> p & 1) || !sim_gang_shape(b->cl, h, p, &sh))
            continue;
        if (b->level >= 0) {
            int d;
            gs_time_us t = inside_time(b, p, &sh, &d);
            if (t < b->t_us) {
                b->t_us = t;
                b->pools = 1ULL << p;
                b->need = sh.g;
                b->count = sh.k;
                b->rest = 0;
                b->domain = d;
            }
            continue;
        }
        int count = sh.r == sh.g ? sh.k : sh.k - 1, rest = sh.r == sh.g ? 0 : sh.r;
        uint32_t first = ++b->stamp;
        gs_time_us t = nth_time(b, 1ULL << p, sh.g, count, 0);
        if (rest && t != BF_NEVER) {
            b->stamp++;
            gs_time_us tr = nth_time(b, 1ULL << p, rest, 1, first);
            t = tr > t ? tr : t;
        }
        if (t < b->t_us) {
            b->t_us = t;
            b->pools = 1ULL << p;
            b->need = sh.g;
            b->count = count;
            b->rest = rest;
        }
    }
    b->none = b->t_us == BF_NEVER;
}

/* The head h's reservation: T, the soonest its GPUs are planned free on a
 * node of its pools (on nodes of one pool, across nodes), and the nodes. */
static void reserve(sim_bf *b, const job *h)
{
    b->head = h;
    b->head_slot = h->slot;
    b->head_gen = h->gen;
    b->valid = true;
    b->level = b->domain = -1;
    if (h->req.spans) {
        reserve_span(b, h);
    } else {
        b->pools = h->pools;
        b->need = h->req.gpus;
        b->count = 1;
        b->rest = 0;
        b->none = h->req.gpus <= 0 || sim_bf_index_first(b->ix, h->pools, h->req.gpus, &b->t_us) < 0;
    }
    b->reservations += !b->none;
    reselect(b);
}

/* A request ends, by its time limit, no later than the reservation. */
static bool ends_by_t(const sim_bf *b, const job *j)
{
    return b->none || end_after(*b->now_us, limit_us(j)) <= b->t_us;
}

/* After a start past the head: the nodes chosen again (a request running
 * past T is now a job the index plans past T), and held. */
static void started(sim_bf *b)
{
    if (b->none)
        return;
    hold_release(b);
    reselect(b);
    hold_all(b);
}

/* The GPUs request j needs on one node: all of them, or across nodes its
 * largest part (a gang needs a node with that many free, at least). */
static int demand_of(const sim_bf *b, const job *j)
{
    return j->req.spans ? (int)sim_bf_demand(b, j) : j->req.gpus;
}

uint32_t sim_bf_demand(const sim_bf *b, const job *j)
{
    int d = 0;
    for (int p = 0; p < b->cl->npools; p++) {
        gang_shape sh;
        if (j->pools >> p & 1 && sim_gang_shape(b->cl, j, p, &sh) && (d == 0 || sh.g < d))
            d = sh.g;
    }
    return (uint32_t)d;
}

/* sim_queue_dispatch's try_start under the reservation. Two tests spare a
 * placement that cannot succeed (and the ledger the churn of a hold given
 * back and taken again): no node has the request's GPUs free with the
 * holds in place (the policy's room), and no reserved node has them free
 * without (the room under the holds). */
static bool bf_try(void *ud, job *j)
{
    sim_bf *b = ud;
    if (j == b->head)
        return false; /* it did not fit in the fifo part: nothing was given since */
    int d = demand_of(b, j);
    bool held_room = b->ops->room == NULL || (int)b->ops->room(b->ops->ud) >= d;
    bool ok = held_room && b->ops->place(b->ops->ud, j);
    if (!ok && b->nheld && b->room_r >= d && ends_by_t(b, j)) { /* it may use what is held: try it without */
        hold_release(b);
        ok = b->ops->place(b->ops->ud, j);
        if (!ok)
            hold_all(b);
    }
    if (ok)
        started(b);
    b->backfilled += ok;
    return ok;
}

/* The room the holds hide from the policy's own. */
static uint32_t bf_room(void *ud)
{
    sim_bf *b = ud;
    uint32_t r = b->ops->room(b->ops->ud);
    return b->nheld && (uint32_t)b->room_r > r ? (uint32_t)b->room_r : r;
}

/* The host room's members, called with the pass's ud (the sim_bf) and
 * handed on with the caller's. */
static void fwd_room(void *ud, double *cpu, double *mem)
{
    const sim_bf *b = ud;
    b->ops->host->room(b->ops->ud, cpu, mem);
}
static bool fwd_fits(void *ud, double cpu, double mem)
{
    const sim_bf *b = ud;
    return b->ops->host->fits(b->ops->ud, cpu, mem);
}
static uint64_t fwd_gives(void *ud)
{
    const sim_bf *b = ud;
    return b->ops->host->gives(b->ops->ud);
}
static int fwd_given_free(void *ud, uint64_t since, double *cpu, double *mem, int max)
{
    const sim_bf *b = ud;
    return b->ops->host->given_free(b->ops->ud, since, cpu, mem, max);
}

/* {==== passes ====} */

/* The part past the head, under its reservation; returns the tries made. */
static size_t backfill_part(sim_bf *b, sim_queue *q, size_t max_tries)
{
    const sim_queue_host *h = b->ops->host;
    sim_queue_host fwd = {h ? fwd_room : NULL, h && h->fits ? fwd_fits : NULL, h && h->gives ? fwd_gives : NULL,
                   h && h->given_free ? fwd_given_free : NULL};
    hold_all(b);
    size_t n = sim_queue_dispatch_upto(q, false, b->ops->room ? bf_room : NULL, h ? &fwd : NULL, bf_try, b, max_tries);
    hold_release(b);
    return n;
}

void sim_bf_dispatch(sim_bf *b, sim_queue *q, const sim_bf_ops *ops)
{
    if (b->in_pass) {
        b->again = true;
        return;
    }
    b->in_pass = true;
    b->ops = ops;
    do {
        b->again = false;
        sim_queue_dispatch_host(q, true, ops->room, ops->host, ops->place, ops->ud);
        job *h = sim_queue_head(q);
        if (!h)
            break;
        if (!cache_valid(b, h))
            reserve(b, h);
        b->tries_left = b->look_ahead - backfill_part(b, q, b->look_ahead);
        b->epoch = sim_bf_index_epoch(b->ix);
        b->valid = !b->again;
    } while (b->again);
    b->in_pass = false;
}

int sim_bf_arrive(sim_bf *b, sim_queue *q, job *j, const sim_bf_ops *ops)
{
    const job *h = sim_queue_head(q);
    if (!h || b->in_pass || !cache_valid(b, h) || sim_queue_before(j, h))
        return BF_PASS;
    if (b->tries_left == 0)
        return BF_QUEUE; /* beyond the look-ahead */
    b->tries_left--;
    b->ops = ops;
    b->in_pass = true;
    hold_all(b);
    bool ok = bf_try(b, j);
    hold_release(b);
    b->in_pass = false;
    b->epoch = sim_bf_index_epoch(b->ix);
    if (b->again) { /* the try released something: a pass, with j in the queue if it waits */
        b->again = false;
        b->valid = false;
        if (!ok)
            return BF_PASS;
        sim_bf_dispatch(b, q, ops);
    }
    return ok ? BF_STARTED : BF_QUEUE;
}
