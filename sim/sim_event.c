/* sim_event.c - 4-ary min-heap of events ordered by (t_us, seq).
 * SPDX-License-Identifier: MIT */
#include "sim_event.h"

#include <stdlib.h>

/* sim_event_before without branches: which child is earliest is a coin
 * toss the branch predictor loses half the time, and a pop asks it at every
 * level (one 128-bit comparison: no jump). */
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

void sim_heap_grow(sim_heap *h)
{
    h->cap = h->cap ? h->cap * 2 : 256;
    h->ev = xrealloc(h->ev, h->cap * sizeof *h->ev);
}

bool sim_heap_pop_array(sim_heap *h, sim_event *out)
{
    if (h->n == 0)
        return false;
    *out = h->ev[0];
    sim_event last = h->ev[--h->n];
    sim_event *ev = h->ev;
    size_t i = 0, n = h->n;
    for (;;) { /* sift down the former last element from the root */
        size_t c = SIM_HEAP_ARITY * i + 1, m = c;
        if (c >= n)
            break;
        if (c + 3 < n) { /* four children: a tournament of three comparisons, no jump */
            size_t a = c + ev_less(&ev[c + 1], &ev[c]), b = c + 2 + ev_less(&ev[c + 3], &ev[c + 2]);
            m = a ^ ((a ^ b) & (0 - (size_t)ev_less(&ev[b], &ev[a])));
        } else {
            for (size_t k = c + 1; k < n; k++)
                m = ev_less(&ev[k], &ev[m]) ? k : m;
        }
        if (!ev_less(&ev[m], &last))
            break;
        ev[i] = ev[m];
        i = m;
    }
    if (n)
        h->ev[i] = last;
    return true;
}
