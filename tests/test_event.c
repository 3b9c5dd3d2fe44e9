/* test_event.c - future event set: ties pop FIFO by sequence, order holds
 * under random times.
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

const test_case tests_event[] = {
    {"event/ties_pop_fifo_by_sequence", ties_fifo},
    {"event/random_hold_model_order", random_order},
    {NULL, NULL},
};
