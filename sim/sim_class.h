/* sim_class.h - per-class figures (jobs.class) for a trace with a `class`
 * column: each class's arrivals, completions, queue and completion times,
 * so an SLO can name one kind of work (jobs.class.training.queue_s.p99)
 * instead of the pooled figures that mix it with work that never waits.
 *
 * A job's class is a small number in its request (job_req.cls), given at
 * arrival from the reader's name number (an array indexed by it: O(1)
 * after a name's first job); classes are numbered in order of first
 * arrival, and a job
 * whose row leaves the column empty counts under SIM_CLASS_NONE. Memory:
 * O(classes), at most SIM_CLASS_MAX. A run whose trace has no class
 * column keeps nothing and its jobs never reach these calls (sim.extras).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_CLASS_H
#define GPUSIM_SIM_CLASS_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../workloads/wl_trace.h"
#include "sim_job.h"
#include "sim_metrics.h"
#include "sim_strtab.h"

/* Classes are for a few kinds of work (training, notebook, inference): a
 * trace with more names has an id or a free-text column in `class`, and
 * its per-class report would be as long as the trace. */
#define SIM_CLASS_MAX 1024
_Static_assert(SIM_CLASS_MAX <= UINT16_MAX, "job_req.cls is a uint16_t");
/* The name of the jobs whose row gives no class. */
#define SIM_CLASS_NONE "-"

typedef struct sim_class_fig {
    const char *name; /* interned in the run's string table */
    uint64_t arrived; /* its completions are jct_s's count */
    sim_sketch queue_s, jct_s;
} sim_class_fig;

/* sim_classes.by_sym's mark of a name number not seen yet */
#define SIM_CLASS_UNSEEN UINT16_MAX
_Static_assert(SIM_CLASS_MAX < SIM_CLASS_UNSEEN, "a class index is never the mark");

typedef struct sim_classes {
    bool on;           /* the trace has a class column */
    int col;           /* its 1-based field (errors name it) */
    sim_class_fig *c;  /* [n], in order of first arrival */
    uint32_t n;
    int none;          /* the index of SIM_CLASS_NONE, -1 until a job without a class */
    uint16_t *by_sym;  /* [nsym]: the class index of the reader's class_sym, or SIM_CLASS_UNSEEN */
    uint32_t nsym;
} sim_classes;

/* col: the trace's class column (0: none; the figures stay off). */
void sim_classes_init(sim_classes *k, int col);
void sim_classes_free(sim_classes *k);
/* The class of row r into j->req.cls, counting its arrival, for a name
 * seen before: true, else false and nothing done (a name's first job, no
 * class, or no name number: sim_class_arrived_new). O(1). */
static inline bool sim_class_arrived(sim_classes *k, job *j, const wl_row *r)
{
    uint32_t sym = r->class_sym;
    if (sym >= k->nsym || k->by_sym[sym] == SIM_CLASS_UNSEEN)
        return false;
    unsigned ix = k->by_sym[sym];
    j->req.cls = (uint16_t)ix;
    k->c[ix].arrived++;
    return true;
}
/* The same for any row: 0, or GS_EINPUT (err names the trace, line and
 * column) for a class past SIM_CLASS_MAX. O(classes) for a new name. */
int sim_class_arrived_new(sim_classes *k, sim_strtab *strs, job *j, const wl_row *r, const char *trace,
                          gs_error *err);
/* Its first start, queue_s after its submit; its completion, jct_s after
 * (bucket: the value's sketch bucket, sim_sketch_bucket). O(1). */
static inline void sim_class_started(sim_classes *k, const job *j, double queue_s, int bucket)
{
    sim_sketch_count_wide(&k->c[j->req.cls].queue_s, queue_s, bucket);
}
static inline void sim_class_done(sim_classes *k, const job *j, double jct_s, int bucket)
{
    sim_sketch_count_wide(&k->c[j->req.cls].jct_s, jct_s, bucket);
}
/* jobs.class {NAME: {arrivals, completed, queue_s, jct_s}}, only when on. */
void sim_classes_report(const sim_classes *k, cJSON *jobs);
/* One summary line per class (as the per-priority ones), when the report
 * has jobs.class; at most SIM_CLASS_PRINT, then how many more. */
#define SIM_CLASS_PRINT 20
void sim_classes_print(const cJSON *jobs, FILE *out);

#endif
