/* wl_import_slurm.h - a Slurm cluster's accounting and nodes to a trace and
 * a cluster file:
 *   sacct --parsable2 --allocations
 *         --format=JobID,Submit,Start,End,State,AllocTRES,NNodes,Partition,QOS,Priority,Account,Timelimit
 *   scontrol show nodes --oneliner   (or sinfo -N -o '%N|%c|%m|%G|%P')
 * The mapping, rule by rule, is in workloads/README.md ("Slurm").
 * Memory: the node list as small records (O(nodes)); the accounting
 * streams a line at a time into an external merge sort, O(sort_lines).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_IMPORT_SLURM_H
#define GPUSIM_WL_IMPORT_SLURM_H

#include <stdio.h>

#include "../base/gs.h"
#include "wl_gpu_names.h"

/* Reasons a job line is not converted (each counted and, but NO_GPU and
 * STEP, warned about with its line). */
enum {
    WL_SACCT_SKIP_PENDING = 0,  /* PENDING at the dump: never started */
    WL_SACCT_SKIP_CANCELLED,    /* CANCELLED before it started: a wait, no work */
    WL_SACCT_SKIP_NEVER,        /* any other state without a start (nothing ran) */
    WL_SACCT_SKIP_NO_GPU,       /* no GPU in AllocTRES (kept with cpu_jobs) */
    WL_SACCT_SKIP_UNEVEN,       /* GPUs not a multiple of NNodes: the per-node share is unknown */
    WL_SACCT_SKIP_TOO_MANY,     /* more than 64 GPUs on one node */
    WL_SACCT_SKIP_TYPE,         /* a GPU type (gres/gpu:TYPE) no node of the list has */
    WL_SACCT_SKIP_STEP,         /* a job step (JobID with '.'): sacct without --allocations */
    WL_SACCT_NREASONS
};
extern const char *const wl_sacct_reason[WL_SACCT_NREASONS];

typedef struct wl_sacct_opts {
    const char *nodes;          /* scontrol or sinfo output; NULL: no cluster, no partitions */
    bool cpu_jobs;              /* convert jobs without GPUs */
    size_t sort_lines;
    const wl_gpu_names *names;
} wl_sacct_opts;

typedef struct wl_sacct_counts {
    long nodes_in, nodes_gpu, nodes_cpu_only, nodes_down, gpus, groups;
    long rows_in, converted, running, multi_node, array_tasks, het_components;
    long completed, failed, timeout, cancelled_run, other_end; /* converted, by final state */
    long no_time_limit, priority_clamped;
    long cancelled_waits;       /* cancelled before start, with an End: their waits */
    double cancelled_wait_s;    /* the sum of those waits */
    long skipped, skipped_by[WL_SACCT_NREASONS];
    int64_t origin_us, dump_us; /* trace time 0; the latest time in the file (running jobs end there) */
    int runs;
} wl_sacct_counts;

typedef struct wl_slurm wl_slurm;

/* Reads the node list (when o->nodes), checking every line; NULL with err
 * (GS_EINPUT naming file, line, field and what was expected). */
wl_slurm *wl_slurm_new(const wl_sacct_opts *o, FILE *warn, wl_sacct_counts *n, gs_error *err);
/* The cluster file: runs of identical nodes in the list's order. */
int wl_slurm_write_cluster(wl_slurm *s, FILE *out, gs_error *err);
/* The accounting at path to a trace sorted by submit. */
int wl_slurm_write_trace(wl_slurm *s, const char *path, FILE *out, gs_error *err);
void wl_slurm_free(wl_slurm *s);

#endif
