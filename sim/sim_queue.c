/* sim_queue.c - pending queue: per-shape heaps (see sim_queue.h).
 * SPDX-License-Identifier: MIT */
#include "sim_queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline bool before(const job *a, const job *b)
{
    if (a->req.priority != b->req.priority)
        return a->req.priority > b->req.priority;
    if (a->req.submit_us != b->req.submit_us)
        return a->req.submit_us < b->req.submit_us;
    return a->arrival_no < b->arrival_no;
}

void sq_init(sim_queue *q) { memset(q, 0, sizeof *q); }

void sq_free(sim_queue *q)
{
    for (int i = 0; i < q->ncls; i++)
        free(q->cls[i].heap);
    for (int b = 0; b < q->nbk; b++)
        free(q->bk[b].h);
    free(q->cls);
    free(q->hash);
    free(q->bk);
    free(q->failed);
    memset(q, 0, sizeof *q);
}

static inline uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    return k ^ (k >> 33);
}

static void rehash(sim_queue *q)
{
    free(q->hash);
    q->hash_cap = q->hash_cap ? q->hash_cap * 2 : 64;
    q->hash = xmalloc((size_t)q->hash_cap * sizeof *q->hash);
    for (int i = 0; i < q->hash_cap; i++)
        q->hash[i] = -1;
    for (int c = 0; c < q->ncls; c++) {
        size_t h = mix(q->cls[c].key) & (size_t)(q->hash_cap - 1);
        while (q->hash[h] >= 0)
            h = (h + 1) & (size_t)(q->hash_cap - 1);
        q->hash[h] = c;
    }
}

/* A coarse level of an ask: 0 for none, else four levels per doubling (the
 * exponent and the top two bits of the mantissa), so a bucket's asks are
 * within a factor 2^(1/4) of each other and its least ask is close to all. */
static uint32_t level_of(double x)
{
    if (!(x > 0))
        return 0;
    if (isinf(x))
        return 255;
    int e;
    double m = frexp(x, &e); /* x = m 2^e, m in [0.5, 1) */
    if (e < -20)
        e = -20;
    if (e > 41)
        e = 41;
    return 1 + (uint32_t)(e + 20) * 4 + (uint32_t)((m - 0.5) * 8);
}

static uint32_t host_level(const job *j) { return level_of(j->req.cpu) << 8 | level_of(j->req.mem_gib); }

static inline bool bk_less(uint32_t d1, uint32_t h1, uint32_t d2, uint32_t h2)
{
    return d1 != d2 ? d1 < d2 : h1 < h2;
}

/* The bucket of (demand, host level), made (in ascending order) when new.
 * Classes keep bucket indices, so a new bucket renumbers the ones above it. */
static int bucket_of(sim_queue *q, uint32_t demand, uint32_t host)
{
    int lo = 0, hi = q->nbk;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (bk_less(q->bk[mid].demand, q->bk[mid].host, demand, host))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < q->nbk && q->bk[lo].demand == demand && q->bk[lo].host == host)
        return lo;
    q->bk = xrealloc(q->bk, (size_t)(q->nbk + 1) * sizeof *q->bk);
    memmove(&q->bk[lo + 1], &q->bk[lo], (size_t)(q->nbk - lo) * sizeof *q->bk);
    q->bk[lo] = (sq_bucket){.demand = demand, .host = host, .cpu_min = INFINITY, .mem_min = INFINITY};
    q->nbk++;
    for (int c = 0; c < q->ncls; c++)
        if (q->cls[c].bucket >= lo)
            q->cls[c].bucket++;
    return lo;
}

