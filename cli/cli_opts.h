/* cli_opts.h - the options of `run`, `compare` and `plan`, declared once:
 * each option's name, argument, range or choices, limit, help line and where
 * its value goes. The options the three share (trace, cluster or cards,
 * prices, parameters, output, horizon, models, seeds, jobs, SLO) have one
 * definition here and fill one cli_opts; a command lists them, and its own
 * options, in one table in the order its help shows them. One parser
 * (getopt_long over that table) checks each value as it comes, so a bound, a
 * limit or a message is written once and cannot drift between commands.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_OPTS_H
#define GPUSIM_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../base/gs.h"
#include "../sim/sim_config.h"

#define CLI_OPTS_MAX_SETS SIM_MAX_SETS /* --set: what one run takes */
#define CLI_OPTS_MAX_PRICES 16

/* The shared options' values. Strings point into argv. */
typedef struct cli_opts {
    const char *trace, *cluster, *gpus, *mig, *models, *out, *slo;
    const char *until;       /* as given (checked: seconds > 0), passed to child runs */
    gs_time_us until_us;     /* 0: not given */
    long gpus_per_node;      /* 0: not given (the caller may preset a default) */
    long seeds, jobs;        /* --seeds N, --jobs N (the caller presets defaults) */
    const char *prices[CLI_OPTS_MAX_PRICES]; /* MODEL=USD */
    int nprices;
    const char *sets[CLI_OPTS_MAX_SETS]; /* KEY=VALUE, KEY not empty */
    int nsets;
} cli_opts;

/* The shared options, by name in a command's table (cli_opt.shared). */
typedef enum {
    CLI_OPT_OWN = 0, /* not shared: the entry defines the option itself */
    CLI_OPT_TRACE, CLI_OPT_CLUSTER, CLI_OPT_GPUS, CLI_OPT_GPUS_PER_NODE, CLI_OPT_MIG, CLI_OPT_PRICE,
    CLI_OPT_SET, CLI_OPT_OUT, CLI_OPT_UNTIL, CLI_OPT_MODELS, CLI_OPT_SEEDS, CLI_OPT_JOBS, CLI_OPT_SLO,
    CLI_OPT_NSHARED
} cli_opt_shared;

typedef enum {
    CLI_ARG_FLAG,   /* no argument: bool *p = true */
    CLI_ARG_STR,    /* const char **p */
    CLI_ARG_LONG,   /* long *p, an integer in [lo, hi] */
    CLI_ARG_NUM,    /* double *p in [lo, hi], (lo, hi] when lo_open */
    CLI_ARG_CHOICE, /* const char **p, one of the comma list `choices` */
    CLI_ARG_LIST,   /* repeatable: const char *p[max], count in *n */
    CLI_ARG_KEYVAL, /* repeatable KEY=VALUE, as LIST */
    CLI_ARG_FN,     /* fn(value, p, err): 0 or a GS_EUSAGE status */
} cli_arg_kind;

typedef struct cli_opt {
    cli_opt_shared shared; /* a shared option (the fields below then come from its definition) */
    const char *name;      /* without "--" */
    const char *arg;       /* the argument's name in the help ("N", "FILE"); NULL for a flag */
    cli_arg_kind kind;
    double lo, hi;
    bool lo_open;
    const char *choices; /* CHOICE: "text,json" */
    int max;             /* LIST, KEYVAL: at most */
    bool once;           /* STR: given twice is a usage error */
    void *p;
    int *n;
    int (*fn)(const char *opt, const char *value, void *p, gs_error *err);
    const char *help; /* lines separated by '\n'; on a shared entry, replaces the shared help */
} cli_opt;

/* A command table's entry for a shared option, with its own help (or NULL). */
#define CLI_SHARED(which, helptext) {.shared = (which), .help = (helptext)}

/* Parses argv[1..] (argv[0] is the command) against table (ends with an
 * entry whose shared is CLI_OPT_OWN and name NULL); shared options go to o.
 * Returns 0; 1 after printing the help (synopsis, the table's lines, then
 * epilog, which may be NULL) to stdout for --help; or GS_EUSAGE with the
 * message in err (unknown option, bad value, a stray argument). */
int cli_opts_parse(const char *cmd, int argc, char **argv, const cli_opt *table, cli_opts *o, const char *synopsis,
                   const char *epilog, gs_error *err);
/* Prints the table's option lines, aligned, in table order. */
void cli_opts_usage(FILE *out, const cli_opt *table);
/* The FN parser of a seed: a whole decimal number 0..2^64-1 into uint64_t *p. */
int cli_opts_u64(const char *opt, const char *value, void *p, gs_error *err);

#endif
