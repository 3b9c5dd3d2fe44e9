/* share_host.c - index: every node in HAMi's order with its host room
 * (see share_host.h).
 *
 * A treap keyed by (score, node index) in HAMi's order (binpack: highest
 * first, spread: lowest; ties to the lower index), each subtree knowing the
 * most open cards, the pools and the most of eight keys of its nodes' free
 * CPU and memory: cores, GiB, and min(cores x w, GiB) for six ratios w of
 * GiB per core, 2.5 apart around the largest node's (from a tenth to ten
 * times it). Invariant: a node with the room asked has every key at least
 * the ask's, so a subtree short of the ask in any key holds no fitting node
 * and is skipped; the answer is that of the scan over every node in order
 * (tests/test_fit_index.c checks it against that scan). The ratio keys
 * matter where CPU and memory both bind: a long prefix of nearly full nodes
 * each with cores or GiB left but not both passes cores and GiB alone, and
 * a node short in cores fails the key of the ratio just below the ask's
 * own, one short in GiB the one just above, by how much it is short.
 *
 * Keys are 16 bits, the top half of a float's (the node's rounded up, the
 * ask's down: within 1/128), so the eight fit in 16 bytes and a pull takes
 * their max over a child in one vector instruction; a node's record is one
 * 64-byte cache line. Each node knows its parent (set by every pull), so
 * taking a node out needs no descent. Cost per update: a node whose score
 * changed is taken out (its children merged in its place) and put back by
 * a descent to its priority's depth, O(log nodes); figures are pulled up
 * only as far as they change. Per lookup: O(log nodes) plus the subtrees
 * entered for nothing and the nodes whose cards turn the task down
 * (scripts/README.md gives the nodes looked at per lookup on the bench's
 * cpumem trace). Priorities are a hash of the node index, so the shape is
 * the same every run.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "share_fit.h"
#include "share_host.h"

/* The keys of a node's room: its cores, min(cores x w, GiB) for NK - 2
 * ratios w (sc_horder.w), its GiB. Eight: two words of four 16-bit keys
 * (keys_cover). */
#define NK 8

/* One cache line: all a descent by order, a pull or a lookup reads (the
 * exact room of a node that passes its keys is the ledger's). */
typedef struct hnode {
    _Alignas(64) int16_t mkey[NK]; /* the most of each key in the subtree (key_up) */
    int16_t okey[NK];              /* the node's own keys */
    uint64_t pools;                /* the pools of the subtree's nodes */
    double key;                    /* node score when inserted */
    int32_t l, r;
    uint32_t pri;          /* heap priority: a hash of the index (high 24 bits); the node's pool (low 8) */
    int16_t open16, mopen16; /* open cards (share_room.c) up to INT16_MAX: the node's, the most in the subtree */
} hnode;
_Static_assert(sizeof(hnode) == 64, "a node's record is one cache line");

struct sc_horder {
    hnode *n;  /* the records, cache-line aligned in mem */
    void *mem;
    const sim_cluster *cl; /* the ledger: each node's free CPU and memory */
    const uint8_t *open;   /* each node's open cards (share_room.c) */
    int32_t root;
    bool spread;
    int32_t *up;  /* each node's parent (-1: the root), set by pull */
    double w[NK]; /* GiB per core of each ratio key (0 and +inf: cores and GiB alone) */
    long visits;  /* nodes looked at by sc_host_first (tests) */
};

static double host_free(double total, double used) { return total < 0 ? INFINITY : total - used; }

/* A key as 16 bits: the top half of a float's bits, the float no smaller
 * than x (key_up) or no larger (key_down), 0 below 0. The bits of floats
 * at or above 0, +inf included, are in the same order as the floats, so
 * these are too (a float with 8 bits of mantissa: within 1/128 of x); a
 * max of 16-bit integers is one vector instruction for eight of them. A
 * subtree's maxima may only overstate its room, an ask's keys only
 * understate it. */
static int16_t key_up(double x)
{
    float f = x > 0 ? (float)x : 0;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if ((double)f < x)
        b++; /* the next float up: f is finite and at least 0 here */
    return (int16_t)((b + 0xffff) >> 16); /* at most +inf's 0x7f80 */
}

