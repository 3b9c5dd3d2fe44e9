/* sim_event.c - binary min-heap of events ordered by (t_us, seq).
 * SPDX-License-Identifier: MIT */
#include "sim_event.h"

#include <stdlib.h>

static inline bool ev_less(const sim_event *a, const sim_event *b) { return sim_event_before(a, b); }

void sim_heap_init(sim_heap *h)
{
    h->ev = NULL;
    h->n = h->cap = 0;
    h->next_seq = 0;
    h->has_side = false;
}

void sim_heap_free(sim_heap *h)
{
    free(h->ev);
    sim_heap_init(h);
}

void sim_heap_push(sim_heap *h, sim_event e)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 256;
        h->ev = xrealloc(h->ev, h->cap * sizeof *h->ev);
    }
    e.seq = h->next_seq++;
    size_t i = h->n++;
    while (i > 0) { /* sift up: move parents down until e fits */
        size_t p = (i - 1) / 2;
        if (!ev_less(&e, &h->ev[p]))
            break;
        h->ev[i] = h->ev[p];
        i = p;
    }
    h->ev[i] = e;
}

void sim_heap_push_side(sim_heap *h, sim_event e)
{
    if (h->has_side) {
        sim_heap_push(h, e);
        return;
    }
    e.seq = h->next_seq++;
    h->side = e;
    h->has_side = true;
}

bool sim_heap_pop(sim_heap *h, sim_event *out)
{
    if (h->has_side && (h->n == 0 || ev_less(&h->side, &h->ev[0]))) {
        *out = h->side;
        h->has_side = false;
        return true;
    }
    if (h->n == 0)
        return false;
    *out = h->ev[0];
    sim_event last = h->ev[--h->n];
    size_t i = 0, n = h->n;
    for (;;) { /* sift down the former last element from the root */
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_less(&h->ev[c + 1], &h->ev[c]))
            c++;
        if (!ev_less(&h->ev[c], &last))
            break;
        h->ev[i] = h->ev[c];
        i = c;
    }
    if (n)
        h->ev[i] = last;
    return true;
}
