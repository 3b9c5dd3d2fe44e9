/* share_host.c - HAMi's node order over every node, with each node's host
 * room: where every task goes under gpu_select=hami, those that ask no
 * card included.
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
 * task joins or leaves, host CPU or memory is taken or given: a descent,
 * and the figures pulled up again only as far as they change); a lookup is
 * O(log nodes) plus the nodes whose cards turn the task down, more when a
 * subtree's best CPU and best memory sit on different nodes and neither
 * fits alone. That last case is what grows with the cluster when CPU and
 * memory both bind (a long prefix of nearly full nodes in binpack order,
 * some with cores left, others with GiB left): each subtree also keeps a
 * 64-bit room grid, bit (i, j) set when one of its nodes has at least i
 * eighths of the largest node's cores and j eighths of its GiB free, and a
 * second one with its steps half a step lower, so a subtree with no single
 * node near the ask in both is skipped; a grid only ever skips subtrees
 * without a fitting node, so the answer is the same. What is left grows
 * with the cluster: nodes within a grid step of the ask (on `make bench`'s
 * cpumem trace, nodes looked at per lookup: 15 at 128 nodes of 64 cores
 * and 512 GiB, 93 at 8,192; 20 and 207 without the grids).
 * Priorities come from a hash of the node index, so the shape is the same
 * every run. One record per node (104 bytes, its own pool and grids inside)
 * keeps a visit to one or two cache lines at 8k nodes.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "share_card.h"

#ifndef CG
#define CG 8 /* room grid levels of cores */
#endif
#define MG (64 / CG) /* and of GiB: CG x MG bits, one word */

typedef struct hnode {
    double key;        /* node score when inserted */
    double cpu, mem;   /* the node's free cores and GiB (+inf: unlimited) */
    double mcpu, mmem; /* the most of each in the subtree */
    uint64_t pools;    /* the pools of the subtree's nodes */
    uint64_t room[2];     /* the room grids of the subtree's nodes (room_bits) */
    uint64_t own_room[2]; /* the node's own */
    int32_t l, r;
    int32_t open, mopen; /* the node's open cards (share_room.c), the most in the subtree */
    uint32_t pri;
    uint8_t pool; /* the node's own pool */
} hnode;

struct sc_horder {
    hnode *n;
    int root;
    bool spread;
    double cpu_step, mem_step; /* grid level i >= 1 means at least i steps free */
    long visits;               /* nodes looked at by sc_host_first (tests) */
};

static double host_free(double total, double used) { return total < 0 ? INFINITY : total - used; }

/* The grid level of x free: the largest i < n with i == 0 or x >= i
 * steps. Monotone in x, which is all pruning needs: a node with at least
 * the asked room has at least the ask's level. */
static int level(double x, double step, int n)
{
    if (!(x >= step))
        return 0;
    double q = x / step;
    int i = q >= n - 1 ? n - 1 : (int)q;
    while (i > 0 && x < i * step) /* floating-point division may round up */
        i--;
    while (i < n - 1 && x >= (i + 1) * step)
        i++;
    return i;
}

/* The levels of (cpu, mem) in grid 0, or in grid 1 (steps half a step
 * lower), as bit i * MG + j. */
static int grid_bit(const struct sc_horder *h, double cpu, double mem, int grid, int *ci, int *mj)
{
    double co = grid ? h->cpu_step / 2 : 0, mo = grid ? h->mem_step / 2 : 0;
    *ci = level(cpu + co, h->cpu_step, CG);
    *mj = level(mem + mo, h->mem_step, MG);
    return *ci * MG + *mj;
}

