/* main.c - gpusim command line: dispatch to one subcommand from one table.
 * The only file (with the cmd_* files it calls) that prints errors and picks
 * exit codes; library code returns GS_E* codes.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/gs_cleanup.h"
#include "cli.h"
#include "../sim/sim_report.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "replay a trace on a cluster under a policy and write the report"},
    {"gen", cmd_gen, "generate a synthetic trace (generators below)"},
    {"policies", cmd_policies, "list the policies, their parameters and defaults"},
    {"models", cmd_models, "list the GPU models known (models/gpu/NAME.json)"},
    {"import", cmd_import, "convert a public trace or a Kubernetes or Slurm cluster's records to a trace (formats below)"},
    /* capacity planning workflow: cli/cli_{compare,plan,plot,check}.c */
    {"compare", cmd_compare, "run several policies on the same trace and seeds, print them side by side"},
    {"plan", cmd_plan, "find the fewest cards of a model that meet an SLO, with cost and evidence"},
    {"plot", cmd_plot, "draw figures (gnuplot) and a self-contained report.html for result directories"},
    {"check", cmd_check, "CI gate: exit 1 when a report regressed against a baseline report"},
    {"sweep", cmd_sweep, "a grid of runs as a file for Slurm, GNU parallel or k8s; resumable; collected"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gpusim <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nimport formats ('gpusim import FORMAT --help'):\n");
    int w = 9; /* the name column, widened to the longest family name */
    for (const cli_family *f = cli_generators; f->name; f++)
        w = (int)strlen(f->name) > w ? (int)strlen(f->name) : w;
    for (const cli_family *f = cli_importers; f->name; f++)
        fprintf(out, "  %-*s %s\n", w, f->name, f->summary);
    fprintf(out, "\ngenerators ('gpusim gen KIND --help'):\n");
    for (const cli_family *f = cli_generators; f->name; f++)
        fprintf(out, "  %-*s %s\n", w, f->name, f->summary);
    fprintf(out, "\n'gpusim <command> --help' describes a command. Exit codes: 0 ok, 1 other failure, "
                 "2 usage, 3 bad input, 4 cannot write output.\n");
}

/* A path option given an empty value (`--out ''`) names nothing: every
 * command would read or make "" and build "/runs/..." from it, at the root
 * of the file system. Refused here, once for every command, before any is
 * run. 0, or the usage exit code after the message. */
static int refuse_empty_paths(int argc, char **argv)
{
    static const char *const path_opts[] = {"--out", "--out-trace", "--out-cluster", "--trace", "--cluster",
                                            "--cluster-template", "--models", "--baseline", "--nodes",
                                            "--sshloginfile", NULL};
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        for (int k = 0; path_opts[k]; k++) {
            size_t l = strlen(path_opts[k]);
            if (strncmp(argv[i], path_opts[k], l))
                continue;
            bool empty = (argv[i][l] == '=' && !argv[i][l + 1]) || (!argv[i][l] && i + 1 < argc && !argv[i + 1][0]);
            if (empty) {
                fprintf(stderr, "gpusim: error: %s: expected a path, found an empty string\n", path_opts[k]);
                return 2;
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off(); /* GSL must never abort a run; we check returns */
    gs_cleanup_on_signals();     /* an interrupted run leaves no temporary behind */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gpusim %s\n", GPUSIM_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = refuse_empty_paths(argc, argv);
            if (rc)
                return rc;
            rc = commands[i].fn(argc - 1, argv + 1);
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "gpusim: error: writing to standard output failed\n");
                return 4;
            }
            return rc;
        }
    }
    fprintf(stderr, "gpusim: error: unknown command '%s' (commands:", argv[1]);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
    fprintf(stderr, ")\n");
    fprintf(stderr, "try 'gpusim --help'\n");
    return 2;
}
