/* sim_bf_index.c - per node and GPU count, the planned time it is free
 * (see sim_bf_index.h).
 * SPDX-License-Identifier: MIT */
#include "sim_bf_index.h"

#include <stdlib.h>
#include <string.h>

typedef struct bf_ent {
    gs_time_us end_us;
    uint32_t key;
    int gpus;
} bf_ent;

typedef struct bf_node {
    bf_ent *e; /* in end order (ties: insertion order) */
    int n, cap;
    int free_gpus;
    int pool;
    uint64_t stale; /* bit g - 1: T_n(g) to be recomputed (the node is on heap g's dirty list) */
} bf_node;

struct bf_index {
    int nnodes, npools;
    bf_node *node;
    int *off;          /* node's first slot in tn and hpos: G of its pool, one per g */
    gs_time_us *tn;    /* T_n(g) at off[n] + g - 1 */
    int *hpos;         /* its position in heap (pool, g) */
    int *pool_h0;      /* pool's heap of g = 1 in heap[]; its heaps follow for g = 2 .. G */
    int *pool_g;       /* pool's G */
    int **heap;        /* heap[h][i]: a node id */
    int *hn;           /* heap sizes */
    int **dirty, *ndirty; /* per heap: its nodes whose key is stale */
    uint64_t epoch;
};

static inline gs_time_us key_of(const bf_index *x, int node, int g) { return x->tn[x->off[node] + g - 1]; }

static inline bool less(const bf_index *x, int g, int a, int b)
{
    gs_time_us ta = key_of(x, a, g), tb = key_of(x, b, g);
    return ta != tb ? ta < tb : a < b;
}

static void heap_set(bf_index *x, int h, int g, int i, int node)
{
    x->heap[h][i] = node;
    x->hpos[x->off[node] + g - 1] = i;
}