static int16_t key_down(double x)
{
    float f = x > 0 ? (float)x : 0;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if ((double)f > x)
        b--; /* the next float down: f is above 0 here */
    return (int16_t)(b >> 16);
}

/* Are the eight keys at a and b the same? */
static bool keys_same(const int16_t *a, const int16_t *b)
{
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, sizeof a0);
    memcpy(&a1, a + 4, sizeof a1);
    memcpy(&b0, b, sizeof b0);
    memcpy(&b1, b + 4, sizeof b1);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* Does every key of m reach t's (two words of four keys)? Keys are below
 * 0x8000, so in each 16-bit lane (m + 0x8000) - t lies in 0x80..0xff80:
 * no borrow crosses a lane, and its top bit is set when m >= t. */
static bool keys_cover(const int16_t *m, const uint64_t *t)
{
    const uint64_t top = 0x8000800080008000ULL;
    uint64_t m0, m1;
    memcpy(&m0, m, sizeof m0);
    memcpy(&m1, m + 4, sizeof m1);
    return (((m0 | top) - t[0]) & ((m1 | top) - t[1]) & top) == top;
}

/* The keys of room (cpu, mem): cores, then min(cpu x w, mem) for each ratio,
 * then GiB. Monotone in both: a node with at least the cores and GiB of an
 * ask has every key at least the ask's. */
static double key_of(const struct sc_horder *h, int q, double cpu, double mem)
{
    if (q == 0)
        return cpu;
    if (q == NK - 1)
        return mem;
    double v = cpu * h->w[q];
    return v < mem ? v : mem;
}

/* a before b in HAMi's order, by the scores they were inserted with */
static bool before(const struct sc_horder *h, int a, int b)
{
    if (h->n[a].key != h->n[b].key)
        return h->spread ? h->n[a].key < h->n[b].key : h->n[a].key > h->n[b].key;
    return a < b;
}

/* The subtree figures of t from its own values and its children's; true
 * when they changed. An update pulls the nodes above a change only while
 * this says yes: a subtree whose figures stayed the same leaves every
 * figure above it the same too. */
static bool pull(struct sc_horder *h, int t)
{
    hnode *x = &h->n[t];
    int16_t o = x->open16;
    uint64_t p = 1ULL << (x->pri & 0xff);
    int16_t mk[NK];
    memcpy(mk, x->okey, sizeof mk);
    int kids[2] = {x->l, x->r};
    for (int i = 0; i < 2; i++) {
        if (kids[i] < 0)
            continue;
        const hnode *k = &h->n[kids[i]];
        h->up[kids[i]] = t;
        o = k->mopen16 > o ? k->mopen16 : o;
        p |= k->pools;
        for (int q = 0; q < NK; q++)
            mk[q] = k->mkey[q] > mk[q] ? k->mkey[q] : mk[q];
    }
    bool changed = o != x->mopen16 || p != x->pools || !keys_same(mk, x->mkey);
    x->mopen16 = o;
    x->pools = p;
    memcpy(x->mkey, mk, sizeof mk);
    return changed;
}

static int merge(struct sc_horder *h, int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (h->n[a].pri > h->n[b].pri) {
        h->n[a].r = merge(h, h->n[a].r, b);
        pull(h, a);
        return a;
    }
    h->n[b].l = merge(h, a, h->n[b].l);
    pull(h, b);
    return b;
}

/* Splits t into the nodes before x (*lo) and the rest (*hi). */
static void split(struct sc_horder *h, int t, int x, int *lo, int *hi)
{
    if (t < 0) {
        *lo = *hi = -1;
        return;
    }
    if (before(h, t, x)) {
        split(h, h->n[t].r, x, &h->n[t].r, hi);
        *lo = t;
    } else {
        split(h, h->n[t].l, x, lo, &h->n[t].l);
        *hi = t;
    }
    pull(h, t);
}

/* Pulls t and then each node above it while the figures change. */
static void pull_up(struct sc_horder *h, int t)
{
    while (t >= 0 && pull(h, t))
        t = h->up[t];
}

