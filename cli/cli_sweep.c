/* cli_sweep.c - `gpusim sweep`: dispatch to init, run, submit, status,
 * collect (see cli_sweep.h for the layout on disk).
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_sweep.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} sub[] = {
    {"init", sw_cmd_init, "expand a grid spec (JSON) into a manifest, one run a line"},
    {"run", sw_cmd_run, "run manifest lines (--index, --shard, or the engine's array index)"},
    {"submit", sw_cmd_submit, "hand the runs not done to slurm, GNU parallel, Kubernetes or local processes"},
    {"status", sw_cmd_status, "count runs done, failed (first error line) and missing"},
    {"collect", sw_cmd_collect, "merge finished runs into the table and compare.json that 'compare' makes"},
};

static void sweep_usage(FILE *out)
{
    fprintf(out, "usage: gpusim sweep <step> ...\n\nsteps:\n");
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
        fprintf(out, "  %-8s %s\n", sub[i].name, sub[i].summary);
    fprintf(out, "\n'gpusim sweep <step> --help' describes a step. A typical study (the example spec; on a\n"
                 "Slurm cluster --engine slurm instead of local):\n"
                 "  gpusim sweep init workloads/examples/sweep-study.json --out results/study\n"
                 "  gpusim sweep submit results/study/manifest.jsonl --engine local --max-parallel 2\n"
                 "  gpusim sweep status results/study/manifest.jsonl\n"
                 "  gpusim sweep collect results/study/manifest.jsonl --format markdown\n");
}

int cmd_sweep(int argc, char **argv)
{
    if (argc < 2) {
        sweep_usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        sweep_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
        if (!strcmp(argv[1], sub[i].name))
            return sub[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gpusim: error: sweep: unknown step '%s' (init, run, submit, status, collect)\n", argv[1]);
    return 2;
}
