/* share_host.c - HAMi's node order over every node, with each node's host
 * room, for tasks that ask no card (gpu_select=hami).
 *
 * A task of 0 cards (an agent session, a CPU-only job) may go to any node of
 * its models with room for its CPU cores and memory, the best by HAMi's node
 * score winning (binpack: highest, spread: lowest; ties to the lower node
 * index; share_place.c). Walking the nodes costs O(nodes) per placement,
 * and the open-card heap (share_room.c) does not hold nodes without an open
 * card; a task asking cards walks that heap past every node whose CPU or
 * memory is short. Here every node sits in a treap in that order (the score
 * as of its last change, kept by sc_room_node), each subtree knowing the
 * most free cores, the most free GiB, the most open cards and the pools
 * below it; the first node in order that admits a task is a descent that
 * skips every subtree without room or without an allowed model, asking the
 * card-level test (admits) only of nodes that pass those. Nodes without an
 * open card fail a task asking k >= 1 cards here as they are absent from
 * the heap, so both give the same node. Cost: O(log nodes) per update (a
 * task joins or leaves, host CPU or memory is taken or given); a lookup is
 * O(log nodes) plus the nodes whose cards turn the task down, more when a
 * subtree's best CPU and best memory sit on different nodes and neither
 * fits alone. Priorities come from a hash of the node index, so the shape
 * is the same every run.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "share_card.h"

struct sc_horder {
    int root;
    int *l, *r;
    uint32_t *pri;
    double *key;         /* node score when inserted */
    double *cpu, *mem;   /* the node's free cores and GiB (+inf: unlimited) */
    double *mcpu, *mmem; /* the most of each in the subtree */
    int *open, *mopen;   /* the node's open cards (share_room.c), the most in the subtree */
    uint64_t *pools;     /* the pools of the subtree's nodes */
    bool spread;
};

static double host_free(double total, double used) { return total < 0 ? INFINITY : total - used; }

/* a before b in HAMi's order, by the scores they were inserted with */
static bool before(const struct sc_horder *h, int a, int b)
{
    if (h->key[a] != h->key[b])
        return h->spread ? h->key[a] < h->key[b] : h->key[a] > h->key[b];
    return a < b;
}

/* the subtree maxima of t from its own values and its children's */
static void pull(struct sc_horder *h, int t)
{
    double c = h->cpu[t], m = h->mem[t];
    int o = h->open[t];
    int kids[2] = {h->l[t], h->r[t]};
    for (int i = 0; i < 2; i++) {
        int k = kids[i];
        if (k < 0)
            continue;
        c = h->mcpu[k] > c ? h->mcpu[k] : c;
        m = h->mmem[k] > m ? h->mmem[k] : m;
        o = h->mopen[k] > o ? h->mopen[k] : o;
    }
    h->mcpu[t] = c;
    h->mmem[t] = m;
    h->mopen[t] = o;
}

/* own pool bit of node t, kept apart from the subtree mask */
static uint64_t own_pool(const sc_state *st, int t) { return 1ULL << sim_cluster_of(st->s)->nodes[t].pool; }

static void pull_all(const sc_state *st, struct sc_horder *h, int t)
{
    pull(h, t);
    uint64_t p = own_pool(st, t);
    if (h->l[t] >= 0)
        p |= h->pools[h->l[t]];
    if (h->r[t] >= 0)
        p |= h->pools[h->r[t]];
    h->pools[t] = p;
}

static int merge(const sc_state *st, struct sc_horder *h, int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (h->pri[a] > h->pri[b]) {
        h->r[a] = merge(st, h, h->r[a], b);
        pull_all(st, h, a);
        return a;
    }
    h->l[b] = merge(st, h, a, h->l[b]);
    pull_all(st, h, b);
    return b;
}

/* Splits t into the nodes before x (*lo) and the rest (*hi). */
static void split(const sc_state *st, struct sc_horder *h, int t, int x, int *lo, int *hi)
{
    if (t < 0) {
        *lo = *hi = -1;
        return;
    }
    if (before(h, t, x)) {
        split(st, h, h->r[t], x, &h->r[t], hi);
        *lo = t;
    } else {
        split(st, h, h->l[t], x, lo, &h->l[t]);
        *hi = t;
    }
    pull_all(st, h, t);
}

static int erase(const sc_state *st, struct sc_horder *h, int t, int x)
{
    if (t < 0)
        GS_BUG("share_host: node not in the order");
    if (t == x)
        return merge(st, h, h->l[t], h->r[t]);
    if (before(h, x, t))
        h->l[t] = erase(st, h, h->l[t], x);
    else
        h->r[t] = erase(st, h, h->r[t], x);
    pull_all(st, h, t);
    return t;
}

