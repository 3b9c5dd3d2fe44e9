/* sim_node_bound.c - nodes keyed by a lower bound that grows with time
 * (sim_node_bound.h).
 * SPDX-License-Identifier: MIT */
#include "sim_node_bound.h"

#include <stdlib.h>

#include "../base/gs.h"

void sim_node_bound_init(sim_node_bound *h, int cap)
{
    *h = (sim_node_bound){0};
    h->cap = cap;
    size_t c = (size_t)(cap > 0 ? cap : 1);
    h->at = xmalloc(c * sizeof *h->at);
    for (int i = 0; i < cap; i++)
        h->at[i] = (sim_node_bound_slot){0, -1, 0};
}

void sim_node_bound_free(sim_node_bound *h)
{
    for (int c = 0; c < NB_SLOPES; c++)
        free(h->part[c].ids);
    free(h->at);
    *h = (sim_node_bound){0};
}

int sim_node_bound_class(double slope)
{
    int c = 0;
    while (c + 1 < NB_SLOPES && sim_node_bound_slope(c + 1) <= slope)
        c++;
    return c;
}

double sim_node_bound_slope(int c) { return c == 0 ? 0.0 : (double)(1u << c) / (double)(1u << NB_ONE); }

static bool less(const sim_node_bound *h, int a, int b)
{
    return h->at[a].key < h->at[b].key || (h->at[a].key == h->at[b].key && a < b);
}

static void put(sim_node_bound *h, sim_node_bound_part *p, int i, int id)
{
    p->ids[i] = id;
    h->at[id].pos = i;
}

static void up(sim_node_bound *h, sim_node_bound_part *p, int i)
{
    int id = p->ids[i];
    while (i > 0 && less(h, id, p->ids[(i - 1) / 2])) {
        put(h, p, i, p->ids[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    put(h, p, i, id);
}

static void down(sim_node_bound *h, sim_node_bound_part *p, int i)
{
    int id = p->ids[i];
    for (;;) {
        int k = 2 * i + 1;
        if (k >= p->n)
            break;
        if (k + 1 < p->n && less(h, p->ids[k + 1], p->ids[k]))
            k++;
        if (!less(h, p->ids[k], id))
            break;
        put(h, p, i, p->ids[k]);
        i = k;
    }
    put(h, p, i, id);
}

/* id (absent) into class c with the line of value `value` at now. */
static void insert(sim_node_bound *h, int id, int c, double value, double now)
{
    sim_node_bound_part *p = &h->part[c];
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->ids = xrealloc(p->ids, (size_t)p->cap * sizeof *p->ids);
    }
    h->at[id].cls = c;
    h->at[id].key = value - sim_node_bound_slope(c) * now;
    put(h, p, p->n++, id);
    up(h, p, p->n - 1);
    h->n++;
}

/* Held id out of its class's heap. */
static void take_out(sim_node_bound *h, int id)
{
    sim_node_bound_part *p = &h->part[h->at[id].cls];
    int i = h->at[id].pos;
    h->at[id].pos = -1;
    h->n--;
    if (--p->n == i)
        return;
    int moved = p->ids[p->n];
    put(h, p, i, moved);
    down(h, p, i);
    up(h, p, h->at[moved].pos); /* the moved id may need to go either way */
}

void sim_node_bound_lower(sim_node_bound *h, int id, double value, double slope, double now)
{
    int cn = sim_node_bound_class(slope);
    if (h->at[id].pos < 0) {
        insert(h, id, cn, value, now);
        return;
    }
    int c = h->at[id].cls;
    double cur = h->at[id].key + sim_node_bound_slope(c) * now;
    if (cn >= c) { /* the class stays: only a lower value matters */
        if (value < cur) {
            h->at[id].key = value - sim_node_bound_slope(c) * now;
            up(h, &h->part[c], h->at[id].pos);
        }
        return;
    }
    take_out(h, id);
    insert(h, id, cn, value < cur ? value : cur, now);
}

void sim_node_bound_remove(sim_node_bound *h, int id)
{
    if (h->at[id].pos >= 0)
        take_out(h, id);
}

void sim_node_bound_set(sim_node_bound *h, int id, double value, double slope, double now)
{
    int cn = sim_node_bound_class(slope);
    if (h->at[id].pos < 0 || h->at[id].cls != cn) {
        sim_node_bound_remove(h, id);
        insert(h, id, cn, value, now);
        return;
    }
    sim_node_bound_part *p = &h->part[cn];
    h->at[id].key = value - sim_node_bound_slope(cn) * now;
    down(h, p, h->at[id].pos);
    up(h, p, h->at[id].pos);
}

void sim_node_bound_slow(sim_node_bound *h, int id, double slope, double now)
{
    if (h->at[id].pos < 0)
        return;
    int cn = sim_node_bound_class(slope), c = h->at[id].cls;
    if (cn >= c)
        return;
    double cur = h->at[id].key + sim_node_bound_slope(c) * now;
    take_out(h, id);
    insert(h, id, cn, cur, now);
}

/* The class whose top is least at now (-1: none), its value in *value. */
static int top_class(const sim_node_bound *h, double now, double *value)
{
    int best = -1, best_id = 0;
    double bv = 0;
    for (int c = 0; c < NB_SLOPES; c++) {
        if (h->part[c].n == 0)
            continue;
        int id = h->part[c].ids[0];
        double v = h->at[id].key + sim_node_bound_slope(c) * now;
        if (best < 0 || v < bv || (v == bv && id < best_id)) {
            best = c;
            best_id = id;
            bv = v;
        }
    }
    *value = bv;
    return best;
}

int sim_node_bound_top(const sim_node_bound *h, double now, double *value)
{
    double v;
    int c = top_class(h, now, &v);
    if (c < 0)
        return -1;
    if (value)
        *value = v;
    return h->part[c].ids[0];
}

int sim_node_bound_pop(sim_node_bound *h, double now)
{
    double v;
    int c = top_class(h, now, &v);
    if (c < 0)
        return -1;
    int top = h->part[c].ids[0];
    take_out(h, top);
    return top;
}
