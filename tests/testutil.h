/* testutil.h - helpers shared by the test files: temporary files, running a
 * simulation in-process on a trace and a cluster spec.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_TESTUTIL_H
#define GPUSIM_TESTUTIL_H

#include <cJSON.h>

#include "../policies/registry.h"
#include "../sim/sim.h"
#include "../sim/sim_struct.h"
#include "../sim/sim_cluster_file.h"

/* This process's scratch directory (created on first use, under $TMPDIR);
 * tu_tmp_cleanup removes it with everything in it. */
const char *tu_tmp_dir(void);
void tu_tmp_cleanup(void);
/* Writes text to a new file in tu_tmp_dir(); returns its path (static
 * buffer rotation of 8). */
const char *tu_write_tmp(const char *text);
/* Loads the catalog from models/gpu (tests run from the repo root). */
const gpu_catalog *tu_catalog(void);
void tu_catalog_free(void);

/* sim_init with the shipped policy table when cfg->registry is NULL (a test
 * that checks the contract passes its own table). */
int tu_sim_init(sim *s, sim_config *cfg, const gpu_catalog *cat, sim_cluster *cl, FILE *ts, gs_error *err);

typedef struct tu_run {
    sim s;
    sim_cluster cl;
    sim_config cfg;
    gs_error err;
    int rc;
} tu_run;

/* Runs trace_path on the cluster "--gpus" spec under policy with the given
 * sets ("k=v" strings, NULL-terminated; may be NULL). on_done may be NULL.
 * The caller inspects r->s and calls tu_run_free. */
int tu_run_trace(tu_run *r, const char *trace_path, const char *gpus_spec, int gpus_per_node, const char *policy,
                 const char *const *sets, void (*on_done)(void *, const job *), void *ud);
void tu_run_free(tu_run *r);
/* Appends "k=v" strings (NULL-terminated) to cfg's --set list; tu_run_free
 * frees them. */
void tu_add_sets(sim_config *cfg, const char *const *sets);
/* Mean of x[0..n) after discarding the first 10% as warm-up, and in *se its
 * standard error estimated by 30 batch means (honest for autocorrelated
 * output such as successive waits in a queue). */
double tu_batch_means(const double *x, long n, double *se);

/* Erlang C: probability an arrival waits in M/M/c with offered load
 * a = lambda/mu (shared by test_erlang.c and test_plan.c). */
double tu_erlang_c(int c, double a);

#endif
