/* sim_struct.h - the run itself: clock, future events, jobs in flight, the
 * cluster ledger, the policies and modules in force, the counters. Private
 * to the engine core (the files whose header says so) and its tests.
 * Policies, the tool and the modules reach a run
 * through sim.h's functions only (sim_access.h: its fields), so the run can
 * change without them.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_STRUCT_H
#define GPUSIM_SIM_STRUCT_H

#include <stdio.h>

#include "sim_class.h"
#include "sim_cluster.h"
#include "sim_config.h"
#include "sim_cost.h"
#include "sim_event.h"
#include "sim_job.h"
#include "sim_metrics.h"
#include "sim_observed.h"
#include "sim_policy.h"
#include "sim_queue.h"
#include "sim_reject.h"
#include "sim_strtab.h"
#include "sim_symmap.h"
#include "sim_timeseries.h"

#define JOB_CHUNK 1024u /* job slots per chunk of the slab */

/* Event types (sim_event.type). EV_MODULE + i: an event of module i
 * (sim_module.h), EV_MODULE_WEAK + i its weak one. */
enum { EV_ARRIVAL = 1, EV_DONE = 2, EV_TIMER = 3, EV_TIMER_WEAK = 5, EV_MODULE = 16, EV_MODULE_WEAK = 32 };
_Static_assert(EV_MODULE + SIM_MAX_MODS <= EV_MODULE_WEAK, "module event types overlap");

/* jobs.by_size's classes: 1, 2-8, 9-64, 65-512 and 513+ GPUs (sim_report.c
 * names them). */
#define SIM_SIZE_CLASSES 5
static inline int sim_size_class(int gpus)
{
    return gpus <= 1 ? 0 : gpus <= 8 ? 1 : gpus <= 64 ? 2 : gpus <= 512 ? 3 : 4;
}

struct sim {
    gs_time_us now;
    sim_heap heap;
    uint64_t events;
    /* completion events voided (a rate changed, a job stopped) since the
     * heap was last cleared of them: an upper bound, which decides when
     * clearing them is worth a pass over the heap (heap_reclaim in sim.c) */
    uint64_t done_voided;
    const sim_config *cfg;
    const gpu_catalog *cat;
    sim_cluster *cl;

    /* jobs in flight: slab of chunks (carved from blocks), free slots
     * reused: a stack threaded through them from free_head (NO_SLOT: none) */
    job **chunks;
    uint32_t nchunks, nslots;
    uint32_t free_head;

    /* trace: one row read ahead */
    struct wl_trace *tr;
    const wl_row *next_row; /* the read-ahead row (the reader's, valid until the next read; a job keeps its job_req) */
    const wl_row *arriving; /* the row being admitted (sim_submit_row), for a module's input error */
    const char *admit_why;  /* set by a module's admit that refuses the arrival: the reason (static text) */
    bool have_next;
    sim_strtab strs; /* the jobs' ids and interned names (sim_strtab.h) */
    /* names resolved once, by the reader's name numbers (sim_symmap.h):
     * gpu_model -> pools, and the interned tenant, mig, ref_gpu, speedup */
    sim_symmap sym_pools, sym_tenant, sym_mig, sym_ref_gpu, sym_speedup;
    /* the last reader row's mig, gpu_model, ref_gpu and speedup name
     * numbers (adjacent in wl_row) and what they resolved to: a row naming
     * the same four takes the answers without a lookup (sim.c row_names) */
    uint32_t names_key[4];
    struct sim_row_names {
        const char *mig, *ref_gpu, *speedup; /* interned; "" when not given */
        uint64_t pools;                      /* the pools its gpu_model allows */
    } names;
    /* job_more records of ended jobs, handed to the next job that needs
     * one: the last kept, linked by kept_next */
    job_more *more_kept;

    /* policies: [0] is the space policy */
    const pol_ops *pol[SIM_MAX_POLICIES];
    void *pst[SIM_MAX_POLICIES];
    int npol;

    /* the space policy's queue, when the core runs it (pol_ops.place) */
    sim_queue queue;
    /* EASY backfilling of that queue (sim_backfill.h); NULL: fifo or skip */
    struct sim_bf *bf;
    /* the queue's questions, the same for the whole run (set once the
     * policies started, sim_init_with): strict head-of-line order, the
     * demand index's room (NULL: none, demand 0) and the host room (NULL) */
    bool q_strict;
    uint32_t (*q_room)(void *ud);
    const struct sim_queue_host *q_host;
    /* a hand-over (sim_hand_over_begin): only the nominee may be placed */
    job *nominee;
    bool handing_over;

