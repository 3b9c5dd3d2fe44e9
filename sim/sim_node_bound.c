/* sim_node_bound.c - nodes keyed by a lower bound (sim_node_bound.h).
 * SPDX-License-Identifier: MIT */
#include "sim_node_bound.h"

#include <stdlib.h>

#include "../base/gs.h"

void nb_init(nb_heap *h, int cap)
{
    h->n = 0;
    h->cap = cap;
    h->heap = xmalloc((size_t)(cap > 0 ? cap : 1) * sizeof *h->heap);
    h->pos = xmalloc((size_t)(cap > 0 ? cap : 1) * sizeof *h->pos);
    h->key = xmalloc((size_t)(cap > 0 ? cap : 1) * sizeof *h->key);
    for (int i = 0; i < cap; i++)
        h->pos[i] = -1;
}

void nb_free(nb_heap *h)
{
    free(h->heap);
    free(h->pos);
    free(h->key);
    *h = (nb_heap){0};
}

static bool less(const nb_heap *h, int a, int b)
{
    return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void put(nb_heap *h, int i, int id)
{
    h->heap[i] = id;
    h->pos[id] = i;
}

static void up(nb_heap *h, int i)
{
    int id = h->heap[i];
    while (i > 0 && less(h, id, h->heap[(i - 1) / 2])) {
        put(h, i, h->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    put(h, i, id);
}

static void down(nb_heap *h, int i)
{
    int id = h->heap[i];
    for (;;) {
        int k = 2 * i + 1;
        if (k >= h->n)
            break;
        if (k + 1 < h->n && less(h, h->heap[k + 1], h->heap[k]))
            k++;
        if (!less(h, h->heap[k], id))
            break;
        put(h, i, h->heap[k]);
        i = k;
    }
    put(h, i, id);
}

void nb_lower(nb_heap *h, int id, double key)
{
    if (h->pos[id] < 0) {
        h->key[id] = key;
        put(h, h->n++, id);
        up(h, h->n - 1);
    } else if (key < h->key[id]) {
        h->key[id] = key;
        up(h, h->pos[id]);
    }
}

int nb_top(const nb_heap *h, double *key)
{
    if (h->n == 0)
        return -1;
    if (key)
        *key = h->key[h->heap[0]];
    return h->heap[0];
}

int nb_pop(nb_heap *h)
{
    if (h->n == 0)
        return -1;
    int top = h->heap[0];
    h->pos[top] = -1;
    if (--h->n > 0) {
        put(h, 0, h->heap[h->n]);
        down(h, 0);
    }
    return top;
}
