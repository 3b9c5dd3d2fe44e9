/* sim_access.c - a run's fields behind functions (sim_access.h). Part of
 * the engine core (sim_struct.h).
 * SPDX-License-Identifier: MIT */
#include "sim_access.h"
#include "sim_struct.h"

#include <stddef.h>

_Static_assert(offsetof(struct sim, now) == 0, "sim_now (sim_access.h) reads the clock at the start of struct sim");

sim_cluster *sim_cluster_of(const sim *s) { return s->cl; }
const gpu_catalog *sim_catalog(const sim *s) { return s->cat; }
const sim_config *sim_config_of(const sim *s) { return s->cfg; }
uint64_t sim_seed(const sim *s) { return s->cfg->seed; }
uint64_t sim_events(const sim *s) { return s->events; }
double sim_alloc_gpus(const sim *s) { return s->g_alloc.value; }
const gs_error *sim_error(const sim *s) { return &s->err; }
gs_error *sim_error_slot(sim *s) { return &s->err; }
const wl_row *sim_arriving_row(const sim *s) { return s->arriving; }
const sim_cost *sim_cost_of(const sim *s) { return &s->cost; }
int sim_npolicies(const sim *s) { return s->npol; }
const pol_ops *sim_policy_at(const sim *s, int i) { return s->pol[i]; }
void *sim_policy_state(const sim *s, int i) { return s->pst[i]; }
int sim_nwarnings(const sim *s) { return s->nwarnings; }
const char *sim_warning(const sim *s, int i) { return s->warnings[i]; }
bool sim_rows_pending_at(const sim *s, gs_time_us t) { return s->have_next && s->next_row->submit_us == t; }
bool sim_idle(const sim *s) { return s->queued == 0 && s->running == 0; }
uint64_t sim_jobs_running(const sim *s) { return s->running; }
void sim_admit_refuse(sim *s, const char *why) { s->admit_why = why; }
const sim_sketch *sim_queue_s_sketch(const sim *s) { return &s->queue_s; }
const sim_sketch *sim_jct_s_sketch(const sim *s) { return &s->jct_s; }
void sim_count_interruption(sim *s, double lost_gpu_s, double read_gpu_s)
{
    s->interruptions++;
    if (lost_gpu_s != 0) /* as a sum that never added a zero */
        s->interrupt_lost_gpu_s += lost_gpu_s;
    s->interrupt_read_gpu_s += read_gpu_s;
}
void sim_count_skipped_events(sim *s, uint64_t n) { s->events += n; }
uint32_t sim_job_slots(const sim *s) { return s->nslots; }
job *sim_job_in_slot(const sim *s, uint32_t slot) { return sim_slot_job(s, slot); }
