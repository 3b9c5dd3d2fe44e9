/* fill.h - the fill-up experiment (`gpusim run --mode fill`):
 * the protocol of Weng et al., "Beware of Fragmentation" (USENIX ATC'23),
 * written out in reference/fill-up-protocol.md. Timestamps are
 * ignored and tasks never depart: the trace's job rows, sorted by id and
 * shuffled with the run seed, then rows drawn uniformly with replacement
 * until the next would take the GPU request past fill_to x the cluster's
 * GPUs, are handed to the space policy one at a time (sim_submit_row, the
 * arrival step of the event loop; the loop itself never runs). A task that
 * fits nowhere fails (it stays in the policy's queue, never retried since
 * nothing departs) and is counted.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_FILL_H
#define GPUSIM_CLI_FILL_H

#include "../sim/sim.h"
#include "../sim/sim_strtab.h"

typedef struct fill_result {
    int npts;                  /* arrived 0 .. npts-1 percent of capacity */
    double *alloc_pct;         /* allocated GPUs / capacity x 100, NaN where not reached */
    double *frag_pct;          /* fragmented GPUs / capacity x 100, NaN where not measured */
    double *frag_idle_pct;     /* fragmented / idle GPUs x 100 */
    double *held_pct;          /* GPUs the policy holds (its alloc gauge) / capacity x 100: more than
                                * alloc_pct where a share takes a whole card (whole) */
    long tasks, placed, failed;
    double arrived_pct_end, alloc_pct_end, frag_pct_end;
} fill_result;

/* A trace row as fill mode keeps it: the columns a job's placement and
 * admission read (sim_submit_row takes them back as a row), names interned
 * once for the whole list, the id in one arena (the protocol sorts by it);
 * the columns a trace rarely gives (checkpoint, hardware) out of line. About
 * 120 bytes a row plus its id, where the reader's full row is 1 KB. */
typedef struct fill_rare {
    double checkpoint_gib, params_b, mem_bound;
    const char *ref_gpu, *speedup;
    int ref_gpu_col, speedup_col;
} fill_rare;

typedef struct fill_row {
    const char *id;                   /* in fill_rows.ids */
    const char *tenant, *mig, *gpu_model; /* interned in fill_rows.names */
    const fill_rare *rare;            /* NULL: none given */
    long line;
    gs_time_us submit_us, dur_us;
    int64_t gpumem_mib;
    double cpu, mem_gib, util;
    int gpus, priority, gpu_model_col;
    uint8_t gpucores, gpumem_pct;
    bool preemptible;
} fill_row;

typedef struct fill_rows {
    fill_row *row;
    size_t n;
    long other;      /* service and request rows, left out */
    char **id_blocks; /* the ids, packed in blocks */
    size_t nblocks, block_left;
    sim_strtab names;
} fill_rows;

/* A task's GPU request in GPUs: gpus x its share of a card (gpucores, else
 * gpumem_pct, else a whole card), the protocol's num_gpu x gpu_milli / 1000. */
double fill_req_gpus(const fill_row *r);
/* Reads every job row of a trace (service and request rows are counted in
 * out->other and left out), sorted by id. Returns 0 or GS_EINPUT. */
int fill_rows_load(const char *path, bool allow_extra_columns, fill_rows *out, gs_error *err);
void fill_rows_free(fill_rows *rows);
/* One seed (sim_seed(s)) on a freshly initialised sim. Returns 0, or
 * GS_EINPUT (s->err) for an unknown model name. */
int fill_run(sim *s, const fill_rows *rows, double fill_to, fill_result *res, gs_error *err);
void fill_result_free(fill_result *res);

#endif
