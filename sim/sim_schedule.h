/* sim_schedule.h - a policy's own timers; a module's events are in
 * sim_module.h. Both go to the run's future event set and come back
 * through the loop in (time, order scheduled).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_SCHEDULE_H
#define GPUSIM_SIM_SCHEDULE_H

#include "sim_job.h"
#include "sim_policy.h"

/* Calls policy `pol_index`'s timer(j, tag) at time at_us >= now (j may be
 * NULL). A timer for a job that ends first is dropped. */
void sim_timer(sim *s, int pol_index, job *j, gs_time_us at_us, uint32_t tag);
/* A timer (not tied to a job) that does not by itself keep the run going:
 * the run ends when only weak timers are pending and no request is queued or
 * running (a periodic layout switch, the destruction of an idle MIG
 * instance). */
void sim_timer_weak(sim *s, int pol_index, gs_time_us at_us, uint32_t tag);

#endif
