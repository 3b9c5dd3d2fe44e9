/* sim_job.c - a job record's own upkeep, no run needed: the GPU ids it
 * holds, its out-of-line state and MIG shares (sim_job.h).
 * SPDX-License-Identifier: MIT */
#include "sim_job.h"
#include "sim_cluster.h"

int *sim_job_hold_gpus(job *j, int n)
{
    if (n < 0 || n > CL_MAX_NODE_GPUS)
        GS_BUG("sim_job_hold_gpus: more GPUs than a node has");
    j->ngpu_ids = (uint8_t)n;
    if (n == 1)
        return &j->gpu.one; /* most jobs: no allocation */
    j->gpu.many = n ? xmalloc((size_t)n * sizeof *j->gpu.many) : NULL;
    return j->gpu.many;
}

/* A job_more at its defaults */
static const job_more more_none = {
    .checkpoint_gib = -1, .params_b = -1, .mem_bound = -1, .comm = -1, .time_limit_us = -1,
    .ref_gpu = sim_str_none, .speedup = sim_str_none, .slice_c = 1, .slice_m = 1,
    .prefer_node = -1,  /* no preferred node */
    .cost_holder = -1,  /* found at its first change of allocation */
    .hw_on_ref = -1};

void sim_job_more_reset(job_more *m)
{
    /* copied from the record, its address hidden from the compiler: a run
     * of wide moves (once a row for a trace with the rare columns), where
     * the values folded in would be a string clear and then the fields */
    const job_more *t = &more_none;
    __asm__("" : "+r"(t));
    *m = *t;
}

job_more *sim_job_more(job *j)
{
    if (!j->more) {
        j->more = xmalloc(sizeof *j->more);
        sim_job_more_reset(j->more);
    }
    j->more->touched = true; /* its caller may write any member */
    return j->more;
}

void sim_job_set_slices(job *j, double c, double m)
{
    if (!j->more && c == 1 && m == 1)
        return;
    job_more *x = sim_job_more(j);
    x->slice_c = c;
    x->slice_m = m;
}
