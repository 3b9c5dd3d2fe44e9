/* svc_prefix_cache.c - LRU set of block ids (see svc_prefix_cache.h).
 * Blocks live in a fixed array of `capacity` nodes on a doubly linked
 * recency list (head = most recent); an open-addressing table (linear
 * probing, backward-shift deletion, at most half full) maps an id to its node.
 * SPDX-License-Identifier: MIT */
#include "svc_prefix_cache.h"

#include <stdlib.h>

#include "../../base/gs.h"

#define NIL (-1)

typedef struct node {
    uint64_t id;
    int32_t prev, next;
} node;

struct svc_prefix_cache {
    long cap, size;
    node *nodes;
    int32_t head, tail;
    int32_t *slot; /* table: node index or NIL */
    uint64_t mask, evictions;
};

static uint64_t mix(uint64_t x) /* splitmix64's finalizer: ids are small consecutive integers */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

svc_prefix_cache *svc_prefix_cache_new(long capacity_blocks)
{
    svc_prefix_cache *c = xcalloc(1, sizeof *c);
    c->cap = capacity_blocks > 0 ? capacity_blocks : 0;
    c->head = c->tail = NIL;
    uint64_t t = 2;
    while (t < (uint64_t)c->cap * 2)
        t <<= 1;
    c->mask = t - 1;
    c->slot = xmalloc(t * sizeof *c->slot);
    for (uint64_t i = 0; i < t; i++)
        c->slot[i] = NIL;
    c->nodes = c->cap ? xmalloc((size_t)c->cap * sizeof *c->nodes) : NULL;
    return c;
}

void svc_prefix_cache_free(svc_prefix_cache *c)
{
    if (!c)
        return;
    free(c->nodes);
    free(c->slot);
    free(c);
}

static uint64_t find_slot(const svc_prefix_cache *c, uint64_t id)
{
    uint64_t i = mix(id) & c->mask;
    while (c->slot[i] != NIL && c->nodes[c->slot[i]].id != id)
        i = (i + 1) & c->mask;
    return i;
}

static void table_delete(svc_prefix_cache *c, uint64_t i)
{
    c->slot[i] = NIL;
    for (uint64_t j = (i + 1) & c->mask; c->slot[j] != NIL; j = (j + 1) & c->mask) {
        uint64_t home = mix(c->nodes[c->slot[j]].id) & c->mask;
        /* move j's entry into the hole at i unless its home lies in (i, j] */
        if (((j - home) & c->mask) >= ((j - i) & c->mask)) {
            c->slot[i] = c->slot[j];
            c->slot[j] = NIL;
            i = j;
        }
    }
}

static void unlink_node(svc_prefix_cache *c, int32_t k)
{
    node *n = &c->nodes[k];
    if (n->prev != NIL)
        c->nodes[n->prev].next = n->next;
    else
        c->head = n->next;
    if (n->next != NIL)
        c->nodes[n->next].prev = n->prev;
    else
        c->tail = n->prev;
}

static void push_front(svc_prefix_cache *c, int32_t k)
{
    c->nodes[k].prev = NIL;
    c->nodes[k].next = c->head;
    if (c->head != NIL)
        c->nodes[c->head].prev = k;
    c->head = k;
    if (c->tail == NIL)
        c->tail = k;
}

int svc_prefix_cache_match(const svc_prefix_cache *c, const uint64_t *ids, int n)
{
    int m = 0;
    if (c->cap == 0)
        return 0;
    while (m < n && c->slot[find_slot(c, ids[m])] != NIL)
        m++;
    return m;
}

static void touch(svc_prefix_cache *c, uint64_t id)
{
    uint64_t i = find_slot(c, id);
    int32_t k = c->slot[i];
    if (k != NIL) { /* resident: to the front */
        unlink_node(c, k);
        push_front(c, k);
        return;
    }
    if (c->size < c->cap) {
        k = (int32_t)c->size++;
    } else { /* full: reuse the least recently used node */
        k = c->tail;
        unlink_node(c, k);
        table_delete(c, find_slot(c, c->nodes[k].id));
        c->evictions++;
        i = find_slot(c, id); /* the deletion may have moved entries */
    }
    c->nodes[k].id = id;
    c->slot[i] = k;
    push_front(c, k);
}

int svc_prefix_cache_admit(svc_prefix_cache *c, const uint64_t *ids, int n)
{
    int m = svc_prefix_cache_match(c, ids, n);
    if (c->cap == 0)
        return 0;
    /* the hits first, so that inserting the misses cannot evict them (the
     * request holds them, as an engine takes its reused blocks out of the
     * free pool before allocating new ones); then the misses, tail first;
     * then the hits again, so block 0 ends the most recent */
    for (int b = m; b-- > 0;)
        touch(c, ids[b]);
    for (int b = n; b-- > m;)
        touch(c, ids[b]);
    for (int b = m; b-- > 0;)
        touch(c, ids[b]);
    return m;
}

long svc_prefix_cache_size(const svc_prefix_cache *c) { return c->size; }
uint64_t svc_prefix_cache_evictions(const svc_prefix_cache *c) { return c->evictions; }