/* a node's own grid: every bit at or below its two levels */
static uint64_t room_bits(const struct sc_horder *h, double cpu, double mem, int grid)
{
    int ci, mj;
    grid_bit(h, cpu, mem, grid, &ci, &mj);
    uint64_t cols = 0;
    for (int r = 0; r <= ci; r++)
        cols |= ((1ULL << mj << 1) - 1) << (r * MG);
    return cols;
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
    double c = x->cpu, m = x->mem;
    int o = x->open;
    uint64_t p = 1ULL << x->pool, room = x->own_room[0], room2 = x->own_room[1];
    int kids[2] = {x->l, x->r};
    for (int i = 0; i < 2; i++) {
        if (kids[i] < 0)
            continue;
        const hnode *k = &h->n[kids[i]];
        c = k->mcpu > c ? k->mcpu : c;
        m = k->mmem > m ? k->mmem : m;
        o = k->mopen > o ? k->mopen : o;
        p |= k->pools;
        room |= k->room[0];
        room2 |= k->room[1];
    }
    bool changed = c != x->mcpu || m != x->mmem || o != x->mopen || p != x->pools || room != x->room[0] || room2 != x->room[1];
    x->mcpu = c;
    x->mmem = m;
    x->mopen = o;
    x->pools = p;
    x->room[0] = room;
    x->room[1] = room2;
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

/* Takes x out of subtree t; *dirty: the figures of the subtree returned
 * may differ from t's before. */
static int erase(struct sc_horder *h, int t, int x, bool *dirty)
{
    if (t < 0)
        GS_BUG("share_host: node not in the order");
    if (t == x) {
        *dirty = true;
        return merge(h, h->n[t].l, h->n[t].r);
    }
    if (before(h, x, t))
        h->n[t].l = erase(h, h->n[t].l, x, dirty);
    else
        h->n[t].r = erase(h, h->n[t].r, x, dirty);
    if (*dirty)
        *dirty = pull(h, t);
    return t;
}

/* Puts x (its figures set, no children) into subtree t: down by order to
 * where its priority belongs, and only what lies below there is split;
 * the figures are pulled again on the way back up. */
static int insert_at(struct sc_horder *h, int t, int x, bool *dirty)
{
    if (t < 0 || h->n[x].pri > h->n[t].pri) {
        split(h, t, x, &h->n[x].l, &h->n[x].r);
        pull(h, x);
        *dirty = true;
        return x;
    }
    if (before(h, x, t))
        h->n[t].l = insert_at(h, h->n[t].l, x, dirty);
    else
        h->n[t].r = insert_at(h, h->n[t].r, x, dirty);
    if (*dirty)
        *dirty = pull(h, t);
    return t;
}

/* node ni's own figures as the ledger has them now */
static void own(const sc_state *st, struct sc_horder *h, int ni)
{
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    hnode *x = &h->n[ni];
    x->cpu = host_free(n->cpu_total, n->cpu_used);
    x->mem = host_free(n->mem_total_gib, n->mem_used_gib);
    x->open = st->node_open[ni];
    x->own_room[0] = room_bits(h, x->cpu, x->mem, 0);
    x->own_room[1] = room_bits(h, x->cpu, x->mem, 1);
}

static void insert(sc_state *st, struct sc_horder *h, int ni)
{
    h->n[ni].key = st->node_score[ni];
    own(st, h, ni);
    h->n[ni].l = h->n[ni].r = -1;
    bool dirty = false;
    h->root = insert_at(h, h->root, ni, &dirty);
}

void sc_host_init(sc_state *st)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    struct sc_horder *h = xcalloc(1, sizeof *h);
    h->n = xcalloc((size_t)cl->nnodes + 1, sizeof *h->n);
    h->spread = st->cfg.node_spread;
    h->root = -1;
    /* the grid spans the largest node's limited cores and GiB */
    double cpu_max = 0, mem_max = 0;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        cpu_max = cl->nodes[ni].cpu_total > cpu_max ? cl->nodes[ni].cpu_total : cpu_max;
        mem_max = cl->nodes[ni].mem_total_gib > mem_max ? cl->nodes[ni].mem_total_gib : mem_max;
    }
    h->cpu_step = cpu_max > 0 ? cpu_max / CG : 1;
    h->mem_step = mem_max > 0 ? mem_max / MG : 1;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        uint64_t x = (uint64_t)ni * 0x9E3779B97F4A7C15ULL; /* splitmix64 finalizer */
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        h->n[ni].pri = (uint32_t)(x ^ (x >> 31));
        h->n[ni].pool = (uint8_t)cl->nodes[ni].pool;
        insert(st, h, ni);
    }
    st->horder = h;
}

