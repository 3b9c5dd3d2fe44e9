/* cli_batch.h - what compare, plan, plot and check share: policy lists with
 * parameters, many `gpusim run` child processes in parallel, reading a report
 * metric by its dotted path, SLO terms, the 95% interval over seeds.
 *
 * A child is this same executable (/proc/self/exe) running `run ... --out
 * DIR`, so a run in a batch is exactly the run a user gets by hand, and a
 * crash or sanitizer abort in one run cannot take the parent down.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_BATCH_H
#define GPUSIM_CLI_BATCH_H

#include <cJSON.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/gs.h"

#define CB_MAX_SETS 16

/* One entry of --policies: "name[key=value,key=value]" (the brackets carry
 * --set parameters for that entry only), e.g. "whole[queue=fifo]". */
typedef struct cb_policy {
    char label[160]; /* the entry as written: what tables show */
    char name[96];   /* the --policy argument */
    char slug[200];  /* file-name safe and unique: "p1-whole_queue_fifo" */
    char *sets[CB_MAX_SETS];
    int nsets;
} cb_policy;

/* Splits a comma list at bracket depth 0. Returns 0 or GS_EUSAGE. */
int cb_policies_parse(const char *list, cb_policy **out, int *n, gs_error *err);
void cb_policies_free(cb_policy *p, int n);

/* Options every child run shares (copied to each child's argv). */
typedef struct cb_common {
    const char *trace, *cluster, *gpus, *models, *until;
    const char *mig; /* --mig LAYOUT with --gpus; NULL: none */
    const char *prices[CB_MAX_SETS]; /* --price MODEL=USD, passed to every run */
    int nprices;
    long gpus_per_node; /* 0: not given */
    const char *sets[CB_MAX_SETS];
    int nsets;
} cb_common;

typedef struct cb_run {
    char *argv[64];     /* owned strings; argv[0] is "gpusim" */
    int argc;
    char out_dir[1300]; /* the child's --out */
    pid_t pid;
    int slot;           /* its gs_cleanup child slot while it runs: a signal to the parent stops it */
    int exit_code;      /* -1 until it ended */
    cJSON *report;      /* report.json with "derived" added; NULL if it failed */
} cb_run;

/* Fills r's argv for `run` with common, policy p, an optional --gpus
 * override (plan), the seed and out_dir. */
void cb_run_init(cb_run *r, const cb_common *c, const cb_policy *p, const char *gpus, uint64_t seed,
                 const char *out_dir);
void cb_run_free(cb_run *r);
/* Runs all n runs, at most `jobs` at once; each child's stderr goes to
 * OUT_DIR/stderr.log (removed when empty). Returns 0 when every run
 * succeeded; otherwise the first failure's exit status as GS_E* with its
 * log's first line in err. `what` names the batch for the progress line
 * shown when stderr is a terminal. */
int cb_run_all(cb_run *runs, int n, int jobs, const char *what, gs_error *err);
/* The number of online cores (the --jobs default). */
int cb_default_jobs(void);

/* Reads a JSON file. Returns NULL with GS_EINPUT in err. */
cJSON *cb_read_json(const char *path, gs_error *err);
/* Reads DIR/report.json (or a report file) and adds "derived":
 * cost_usd = inputs.cluster.cost_per_hour_usd * sim.end_s / 3600. */
cJSON *cb_read_report(const char *dir_or_file, gs_error *err);
/* Adds to each report's "derived" the cost of its work over one window, the
 * longest simulated span among the n runs (the same for every run, so a
 * policy that drains its backlog sooner is not billed less for the same
 * cluster): cost_per_completed_job_usd = cost_per_hour x window / completed
 * jobs, cost_per_million_requests_usd = the same per million served
 * requests (when the trace has requests). */
void cb_add_unit_costs(cb_run *runs, int n);
/* A number at a dotted path ("jobs.queue_s.p99"). False if absent. */
bool cb_metric(const cJSON *root, const char *path, double *v);

/* SLO term: PATH OP VALUE with OP one of <= < >= >. */
typedef enum { CB_LE, CB_LT, CB_GE, CB_GT } cb_op;
typedef struct cb_slo {
    char path[128];
    cb_op op;
    double value;
} cb_slo;
/* "jobs.queue_s.p99<=600,jobs.jct_s.p99<=3600"; short names queue_p99,
 * latency_p99, ... stand for their paths (list in cli_batch.c and the
 * README). Returns 0 or GS_EUSAGE. */
int cb_slo_parse(const char *spec, cb_slo **out, int *n, gs_error *err);
bool cb_slo_holds(const cb_slo *t, double v);
const char *cb_op_str(cb_op op);
/* Is a worse than b for this term (further from meeting it)? */
bool cb_slo_worse(const cb_slo *t, double a, double b);

/* Mean and half-width of the 95% Student-t interval of v[0..n-1]
 * (half = 0 when n < 2). */
void cb_interval(const double *v, int n, double *mean, double *half);

/* mkdir -p. */
int cb_mkdirs(const char *dir, gs_error *err);
/* Default output directory results/<kind>.<trace base name>. */
void cb_default_out(char *buf, size_t n, const char *kind, const char *trace);
/* printf into a fresh string. */
char *cb_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes text atomically to path. */
int cb_write_text(const char *path, const char *text, gs_error *err);

#endif
