/* sim_event.c - 4-ary min-heap of events ordered by (t_us, seq).
 * SPDX-License-Identifier: MIT */
#include "sim_event.h"

#include <stdlib.h>
#include <string.h>

/* sim_event_before without branches: which child is earliest is a coin
 * toss, and a pop asks it at every level (one 128-bit comparison: no
 * jump). */
static inline bool ev_less(const sim_event *a, const sim_event *b) { return sim_event_before(a, b); }

void sim_heap_init(sim_heap *h)
{
    h->ev = NULL;
    h->mem = NULL;
    h->mem_huge = 0;
    h->n = h->cap = 0;
    h->next_seq = 0;
    h->has_side = false;
    h->reclaim = NULL;
    h->reclaim_ud = NULL;
}

static void heap_mem_free(sim_heap *h)
{
    if (h->mem_huge)
        gs_huge_free(h->mem, h->mem_huge);
    else
        free(h->mem);
}

void sim_heap_free(sim_heap *h)
{
    heap_mem_free(h);
    sim_heap_init(h);
}

/* The children of i are 4i+1 .. 4i+4: with ev[1] on a 128-byte boundary
 * each such group is two whole cache lines, the pair a processor's
 * adjacent-line prefetch fetches together, not three lines cut anywhere;
 * a pop reads one group per level. */
enum { HEAP_LINE_PAIR = 128, HEAP_NEAR = 1024 /* 32 KiB of events */ };
_Static_assert(SIM_HEAP_ARITY * sizeof(sim_event) == HEAP_LINE_PAIR, "four siblings are not two cache lines");

void sim_heap_reserve(sim_heap *h, size_t cap)
{
    h->cap = cap > h->n ? cap : h->n;
    /* from 2 MiB on in huge pages: a pop's deep levels are read at random */
    size_t bytes = HEAP_LINE_PAIR + h->cap * sizeof *h->ev, huge = 0;
    char *mem;
    if (bytes >= GS_HUGE_PAGE) {
        huge = (bytes + GS_HUGE_PAGE - 1) / GS_HUGE_PAGE * GS_HUGE_PAGE;
        mem = gs_huge_calloc(huge);
    } else {
        mem = xmalloc(bytes);
    }
    uintptr_t one = ((uintptr_t)mem + sizeof(sim_event) + HEAP_LINE_PAIR - 1) & ~(uintptr_t)(HEAP_LINE_PAIR - 1);
    sim_event *ev = (sim_event *)one - 1; /* within the first 128 bytes of mem */
    if (h->n)
        memcpy(ev, h->ev, h->n * sizeof *ev);
    heap_mem_free(h);
    h->mem = mem;
    h->mem_huge = huge;
    h->ev = ev;
}

void sim_heap_grow(sim_heap *h)
{
    if (h->reclaim && h->reclaim(h, h->reclaim_ud) && h->n < h->cap)
        return;
    sim_heap_reserve(h, h->cap ? h->cap * 2 : 256);
}

/* Moves e down from position i of ev[0..n) to where it fits. */
static void sift_down(sim_event *ev, size_t n, size_t i, sim_event e)
{
    for (;;) {
        size_t c = SIM_HEAP_ARITY * i + 1, m = c;
        if (c >= n)
            break;
        for (size_t k = c + 1; k < n && k < c + SIM_HEAP_ARITY; k++)
            m = ev_less(&ev[k], &ev[m]) ? k : m;
        if (!ev_less(&ev[m], &e))
            break;
        ev[i] = ev[m];
        i = m;
    }
    ev[i] = e;
}

size_t sim_heap_filter(sim_heap *h, bool (*keep)(const sim_event *e, void *ud), void *ud)
{
    size_t n = 0, dropped = 0;
    sim_event latest = {0};
    for (size_t i = 0; i < h->n; i++) {
        if (keep(&h->ev[i], ud)) {
            h->ev[n++] = h->ev[i];
        } else {
            if (dropped == 0 || ev_less(&latest, &h->ev[i]))
                latest = h->ev[i];
            dropped++;
        }
    }
    if (dropped > 0) { /* the latest refused one stays (see the header) */
        h->ev[n++] = latest;
        dropped--;
    }
    h->n = n;
    /* bottom-up heap construction: sift each parent down, last first */
    for (size_t i = n > 1 ? (n - 2) / SIM_HEAP_ARITY + 1 : 0; i-- > 0;)
        sift_down(h->ev, n, i, h->ev[i]);
    return dropped;
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
        /* the four children's own children, the level after next, asked
         * for before the children are compared: whichever wins, its group
         * is on its way (each group two lines, each line two events); only
         * past the first HEAP_NEAR events, which a processor's first-level
         * cache keeps (a small heap pays no prefetches) */
        size_t g = SIM_HEAP_ARITY * c + 1;
        if (g >= HEAP_NEAR && g + SIM_HEAP_ARITY * SIM_HEAP_ARITY <= n)
            for (size_t k = 0; k < SIM_HEAP_ARITY * SIM_HEAP_ARITY; k += 2)
                __builtin_prefetch(&ev[g + k]);
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
