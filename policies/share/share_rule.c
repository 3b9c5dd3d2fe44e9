/* share_rule.c - the contention rule: a card's tenants into progress
 * rates, memory in use and swap (see share_rule.h and policies/README.md).
 *
 * Every change to a card (a tenant joins or leaves) recomputes the rates of
 * that card's tenants only, and moves the policy's time-integrated gauges by
 * the card's change in contribution: O(k log k) for k tenants on the card,
 * independent of the cluster size.
 * SPDX-License-Identifier: MIT */
#include "share_rule.h"

#include "../../sim/sim_preempt.h"
#include "share_fit.h"
#include "share_tenants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIB 1048576.0

/* The pool of placed j's cards (it holds at least one): the cards of one
 * node share a model, its first card says. Looked up once a join, leave or
 * refresh, and handed to each card's update. */
static int task_pool(const sc_state *st, const job *j) { return sc_card_pool(st, job_gpu_ids(j)[0]); }

/* What a join adds to each of j's cards and a leave takes back: its pool
 * (looked up once, not per card), the pool's card memory, the memory the
 * task books on each card (sc_task_mem) and keeps in use there
 * (sc_task_use), and its reserved cores. */
typedef struct task_ask {
    int pool, cores;
    int64_t phys_mib, mem_mib, use_mib;
} task_ask;

static inline task_ask ask_of(const sc_state *st, const job *j)
{
    task_ask a;
    a.pool = j->ngpu_ids > 0 ? task_pool(st, j) : 0;
    a.phys_mib = st->pool_phys_mib[a.pool];
    a.mem_mib = j->ngpu_ids > 0 ? sc_mem_of(st, j, a.pool) : 0;
    a.use_mib = j->ngpu_ids > 0 ? sc_mem_use_of(st, j, a.pool) : 0;
    a.cores = sc_task_cores(st, j);
    return a;
}

/* The fraction of a card's time j keeps busy alone, (0, 1]: the util
 * column, else (vgpu) the cores asked, else a busy card. */
static double task_demand(const sc_state *st, const job *j)
{
    bool cores = st->cfg.hami && j->req.gpucores > 0;
    return j->req.util > 0 ? j->req.util : (cores ? j->req.gpucores / 100.0 : 1.0);
}

/* j's core cap as a fraction of the card; 1 = none. */
static double task_cap(const sc_state *st, const job *j)
{
    if (st->cfg.mps) /* active-thread percentage: the client's gpucores, else the daemon's
                      * integer 100 / split (no cap without a split) */
        return j->req.gpucores > 0   ? j->req.gpucores / 100.0
               : st->cfg.mps_split > 0 ? (double)(100 / st->cfg.mps_split) / 100.0
                                       : 1.0;
    return st->cfg.hami && j->req.gpucores > 0 ? j->req.gpucores / 100.0 : 1.0;
}

typedef struct bound {
    double b;
    int i;
} bound;

