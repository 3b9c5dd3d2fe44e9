/* test_event.c - future event set: ties pop FIFO by sequence, order holds
 * under random times, an event held beside the array pops where it would
 * have from the array, the array's sibling groups on cache-line pairs.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "../sim/sim_event.h"
#include "check.h"

static void ties_fifo(void)
{
    sim_heap h;
    sim_heap_init(&h);
    /* interleave three instants; within each, slots must come out in push order */
    for (uint32_t i = 0; i < 300; i++)
        sim_heap_push(&h, (sim_event){.t_us = (i % 3 == 0) ? 5 : (i % 3 == 1 ? 3 : 7), .slot = i});
    sim_event e, prev = {.t_us = -1};
    int n = 0;
    while (sim_heap_pop(&h, &e)) {
        CHECK(e.t_us >= prev.t_us);
        if (e.t_us == prev.t_us)
            CHECK(e.slot > prev.slot && e.seq > prev.seq);
        prev = e;
        n++;
    }
    CHECK_EQ_INT(n, 300);
    sim_heap_free(&h);
}

static void random_order(void)
{
    sim_heap h;
    sim_heap_init(&h);
    srand(42);
    sim_event e, prev = {.t_us = -1};
    long popped = 0;
    /* hold model: pop one, push one or two later */
    for (int i = 0; i < 1000; i++)
        sim_heap_push(&h, (sim_event){.t_us = rand() % 1000});
    for (int step = 0; step < 20000 && sim_heap_pop(&h, &e); step++) {
        CHECK(e.t_us > prev.t_us || (e.t_us == prev.t_us && e.seq > prev.seq));
        prev = e;
        popped++;
        sim_heap_push(&h, (sim_event){.t_us = e.t_us + rand() % 50});
    }
    CHECK_EQ_INT(popped, 20000);
    CHECK_EQ_INT(sim_heap_len(&h), 1000);
    sim_heap_free(&h);
}

/* An event held beside the array pops exactly where it would have from
 * the array: two heaps get the same pushes (one with every "arrival" pushed
 * beside, often while the side place is taken), ties included, and pop the
 * same sequence; peek and len agree with the pops all along. */
static void side_same_order(void)
{
    sim_heap a, b;
    sim_heap_init(&a);
    sim_heap_init(&b);
    srand(5);
    long pops = 0, side_pops = 0;
    for (int step = 0; step < 30000; step++) {
        int r = rand() % 10; /* as many pops as pushes: the heap stays small, the side pops often */
        if (r < 3) {
            sim_event e = {.t_us = pops + rand() % 20, .slot = (uint32_t)step}; /* small range: many ties */
            sim_heap_push(&a, e);
            if (rand() % 3)
                sim_heap_push_side(&b, e);
            else
                sim_heap_push(&b, e);
        } else if (r < 5) {
            sim_event e = {.t_us = pops + rand() % 20, .slot = (uint32_t)step};
            sim_heap_push(&a, e);
            sim_heap_push(&b, e);
        } else {
            CHECK_EQ_INT((long)sim_heap_len(&a), (long)sim_heap_len(&b));
            const sim_event *pa = sim_heap_peek(&a), *pb = sim_heap_peek(&b);
            CHECK((pa == NULL) == (pb == NULL));
            if (!pa)
                continue;
            sim_event ea, eb;
            CHECK(pa->seq == pb->seq);
            bool was_side = b.has_side && pb == &b.side;
            CHECK(sim_heap_pop(&a, &ea) && sim_heap_pop(&b, &eb));
            CHECK(ea.t_us == eb.t_us && ea.seq == eb.seq && ea.slot == eb.slot);
            pops++;
            side_pops += was_side;
        }
    }
    sim_event ea, eb;
    while (sim_heap_pop(&a, &ea)) {
        CHECK(sim_heap_pop(&b, &eb));
        CHECK(ea.t_us == eb.t_us && ea.seq == eb.seq && ea.slot == eb.slot);
    }
    CHECK(!sim_heap_pop(&b, &eb));
    CHECK_EQ_INT((long)sim_heap_len(&b), 0);
    CHECK(pops > 10000 && side_pops > 300); /* both places popped, many times (560 here) */
    sim_heap_free(&a);
    sim_heap_free(&b);
}

/* Dropping events (sim_heap_filter) leaves the rest popping in the order
 * they would have, ties included, with the latest dropped one kept in its
 * place; the array's room is what the caller reserved. */
static bool keep_even(const sim_event *e, void *ud)
{
    (void)ud;
    return e->slot % 2 == 0;
}

