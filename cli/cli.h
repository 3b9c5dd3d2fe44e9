/* cli.h - gpusim subcommands. Each returns an exit code:
 * 0 ok, 1 other failure, 2 usage, 3 bad input, 4 cannot write output.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_H
#define GPUSIM_CLI_H

#include <stdio.h>

#include "../base/gs.h"
#include "../sim/sim.h"

int cmd_run(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_gen_agents(int argc, char **argv); /* `gen agents` (cli_gen_agents.c) */
int cmd_gen_training(int argc, char **argv); /* `gen training` (cli_gen_training.c) */
int cmd_gen_openb(int argc, char **argv);  /* `gen openb-variant` (cli_gen_openb.c) */
int cmd_policies(int argc, char **argv);
int cmd_models(int argc, char **argv);
/* `models --llm` and `models --validate` (cli_models.c); gpu_dir: models/gpu */
int cli_models_llm(const char *gpu_dir);
int cli_models_validate(const char *gpu_dir, const gpu_catalog *cat);
int cmd_import(int argc, char **argv);
/* capacity planning workflow */
int cmd_compare(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_sweep(int argc, char **argv); /* cli_sweep.c: grids run by Slurm, GNU parallel, k8s */

/* A family of a command (an importer, a generator): its name, its entry
 * (argv[1] is the name), the line `gpusim --help` shows and, for an
 * importer, the inputs `gpusim import --help` names (NULL for a generator).
 * The commands dispatch through these tables and the help lists them, so a
 * family added is one line. A table ends with a NULL name. */
typedef struct cli_family {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary, *input;
} cli_family;
extern const cli_family cli_importers[]; /* cli_import.c */
extern const cli_family cli_generators[]; /* cli_gen.c */

/* {==== run --mode fill (cli_fill.c) ====} */

/* Where the cluster comes from: a file, or the --gpus shorthand (path NULL
 * and gpus_spec NULL: the shipped example cluster). */
typedef struct cli_cluster_src {
    const char *path, *gpus_spec;
    int gpus_per_node;
} cli_cluster_src;
int cli_load_cluster(sim_cluster *cl, const cli_cluster_src *src, const gpu_catalog *cat, gs_error *err);

typedef struct cli_fill_opts {
    double fill_to;           /* multiple of the cluster's GPUs to fill to */
    uint64_t seed_lo, seed_hi; /* seeds averaged over */
} cli_fill_opts;
/* Runs the fill-up experiment for each seed (a fresh cluster each), writes
 * odir/report.json and odir/fill.csv, prints the summary. Exit code. */
int cli_run_fill(sim_config *cfg, const gpu_catalog *cat, const cli_cluster_src *src, const char *odir,
                 const cli_fill_opts *fo, bool json);

/* Maps a GS_E* status to the exit code. */
int cli_exit_code(int status);
/* Prints "gpusim: error: <msg>" to stderr and returns the exit code. */
int cli_fail(const gs_error *err);
/* Runs emit(out, ud, err) and sends what it writes to path atomically (in
 * memory first, then a temporary file renamed over path), or straight to
 * stdout when path is NULL. Returns emit's status, or GS_EWRITE. */
int cli_emit(const char *path, int (*emit)(FILE *out, void *ud, gs_error *err), void *ud, gs_error *err);
/* Option values, through the one strict parser (base/gs_num.h): a number
 * in [lo, hi], or MIN:MAX replicas; false after printing what was expected
 * (the caller exits 2). */
bool cli_opt_num(const char *opt, const char *v, double lo, double hi, double *out);
/* strtol's and strtod's calling shape over the one strict parser: the whole
 * of s or nothing. On anything base/gs_num.h refuses (hex, inf, nan, blanks,
 * '+', overflow, "") *end is s itself and the value LONG_MIN or NaN, which
 * a caller's `*end` and range checks refuse. For option values. */
long cli_strtol(const char *s, char **end);
double cli_strtod(const char *s, char **end);
/* A whole number in [lo, hi] (gs_num_long: no hex, blanks or '+'). */
bool cli_opt_long(const char *opt, const char *v, long lo, long hi, long *out);
/* --seed's value: a whole number 0..2^64-1; false after saying so. */
bool cli_opt_seed(const char *v, uint64_t *out);
bool cli_opt_range(const char *opt, const char *v, int *lo, int *hi);
/* An importer option, by table: NUM stores a double (x scale when scale is
 * not 0), INT/LONG/U64/SIZE a whole number, all in [lo, hi]; RANGE a
 * MIN:MAX pair into the ints p and p2; FLAG sets the bool p; NAME a service
 * name (no commas or quotes) into the const char * p; PATH a file name
 * (not empty) into the const char * p; FN hands the value to fn(option,
 * value, p), once per occurrence (a repeatable option). A table ends with
 * {NULL}. */
enum { CLI_IOPT_NUM, CLI_IOPT_INT, CLI_IOPT_LONG, CLI_IOPT_U64, CLI_IOPT_SIZE, CLI_IOPT_RANGE, CLI_IOPT_FLAG,
       CLI_IOPT_NAME, CLI_IOPT_FN, CLI_IOPT_PATH };
#define CLI_IOPT_BASE 256 /* getopt values of table options: above every short option */
typedef struct cli_iopt {
    const char *name; /* without the leading "--" */
    int kind;
    double lo, hi, scale;
    void *p, *p2;
    bool (*fn)(const char *opt, const char *v, void *p);
} cli_iopt;
/* Parses `gpusim import FAMILY [options] FILE` (argv[1] is FAMILY): the
 * table's options, --out-trace (into *out_path, NULL: stdout) and --help.
 * file_kind names the one input file in messages; NULL: the family takes
 * none (its inputs are options) and *in is NULL. Returns -1 with *in set
 * when the import should run, else the exit code (0 after --help, 2 after
 * printing a usage error). */
int cli_import_args(int argc, char **argv, const char *family, const char *file_kind, const cli_iopt *opts,
                    void (*usage)(FILE *out), const char **in, const char **out_path);
/* `gpusim import FORMAT ...` of each family (cli_import_<family>.c) */
int cli_import_azure(int argc, char **argv);
int cli_import_openb(int argc, char **argv);
int cli_import_k8s(int argc, char **argv);
int cli_import_sacct(int argc, char **argv);
int cli_import_sd(int argc, char **argv);
int cli_import_dlrm(int argc, char **argv);
int cli_import_mooncake(int argc, char **argv);
/* The n bytes at s as a whole decimal integer that fits 64 bits (seeds:
 * strtoull would wrap "-1" and saturate on overflow without saying so). */
bool cli_parse_u64(const char *s, size_t n, uint64_t *out);
/* Path of a file shipped beside the executable (e.g. the example cluster). */
void cli_shipped_path(char *buf, size_t n, const char *rel);

#endif
