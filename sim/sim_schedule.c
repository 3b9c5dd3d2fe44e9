/* sim_schedule.c - the events a layer above the loop schedules: a
 * module's (sim_module.h), a policy's timers (sim_schedule.h); the job a
 * module's event names, found again (sim_job_at). O(log events) a push.
 * Part of the engine core (sim_struct.h).
 * SPDX-License-Identifier: MIT */
#include "sim_schedule.h"
#include "sim_module.h"
#include "sim_struct.h"

job *sim_job_at(const sim *s, uint32_t slot, uint32_t gen)
{
    if (slot == SIM_NO_SLOT)
        return NULL;
    job *j = sim_slot_job(s, slot);
    return j->gen == gen ? j : NULL;
}

/* A module's event (weak: one that does not keep the run going). */
static inline void module_push(sim *s, bool weak, int index, gs_time_us at_us, uint32_t slot, uint32_t gen,
                               uint32_t aux)
{
    if (at_us < s->now)
        GS_BUG(weak ? "sim_module_event_weak: scheduling into the past" : "sim_module_event: scheduling into the past");
    if (index < 0 || index >= s->nmod)
        GS_BUG(weak ? "sim_module_event_weak: no such module" : "sim_module_event: no such module");
    sim_heap_push(&s->heap, (sim_event){.t_us = at_us, .type = (weak ? EV_MODULE_WEAK : EV_MODULE) + (uint32_t)index,
                                        .slot = slot, .gen = gen, .aux = aux});
}

void sim_module_event(sim *s, int index, gs_time_us at_us, uint32_t slot, uint32_t gen, uint32_t aux)
{
    module_push(s, false, index, at_us, slot, gen, aux);
}

void sim_module_event_weak(sim *s, int index, gs_time_us at_us, uint32_t slot, uint32_t gen, uint32_t aux)
{
    module_push(s, true, index, at_us, slot, gen, aux);
    s->weak_pending++;
}

static void push_timer(sim *s, int pol_index, job *j, gs_time_us at_us, uint32_t tag, uint32_t type)
{
    if (at_us < s->now)
        GS_BUG("sim_timer: scheduling into the past");
    if (tag > 0xffffffu || pol_index < 0 || pol_index >= s->npol)
        GS_BUG("sim_timer: tag or policy index out of range");
    sim_heap_push(&s->heap, (sim_event){.t_us = at_us, .type = type, .slot = j ? j->slot : SIM_NO_SLOT,
                                        .gen = j ? j->gen : 0, .aux = (uint32_t)pol_index << 24 | tag});
}

void sim_timer(sim *s, int pol_index, job *j, gs_time_us at_us, uint32_t tag)
{
    push_timer(s, pol_index, j, at_us, tag, EV_TIMER);
}

void sim_timer_weak(sim *s, int pol_index, gs_time_us at_us, uint32_t tag)
{
    push_timer(s, pol_index, NULL, at_us, tag, EV_TIMER_WEAK);
    s->weak_pending++;
}