/* Node x joined the subtrees of t and of each node above it (x's own
 * figures are set): their figures take x's in, up to the first that this
 * leaves the same. Unlike a pull it reads no other child: the nodes on the
 * way are the ones a descent to x just read. */
static void absorb_up(struct sc_horder *h, int t, int x)
{
    const hnode *y = &h->n[x];
    uint64_t pool = 1ULL << (y->pri & 0xff);
    for (; t >= 0; t = h->up[t]) {
        hnode *z = &h->n[t];
        int16_t mk[NK];
        for (int q = 0; q < NK; q++)
            mk[q] = y->okey[q] > z->mkey[q] ? y->okey[q] : z->mkey[q];
        int16_t o = y->open16 > z->mopen16 ? y->open16 : z->mopen16;
        if (o == z->mopen16 && (z->pools & pool) && keys_same(mk, z->mkey))
            return;
        z->mopen16 = o;
        z->pools |= pool;
        memcpy(z->mkey, mk, sizeof mk);
    }
}

/* Takes x out of the order: its children merged in its place, and the
 * figures pulled up from its parent while they change (every pull sets
 * the parent of the children it reads, so up[] is right after each
 * change of shape). No descent from the root: O(changed figures). */
static void erase(struct sc_horder *h, int x)
{
    int p = h->up[x], sub = merge(h, h->n[x].l, h->n[x].r);
    if (p < 0) {
        h->root = sub;
        if (sub >= 0)
            h->up[sub] = -1;
        return;
    }
    if (h->n[p].l == x)
        h->n[p].l = sub;
    else
        h->n[p].r = sub;
    pull_up(h, p);
}

/* Puts x (its figures set, no children) into the order: down by order
 * from the root to where its priority belongs, only what lies below there
 * split in two, then x's figures taken in above it while they change. */
static void insert_at(struct sc_horder *h, int x)
{
    int p = -1, t = h->root;
    int32_t *link = &h->root;
    while (t >= 0 && h->n[x].pri <= h->n[t].pri) {
        p = t;
        link = before(h, x, t) ? &h->n[t].l : &h->n[t].r;
        t = *link;
    }
    split(h, t, x, &h->n[x].l, &h->n[x].r);
    *link = x;
    h->up[x] = p;
    pull(h, x);
    absorb_up(h, p, x);
}

/* Node ni's own figures as the ledger has them now; true when they
 * changed. */
static bool own(struct sc_horder *h, int ni)
{
    const sim_node *n = &h->cl->nodes[ni];
    hnode *x = &h->n[ni];
    double cpu = host_free(n->cpu_total, n->cpu_used), mem = host_free(n->mem_total_gib, n->mem_used_gib);
    int open = h->open[ni];
    int16_t k[NK], o = (int16_t)(open < INT16_MAX ? open : INT16_MAX);
    for (int q = 0; q < NK; q++)
        k[q] = key_up(key_of(h, q, cpu, mem));
    bool changed = o != x->open16 || !keys_same(k, x->okey);
    x->open16 = o;
    memcpy(x->okey, k, sizeof k);
    return changed;
}

static void insert(struct sc_horder *h, int ni, double key)
{
    h->n[ni].key = key;
    own(h, ni);
    h->n[ni].l = h->n[ni].r = -1;
    insert_at(h, ni);
}