static int class_of(sim_queue *q, uint64_t key, uint32_t demand, const job *j)
{
    if (q->hash_cap == 0 || (q->ncls + 1) * 2 > q->hash_cap)
        rehash(q);
    size_t h = mix(key) & (size_t)(q->hash_cap - 1);
    while (q->hash[h] >= 0) {
        if (q->cls[q->hash[h]].key == key)
            return q->hash[h];
        h = (h + 1) & (size_t)(q->hash_cap - 1);
    }
    if (q->ncls == q->cls_cap) {
        q->cls_cap = q->cls_cap ? q->cls_cap * 2 : 8;
        q->cls = xrealloc(q->cls, (size_t)q->cls_cap * sizeof *q->cls);
    }
    int b = bucket_of(q, demand, host_level(j));
    sq_class *c = &q->cls[q->ncls];
    memset(c, 0, sizeof *c);
    c->key = key;
    c->demand = demand;
    c->bucket = b;
    c->bpos = -1;
    q->hash[h] = q->ncls;
    return q->ncls++;
}

/* ---- a bucket's heap of classes, ordered by their heads ---- */

static inline bool cls_before(const sim_queue *q, int a, int b)
{
    return before(q->cls[a].heap[0], q->cls[b].heap[0]);
}

static inline void bk_set(sim_queue *q, sq_bucket *b, int i, int ci)
{
    b->h[i] = ci;
    q->cls[ci].bpos = i;
}

static void bk_up(sim_queue *q, sq_bucket *b, int i)
{
    int ci = b->h[i];
    while (i > 0 && cls_before(q, ci, b->h[(i - 1) / 2])) {
        bk_set(q, b, i, b->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    bk_set(q, b, i, ci);
}

static void bk_down(sim_queue *q, sq_bucket *b, int i)
{
    int ci = b->h[i];
    for (;;) {
        int k = 2 * i + 1;
        if (k >= b->n)
            break;
        if (k + 1 < b->n && cls_before(q, b->h[k + 1], b->h[k]))
            k++;
        if (!cls_before(q, b->h[k], ci))
            break;
        bk_set(q, b, i, b->h[k]);
        i = k;
    }
    bk_set(q, b, i, ci);
}

static void bk_insert(sim_queue *q, int ci)
{
    sq_bucket *b = &q->bk[q->cls[ci].bucket];
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->h = xrealloc(b->h, (size_t)b->cap * sizeof *b->h);
    }
    b->h[b->n++] = ci;
    bk_up(q, b, b->n - 1);
}

static void bk_delete(sim_queue *q, int ci)
{
    sq_class *c = &q->cls[ci];
    sq_bucket *b = &q->bk[c->bucket];
    int i = c->bpos, last = b->h[--b->n];
    c->bpos = -1;
    if (i == b->n)
        return;
    bk_set(q, b, i, last);
    bk_up(q, b, i);
    bk_down(q, b, q->cls[last].bpos);
}

/* ---- a class's heap of requests ---- */

void sq_push(sim_queue *q, job *j, uint64_t key, uint32_t demand)
{
    int ci = class_of(q, key, demand, j);
    sq_class *c = &q->cls[ci];
    /* every request of the class lowers its bucket's bounds (a class's key
     * need not name CPU and memory, so its requests may differ) */
    sq_bucket *bk = &q->bk[c->bucket];
    if (j->req.cpu < bk->cpu_min)
        bk->cpu_min = j->req.cpu;
    if (j->req.mem_gib < bk->mem_min)
        bk->mem_min = j->req.mem_gib;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->heap = xrealloc(c->heap, c->cap * sizeof *c->heap);
    }
    size_t i = c->n++;
    while (i > 0 && before(j, c->heap[(i - 1) / 2])) {
        c->heap[i] = c->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->heap[i] = j;
    j->q_class = ci;
    q->len++;
    if (c->n == 1)
        bk_insert(q, ci);
    else if (i == 0 && c->bpos >= 0) /* a new head: the class moves up */
        bk_up(q, &q->bk[c->bucket], c->bpos);
}

/* Takes the head of class ci out; the class moves down its bucket, or
 * leaves it when empty. */
static void pop_head(sim_queue *q, int ci)
{
    sq_class *c = &q->cls[ci];
    job *last = c->heap[--c->n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= c->n)
            break;
        if (k + 1 < c->n && before(c->heap[k + 1], c->heap[k]))
            k++;
        if (!before(c->heap[k], last))
            break;
        c->heap[i] = c->heap[k];
        i = k;
    }
    if (c->n)
        c->heap[i] = last;
    q->len--;
    if (c->bpos < 0)
        return;
    if (c->n == 0)
        bk_delete(q, ci);
    else
        bk_down(q, &q->bk[c->bucket], c->bpos);
}