static int cmp_bound(const void *pa, const void *pb)
{
    const bound *a = pa, *b = pb;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Efficiency of a card with k running tenants: one context-switch cost per
 * extra tenant, floored (reference/mechanics.md section 2, [U]). */
static double efficiency(const sc_config *cfg, int k)
{
    double e = 1.0 - cfg->switch_cost * (k - 1);
    return k <= 1 ? 1.0 : (e < cfg->eff_floor ? cfg->eff_floor : e);
}

/* The rate placed j runs at: the minimum over its cards (0 while doomed).
 * one: the rate its card gives it as just computed, for a task on one card
 * without kept rates (not wide). */
static double task_rate(const sc_state *st, const job *j, double one)
{
    const sc_task *t = sc_task_of(st, j);
    double r = 1.0;
    if (t && t->wide) {
        for (int i = 0; i < j->ngpu_ids; i++) /* a task on several cards runs at its slowest card's pace */
            if (t->u.more->rate[i] < r)
                r = t->u.more->rate[i];
    } else if (j->ngpu_ids == 1 && one < r) {
        r = one;
    }
    return t && t->doomed ? 0 : r;
}

/* A preemption victim (sim_job_is_victim) is held at rate 0 by the core while it
 * writes its checkpoint: its rate is not ours to change then. It still
 * counts as a tenant in card_update (it keeps its slot, memory, cores and
 * its share of the card's time until it is released; policies/README.md).
 * one: the rate card_update just gave it on the card (task_rate). */
static void set_task_rate(sc_state *st, job *j, double one)
{
    double r = task_rate(st, j, one);
    if (j == st->joiner)
        st->join_rate = r;
    if (j->state == JOB_RUNNING && r != j->rate && !sim_job_is_victim(j))
        sim_job_set_rate(st->s, j, r);
}

/* Tenant i of card g (job j) gets rate r there: into the scratch the rates
 * are set from, and into its record when it keeps its cards' rates. */
static void card_rate(sc_state *st, job *j, int g, int i, double r)
{
    st->scratch_rates[i] = r;
    const sc_task *t = sc_task_of(st, j);
    if (!t || !t->wide)
        return;
    const int *cards = job_gpu_ids(j);
    for (int k = 0; k < j->ngpu_ids; k++)
        if (cards[k] == g) {
            t->u.more->rate[k] = r;
            return;
        }
    GS_BUG("share_rule: task is not on this card");
}

/* Card c's share of an allocated card (the alloc gauge's contribution): the
 * most of its slots, committed memory and reserved cores it has given out
 * (vgpu), else 1 with a tenant (timeslice, mps, without a split), 0
 * without. A function of the counters alone, so the contribution a card
 * had before a change is this of its counters before it. */
static inline double card_alloc(const sc_state *st, const sc_card *c, int pool)
{
    const sc_config *cfg = &st->cfg;
    double alloc = 0;
    if (c->n > 0) {
        alloc = cfg->split_count > 0 ? (double)c->n / cfg->split_count : 1.0;
        if (cfg->hami) {
            double mem = (double)c->mem_committed / st->pool_total_mib[pool];
            double cores = (double)c->cores_used / cfg->total_cores;
            alloc = alloc > mem ? alloc : mem;
            alloc = alloc > cores ? alloc : cores;
        }
        alloc = alloc > 1 ? 1 : alloc;
    }
    return alloc;
}

/* The swap state of card c with k running tenants: the excess over
 * physical memory lives in host memory; while every running tenant is
 * active (the fluid model has no idle phases) the tenants take turns of
 * swap_turn_s and each turn brings the excess back in (and another
 * tenant's out) at host-link speed: thrashing. *f_swap: the share of card
 * time left to compute (1 without swap). */
static inline void card_swap(const sc_state *st, const sc_card *c, const sc_card_swap *w, int pool, int k,
                             double *host_mib, double *swap_s, double *f_swap)
{
    const sc_config *cfg = &st->cfg;
    *host_mib = 0, *f_swap = 1, *swap_s = 0;
    int64_t phys = st->pool_phys_mib[pool];
    if (cfg->swap && c->mem_used > phys && k > 0) {
        *host_mib = (double)(c->mem_used - phys);
        *swap_s = *host_mib * MIB / w->link_bps;
        *f_swap = cfg->swap_turn_s / (cfg->swap_turn_s + *swap_s);
    }
}

/* The computing tenants' bounds on card g (their demand, capped when the
 * throttle says so) into st->scratch_bounds, the others' rates set to 0
 * (doomed, swapping in, idle). Returns how many. O(tenants). */
static inline int tenant_bounds(sc_state *st, job **ten, int n, int g, int k)
{
    const sc_config *cfg = &st->cfg;
    if (n >= st->scratch_cap) {
        st->scratch_cap = 2 * n + 8;
        st->scratch_bounds = xrealloc(st->scratch_bounds, (size_t)st->scratch_cap * sizeof(bound));
        st->scratch_rates = xrealloc(st->scratch_rates, (size_t)st->scratch_cap * sizeof *st->scratch_rates);
    }
    bound *bs = st->scratch_bounds;
    int m = 0;
    for (int i = 0; i < n; i++) {
        job *j = ten[i];
        st->scratch_rates[i] = 0; /* a doomed one's: it runs at 0 whatever its cards say (task_rate) */
        if (sc_task_doomed(st, j))
            continue;
        if (sc_task_swapping(st, j)) { /* waiting for its memory to come back from host: not computing */
            card_rate(st, j, g, i, 0);
            continue;
        }
        if (j->idle) { /* load-following: it takes no card time and runs at 0; its
                        * owner reads its rate only after saying it is busy
                        * (sim_task_set_busy recomputes the card first) */
            card_rate(st, j, g, i, 0);
            continue;
        }
        bool capped = cfg->throttle == SC_THROTTLE_ALWAYS || (cfg->throttle == SC_THROTTLE_CONTENDED && k >= 2);
        double b = task_demand(st, j), cap = task_cap(st, j);
        if (capped && cap < b)
            b = cap;
        bs[m++] = (bound){b, i};
    }
    return m;
}

/* Water-filling of card g's time over the m bounds: ascending bounds; each
 * takes its bound if it is below an equal split of what is left, else
 * everyone left gets that split; each rate is its share over its demand,
 * times the efficiency and swap factors. Returns the busy share.
 * O(m log m). */
static inline double water_fill(sc_state *st, job **ten, int g, int m, double factor)
{
    bound *bs = st->scratch_bounds;
    qsort(bs, (size_t)m, sizeof *bs, cmp_bound);
    double left = 1.0, busy = 0;
    for (int r = 0; r < m; r++) {
        int i = bs[r].i;
        double share = left / (m - r), x = bs[r].b < share ? bs[r].b : share;
        left -= x;
        busy += x;
        card_rate(st, ten[i], g, i, factor * x / task_demand(st, ten[i]));
    }
    return busy;
}

/* The tenants' rates from the scratch, through a copy: a rate change told
 * to a service replica's owner may come back here for another card
 * (sc_refresh) and overwrite the scratch. */
static inline void apply_rates(sc_state *st, const sc_card *c, job **ten, int n)
{
    double few[32], *rs = n <= 32 ? few : xmalloc((size_t)n * sizeof *rs);
    memcpy(rs, st->scratch_rates, (size_t)n * sizeof *rs);
    for (int i = 0; i < n && i < c->n; i++)
        set_task_rate(st, ten[i], rs[i]);
    if (rs != few)
        free(rs);
}

/* Recomputes card g: water-filling of its time, each tenant's rate there,
 * swap state and the gauge contributions (alloc_before: card_alloc before
 * the change; the change of allocation is charged to job `by`, whose join
 * or leave made it: its marginal allocation, sim_cost.h). */
static void card_update(sc_state *st, job *by, int g, int pool, double alloc_before)
{
    sc_card *c = &st->cards[g];
    int n = c->n; /* read once: nothing below changes the card before the rates are set */
    /* its tenants' jobs, looked up once; a copy of its own, as a rate
     * change told to a replica's owner may come back here for another card */
    job *fewj[32], **ten = n <= 32 ? fewj : xmalloc((size_t)n * sizeof *ten);
    const uint32_t *slots = sc_card_tenants(st, c);
    for (int i = 0; i < n; i++)
        ten[i] = sim_job_in_slot(st->s, slots[i]);
    const sc_config *cfg = &st->cfg;
    gs_time_us now = sim_now(st->s);
    /* without swap the card's swap contributions stay 0: a scratch copy */
    sc_card_swap none = {0}, *w = st->swap ? &st->swap[g] : &none;
    int k = n;
    for (int i = 0; i < n; i++) /* doomed tasks do not run; idle replicas run no kernels: no share, no switching */
        if (sc_task_doomed(st, ten[i]) || ten[i]->idle || sc_task_swapping(st, ten[i]))
            k--;
    double host_mib, swap_s, f_swap;
    card_swap(st, c, w, pool, k, &host_mib, &swap_s, &f_swap);
    double eff = efficiency(cfg, k);
    int m = tenant_bounds(st, ten, n, g, k);
    double busy = water_fill(st, ten, g, m, eff * f_swap);
    apply_rates(st, c, ten, n);
    if (ten != fewj)
        free(ten);

    /* gauges: move each by this card's change in contribution */
    double alloc = card_alloc(st, c, pool);
    busy *= f_swap;
    double swap_bps = swap_s > 0 ? host_mib * MIB / (cfg->swap_turn_s + swap_s) : 0;
    double thrash = swap_s > 0 ? swap_s / (cfg->swap_turn_s + swap_s) : 0;
    sim_alloc_add_for(st->s, by, pool, alloc - alloc_before);
    sim_gauge_add(&st->g_busy, now, busy - c->busy);
    sim_gauge_add(&st->g_host_mib, now, host_mib - w->host_mib);
    sim_gauge_add(&st->g_swap_bps, now, swap_bps - w->swap_bps);
    sim_gauge_add(&st->g_thrash, now, thrash - w->thrash);
    sim_gauge_add(&st->g_wait, now, thrash * k - w->wait);
    c->busy = busy;
    w->host_mib = host_mib;
    w->swap_bps = swap_bps;
    w->thrash = thrash;
    w->wait = thrash * k;
}

/* After a join or a leave changed job j's cards' counters: each card's
 * rates and gauges (from its alloc before the change). */
static void cards_changed(sc_state *st, job *j, int pool, const double *alloc_before)
{
    const int *cards = job_gpu_ids(j);
    for (int i = 0; i < j->ngpu_ids; i++)
        card_update(st, j, cards[i], pool, alloc_before[i]);
}

double sc_join(sc_state *st, job *j)
{
    gs_time_us now = sim_now(st->s);
    sc_task *t = sc_task_of(st, j); /* NULL: a plain task (share_state.h) */
    const int *cards = job_gpu_ids(j);
    task_ask a = ask_of(st, j);
    int pool = a.pool, cores = a.cores;
    int64_t phys = a.phys_mib, mem = a.mem_mib, use = a.use_mib;
    double alloc_before[CL_MAX_NODE_GPUS];
    for (int i = 0; i < j->ngpu_ids; i++) {
        sc_card *c = &st->cards[cards[i]];
        alloc_before[i] = card_alloc(st, c, pool);
        sc_tenants_add(st, c, j->slot);
        if (c->n > st->peak_tenants)
            st->peak_tenants = c->n;
        if (c->cores_used + cores > SC_CARD_CORES_MAX)
            GS_BUG("share_rule: reserved cores past the card's admission limit");
        c->cores_used = (unsigned)(c->cores_used + cores) & 0x3fff; /* admitted: at most total_cores */
        if (st->cfg.hami) {
            if (c->mem_committed + mem > SC_CARD_MEM_MAX_MIB)
                GS_BUG("share_rule: committed memory past the card's admission limit");
            c->mem_committed += (int32_t)mem;
        }
        sim_gauge_add(&st->g_mem_alloc, now, (double)mem);
        if (!sc_task_doomed(st, j)) {
            if (t) {
                t->evicted = t->swapping = false; /* it loads its memory when it starts */
                if (t->wide)
                    t->u.more->last_busy_us = now;
            }
            if (c->mem_used + use > SC_CARD_MEM_MAX_MIB)
                GS_BUG("share_rule: memory in use past the card's admission limit");
            c->mem_used += (int32_t)use;
            int64_t resident = c->mem_used < phys ? c->mem_used : phys;
            int64_t before = c->mem_used - use;
            before = before < phys ? before : phys;
            sim_gauge_add(&st->g_mem_used, now, (double)(resident - before));
        }
        if (t && t->wide)
            t->u.more->rate[i] = 1.0;
    }
    st->joiner = j;
    st->join_rate = task_rate(st, j, 1.0); /* no card: its rate is 1 (0 doomed) */
    cards_changed(st, j, pool, alloc_before);
    st->joiner = NULL;
    return st->join_rate;
}

void sc_leave(sc_state *st, job *j)
{
    gs_time_us now = sim_now(st->s);
    const int *cards = job_gpu_ids(j);
    task_ask a = ask_of(st, j);
    int pool = a.pool, cores = a.cores;
    int64_t phys = a.phys_mib, mem = a.mem_mib, use = a.use_mib;
    double alloc_before[CL_MAX_NODE_GPUS];
    for (int i = 0; i < j->ngpu_ids; i++) {
        sc_card *c = &st->cards[cards[i]];
        alloc_before[i] = card_alloc(st, c, pool);
        sc_tenants_remove(st, c, j->slot);
        c->cores_used = (unsigned)(c->cores_used - cores) & 0x3fff; /* its own, reserved at its join */
        if (st->cfg.hami)
            c->mem_committed -= (int32_t)mem;
        sim_gauge_add(&st->g_mem_alloc, now, -(double)mem);
        if (!sc_task_doomed(st, j) && !sc_task_evicted(st, j)) {
            int64_t before = c->mem_used < phys ? c->mem_used : phys;
            c->mem_used -= (int32_t)use;
            int64_t resident = c->mem_used < phys ? c->mem_used : phys;
            sim_gauge_add(&st->g_mem_used, now, (double)(resident - before));
        }
    }
    cards_changed(st, j, pool, alloc_before);
}

void sc_refresh(sc_state *st, job *j)
{
    const int *cards = job_gpu_ids(j);
    int pool = j->ngpu_ids > 0 ? task_pool(st, j) : 0;
    for (int i = 0; i < j->ngpu_ids; i++) /* its counters unchanged: the same share allocated */
        card_update(st, j, cards[i], pool, card_alloc(st, &st->cards[cards[i]], pool));
}

/* {==== residency: idle replicas evicted to host, swapped back in ====} */

/* Moves card g's memory in use by delta MiB, and the resident-memory gauge. */
static void card_mem(sc_state *st, int g, int64_t delta)
{
    sc_card *c = &st->cards[g];
    int64_t phys = sc_card_phys_mib(st, g);
    int64_t before = c->mem_used < phys ? c->mem_used : phys;
    c->mem_used += (int32_t)delta; /* an evicted or returning tenant's: stays within join's bound */
    int64_t after = c->mem_used < phys ? c->mem_used : phys;
    sim_gauge_add(&st->g_mem_used, sim_now(st->s), (double)(after - before));
}

static bool evictable(const sc_state *st, const job *j)
{
    return j->internal && j->idle && !sc_task_evicted(st, j) && !sc_task_swapping(st, j) && !sc_task_doomed(st, j);
}

/* An internal task's LRU key (its record is wide: sc_task_new). */
static gs_time_us last_busy(const sc_state *st, const job *j) { return sc_task_of(st, j)->u.more->last_busy_us; }

static void evict(sc_state *st, job *j)
{
    sc_task_of(st, j)->evicted = true;
    int64_t mem = sc_task_use(st, j);
    const int *cards = job_gpu_ids(j);
    for (int i = 0; i < j->ngpu_ids; i++)
        card_mem(st, cards[i], -mem);
    st->evictions++;
    st->freed_mib += (double)mem * j->ngpu_ids;
    sc_refresh(st, j);
}

/* While a card of t is short, evict its least recently busy idle replica
 * (t itself when it just went idle and is the least recently busy; never a
 * t that is busy). O(tenants) per eviction. */
static void make_room(sc_state *st, job *j)
{
    const int *cards = job_gpu_ids(j);
    for (int i = 0; i < j->ngpu_ids; i++) {
        sc_card *c = &st->cards[cards[i]];
        while (c->mem_used > sc_card_phys_mib(st, cards[i])) {
            job *lru = NULL;
            for (int k = 0; k < (int)c->n; k++) {
                job *o = sc_card_tenant(st, c, k);
                if (evictable(st, o) && (!lru || last_busy(st, o) < last_busy(st, lru)))
                    lru = o;
            }
            if (!lru)
                break; /* every other tenant is busy: the card thrashes (card_update) */
            evict(st, lru);
        }
    }
}

double sc_residency(sc_state *st, job *j)
{
    sc_task *t = sc_task_of(st, j);
    if (!st->cfg.swap || !j->internal || t->doomed)
        return 0;
    double wait_s = 0;
    if (j->idle) {
        t->u.more->last_busy_us = sim_now(st->s); /* internal: wide (sc_task_new) */
    } else if (t->evicted) { /* its memory comes back over the host link */
        t->evicted = false;
        t->swapping = true;
        double link = INFINITY;
        int64_t mem = sc_task_use(st, j);
        const int *cards = job_gpu_ids(j);
        for (int i = 0; i < j->ngpu_ids; i++) {
            card_mem(st, cards[i], mem);
            const sc_card_swap *w = &st->swap[cards[i]]; /* swap runs only (above) */
            link = w->swapin_bps < link ? w->swapin_bps : link;
        }
        wait_s = (double)mem * MIB / link; /* the cards copy in parallel, each over its own link */
        st->swap_ins++;
        st->swapped_in_mib += (double)mem * j->ngpu_ids;
        sim_sketch_add(&st->swapin_wait_s, wait_s);
    }
    make_room(st, j);
    return wait_s;
}

void sc_swapped_in(sc_state *st, job *j)
{
    sc_task_of(st, j)->swapping = false;
    sc_refresh(st, j);
}