sc_horder *sc_host_new(const sim_cluster *cl, const uint8_t *open, bool spread, const double *score)
{
    struct sc_horder *h = xcalloc(1, sizeof *h);
    /* the records on cache-line boundaries: a node's is one line */
    h->mem = xcalloc((size_t)cl->nnodes + 2, sizeof *h->n);
    h->n = (hnode *)(((uintptr_t)h->mem + 63) & ~(uintptr_t)63);
    h->cl = cl;
    h->open = open;
    h->spread = spread;
    h->up = xcalloc((size_t)cl->nnodes + 1, sizeof *h->up);
    h->root = -1;
    /* the ratio keys: GiB per core 2.5 apart around the largest node's
     * (limited cores and GiB), from about a tenth to ten times it */
    double cpu_max = 0, mem_max = 0;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        cpu_max = cl->nodes[ni].cpu_total > cpu_max ? cl->nodes[ni].cpu_total : cpu_max;
        mem_max = cl->nodes[ni].mem_total_gib > mem_max ? cl->nodes[ni].mem_total_gib : mem_max;
    }
    double ratio = cpu_max > 0 && mem_max > 0 ? mem_max / cpu_max : 1;
    h->w[0] = 0;
    h->w[NK - 1] = INFINITY;
    for (int q = 1; q < NK - 1; q++)
        h->w[q] = ratio * pow(2.5, q - (NK - 1) / 2.0);
    for (int ni = 0; ni < cl->nnodes; ni++) {
        uint64_t x = (uint64_t)ni * 0x9E3779B97F4A7C15ULL; /* splitmix64 finalizer */
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        h->n[ni].pri = ((uint32_t)(x >> 32) & 0xffffff00u) | (uint8_t)cl->nodes[ni].pool;
        insert(h, ni, score[ni]);
    }
    return h;
}

void sc_host_free(sc_horder *h)
{
    if (!h)
        return;
    free(h->mem);
    free(h->up);
    free(h);
}

void sc_host_rescore(sc_horder *h, int ni, double score)
{
    /* a treap's shape follows from its keys and priorities alone: with the
     * key unchanged the node stays where it is (an erase and insert would
     * rebuild the same tree), only the subtree figures above it may change */
    if (score == h->n[ni].key) {
        if (own(h, ni))
            pull_up(h, ni);
        return;
    }
    erase(h, ni);
    insert(h, ni, score);
}

/* The node's key is its score as of its last change (sc_host_rescore):
 * no copy of the scores is kept beside the records (8 bytes a node). */
void sc_host_update(sc_horder *h, int ni) { sc_host_rescore(h, ni, h->n[ni].key); }

typedef struct host_ask {
    const sim_node *nodes;    /* the cluster's: the exact test of a node's own room */
    double cpu0, mem0;        /* the ask */
    double cpu, mem;
    uint64_t pools;
    uint64_t t[NK / 4]; /* each key's least value on a node with the room asked (key_down), as keys_cover reads them */
    int want;
    int16_t want16; /* want, at most INT16_MAX: a subtree with fewer open cards is skipped */
    bool (*admits)(void *ud, int ni);
    void *ud;
} host_ask;

/* The first node of subtree t in order that passes the cheap tests (model,
 * CPU, memory, open cards) and then admits(); subtrees failing a cheap test
 * as a whole are skipped. */
static int first_fit(struct sc_horder *h, int t, const host_ask *a)
{
    if (t < 0)
        return -1;
    const hnode *x = &h->n[t];
    h->visits++;
    if (!(x->pools & a->pools) || x->mopen16 < a->want16)
        return -1;
    if (!keys_cover(x->mkey, a->t))
        return -1;
    int y = first_fit(h, x->l, a);
    if (y >= 0)
        return y;
    /* its own keys first: the exact figures are in the ledger's node */
    if (keys_cover(x->okey, a->t) && (a->pools >> (x->pri & 0xff) & 1) && h->open[t] >= a->want &&
        sc_host_fits(&a->nodes[t], a->cpu0, a->mem0) && a->admits(a->ud, t))
        return t;
    return first_fit(h, x->r, a);
}

int sc_host_first(sc_horder *h, uint64_t pools, double cpu, double mem_gib, int want,
                  bool (*admits)(void *ud, int ni), void *ud)
{
    /* the ledger's tolerance (sc_host_fits): free >= ask - 1e-9 */
    host_ask a = {h->cl->nodes, cpu, mem_gib, cpu - 1e-9, mem_gib - 1e-9, pools, {0}, want,
                  (int16_t)(want < INT16_MAX ? want : INT16_MAX), admits, ud};
    int16_t t[NK];
    for (int q = 0; q < NK; q++)
        t[q] = key_down(key_of(h, q, a.cpu, a.mem));
    memcpy(a.t, t, sizeof t);
    return first_fit(h, h->root, &a);
}

long sc_host_visits(const sc_horder *h) { return h->visits; }
