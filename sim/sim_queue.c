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

bool sim_queue_before(const job *a, const job *b) { return before(a, b); }

void sim_queue_init(sim_queue *q) { memset(q, 0, sizeof *q); }

void sim_queue_free(sim_queue *q)
{
    for (int i = 0; i < q->ncls; i++)
        free(q->cls[i].base);
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

/* Without a host room every bucket of one demand is open to every pass,
 * so levels would only split them: a pass's list and a strict pass's look
 * grow with the buckets, and the order they give is the same. */
static uint32_t host_level(const sim_queue *q, const job *j)
{
    return q->host_blind ? 0 : level_of(j->req.cpu) << 8 | level_of(j->req.mem_gib);
}

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
    q->bk[lo] = (sim_queue_bucket){.demand = demand, .host = host, .cpu_min = INFINITY, .mem_min = INFINITY};
    q->nbk++;
    for (int c = 0; c < q->ncls; c++)
        if (q->cls[c].bucket >= lo)
            q->cls[c].bucket++;
    return lo;
}

/* Drops the empty classes and renumbers the rest: their requests' q_class,
 * the buckets' heaps, the hash. O(classes + queued). Not during a pass
 * (a failed class is out of its bucket then). */
static void drop_empty_classes(sim_queue *q)
{
    int *to = xmalloc((size_t)q->ncls * sizeof *to), m = 0;
    for (int c = 0; c < q->ncls; c++) {
        if (q->cls[c].n == 0) {
            free(q->cls[c].base);
            to[c] = -1;
            continue;
        }
        to[c] = m;
        q->cls[m] = q->cls[c];
        for (size_t i = 0; i < q->cls[m].n; i++)
            q->cls[m].heap[i]->q_class = m;
        m++;
    }
    q->ncls = m;
    for (int b = 0; b < q->nbk; b++)
        for (int i = 0; i < q->bk[b].n; i++)
            q->bk[b].h[i] = to[q->bk[b].h[i]];
    free(to);
    q->hash_cap /= 2; /* rehash doubles it: the same size again */
    rehash(q);
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
    if (q->depth == 0 && q->ncls - q->nlive > 64 && q->ncls - q->nlive >= q->nlive) {
        drop_empty_classes(q);
        return class_of(q, key, demand, j); /* the slot found is of the old hash */
    }
    if (q->ncls == q->cls_cap) {
        q->cls_cap = q->cls_cap ? q->cls_cap * 2 : 8;
        q->cls = xrealloc(q->cls, (size_t)q->cls_cap * sizeof *q->cls);
    }
    int b = bucket_of(q, demand, host_level(q, j));
    sim_queue_class *c = &q->cls[q->ncls];
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

static inline void bk_set(sim_queue *q, sim_queue_bucket *b, int i, int ci)
{
    b->h[i] = ci;
    q->cls[ci].bpos = i;
}

static void bk_up(sim_queue *q, sim_queue_bucket *b, int i)
{
    int ci = b->h[i];
    while (i > 0 && cls_before(q, ci, b->h[(i - 1) / 2])) {
        bk_set(q, b, i, b->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    bk_set(q, b, i, ci);
}

static void bk_down(sim_queue *q, sim_queue_bucket *b, int i)
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
    sim_queue_bucket *b = &q->bk[q->cls[ci].bucket];
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->h = xrealloc(b->h, (size_t)b->cap * sizeof *b->h);
    }
    b->h[b->n++] = ci;
    bk_up(q, b, b->n - 1);
}

static void bk_delete(sim_queue *q, int ci)
{
    sim_queue_class *c = &q->cls[ci];
    sim_queue_bucket *b = &q->bk[c->bucket];
    int i = c->bpos, last = b->h[--b->n];
    c->bpos = -1;
    if (i == b->n)
        return;
    bk_set(q, b, i, last);
    bk_up(q, b, i);
    bk_down(q, b, q->cls[last].bpos);
}

/* ---- a class's heap of requests ---- */

void sim_queue_push(sim_queue *q, job *j, uint64_t key, uint32_t demand)
{
    int ci = class_of(q, key, demand, j);
    sim_queue_class *c = &q->cls[ci];
    /* every request of the class lowers its bucket's bounds (a class's key
     * need not name CPU and memory, so its requests may differ) */
    sim_queue_bucket *bk = &q->bk[c->bucket];
    bool lowered = j->req.cpu < bk->cpu_min || j->req.mem_gib < bk->mem_min;
    if (j->req.cpu < bk->cpu_min)
        bk->cpu_min = j->req.cpu;
    if (j->req.mem_gib < bk->mem_min)
        bk->mem_min = j->req.mem_gib;
    if (lowered && bk->state != SQ_LIVE) { /* what was known is of the old bounds */
        q->nparked -= bk->state == SQ_PARKED;
        bk->state = SQ_LIVE;
    }
    if (c->off + c->n == c->cap) {
        if (c->off > c->n) { /* the taken heads' room, at the front: move the entries back */
            memmove(c->base, c->heap, c->n * sizeof *c->heap);
            c->off = 0;
        } else {
            c->cap = c->cap ? c->cap * 2 : 16;
            c->base = xrealloc(c->base, c->cap * sizeof *c->base);
        }
        c->heap = c->base + c->off;
    }
    size_t i = c->n++;
    if (c->unsorted || (i > 0 && before(j, c->heap[i - 1]))) {
        /* out of order: a heap from now on (entries in order are one) */
        c->unsorted = true;
        while (i > 0 && before(j, c->heap[(i - 1) / 2])) {
            c->heap[i] = c->heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
    } /* else in order: not before its parent either, where the sift up stops at once */
    c->heap[i] = j;
    j->q_class = ci;
    q->len++;
    q->gen++;
    if (c->n == 1) {
        q->nlive++;
        bk_insert(q, ci);
    }
    else if (i == 0 && c->bpos >= 0) /* a new head: the class moves up */
        bk_up(q, &q->bk[c->bucket], c->bpos);
}

/* Puts `last` at position i of the class's heap, or below it where it
 * belongs (the class's n already excludes the slot it came from). */
static void sift_down(sim_queue_class *c, size_t i, job *last)
{
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

/* Takes the head of class ci out; the class moves down its bucket, or
 * leaves it when empty. */
static void pop_head(sim_queue *q, int ci)
{
    sim_queue_class *c = &q->cls[ci];
    if (!c->unsorted) { /* in order: the rest is in order, and a heap */
        c->heap++;
        c->off++;
        c->n--;
    } else {
        job *last = c->heap[--c->n];
        if (c->n)
            sift_down(c, 0, last);
    }
    if (c->n == 0) { /* empty: in order again, from the allocation's start */
        c->off = 0;
        c->heap = c->base;
        c->unsorted = false;
        q->nlive--;
    }
    q->len--;
    if (c->bpos < 0)
        return;
    if (c->n == 0)
        bk_delete(q, ci);
    else
        bk_down(q, &q->bk[c->bucket], c->bpos);
}

/* ---- a pass's list of buckets within the room: a heap by their heads ----
 * Each entry carries its bucket's head's order (priority, submit, arrival),
 * read when listed and again when that head changes (a start or a failed
 * try in the bucket: the only changes a pass that keeps its list sees), so
 * the heap compares what it holds instead of following three pointers. */

typedef struct el_ent {
    int priority;
    gs_time_us submit_us;
    uint64_t arrival_no;
    int b;
} el_ent;

static inline el_ent el_of(const sim_queue *q, int b)
{
    const job *j = q->cls[q->bk[b].h[0]].heap[0];
    return (el_ent){j->req.priority, j->req.submit_us, j->arrival_no, b};
}

static inline bool el_before(const el_ent *a, const el_ent *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->submit_us != b->submit_us)
        return a->submit_us < b->submit_us;
    return a->arrival_no < b->arrival_no;
}

static void el_down(el_ent *el, int n, int i)
{
    el_ent e = el[i];
    for (;;) {
        int k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && el_before(&el[k + 1], &el[k]))
            k++;
        if (!el_before(&el[k], &e))
            break;
        el[i] = el[k];
        i = k;
    }
    el[i] = e;
}

static void el_pop(el_ent *el, int *n)
{
    el[0] = el[--*n];
    if (*n > 0)
        el_down(el, *n, 0);
}

/* The top's bucket has a new head, or none. */
static void el_top_changed(const sim_queue *q, el_ent *el, int *n)
{
    if (q->bk[el[0].b].n) {
        el[0] = el_of(q, el[0].b);
        el_down(el, *n, 0);
    } else
        el_pop(el, n);
}

/* Class ci, taken out of its bucket by a failed try, onto the pass's list
 * of those to put back. */
static void failed_add(sim_queue *q, int ci)
{
    if (q->nfailed == q->failed_cap) {
        q->failed_cap = q->failed_cap ? q->failed_cap * 2 : 16;
        q->failed = xrealloc(q->failed, (size_t)q->failed_cap * sizeof *q->failed);
    }
    q->failed[q->nfailed++] = ci;
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

void sim_queue_dispatch(sim_queue *q, bool strict, uint32_t (*room_fn)(void *ud), bool (*try_start)(void *ud, job *j),
                 void *ud)
{
    sim_queue_dispatch_host(q, strict, room_fn, NULL, try_start, ud);
}

/* The host room: the most free CPU and memory on any node, less the
 * ledger's tolerance, so that a bucket whose least ask is above it holds
 * nothing a try could place. */
static void host_room_now(const sim_queue_host *host, void *ud, double *cpu, double *mem)
{
    *cpu = *mem = INFINITY;
    if (host && host->room)
        host->room(ud, cpu, mem);
}

/* ---- parking: buckets whose least ask no node has ----
 * At a release in an overloaded queue, most buckets' least ask fits no
 * node and only the node given something back can have grown. A bucket
 * found so is parked: passes leave it out, and a wake (once per pass that
 * follows gives) checks only the nodes given something since, waking the
 * buckets one of them has room for. A woken bucket's heads are checked
 * against those nodes alone (none else had room for any of them), so a
 * pass that starts a request and then finds the rest short again costs a
 * look at a node or two per bucket, not a fit-index descent or a try. */

/* Whether the host counts its gives, so that a skipping pass may park. */
static inline bool parks(const sim_queue_host *h)
{
    return h && h->fits && h->gives && h->given_free;
}

/* gives a wake looks at (more: every parked bucket goes live), and a woken
 * bucket's check (more: a fit-index descent instead) */
#define SQ_GIVEN_MAX 64
#define SQ_WOKEN_MAX 8

/* Does one of the n nodes (free cores fc[], GiB fm[]) have cpu and mem by
 * the ledger's test (free >= ask - 1e-9)? */
static inline bool any_fits(const double *fc, const double *fm, int n, double cpu, double mem)
{
    for (int i = 0; i < n; i++)
        if (fc[i] >= cpu - 1e-9 && fm[i] >= mem - 1e-9)
            return true;
    return false;
}

/* A pass's copy of the free CPU and memory of the nodes given something
 * since `since`: good until the pass starts something (a start takes from
 * a node, and may release, and so give, inside it); a failed try changes
 * nothing. */
typedef struct given_copy {
    bool ok;
    int n; /* -1: the host cannot tell */
    uint64_t since;
    double cpu[SQ_WOKEN_MAX], mem[SQ_WOKEN_MAX];
} given_copy;

/* Does a node given something since the count of gives was `since` have
 * cpu and mem free now: 1 yes, 0 no, -1 cannot tell. */
static inline int given_fit(const sim_queue_host *h, void *ud, given_copy *g, uint64_t since, double cpu, double mem)
{
    if (!g->ok || g->since != since) {
        g->n = h->given_free(ud, since, g->cpu, g->mem, SQ_WOKEN_MAX);
        g->since = since;
        g->ok = true;
    }
    return g->n < 0 ? -1 : any_fits(g->cpu, g->mem, g->n, cpu, mem);
}

/* Has no node cpu and mem free, where bucket bk is woken and the nodes
 * given something since its base tell (cpu and mem at least its bounds)?
 * false when they have, or cannot tell. */
static bool woken_short(const sim_queue_host *h, void *ud, given_copy *g, const sim_queue_bucket *bk, double cpu,
                        double mem)
{
    return bk->state == SQ_WOKEN && given_fit(h, ud, g, bk->base, cpu, mem) == 0;
}

static void park(sim_queue *q, sim_queue_bucket *bk)
{
    bk->state = SQ_PARKED;
    q->nparked++;
}

/* Every parked bucket's least ask fitted no node at q->park_at or later;
 * since then only the nodes given something can have grown. A bucket one
 * of them has room for is woken; the rest stay parked. O(buckets x gives
 * since), once per pass that follows gives. */
static void wake(sim_queue *q, const sim_queue_host *h, void *ud)
{
    uint64_t now = h->gives(ud), from = q->park_at;
    if (now == from)
        return;
    q->park_at = now;
    if (q->nparked == 0)
        return;
    double fc[SQ_GIVEN_MAX], fm[SQ_GIVEN_MAX];
    int n = h->given_free(ud, from, fc, fm, SQ_GIVEN_MAX);
    for (int b = 0; b < q->nbk; b++) {
        sim_queue_bucket *bk = &q->bk[b];
        if (bk->state != SQ_PARKED)
            continue;
        if (n < 0)
            bk->state = SQ_LIVE;
        else if (any_fits(fc, fm, n, bk->cpu_min, bk->mem_min)) {
            bk->state = SQ_WOKEN;
            bk->base = from;
        } else
            continue;
        q->nparked--;
    }
}

/* Does some node have bucket bk's least ask free (host->fits)? A woken
 * bucket asks only the nodes given something since its base. */
static bool bucket_fits(const sim_queue_host *h, void *ud, given_copy *g, const sim_queue_bucket *bk)
{
    if (bk->state == SQ_WOKEN && h->given_free) {
        int r = given_fit(h, ud, g, bk->base, bk->cpu_min, bk->mem_min);
        if (r >= 0)
            return r == 1;
    }
    return h->fits(ud, bk->cpu_min, bk->mem_min);
}

/* Could a request of bucket b fit by CPU and memory (free >= ask - 1e-9)? */
static inline bool host_open(const sim_queue_bucket *b, double cpu, double mem)
{
    return b->cpu_min - 1e-9 <= cpu && b->mem_min - 1e-9 <= mem;
}

/* Whether a skipping pass leaves bucket bk out: no node has its least ask
 * (the most free on any node is short of it, or a woken bucket's nodes
 * given something since have it no more); a parking pass parks it then. */
static bool shut_out(sim_queue *q, sim_queue_bucket *bk, const sim_queue_host *host, void *ud, bool parking,
                     given_copy *given, double hcpu, double hmem)
{
    if (host_open(bk, hcpu, hmem) && !(parking && woken_short(host, ud, given, bk, bk->cpu_min, bk->mem_min)))
        return false;
    if (parking)
        park(q, bk);
    return true;
}

/* The class whose head is first in line over every bucket, or -1.
 * O(buckets). */
static int line_head(const sim_queue *q)
{
    int best = -1;
    for (int b = 0; b < q->nbk; b++)
        if (q->bk[b].n && (best < 0 || cls_before(q, q->bk[b].h[0], best)))
            best = q->bk[b].h[0];
    return best;
}

job *sim_queue_head(const sim_queue *q)
{
    int best = line_head(q);
    return best < 0 ? NULL : q->cls[best].heap[0];
}

void sim_queue_dispatch_host(sim_queue *q, bool strict, uint32_t (*room_fn)(void *ud), const sim_queue_host *host,
                      bool (*try_start)(void *ud, job *j), void *ud)
{
    sim_queue_dispatch_upto(q, strict, room_fn, host, try_start, ud, SIZE_MAX);
}

/* ---- one dispatch pass ----
 * A skipping pass keeps a list of the non-empty buckets within the room
 * (and not parked): listed once per pass, filtered after a start that
 * released nothing and listed again after one that did (the room grew, a
 * nested pass may have refilled buckets); a failed try changes nothing but
 * its own bucket, so the list stays valid. Listing costs O(buckets); the
 * list is a heap by its heads, so a failed try or a dropped bucket costs
 * O(log listed). A strict pass looks at every bucket's head each time. */

#define SQ_EL_STACK 64

typedef struct pass {
    sim_queue *q;
    bool strict;
    bool parking; /* a skipping pass with a host that counts its gives */
    uint32_t (*room_fn)(void *ud);
    const sim_queue_host *host;
    void *ud;
    uint32_t room;     /* the room as last read */
    double hcpu, hmem; /* the host room as last read */
    given_copy given;
    el_ent *el; /* the list: stack_el, or heap memory when buckets outgrow it */
    int nel;    /* -1: to be made */
    int el_cap;
    el_ent stack_el[SQ_EL_STACK];
} pass;

static void pass_begin(pass *p, sim_queue *q, bool strict, uint32_t (*room_fn)(void *ud), const sim_queue_host *host,
                       void *ud, uint32_t room)
{
    p->q = q;
    p->strict = strict;
    p->room_fn = room_fn;
    p->host = host;
    p->ud = ud;
    p->room = room;
    /* parking is for skipping passes with a host that counts its gives;
     * any other pass looks at every bucket, parked or not */
    p->parking = !strict && parks(host);
    p->given.ok = false;
    host_room_now(host, ud, &p->hcpu, &p->hmem);
    p->el = q->nbk <= SQ_EL_STACK ? p->stack_el : xmalloc((size_t)q->nbk * sizeof *p->el);
    p->nel = -1;
    p->el_cap = q->nbk <= SQ_EL_STACK ? SQ_EL_STACK : q->nbk;
}

static void heapify(el_ent *el, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--)
        el_down(el, n, i);
}

/* Makes the list: the woken buckets first woken, then every non-empty
 * bucket within the room that is neither parked nor shut out. O(buckets). */
static void pass_list(pass *p)
{
    sim_queue *q = p->q;
    if (q->nbk > p->el_cap) { /* a start queued a new shape */
        if (p->el != p->stack_el)
            free(p->el);
        p->el = xmalloc((size_t)q->nbk * sizeof *p->el);
        p->el_cap = q->nbk;
    }
    if (p->parking)
        wake(q, p->host, p->ud);
    p->nel = 0;
    for (int b = 0; b < q->nbk && q->bk[b].demand <= p->room; b++) { /* ascending demand */
        sim_queue_bucket *bk = &q->bk[b];
        if (!bk->n || (p->parking && bk->state == SQ_PARKED))
            continue;
        if (shut_out(q, bk, p->host, p->ud, p->parking, &p->given, p->hcpu, p->hmem))
            continue;
        p->el[p->nel++] = el_of(q, b);
    }
    heapify(p->el, p->nel);
}

/* The class whose head the pass tries next, or -1. A skipping pass drops
 * from its list's top a bucket beyond the room (which a start shrank) or
 * one whose least ask no node has: none of its requests can start in this
 * pass, unless a nested pass releases something (then the list is made
 * again). */
static int pass_pick(pass *p)
{
    sim_queue *q = p->q;
    if (p->strict) /* the head of the line decides: every bucket */
        return line_head(q);
    if (p->nel < 0)
        pass_list(p);
    while (p->nel > 0) {
        sim_queue_bucket *bk = &q->bk[p->el[0].b];
        if (bk->demand > p->room) {
            el_pop(p->el, &p->nel);
            continue;
        }
        if (!host_open(bk, p->hcpu, p->hmem) ||
            (p->host && p->host->fits && !bucket_fits(p->host, p->ud, &p->given, bk))) {
            if (p->parking)
                park(q, bk);
            el_pop(p->el, &p->nel);
            continue;
        }
        return bk->h[0];
    }
    return -1;
}

/* Class best's head started. `kept`: nothing else in the queue moved and no
 * node was given anything, so when neither the room nor the host room grew
 * the list made again would hold what this one holds, less what the shrunk
 * room leaves out (what was left out or dropped stays out, and only the
 * started bucket's head moved): the list is filtered in place, O(listed).
 * Otherwise it is made again at the next pick. */
static void pass_started(pass *p, int best, bool kept)
{
    sim_queue *q = p->q;
    pop_head(q, best);
    p->given.ok = false; /* the start took from a node */
    uint32_t room1 = p->room_fn ? p->room_fn(p->ud) : SQ_ROOM_ANY;
    double hcpu1, hmem1;
    host_room_now(p->host, p->ud, &hcpu1, &hmem1);
    bool filter = !p->strict && p->nel > 0 && kept && room1 <= p->room && !(hcpu1 > p->hcpu) && !(hmem1 > p->hmem);
    p->room = room1;
    p->hcpu = hcpu1;
    p->hmem = hmem1;
    if (!filter) {
        p->nel = -1;
        return;
    }
    int m = 0;
    for (int i = 0; i < p->nel; i++) {
        sim_queue_bucket *bk = &q->bk[p->el[i].b];
        if (!bk->n || bk->demand > p->room)
            continue;
        if (shut_out(q, bk, p->host, p->ud, p->parking, &p->given, p->hcpu, p->hmem))
            continue;
        p->el[m++] = i == 0 ? el_of(q, p->el[0].b) : p->el[i];
    }
    p->nel = m;
    heapify(p->el, p->nel);
}

/* Class best's try failed in a skipping pass: it is out of its bucket until
 * the pass ends, and the bucket's new head (or none) takes its place in the
 * list. */
static void pass_failed(pass *p, int best)
{
    sim_queue *q = p->q;
    int fb = q->cls[best].bucket;
    bk_delete(q, best);
    if (p->nel > 0 && p->el[0].b == fb)
        el_top_changed(q, p->el, &p->nel);
    failed_add(q, best);
}

/* A skipping pass without a host room over a queue of one bucket (one
 * demand: most traces ask one card count), the list's work left out: the
 * bucket is the list while it is within the room, a start reads the room
 * again, a failed class leaves the bucket for the pass. The same tries in
 * the same order as the general pass; false when the queue has (or a
 * nested pass made) another bucket, for the general pass to go on from
 * *room and *tries. */
static bool pass_one_bucket(sim_queue *q, uint32_t (*room_fn)(void *ud), bool (*try_start)(void *ud, job *j),
                            void *ud, size_t max_tries, uint32_t *room, size_t *tries)
{
    for (;;) {
        if (q->nbk != 1)
            return false;
        const sim_queue_bucket *bk = &q->bk[0];
        if (!bk->n || bk->demand > *room || !host_open(bk, INFINITY, INFINITY) || *tries == max_tries)
            return true;
        int best = bk->h[0];
        ++*tries;
        if (try_start(ud, q->cls[best].heap[0])) {
            pop_head(q, best);
            *room = room_fn ? room_fn(ud) : SQ_ROOM_ANY;
            continue;
        }
        bk_delete(q, best);
        failed_add(q, best);
    }
}

size_t sim_queue_dispatch_upto(sim_queue *q, bool strict, uint32_t (*room_fn)(void *ud), const sim_queue_host *host,
                        bool (*try_start)(void *ud, job *j), void *ud, size_t max_tries)
{
    if (q->len == 0)
        return 0; /* nothing waits (and no pass runs: a failed class is not empty) */
    /* a pass inside a pass (a start released something): the inner one
     * sees every class, as a fresh pass would */
    if (q->depth++ > 0) {
        restore_failed(q);
        q->gen++; /* the outer pass's list holds no more */
    }
    uint32_t room = room_fn ? room_fn(ud) : SQ_ROOM_ANY;
    size_t tries = 0;
    if (!strict && !host && q->nbk == 1 && pass_one_bucket(q, room_fn, try_start, ud, max_tries, &room, &tries)) {
        restore_failed(q);
        q->depth--;
        return tries;
    }
    pass p;
    pass_begin(&p, q, strict, room_fn, host, ud, room);
    for (;;) {
        int best = pass_pick(&p);
        if (best < 0 || tries == max_tries)
            break;
        if (q->cls[best].demand > p.room || !host_open(&q->bk[q->cls[best].bucket], p.hcpu, p.hmem))
            break; /* strict: the head of the line cannot fit now */
        /* a woken bucket's head that none of the nodes given something
         * since has room for fits no node: its try would fail (the host
         * room's contract), and is not made */
        const job *head = q->cls[best].heap[0];
        bool short_ = p.parking && woken_short(host, ud, &p.given, &q->bk[q->cls[best].bucket], head->req.cpu,
                                                head->req.mem_gib);
        uint64_t gen0 = q->gen, gives0 = p.parking ? host->gives(ud) : 0;
        tries += !short_;
        if (!short_ && try_start(ud, q->cls[best].heap[0])) {
            /* nothing else in the queue moved (no push, removal or nested
             * pass), and no node was given anything (or no bucket was
             * dropped for one node's room) */
            bool kept = q->gen == gen0 && (p.parking ? host->gives(ud) == gives0 : !host || !host->fits);
            pass_started(&p, best, kept);
            continue;
        }
        if (strict)
            break;
        pass_failed(&p, best);
    }
    if (p.el != p.stack_el)
        free(p.el);
    restore_failed(q);
    q->depth--;
    return tries;
}

/* Removes j from its class heap (a wait given up, or a preemptor started out
 * of order). Finding j is a scan of its class, O(requests of that shape);
 * removal is O(log n). Rare, so the queue keeps no per-job heap index. */
bool sim_queue_remove(sim_queue *q, job *j)
{
    if (j->q_class < 0 || j->q_class >= q->ncls)
        return false;
    sim_queue_class *c = &q->cls[j->q_class];
    size_t i = 0;
    while (i < c->n && c->heap[i] != j)
        i++;
    if (i == c->n)
        return false;
    q->gen++;
    if (i == 0) {
        pop_head(q, j->q_class);
        j->q_class = -1;
        return true;
    }
    job *last = c->heap[--c->n];
    q->len--;
    if (i < c->n) { /* put last at i and restore the heap both ways */
        c->unsorted = true;
        while (i > 0 && before(last, c->heap[(i - 1) / 2])) {
            c->heap[i] = c->heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        sift_down(c, i, last);
    }
    j->q_class = -1;
    return true;
}