void sc_host_free(sc_state *st)
{
    struct sc_horder *h = st->horder;
    if (!h)
        return;
    free(h->n);
    free(h);
    st->horder = NULL;
}

/* Node x's own figures changed but not its key: the figures on the path
 * from the root down to x, pulled again on the way back up (O(depth)). */
static bool repull(struct sc_horder *h, int t, int x)
{
    if (t < 0)
        GS_BUG("share_host: node not in the order");
    if (t != x && !repull(h, before(h, x, t) ? h->n[t].l : h->n[t].r, x))
        return false;
    return pull(h, t);
}

void sc_host_update(sc_state *st, int ni)
{
    struct sc_horder *h = st->horder;
    if (!h || ni < 0)
        return;
    hnode *x = &h->n[ni];
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double cpu = host_free(n->cpu_total, n->cpu_used), mem = host_free(n->mem_total_gib, n->mem_used_gib);
    int open = st->node_open[ni];
    /* a treap's shape follows from its keys and priorities alone: with the
     * key unchanged the node stays where it is (an erase and insert would
     * rebuild the same tree), only the subtree figures above it may change */
    if (st->node_score[ni] == x->key) {
        if (cpu == x->cpu && mem == x->mem && open == x->open)
            return;
        own(st, h, ni);
        repull(h, h->root, ni);
        return;
    }
    bool dirty = false;
    h->root = erase(h, h->root, ni, &dirty);
    insert(st, h, ni);
}

typedef struct host_ask {
    double cpu, mem;
    uint64_t pools;
    uint64_t room, room2; /* the grid bits every node with the room asked sets */
    int want;
    bool (*admits)(sc_state *st, int ni, void *ud);
    void *ud;
} host_ask;

/* The first node of subtree t in order that passes the cheap tests (model,
 * CPU, memory, open cards) and then admits(); subtrees failing a cheap test
 * as a whole are skipped. */
static int first_fit(sc_state *st, struct sc_horder *h, int t, const host_ask *a)
{
    if (t < 0)
        return -1;
    const hnode *x = &h->n[t];
    h->visits++;
    if (x->mcpu < a->cpu || x->mmem < a->mem || !(x->pools & a->pools) || x->mopen < a->want || !(x->room[0] & a->room) || !(x->room[1] & a->room2))
        return -1;
    int y = first_fit(st, h, x->l, a);
    if (y >= 0)
        return y;
    if (x->cpu >= a->cpu && x->mem >= a->mem && (a->pools >> x->pool & 1) && x->open >= a->want &&
        a->admits(st, t, a->ud))
        return t;
    return first_fit(st, h, x->r, a);
}

int sc_host_first(sc_state *st, uint64_t pools, double cpu, double mem_gib, int want,
                  bool (*admits)(sc_state *st, int ni, void *ud), void *ud)
{
    struct sc_horder *h = st->horder;
    /* the ledger's tolerance (sc_host_fits): free >= ask - 1e-9 */
    host_ask a = {cpu - 1e-9, mem_gib - 1e-9, pools, 0, 0, want, admits, ud};
    /* a node with this room free is at least at the ask's levels in each grid */
    int ci, mj;
    a.room = 1ULL << grid_bit(h, a.cpu, a.mem, 0, &ci, &mj);
    a.room2 = 1ULL << grid_bit(h, a.cpu, a.mem, 1, &ci, &mj);
    return first_fit(st, h, h->root, &a);
}

long sc_host_visits(const sc_state *st) { return st->horder ? st->horder->visits : 0; }