static void sift(bf_index *x, int h, int g, int i)
{
    int *hp = x->heap[h], node = hp[i];
    while (i > 0 && less(x, g, node, hp[(i - 1) / 2])) {
        heap_set(x, h, g, i, hp[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        int k = 2 * i + 1;
        if (k >= x->hn[h])
            break;
        if (k + 1 < x->hn[h] && less(x, g, hp[k + 1], hp[k]))
            k++;
        if (!less(x, g, hp[k], node))
            break;
        heap_set(x, h, g, i, hp[k]);
        i = k;
    }
    heap_set(x, h, g, i, node);
}

bf_index *bf_index_new(const sim_cluster *cl)
{
    bf_index *x = xcalloc(1, sizeof *x);
    x->nnodes = cl->nnodes;
    x->npools = cl->npools;
    x->node = xcalloc((size_t)cl->nnodes, sizeof *x->node);
    x->off = xmalloc((size_t)cl->nnodes * sizeof *x->off);
    x->pool_h0 = xmalloc((size_t)cl->npools * sizeof *x->pool_h0);
    x->pool_g = xmalloc((size_t)cl->npools * sizeof *x->pool_g);
    int nheaps = 0;
    for (int p = 0; p < cl->npools; p++) {
        x->pool_h0[p] = nheaps;
        x->pool_g[p] = cl->pools[p].max_node_gpus;
        nheaps += x->pool_g[p];
    }
    size_t slots = 0;
    for (int n = 0; n < cl->nnodes; n++) {
        x->off[n] = (int)slots;
        slots += (size_t)x->pool_g[cl->nodes[n].pool];
    }
    x->tn = xmalloc((slots ? slots : 1) * sizeof *x->tn);
    x->hpos = xmalloc((slots ? slots : 1) * sizeof *x->hpos);
    x->heap = xcalloc((size_t)(nheaps ? nheaps : 1), sizeof *x->heap);
    x->hn = xcalloc((size_t)(nheaps ? nheaps : 1), sizeof *x->hn);
    x->dirty = xcalloc((size_t)(nheaps ? nheaps : 1), sizeof *x->dirty);
    x->ndirty = xcalloc((size_t)(nheaps ? nheaps : 1), sizeof *x->ndirty);
    for (int p = 0; p < cl->npools; p++)
        for (int g = 1; g <= x->pool_g[p]; g++)
            for (int k = 0; k < 2; k++) /* the heap, and its dirty list */
                (k ? x->dirty : x->heap)[x->pool_h0[p] + g - 1] =
                    xmalloc((size_t)(cl->pools[p].nnodes ? cl->pools[p].nnodes : 1) * sizeof(int));
    for (int n = 0; n < cl->nnodes; n++) {
        bf_node *nd = &x->node[n];
        nd->pool = cl->nodes[n].pool;
        nd->free_gpus = cl->nodes[n].ngpus;
        for (int g = 1; g <= x->pool_g[nd->pool]; g++) {
            int h = x->pool_h0[nd->pool] + g - 1;
            x->tn[x->off[n] + g - 1] = g <= nd->free_gpus ? BF_NOW : BF_NEVER;
            heap_set(x, h, g, x->hn[h]++, n);
        }
    }
    for (int p = 0; p < cl->npools; p++) /* NOW before NEVER: nodes of fewer GPUs sort last */
        for (int g = 1; g <= x->pool_g[p]; g++) {
            int h = x->pool_h0[p] + g - 1;
            for (int i = x->hn[h] / 2 - 1; i >= 0; i--)
                sift(x, h, g, i);
        }
    return x;
}

void bf_index_free(bf_index *x)
{
    if (!x)
        return;
    for (int n = 0; n < x->nnodes; n++)
        free(x->node[n].e);
    int nheaps = 0;
    for (int p = 0; p < x->npools; p++)
        nheaps += x->pool_g[p];
    for (int h = 0; h < nheaps; h++) {
        free(x->heap[h]);
        free(x->dirty[h]);
    }
    free(x->heap);
    free(x->hn);
    free(x->dirty);
    free(x->ndirty);
    free(x->node);
    free(x->off);
    free(x->tn);
    free(x->hpos);
    free(x->pool_h0);
    free(x->pool_g);
    free(x);
}

/* T_n(g) from the node's list: O(jobs on it). */
static gs_time_us when_of(const bf_node *nd, int g)
{
    if (g <= nd->free_gpus)
        return BF_NOW;
    int cum = nd->free_gpus;
    for (int k = 0; k < nd->n && nd->e[k].end_us != BF_NEVER; k++)
        if ((cum += nd->e[k].gpus) >= g)
            return nd->e[k].end_us;
    return BF_NEVER;
}

/* A heap is brought up to date only when asked about: a run that never
 * queues pays for the lists alone, a node changed twice between two
 * questions is recomputed once, and only the GPU counts heads ask for
 * (one or two: 8 for a whole node) are kept. */
static void touch(bf_index *x, int node)
{
    bf_node *nd = &x->node[node];
    x->epoch++;
    for (int g = 1; g <= x->pool_g[nd->pool]; g++)
        if (!(nd->stale >> (g - 1) & 1)) {
            int h = x->pool_h0[nd->pool] + g - 1;
            nd->stale |= 1ULL << (g - 1);
            x->dirty[h][x->ndirty[h]++] = node;
        }
}

/* Heap (pool, g)'s stale keys recomputed and sifted. */
static void flush(bf_index *x, int pool, int g)
{
    int h = x->pool_h0[pool] + g - 1;
    for (int i = 0; i < x->ndirty[h]; i++) {
        int node = x->dirty[h][i];
        bf_node *nd = &x->node[node];
        nd->stale &= ~(1ULL << (g - 1));
        gs_time_us t = when_of(nd, g), *slot = &x->tn[x->off[node] + g - 1];
        if (*slot != t) {
            *slot = t;
            sift(x, h, g, x->hpos[x->off[node] + g - 1]);
        }
    }
    x->ndirty[h] = 0;
}

static void flush_pools(bf_index *x, uint64_t pools, int g)
{
    for (int p = 0; p < x->npools; p++)
        if (pools >> p & 1 && g >= 1 && g <= x->pool_g[p])
            flush(x, p, g);
}

void bf_index_add(bf_index *x, int node, uint32_t key, int gpus, gs_time_us end_us)
{
    bf_node *nd = &x->node[node];
    if (nd->n == nd->cap) {
        nd->cap = nd->cap ? nd->cap * 2 : 4;
        nd->e = xrealloc(nd->e, (size_t)nd->cap * sizeof *nd->e);
    }
    int i = nd->n++;
    while (i > 0 && nd->e[i - 1].end_us > end_us) { /* after equal ends: insertion order */
        nd->e[i] = nd->e[i - 1];
        i--;
    }
    nd->e[i] = (bf_ent){end_us, key, gpus};
    nd->free_gpus -= gpus;
    touch(x, node);
}

void bf_index_remove(bf_index *x, int node, uint32_t key)
{
    bf_node *nd = &x->node[node];
    int i = 0;
    while (i < nd->n && nd->e[i].key != key)
        i++;
    if (i == nd->n)
        GS_BUG("bf_index_remove: the job holds nothing on this node");
    nd->free_gpus += nd->e[i].gpus;
    memmove(&nd->e[i], &nd->e[i + 1], (size_t)(nd->n - i - 1) * sizeof *nd->e);
    nd->n--;
    touch(x, node);
}

gs_time_us bf_index_when(bf_index *x, int node, int g)
{
    return g >= 1 && g <= x->pool_g[x->node[node].pool] ? when_of(&x->node[node], g) : BF_NEVER;
}

int bf_index_first(bf_index *x, uint64_t pools, int g, gs_time_us *t)
{
    flush_pools(x, pools, g);
    int best = -1;
    for (int p = 0; p < x->npools; p++) {
        int h = x->pool_h0[p] + g - 1;
        if (!(pools >> p & 1) || g < 1 || g > x->pool_g[p] || x->hn[h] == 0)
            continue;
        int n = x->heap[h][0];
        if (key_of(x, n, g) != BF_NEVER && (best < 0 || less(x, g, n, best)))
            best = n;
    }
    if (best >= 0)
        *t = key_of(x, best, g);
    return best;
}

int bf_index_free_now(const bf_index *x, int node) { return x->node[node].free_gpus; }

int bf_index_free_by(const bf_index *x, int node, gs_time_us t)
{
    const bf_node *nd = &x->node[node];
    int f = nd->free_gpus;
    for (int k = 0; k < nd->n && nd->e[k].end_us <= t; k++)
        f += nd->e[k].gpus;
    return f;
}

uint64_t bf_index_epoch(const bf_index *x) { return x->epoch; }

/* {==== walking the nodes in T_n(g) order ====}
 * A heap is walked in order by a frontier of its slots: pop the least,
 * push its two children. Several pools' heaps share one frontier. */

static inline int front_node(const bf_walk *w, bf_front f) { return w->x->heap[f.heap][f.i]; }

static inline bool front_less(const bf_walk *w, bf_front a, bf_front b)
{
    return less(w->x, w->g, front_node(w, a), front_node(w, b));
}

static void front_push(bf_walk *w, int heap, int i)
{
    if (i >= w->x->hn[heap])
        return;
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        w->f = xrealloc(w->f, (size_t)w->cap * sizeof *w->f);
    }
    bf_front e = {heap, i};
    int k = w->n++;
    while (k > 0 && front_less(w, e, w->f[(k - 1) / 2])) {
        w->f[k] = w->f[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    w->f[k] = e;
}

void bf_index_walk_start(bf_walk *w, bf_index *x, uint64_t pools, int g)
{
    flush_pools(x, pools, g);
    memset(w, 0, sizeof *w);
    w->x = x;
    w->g = g;
    for (int p = 0; p < x->npools; p++)
        if (pools >> p & 1 && g >= 1 && g <= x->pool_g[p])
            front_push(w, x->pool_h0[p] + g - 1, 0);
}

int bf_index_walk_next(bf_walk *w, gs_time_us *t)
{
    if (w->n == 0)
        return -1;
    bf_front top = w->f[0], last = w->f[--w->n];
    int i = 0;
    for (;;) { /* the last entry sinks from the root */
        int k = 2 * i + 1;
        if (k >= w->n)
            break;
        if (k + 1 < w->n && front_less(w, w->f[k + 1], w->f[k]))
            k++;
        if (!front_less(w, w->f[k], last))
            break;
        w->f[i] = w->f[k];
        i = k;
    }
    if (w->n)
        w->f[i] = last;
    int node = front_node(w, top);
    *t = key_of(w->x, node, w->g);
    if (*t == BF_NEVER) { /* every node left is NEVER too */
        w->n = 0;
        return -1;
    }
    front_push(w, top.heap, 2 * top.i + 1);
    front_push(w, top.heap, 2 * top.i + 2);
    return node;
}

void bf_index_walk_end(bf_walk *w)
{
    free(w->f);
    memset(w, 0, sizeof *w);
}
