/* share_fit.h - whether a shared card, and its node, admit a request:
 * HAMi's admission test (reference/mechanics.md section 1a,
 * "Scheduling"), and the memory a task takes on a card. Placement,
 * selection, fragmentation, preemption and the contention rule all ask it,
 * so it sits at the bottom of the wing.
 *
 * A card admits a request iff it has a slot left (split_count; 0 =
 * unlimited: SC_CARD_TENANTS_MAX), and under vgpu: memory left (physical x
 * mem_scaling minus what its tenants asked) >= the request, cores left >=
 * the request, not (a 100-core request on a card that has a user while the
 * card has exactly 100 cores), not (a 0-core request on a card whose cores
 * are all reserved). O(1).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_FIT_H
#define GPUSIM_SHARE_FIT_H

#include "share_state.h"

/* Memory a request books on a card of pool `pool` (admission, committed):
 * gpumem, else gpumem_pct of the card, else the whole card under vgpu and 0
 * under timeslice and mps. vgpu takes the percent and the whole card of the
 * registered memory (physical x mem_scaling), as HAMi does
 * (pkg/device/nvidia/device.go, Fit: Totalmem x MemPercentagereq / 100;
 * GenerateResourceRequests: no memory asked is 100 percent). */
int64_t sc_mem_of(const sc_state *st, const job *j, int pool);
/* Memory it keeps in use there: what it booked, except that a task asking
 * no memory share uses at most the physical card. */
int64_t sc_mem_use_of(const sc_state *st, const job *j, int pool);
/* The same for placed j on each of its cards (their pool). */
int64_t sc_task_mem(const sc_state *st, const job *j);
int64_t sc_task_use(const sc_state *st, const job *j);
/* HAMi's admission test of one card (c: its counters, or a copy of them
 * with some tenants taken out; total_mib: its memory under the run's
 * scaling, sc_card_total_mem or sc_node_total_mem). */
bool sc_card_fits(const sc_state *st, const sc_card *c, double total_mib, int64_t mem, int cores);
/* Node n's free CPU cores and host GiB cover the ask (the ledger's 1e-9). */
bool sc_host_fits(const sim_node *n, double cpu, double mem_gib);
/* Could the request ever fit on an empty node of its allowed models? */
bool sc_can_ever_fit(const sc_state *st, const job *j);
/* Why j can never fit (pol_space.reject_reason): memory over what a card
 * admits, cores over a card's, an MPS client's limit; empty when the core's
 * reason says it (GPUs, CPU or memory no node has). */
void sc_reject_reason(const sc_state *st, const job *j, char *why, size_t cap);
/* pol_space.mem_per_card_mib: the memory request r is given on a card of
 * model m. mps with a split: every client's pinned limit, physical /
 * replicas (0 for a request above it: it could only crash); else gpumem
 * (at most the card), else gpumem_pct of the card, else the whole card. */
double sc_mem_per_card_mib(const void *state, const struct gpu_model *m, const job_req *r);

#endif