    /* accounting: arrived = completed + running + queued + rejected + suspended + failed */
    uint64_t arrived, completed, running, queued, rejected, suspended, failed, not_arrived;
    uint64_t bursts; /* rows of kind burst (session activity, not jobs): trace rows = arrived + bursts + not_arrived */
    sim_sketch queue_s, jct_s;
    sim_sketch slowdown; /* (end - start) / duration, completed jobs with duration > 0 */
    /* jobs.by_size: per size class (sim_size_class) the jobs that arrived,
     * their queue and completion times; reported when some job spanned nodes */
    uint64_t size_arrived[SIM_SIZE_CLASSES];
    sim_sketch size_queue_s[SIM_SIZE_CLASSES], size_jct_s[SIM_SIZE_CLASSES];
    /* the one size class seen so far (-1: none yet, SIM_SIZE_CLASSES:
     * several): while there is one, its figures are the run's (queue_s,
     * jct_s), kept in no second copy; the first job of another class gives
     * it its own copies */
    int size_only;
    int gang_floor;      /* no request of at most this many GPUs spans nodes: the least of the pools' largest nodes */
    int gpn_floor;       /* the least of every pool's largest node (empty pools too): spans_nodes in sim.c */
    bool spanned;        /* a job across nodes arrived: by_size, the timeseries' largest_gang */
    sim_rejects rejects; /* jobs.rejected_reasons (sim_reject.h) */
    /* figures a trace's optional columns add: per class (sim_class.h) and
     * simulated against observed queue time (sim_observed.h). row_extras:
     * the trace has either column, so its arrivals, first starts and
     * completions are handed to them (a run without tests one flag there) */
    sim_classes classes;
    sim_observed observed;
    bool row_extras;
    /* node states (sim_nodes.h): the jobs of each node, NULL while states
     * are off; GPUs out of service over time; jobs interrupted by a node */
    job **node_jobs;
    /* the node lists' upkeep at every start (started) and stop of a job,
     * set with node_jobs by sim_nodes_enable: the loop names no node code */
    void (*node_job)(sim *s, job *j, bool started);
    int node_count[NODE_NSTATES]; /* nodes in each state, while node states are on (sim_nodes.h) */
    void (*node_watch)(void *ud, sim *s, int node, const job *j, bool joined); /* sim_nodes_watch; NULL: none */
    void *node_watch_ud;
    void (*state_watch)(void *ud, sim *s, int node, int was); /* sim_nodes_watch_states; NULL: none */
    void *state_watch_ud;
    sim_gauge g_out;
    uint64_t interruptions;
    double interrupt_lost_gpu_s, interrupt_read_gpu_s;
    sim_gauge g_alloc, g_queued, g_running;
    sim_cost cost; /* g_alloc split by holder and pool (sim_cost.h) */

    /* timeseries, bounded (sim_timeseries.h) */
    sim_timeseries ts;
    /* a module's extra columns (sim_ts_columns): fill writes their values now */
    void (*ts_fill)(void *ud, double *out);
    void *ts_fill_ud;
    double *ts_vals;
    /* a row per job as it ends (sim_set_jobs_csv, sim_jobs_csv.h): the
     * writer, set once before the run (NULL: none); rows_end writes the
     * rows of what is in flight at the end, nonzero when a write failed */
    void (*job_row)(void *ud, const sim *s, const job *j, const char *outcome, const char *reason);
    int (*job_rows_end)(void *ud, const sim *s);
    void *job_rows_ud;
    const char *end_why; /* why the job being failed or rejected ends, for its row; NULL: not said */

    gs_error err; /* first error raised inside the run */
    uint64_t weak_pending; /* weak timers in the heap (sim_timer_weak) */

    /* the layers above the loop (sim_module.h): services; priorities,
     * quotas and preemption */
    const struct sim_module *mod[SIM_MAX_MODS];
    void *mst[SIM_MAX_MODS];
    int nmod;
    /* the modules that have each per-job hook, a bit per index (set when
     * the modules are listed): a job's calls visit only those, in index
     * order; row_kinds: the kinds of row some module takes */
    uint32_t with_admit, with_narrow_pools, with_arrived, with_started, with_stopped, with_speed, with_rate_changed;
    unsigned row_kinds;
    uint64_t module_rows; /* trace rows handed to a module (service, request) */

    /* progress hook: when set, called every SIM_PROGRESS_EVENTS
     * events from sim_run; the CLI shows simulated time and events/s on a
     * terminal. Never changes the run. */
    void (*progress)(void *ud, const sim *s);
    void *progress_ud;

    struct sim_observer *obs; /* NULL but in tests (sim_observe) */

    /* what a user must know about this run's setup (e.g. a MIG policy on a
     * cluster without MIG cards): report "warnings", and stderr from `run` */
    char **warnings;
    int nwarnings;
};

/* Notes which modules have each per-job hook (s->with_*, row_kinds): once,
 * when the modules are listed, instead of testing every module's pointer
 * on every call (sim_module.c). */
void sim_module_hooks_note(sim *s);

/* The job record in slot (below s->nslots). Inline: the loop finds each
 * event's job by it. */
static inline job *sim_slot_job(const sim *s, uint32_t slot)
{
    return &s->chunks[slot / JOB_CHUNK][slot % JOB_CHUNK];
}

#endif
