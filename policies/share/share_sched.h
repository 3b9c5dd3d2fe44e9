/* share_sched.h - the life cycle the shared-card policies (`vgpu`,
 * `timeslice`, `mps`) have in common: the space record the core calls
 * (place, release, the queue's questions), OOM kill and retry, mps's fault
 * propagation, the report. pol_vgpu.c, pol_timeslice.c and pol_mps.c only
 * read their parameters into an sc_config and hand it to sc_new.
 *
 * OOM: a task whose memory would take the card's memory in use past the
 * physical card (timeslice and mps always; vgpu with oversub=oom) is
 * admitted, then killed by a timer at the same instant (a kill inside a
 * placement pass would re-enter the queue dispatch). With oom_retry = N it
 * is resubmitted from scratch up to N times, each after oom_backoff_s.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_SCHED_H
#define GPUSIM_SHARE_SCHED_H

#include "share_state.h"

/* Builds the state for cfg (its indexes included) into *out. Returns 0, or
 * GS_EINPUT (the trace the fragmentation measure reads). */
int sc_new(sim *s, const sc_config *cfg, int pol_index, sc_state **out, gs_error *err);
void sc_fini(void *state); /* NULL-safe */
/* pol_ops.timer and pol_ops.report of the three policies. */
void sc_timer(void *state, sim *s, job *j, uint32_t tag);
void sc_report(const void *state, const sim *s, cJSON *root);
/* The space record of vgpu, timeslice and mps. */
extern const pol_space sc_space;

/* Reads the parameters every shared-card policy declares (node_policy and
 * card_policy as SC_SPREAD_CHOICES, oom_retry, oom_backoff_s, queue as
 * "skip|fifo"), typed and range-checked by the core already. */
void sc_param_common(const sim *s, sc_config *c);
/* The oom_retry range every shared-card policy declares. */
#define SC_P_OOM_RETRY P_INT(0, SC_OOM_RETRY_MAX)

#endif
