/* sim_fail_jobs.c - the jobs' side of failing hardware (sim_fail.h): each
 * run of a trace job from its start to its stop, its periodic checkpoint
 * writes (the job held at rate 0 for the write; durable when it
 * completes), and the GPU-seconds it held, spent starting up and writing,
 * for jobs.goodput. O(1) per start, stop and write; one record per job slot.
 * SPDX-License-Identifier: MIT */
#include "sim_fail_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_preempt.h"

static fail_run *run_at(sim_fail *x, uint32_t slot)
{
    if (slot >= x->nruns) {
        uint32_t n = x->nruns ? x->nruns : 64;
        while (n <= slot)
            n *= 2;
        x->runs = xrealloc(x->runs, (size_t)n * sizeof *x->runs);
        memset(&x->runs[x->nruns], 0, (size_t)(n - x->nruns) * sizeof *x->runs);
        x->nruns = n;
    }
    return &x->runs[slot];
}

/* j's current run, or NULL when none is recorded (starts 0: none). */
static fail_run *run_of(const sim_fail *x, const job *j)
{
    if (j->slot >= x->nruns)
        return NULL;
    fail_run *r = &x->runs[j->slot];
    return r->starts && r->gen == j->gen && r->starts == j->starts ? r : NULL;
}

/* j's next write at at_us, unless j completes by then (its completion
 * event, scheduled before, would come first: no write event left behind
 * by the many jobs shorter than the interval). */
static void next_write(sim_fail *x, sim *s, const job *j, gs_time_us at_us)
{
    double drain = job_drain_rate(j); /* its completion: as the core scheduled it at its last rate change */
    if (drain > 0 && j->rate_since_us + (gs_time_us)ceil(j->work_left_us / drain - 1e-6) <= at_us)
        return;
    sim_module_event(s, x->index, at_us, j->slot, j->gen, ft_aux(FT_WRITE, j->starts));
}

/* A run begins: its start-up (the work a restart put before the job's own:
 * the restart and the checkpoint's read-back, sim_job_interrupt) drains
 * first, then a write every checkpoint_every of running. */
void fail_job_started(sim_fail *x, sim *s, job *j)
{
    fail_run *r = run_at(x, j->slot);
    double drain = job_drain_rate(j);
    double startup = j->starts > 1 && j->more ? j->work_left_us - j->more->resume_work_us : 0;
    bool same = r->gen == j->gen; /* a restart: the job's sums go on */
    *r = (fail_run){.gen = j->gen, .starts = j->starts, .since_us = sim_now(s), .write_since_us = -1, .rate = j->rate,
                    .job_held_gpu_s = same ? r->job_held_gpu_s : 0, .job_waste_gpu_s = same ? r->job_waste_gpu_s : 0};
    r->startup_us = startup > 0 && drain > 0 ? (gs_time_us)ceil(startup / drain) : 0;
    if (x->periodic) /* else every_us and write_us stay 0: no writes */
        sim_job_ckpt_costs(s, j, &r->every_us, &r->write_us);
    if (r->every_us > 0)
        next_write(x, s, j, sim_now(s) + r->startup_us + r->every_us);
}

/* What run r held from its start to now, into the three sums. */
static void held_until(const fail_run *r, const job *j, gs_time_us now, double *held, double *restart, double *write)
{
    double g = j->req.gpus;
    gs_time_us ran = now - r->since_us;
    *held += g * gs_us_to_s(ran);
    *restart += g * gs_us_to_s(ran < r->startup_us ? ran : r->startup_us);
    if (r->write_since_us >= 0)
        *write += g * gs_us_to_s(now - r->write_since_us);
}

/* The tally's growth since the latest stop is this job's work redone:
 * sim_job_interrupt adds it just before it stops the job (sim_preempt.c). */
void fail_job_stopped(sim_fail *x, sim *s, job *j)
{
    double lost = x->tally.lost_gpu_s - x->lost_seen_gpu_s;
    x->lost_seen_gpu_s = x->tally.lost_gpu_s;
    fail_run *r = run_of(x, j);
    if (!r)
        return;
    double held = 0, restart = 0, write = 0;
    held_until(r, j, sim_now(s), &held, &restart, &write);
    x->held_gpu_s += held;
    x->restart_gpu_s += restart;
    x->write_gpu_s += write;
    r->job_held_gpu_s += held;
    r->job_waste_gpu_s += lost + restart + write;
    r->starts = 0;
}

bool fail_job_figures(const sim_fail *x, const sim *s, const job *j, double *held_gpu_s, double *waste_gpu_s)
{
    const fail_run *r = j->slot < x->nruns ? &x->runs[j->slot] : NULL;
    if (!r || r->gen != j->gen)
        return false;
    double held = r->job_held_gpu_s, restart = 0, write = 0;
    if (r->starts && r->starts == j->starts) /* its run going now (a stop zeroes starts) */
        held_until(r, j, sim_now(s), &held, &restart, &write);
    *held_gpu_s = held;
    *waste_gpu_s = r->job_waste_gpu_s + restart + write;
    return held > 0;
}

void fail_jobs_open(const sim_fail *x, const sim *s, double *held, double *restart, double *write)
{
    for (uint32_t i = 0; i < x->nruns; i++) {
        const fail_run *r = &x->runs[i];
        const job *j = r->starts ? sim_job_at(s, i, r->gen) : NULL;
        if (j && j->state == JOB_RUNNING && j->starts == r->starts)
            held_until(r, j, sim_now(s), held, restart, write);
    }
}

bool fail_job_event_live(const sim_fail *x, const sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    const job *j = sim_job_at(s, slot, gen);
    if (!j || j->state != JOB_RUNNING || (j->starts & 0xffffffu) != (aux & 0xffffffu) || sim_job_is_victim(j))
        return false;
    const fail_run *r = run_of(x, j);
    if (!r)
        return false;
    return (aux >> 24) == FT_WRITE ? j->rate > 0 : r->write_since_us >= 0;
}

/* FT_WRITE: the write begins (the job stops making progress until it
 * ends); FT_WRITTEN: it is durable, the job goes on. */
void fail_job_event(sim_fail *x, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    job *j = sim_job_at(s, slot, gen);
    fail_run *r = run_of(x, j);
    if ((aux >> 24) == FT_WRITE && r->write_us > 0) {
        r->rate = j->rate;
        r->write_since_us = sim_now(s);
        sim_job_set_rate(s, j, 0);
        sim_module_event(s, x->index, sim_now(s) + r->write_us, j->slot, j->gen, ft_aux(FT_WRITTEN, j->starts));
        return;
    }
    sim_job_ckpt_commit(s, j);
    if ((aux >> 24) == FT_WRITTEN) {
        double w = j->req.gpus * gs_us_to_s(sim_now(s) - r->write_since_us);
        x->write_gpu_s += w;
        r->job_waste_gpu_s += w;
        r->write_since_us = -1;
        sim_job_set_rate(s, j, r->rate);
    }
    next_write(x, s, j, sim_now(s) + r->every_us);
}
