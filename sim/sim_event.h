/* sim_event.h - future event set: a binary min-heap keyed by (time, seq).
 *
 * seq is a per-heap counter assigned at insertion, so events at the same
 * instant pop in the order they were scheduled (FIFO), independent of heap
 * layout. Events are stored by value (32 bytes); the heap owns no payload.
 * Cancellation is lazy: the subject carries a generation number, and a popped
 * event whose generation no longer matches is dropped by the caller.
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
    sim_event *ev;
    size_t n, cap;
    uint64_t next_seq;
} sim_heap;

void sim_heap_init(sim_heap *h);
void sim_heap_free(sim_heap *h);
/* Inserts e, overwriting e.seq with the next sequence number. Cannot fail. */
void sim_heap_push(sim_heap *h, sim_event e);
/* Removes the earliest event into *out; returns false when empty. */
bool sim_heap_pop(sim_heap *h, sim_event *out);
static inline size_t sim_heap_len(const sim_heap *h) { return h->n; }
static inline const sim_event *sim_heap_peek(const sim_heap *h) { return h->n ? &h->ev[0] : NULL; }

#endif