/* ---- a pass's list of buckets within the room: a heap by their heads ---- */

static inline bool el_before(const sim_queue *q, int a, int b)
{
    return cls_before(q, q->bk[a].h[0], q->bk[b].h[0]);
}

static void el_down(const sim_queue *q, int *el, int n, int i)
{
    int b = el[i];
    for (;;) {
        int k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && el_before(q, el[k + 1], el[k]))
            k++;
        if (!el_before(q, el[k], b))
            break;
        el[i] = el[k];
        i = k;
    }
    el[i] = b;
}

static void el_pop(const sim_queue *q, int *el, int *n)
{
    el[0] = el[--*n];
    if (*n > 0)
        el_down(q, el, *n, 0);
}

/* Puts the classes a pass took out back into their buckets. */
static void restore_failed(sim_queue *q)
{
    for (int f = 0; f < q->nfailed; f++) {
        int ci = q->failed[f];
        if (q->cls[ci].n && q->cls[ci].bpos < 0)
            bk_insert(q, ci);
    }
    q->nfailed = 0;
}

void sq_dispatch(sim_queue *q, bool strict, uint32_t (*room_fn)(void *ud), bool (*try_start)(void *ud, job *j),
                 void *ud)
{
    sq_dispatch_host(q, strict, room_fn, NULL, try_start, ud);
}

/* The host room: the most free CPU and memory on any node, less the
 * ledger's tolerance, so that a bucket whose least ask is above it holds
 * nothing a try could place. */
static void host_room_now(const sq_host *host, void *ud, double *cpu, double *mem)
{
    *cpu = *mem = INFINITY;
    if (host && host->room)
        host->room(ud, cpu, mem);
}

/* Could a request of bucket b fit by CPU and memory (free >= ask - 1e-9)? */
static inline bool host_open(const sq_bucket *b, double cpu, double mem)
{
    return b->cpu_min - 1e-9 <= cpu && b->mem_min - 1e-9 <= mem;
}

