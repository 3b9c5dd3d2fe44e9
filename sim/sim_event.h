/* sim_event.h - future event set: a 4-ary min-heap keyed by (time, seq).
 *
 * seq is a per-heap counter assigned at insertion, so events at the same
 * instant pop in the order they were scheduled (FIFO), independent of heap
 * layout. Events are stored by value (32 bytes); the heap owns no payload.
 * Cancellation is lazy: the subject carries a generation number, and a popped
 * event whose generation does not match the subject's is dropped by the caller.
 * Push and pop are O(log n) in the number of pending events.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_EVENT_H
#define GPUSIM_SIM_EVENT_H

#include "../base/gs.h"

typedef struct sim_event {
    gs_time_us t_us;
    uint64_t seq;
    uint32_t type; /* caller-defined kind */
    uint32_t slot; /* caller-defined subject index (e.g. job slot) */
    uint32_t gen;  /* subject generation at scheduling time */
    uint32_t aux;  /* caller-defined (completion token, timer tag) */
} sim_event;

typedef struct sim_heap {
    sim_event *ev; /* inside mem, placed so that every four siblings share two whole cache lines */
    void *mem;
    size_t mem_huge; /* mem's bytes when in huge pages (gs_huge_calloc), 0: from malloc */
    size_t n, cap;
    uint64_t next_seq;
    /* Asked when the array is full, before it doubles (sim_heap_grow): it
     * may make room (sim_heap_filter, sim_heap_reserve) and return true, or
     * return false to let it double. NULL: always double. */
    bool (*reclaim)(struct sim_heap *h, void *ud);
    void *reclaim_ud;
    /* One event held beside the array (sim_heap_push_side): the trace's
     * next arrival, pushed and popped once per row, costs a comparison
     * there instead of a sift up and a sift down. */
    sim_event side;
    bool has_side;
} sim_heap;

/* Children per node. A pop walks from the root to a leaf, each level
 * waiting on the loads and comparisons of the one before: four children
 * halve a binary heap's levels, and their three comparisons run side by
 * side. */
#define SIM_HEAP_ARITY 4

void sim_heap_init(sim_heap *h);
void sim_heap_free(sim_heap *h);
/* Makes room for one more event: the reclaim hook's, else the array
 * doubled (the rare path of sim_heap_push, kept out of line). */
void sim_heap_grow(sim_heap *h);
/* Room for cap events in all (never less than held). */
void sim_heap_reserve(sim_heap *h, size_t cap);
/* Drops the array's events keep(e, ud) says no to, except the latest of
 * them (by (t_us, seq)), and restores the heap order over the rest: what
 * stays pops in the order it would have, each event keeping its seq. The
 * latest refused event stays because a caller may read the heap's length
 * or its last event (sim_run runs on while a void completion is pending:
 * keeping the latest one keeps that unchanged). O(n). Returns the
 * events dropped. The side event is not looked at. */
size_t sim_heap_filter(sim_heap *h, bool (*keep)(const sim_event *e, void *ud), void *ud);

/* (t_us, seq) as one signed 128-bit number, t_us the high half: the order
 * of sim_event_before in one compare-and-subtract-with-borrow pair, no
 * branch and no second comparison (the conversion to signed keeps the bits,
 * as GCC and Clang define it). */
__extension__ typedef __int128 sim_event_key;
__extension__ typedef unsigned __int128 sim_event_ukey;
static inline sim_event_key sim_event_key_of(const sim_event *e)
{
    return (sim_event_key)((sim_event_ukey)(uint64_t)e->t_us << 64 | e->seq);
}

static inline bool sim_event_before(const sim_event *a, const sim_event *b)
{
    return sim_event_key_of(a) < sim_event_key_of(b);
}

/* Inserts e, overwriting e.seq with the next sequence number. Cannot fail.
 * Inline, so that the caller's event literal is built in registers: passed
 * by value to a call, the 32-byte struct is stored piecewise on the stack
 * and read back whole, and the processor cannot forward those stores to the
 * wider loads (a stall of some 15 cycles on every push). */
static inline void sim_heap_push(sim_heap *h, sim_event e)
{
    if (h->n == h->cap)
        sim_heap_grow(h);
    e.seq = h->next_seq++;
    size_t i = h->n++;
    while (i > 0) { /* sift up: move parents down until e fits */
        size_t p = (i - 1) / SIM_HEAP_ARITY;
        if (!sim_event_before(&e, &h->ev[p]))
            break;
        h->ev[i] = h->ev[p];
        i = p;
    }
    h->ev[i] = e;
}

/* sim_heap_push, holding e beside the array when that place is free (else
 * into the array as usual): for an event that is replaced as soon as it
 * pops, like the next arrival. The pop order is the same either way: e
 * takes its sequence number here, and a pop takes the earlier of the two. */
static inline void sim_heap_push_side(sim_heap *h, sim_event e)
{
    if (h->has_side) {
        sim_heap_push(h, e);
        return;
    }
    e.seq = h->next_seq++;
    h->side = e;
    h->has_side = true;
}

/* The array's part of sim_heap_pop: its earliest event into *out. */
bool sim_heap_pop_array(sim_heap *h, sim_event *out);

/* Removes the earliest event into *out; returns false when empty. The
 * side event's path is inline, for the reason sim_heap_push is: its fields
 * were just stored one by one, and a copy through a call reads them back
 * 16 bytes at a time, which store forwarding cannot serve. */
static inline bool sim_heap_pop(sim_heap *h, sim_event *out)
{
    if (h->has_side && (h->n == 0 || sim_event_before(&h->side, &h->ev[0]))) {
        out->t_us = h->side.t_us; /* field by field, as push_side stored them */
        out->seq = h->side.seq;
        out->type = h->side.type;
        out->slot = h->side.slot;
        out->gen = h->side.gen;
        out->aux = h->side.aux;
        h->has_side = false;
        return true;
    }
    return sim_heap_pop_array(h, out);
}
static inline size_t sim_heap_len(const sim_heap *h) { return h->n + (h->has_side ? 1 : 0); }
static inline const sim_event *sim_heap_peek(const sim_heap *h)
{
    if (h->has_side && (h->n == 0 || sim_event_before(&h->side, &h->ev[0])))
        return &h->side;
    return h->n ? &h->ev[0] : NULL;
}

#endif