static void insert(sc_state *st, struct sc_horder *h, int ni)
{
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    h->key[ni] = st->node_score[ni];
    h->cpu[ni] = host_free(n->cpu_total, n->cpu_used);
    h->mem[ni] = host_free(n->mem_total_gib, n->mem_used_gib);
    h->open[ni] = st->node_open[ni];
    h->l[ni] = h->r[ni] = -1;
    pull_all(st, h, ni);
    int lo, hi;
    split(st, h, h->root, ni, &lo, &hi);
    h->root = merge(st, h, merge(st, h, lo, ni), hi);
}

void sc_host_init(sc_state *st)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    struct sc_horder *h = xcalloc(1, sizeof *h);
    size_t n = (size_t)cl->nnodes + 1;
    h->l = xmalloc(n * sizeof *h->l);
    h->r = xmalloc(n * sizeof *h->r);
    h->pri = xmalloc(n * sizeof *h->pri);
    h->key = xmalloc(n * sizeof *h->key);
    h->cpu = xmalloc(n * sizeof *h->cpu);
    h->mem = xmalloc(n * sizeof *h->mem);
    h->mcpu = xmalloc(n * sizeof *h->mcpu);
    h->mmem = xmalloc(n * sizeof *h->mmem);
    h->pools = xmalloc(n * sizeof *h->pools);
    h->open = xmalloc(n * sizeof *h->open);
    h->mopen = xmalloc(n * sizeof *h->mopen);
    h->spread = st->cfg.node_spread;
    h->root = -1;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        uint64_t x = (uint64_t)ni * 0x9E3779B97F4A7C15ULL; /* splitmix64 finalizer */
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        h->pri[ni] = (uint32_t)(x ^ (x >> 31));
        insert(st, h, ni);
    }
    st->horder = h;
}

void sc_host_free(sc_state *st)
{
    struct sc_horder *h = st->horder;
    if (!h)
        return;
    free(h->l);
    free(h->r);
    free(h->pri);
    free(h->key);
    free(h->cpu);
    free(h->mem);
    free(h->mcpu);
    free(h->mmem);
    free(h->pools);
    free(h->open);
    free(h->mopen);
    free(h);
    st->horder = NULL;
}

/* Node x's own figures changed but not its key: the maxima on the path from
 * the root down to x, pulled again on the way back up (O(depth)). */
static void repull(const sc_state *st, struct sc_horder *h, int t, int x)
{
    if (t < 0)
        GS_BUG("share_host: node not in the order");
    if (t != x)
        repull(st, h, before(h, x, t) ? h->l[t] : h->r[t], x);
    pull_all(st, h, t);
}

void sc_host_update(sc_state *st, int ni)
{
    struct sc_horder *h = st->horder;
    if (!h || ni < 0)
        return;
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double cpu = host_free(n->cpu_total, n->cpu_used), mem = host_free(n->mem_total_gib, n->mem_used_gib);
    int open = st->node_open[ni];
    /* a treap's shape follows from its keys and priorities alone: with the
     * key unchanged the node stays where it is (an erase and insert would
     * rebuild the same tree), only the subtree maxima above it may change */
    if (st->node_score[ni] == h->key[ni]) {
        if (cpu == h->cpu[ni] && mem == h->mem[ni] && open == h->open[ni])
            return;
        h->cpu[ni] = cpu;
        h->mem[ni] = mem;
        h->open[ni] = open;
        repull(st, h, h->root, ni);
        return;
    }
    h->root = erase(st, h, h->root, ni);
    insert(st, h, ni);
}

typedef struct host_ask {
    double cpu, mem;
    uint64_t pools;
    int want;
    bool (*admits)(sc_state *st, int ni, void *ud);
    void *ud;
} host_ask;

/* The first node of subtree t in order that passes the cheap tests (model,
 * CPU, memory, open cards) and then admits(); subtrees failing a cheap test
 * as a whole are skipped. */
static int first_fit(sc_state *st, const struct sc_horder *h, int t, const host_ask *a)
{
    if (t < 0 || h->mcpu[t] < a->cpu || h->mmem[t] < a->mem || !(h->pools[t] & a->pools) || h->mopen[t] < a->want)
        return -1;
    int x = first_fit(st, h, h->l[t], a);
    if (x >= 0)
        return x;
    if (h->cpu[t] >= a->cpu && h->mem[t] >= a->mem && (a->pools >> sim_cluster_of(st->s)->nodes[t].pool & 1) &&
        h->open[t] >= a->want && a->admits(st, t, a->ud))
        return t;
    return first_fit(st, h, h->r[t], a);
}

int sc_host_first(sc_state *st, uint64_t pools, double cpu, double mem_gib, int want,
                  bool (*admits)(sc_state *st, int ni, void *ud), void *ud)
{
    /* the ledger's tolerance (sc_host_fits): free >= ask - 1e-9 */
    host_ask a = {cpu - 1e-9, mem_gib - 1e-9, pools, want, admits, ud};
    return first_fit(st, st->horder, st->horder->root, &a);
}