void sq_dispatch_host(sim_queue *q, bool strict, uint32_t (*room_fn)(void *ud), const sq_host *host,
                      bool (*try_start)(void *ud, job *j), void *ud)
{
    if (q->len == 0)
        return; /* nothing waits (and no pass runs: a failed class is not empty) */
    /* a pass inside a pass (a start released something): the inner one
     * sees every class, as a fresh pass would */
    if (q->depth++ > 0)
        restore_failed(q);
    uint32_t room = room_fn ? room_fn(ud) : SQ_ROOM_ANY;
    double hcpu, hmem;
    host_room_now(host, ud, &hcpu, &hmem);
    /* skipping order: the non-empty buckets within the room, listed once per
     * pass and after each start (the room changed, a nested pass may have
     * refilled buckets); a failed try changes nothing but its own bucket,
     * so the list stays valid. Listing costs O(buckets) */
    int stack_el[64], *el = q->nbk <= 64 ? stack_el : xmalloc((size_t)q->nbk * sizeof *el), nel = -1;
    int el_cap = q->nbk <= 64 ? 64 : q->nbk;
    for (;;) {
        int best = -1;
        if (strict) { /* the head of the line decides: every bucket */
            for (int b = 0; b < q->nbk; b++)
                if (q->bk[b].n && (best < 0 || cls_before(q, q->bk[b].h[0], best)))
                    best = q->bk[b].h[0];
        } else {
            if (nel < 0) {
                if (q->nbk > el_cap) { /* a start queued a new shape */
                    if (el != stack_el)
                        free(el);
                    el = xmalloc((size_t)q->nbk * sizeof *el);
                    el_cap = q->nbk;
                }
                nel = 0;
                for (int b = 0; b < q->nbk && q->bk[b].demand <= room; b++) /* ascending demand */
                    if (q->bk[b].n && host_open(&q->bk[b], hcpu, hmem))
                        el[nel++] = b;
                for (int i = nel / 2 - 1; i >= 0; i--)
                    el_down(q, el, nel, i);
            }
            /* the listed buckets form a heap by their heads: the best is
             * on top, a failed try or a dropped bucket costs O(log listed) */
            if (nel > 0) {
                const sq_bucket *bk = &q->bk[el[0]];
                /* beyond the room (which a start shrank), or no node has the
                 * bucket's least ask: none of its requests can start in
                 * this pass, unless a nested pass releases something (then
                 * the list is made again) */
                if (bk->demand > room || !host_open(bk, hcpu, hmem) ||
                    (host && host->fits && !host->fits(ud, bk->cpu_min, bk->mem_min))) {
                    el_pop(q, el, &nel);
                    continue;
                }
                best = bk->h[0];
            }
        }
        if (best < 0)
            break;
        if (q->cls[best].demand > room || !host_open(&q->bk[q->cls[best].bucket], hcpu, hmem))
            break; /* strict: the head of the line cannot fit now */
        if (try_start(ud, q->cls[best].heap[0])) {
            pop_head(q, best);
            /* a start may have released something (a nested pass ran) */
            room = room_fn ? room_fn(ud) : SQ_ROOM_ANY;
            host_room_now(host, ud, &hcpu, &hmem);
            nel = -1;
            continue;
        }
        if (strict)
            break;
        /* out of its bucket until the pass ends; the bucket's new head (or
         * none) takes its place in the list */
        int fb = q->cls[best].bucket;
        bk_delete(q, best);
        if (nel > 0 && el[0] == fb) {
            if (q->bk[fb].n)
                el_down(q, el, nel, 0);
            else
                el_pop(q, el, &nel);
        }
        if (q->nfailed == q->failed_cap) {
            q->failed_cap = q->failed_cap ? q->failed_cap * 2 : 16;
            q->failed = xrealloc(q->failed, (size_t)q->failed_cap * sizeof *q->failed);
        }
        q->failed[q->nfailed++] = best;
    }
    if (el != stack_el)
        free(el);
    restore_failed(q);
    q->depth--;
}

/* Removes j from its class heap (a wait given up, or a preemptor started out
 * of order). Finding j is a scan of its class, O(requests of that shape);
 * removal is O(log n). Rare, so the queue keeps no per-job heap index. */
bool sq_remove(sim_queue *q, job *j)
{
    if (j->q_class < 0 || j->q_class >= q->ncls)
        return false;
    sq_class *c = &q->cls[j->q_class];
    size_t i = 0;
    while (i < c->n && c->heap[i] != j)
        i++;
    if (i == c->n)
        return false;
    if (i == 0) {
        pop_head(q, j->q_class);
        j->q_class = -1;
        return true;
    }
    job *last = c->heap[--c->n];
    q->len--;
    if (i < c->n) { /* put last at i and restore the heap both ways */
        while (i > 0 && before(last, c->heap[(i - 1) / 2])) {
            c->heap[i] = c->heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        for (;;) {
            size_t k = 2 * i + 1;
            if (k >= c->n)
                break;
            if (k + 1 < c->n && before(c->heap[k + 1], c->heap[k]))
                k++;
            if (!before(c->heap[k], last))
                break;
            c->heap[i] = c->heap[k];
            i = k;
        }
        c->heap[i] = last;
    }
    j->q_class = -1;
    return true;
}