static void filter_keeps_order(void)
{
    sim_heap a, b;
    sim_heap_init(&a);
    sim_heap_init(&b);
    srand(9);
    sim_event latest = {0};
    bool any_odd = false;
    for (uint32_t i = 0; i < 5000; i++) {
        sim_event e = {.t_us = rand() % 300, .slot = i}; /* many ties */
        sim_heap_push(&a, e);
        sim_heap_push(&b, e);
    }
    for (size_t i = 0; i < a.n; i++) /* the latest odd one: (t_us, seq) largest */
        if (a.ev[i].slot % 2 && (!any_odd || sim_event_before(&latest, &a.ev[i]))) {
            latest = a.ev[i];
            any_odd = true;
        }
    CHECK(any_odd);
    size_t dropped = sim_heap_filter(&a, keep_even, NULL);
    CHECK_EQ_INT((long)dropped, 2499); /* 2,500 odd slots, the latest stays */
    CHECK_EQ_INT((long)sim_heap_len(&a), 2501);
    sim_event ea, eb;
    while (sim_heap_pop(&b, &eb)) {
        if (eb.slot % 2 && eb.seq != latest.seq)
            continue;
        CHECK(sim_heap_pop(&a, &ea));
        CHECK(ea.t_us == eb.t_us && ea.seq == eb.seq && ea.slot == eb.slot);
    }
    CHECK(!sim_heap_pop(&a, &ea));
    sim_heap_reserve(&a, 1000);
    CHECK_EQ_INT((long)a.cap, 1000);
    sim_heap_free(&a);
    sim_heap_free(&b);
}

/* Every growth (doubling, a reserve, a filter's reclaim) keeps each group
 * of four siblings on two whole cache lines (&ev[1] on 128 bytes) and the
 * events held, in order. */
static void siblings_on_line_pairs(void)
{
    sim_heap h;
    sim_heap_init(&h);
    bool aligned = true;
    for (uint32_t i = 0; i < 5000; i++) {
        sim_heap_push(&h, (sim_event){.t_us = (gs_time_us)((i * 7919u) % 1000), .slot = i});
        aligned &= (uintptr_t)&h.ev[1] % 128 == 0;
        if (i == 3000)
            sim_heap_reserve(&h, h.cap + 3);
    }
    CHECK(aligned);
    sim_event e, prev = {.t_us = -1};
    long n = 0;
    while (sim_heap_pop(&h, &e)) {
        CHECK(prev.t_us < e.t_us || (prev.t_us == e.t_us && prev.seq < e.seq));
        prev = e;
        n++;
    }
    CHECK_EQ_INT(n, 5000);
    sim_heap_free(&h);
}

/* A heap past 2 MiB goes to huge pages (gs_huge_calloc) and keeps its
 * order and sibling groups through the moves; an arena's chunks are zeroed
 * lines within a huge page, a new page when the last is full. */
static void big_heap_huge_pages(void)
{
    sim_heap h;
    sim_heap_init(&h);
    srand(7);
    for (int i = 0; i < 200000; i++)
        sim_heap_push(&h, (sim_event){.t_us = rand() % 100000, .slot = (uint32_t)i});
    CHECK(h.mem_huge >= GS_HUGE_PAGE && h.mem_huge % GS_HUGE_PAGE == 0);
    CHECK((uintptr_t)&h.ev[1] % 128 == 0);
    sim_event e, prev = {.t_us = -1};
    long n = 0;
    bool ordered = true;
    while (sim_heap_pop(&h, &e)) {
        ordered &= sim_event_before(&prev, &e) || n == 0;
        prev = e;
        n++;
    }
    CHECK(ordered);
    CHECK_EQ_INT(n, 200000);
    sim_heap_free(&h);

    gs_arena a = {0};
    char *first = gs_arena_take(&a, 81920), *last = first;
    bool zero = true, lines = true;
    for (int i = 1; i < 30; i++) { /* 25 chunks of 80 KiB to a 2 MiB page */
        char *c = gs_arena_take(&a, 81920);
        lines &= (uintptr_t)c % 64 == 0;
        for (size_t k = 0; k < 81920; k += 4096)
            zero &= c[k] == 0;
        c[0] = 1;
        last = c;
    }
    CHECK(lines && zero && (uintptr_t)first % GS_HUGE_PAGE == 0);
    CHECK_EQ_INT((long)a.nblocks, 2);
    CHECK(last == a.blocks[1] + 4 * 81920);
    gs_arena_free(&a);
    CHECK(a.nblocks == 0 && a.blocks == NULL);
}

const test_case tests_event[] = {
    {"event/big_heap_in_huge_pages", big_heap_huge_pages},
    {"event/siblings_on_cache_line_pairs", siblings_on_line_pairs},
    {"event/filter_keeps_pop_order", filter_keeps_order},
    {"event/side_event_pops_in_heap_order", side_same_order},
    {"event/ties_pop_fifo_by_sequence", ties_fifo},
    {"event/random_hold_model_order", random_order},
    {NULL, NULL},
};
