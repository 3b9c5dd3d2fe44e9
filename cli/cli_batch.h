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
#include "cli_opts.h"
#include "metrics.h"

#define CLI_BATCH_MAX_SETS 16

/* One entry of --policies: "name[key=value,key=value]" (the brackets carry
 * --set parameters for that entry only), e.g. "whole[queue=fifo]". */
typedef struct cli_batch_policy {
    char label[160]; /* the entry as written: what tables show */
    char name[96];   /* the --policy argument */
    char slug[200];  /* file-name safe and unique: "p1-whole_queue_fifo" */
    char *sets[CLI_BATCH_MAX_SETS];
    int nsets;
} cli_batch_policy;

/* Splits a comma list at bracket depth 0. Returns 0 or GS_EUSAGE. */
int cli_batch_policies_parse(const char *list, cli_batch_policy **out, int *n, gs_error *err);
void cli_batch_policies_free(cli_batch_policy *p, int n);

typedef struct cli_batch_run {
    char **argv;        /* owned strings, NULL-terminated; argv[0] is "gpusim" */
    int argc, cap;
    char out_dir[1300]; /* the child's --out */
    pid_t pid;
    int slot;           /* its gs_cleanup child slot while it runs: a signal to the parent stops it */
    int exit_code;      /* -1 until it ended */
    cJSON *report;      /* report.json with "derived" added; NULL if it failed */
} cli_batch_run;

/* Fills r's argv for `run` with the options every child run shares
 * (trace, cluster or --gpus with --gpus-per-node and --mig, prices, models,
 * until, --set values), policy p, an optional --gpus override (plan), the
 * seed and out_dir. */
void cli_batch_run_init(cli_batch_run *r, const cli_opts *c, const cli_batch_policy *p, const char *gpus, uint64_t seed,
                 const char *out_dir);
void cli_batch_run_free(cli_batch_run *r);
/* The value a child run of entry p gets for parameter key (--set, then the
 * entry's own, the last one winning), or NULL when neither gives it. */
const char *cli_batch_param(const cli_opts *c, const cli_batch_policy *p, const char *key);
/* Runs all n runs, at most `jobs` at once; each child's stderr goes to
 * OUT_DIR/stderr.log (removed when empty). Returns 0 when every run
 * succeeded; otherwise the first failure's exit status as GS_E* with its
 * log's first line in err. `what` names the batch for the progress line
 * shown when stderr is a terminal. */
int cli_batch_run_all(cli_batch_run *runs, int n, int jobs, const char *what, gs_error *err);
/* The number of online cores (the --jobs default). */
int cli_batch_default_jobs(void);

/* Reads a JSON file. Returns NULL with GS_EINPUT in err. */
cJSON *cli_batch_read_json(const char *path, gs_error *err);
/* Reads DIR/report.json (or a report file) and adds "derived": cost_usd =
 * inputs.cluster.cost_per_hour_usd * sim.end_s / 3600, cost_per_day_usd,
 * requests_dropped, replicas_unplaceable, and the unit costs of the cards
 * each kind of work held (cost.holders, sim/sim_cost.h):
 * cost_per_completed_job_usd = jobs' cost / completed jobs,
 * cost_per_million_requests_usd = the services' cost / requests served x
 * 1e6. */
cJSON *cli_batch_read_report(const char *dir_or_file, gs_error *err);
/* Adds to each report's "derived" window_s, the longest simulated span among
 * the n runs. */
void cli_batch_add_unit_costs(cli_batch_run *runs, int n);

/* SLO term: PATH OP VALUE with OP one of <= < >= >. */
typedef enum { CLI_BATCH_LE, CLI_BATCH_LT, CLI_BATCH_GE, CLI_BATCH_GT } cli_batch_op;
typedef struct cli_batch_slo {
    char path[128];
    cli_batch_op op;
    double value;
} cli_batch_slo;
/* "jobs.queue_s.p99<=600,jobs.jct_s.p99<=3600"; short names queue_p99,
 * latency_p99, ... stand for their paths (metrics.h). Returns 0 or
 * GS_EUSAGE. */
int cli_batch_slo_parse(const char *spec, cli_batch_slo **out, int *n, gs_error *err);
bool cli_batch_slo_holds(const cli_batch_slo *t, double v);
const char *cli_batch_op_str(cli_batch_op op);
/* Is a worse than b for this term (further from meeting it)? */
bool cli_batch_slo_worse(const cli_batch_slo *t, double a, double b);

/* Mean and half-width of the 95% Student-t interval of v[0..n-1]
 * (half = 0 when n < 2). */
void cli_batch_interval(const double *v, int n, double *mean, double *half);

/* mkdir -p. */
int cli_batch_mkdirs(const char *dir, gs_error *err);
/* Default output directory results/<kind>.<trace base name>. */
void cli_batch_default_out(char *buf, size_t n, const char *kind, const char *trace);
/* printf into a fresh string. */
char *cli_batch_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes text atomically to path. */
int cli_batch_write_text(const char *path, const char *text, gs_error *err);

#endif
