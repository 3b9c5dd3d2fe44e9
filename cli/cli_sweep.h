/* cli_sweep.h - `gpusim sweep`: a grid of runs as a file, so that a
 * scheduler (Slurm, GNU parallel, Kubernetes) runs it, not gpusim.
 *
 *   sweep init SPEC      expand the spec into DIR/manifest.jsonl, one run a line
 *   sweep run MANIFEST   run one line (--index, SLURM_ARRAY_TASK_ID,
 *                        JOB_COMPLETION_INDEX) or a shard (--shard K/N)
 *   sweep submit         hand the missing lines to an engine
 *   sweep status         done, failed (first error line), missing
 *   sweep collect        the comparison table `compare` prints, over what is done
 *
 * Layout beside the manifest: runs/<id>/ (report.json, timeseries.csv,
 * run.json: the manifest line), failed/<id>/stderr.log, and runs/.tmp.* while
 * a run is in flight (renamed into place only when it succeeded, so a
 * directory runs/<id> is always a whole result).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_SWEEP_H
#define GPUSIM_CLI_SWEEP_H

#include <cJSON.h>
#include <stdint.h>

#include "cli_batch.h"
#include "../models/gpu/gpu_model.h"
#include "../base/gs.h"

/* The most runs a manifest holds: each sweep command reads it whole (a run
 * is about 600 bytes on disk and in memory), so 1,000,000 runs is about a
 * GB; `sweep init` refuses more with the size it would take. */
#define SW_MAX_RUNS 1000000
#define SW_ID_HEX 20 /* 80 bits of the SHA-256: ids of distinct runs never meet in practice */

/* One manifest line. Paths are absolute, so a task may start anywhere. */
typedef struct sw_run {
    int index;
    char id[SW_ID_HEX + 1];
    char *trace, *trace_label;
    char *cluster;       /* cluster file, or NULL with gpus */
    char *gpus;          /* MODEL:N[,...], or NULL */
    long gpus_per_node;  /* with gpus; 0 = run's default */
    char *cluster_label;
    char *label, *policy; /* the entry as written; the --policy argument */
    char *sets[CLI_BATCH_MAX_SETS];
    int nsets;
    uint64_t seed;
    char *until, *models; /* NULL when not given */
} sw_run;

typedef struct sw_manifest {
    char *path, *dir; /* the manifest file and its directory */
    sw_run *runs;
    int n;
} sw_manifest;

/* {==== cli_sweep_spec.c ====} */
/* `sweep init`. */
int sw_cmd_init(int argc, char **argv);

/* {==== cli_sweep_manifest.c ====} */
/* A line as JSON (one object) and back. */
cJSON *sw_run_json(const sw_run *r);
void sw_run_free(sw_run *r);
/* The id: SHA-256 over the trace's and cluster's bytes, policy, parameters,
 * seed, until, models and the gpusim version. */
int sw_run_id(sw_run *r, gs_error *err);
/* The same from hashes already made (init hashes each file once). */
void sw_run_id_from(sw_run *r, const char *trace_sha, const char *cluster_sha, const char *models_sha);
/* Hash of a GPU model directory: every *.json by name and content ("" when
 * dir is NULL). */
int sw_models_sha(const char *dir, char hex[65], gs_error *err);
int sw_manifest_read(sw_manifest *m, const char *path, gs_error *err);
void sw_manifest_free(sw_manifest *m);
typedef enum { SW_MISSING, SW_DONE, SW_FAILED } sw_state;
/* State of line i; for failed runs, the first line of its error in why. */
sw_state sw_state_of(const sw_manifest *m, int i, char *why, size_t n);
/* Directory of a finished run: DIR/runs/<id>. */
void sw_run_dir(const sw_manifest *m, int i, char *buf, size_t n);
/* rm -rf (missing is fine). */
int sw_remove_tree(const char *path, gs_error *err);
/* Writes a compact index list "0-3,7,9-12" of the lines in want[]. */
char *sw_index_list(const bool *want, int n);

/* {==== cli_sweep_check.c ====} */
/* Sets run r up as `run` would (its cluster, its policy and parameters over
 * its trace's first row) and takes it down: 0, or the error `run` would
 * stop with. */
int sw_check_run(const gpu_catalog *cat, const sw_run *r, gs_error *err);
/* Only its cluster: 0, or the loader's error. */
int sw_check_cluster(const gpu_catalog *cat, const sw_run *r, gs_error *err);

/* {==== cli_sweep_exec.c ====} */
int sw_cmd_run(int argc, char **argv);

/* {==== cli_sweep_submit.c ====} */
int sw_cmd_submit(int argc, char **argv);

/* {==== cli_sweep_collect.c ====} */
int sw_cmd_status(int argc, char **argv);
int sw_cmd_collect(int argc, char **argv);

#endif
