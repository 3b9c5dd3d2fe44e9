/* cli_import.c - `gpusim import FORMAT ...`: one table row per trace
 * family; each family's options and summary live in cli_import_<family>.c.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The families, in the order `gpusim import --help` lists them. */
static const struct importer {
    const char *name, *input, *what;
    int (*run)(int argc, char **argv);
} importers[] = {
    {"azure-llm", "FILE.csv", "Azure LLM inference trace 2023: one service, one request per row", cli_import_azure},
    {"mooncake", "FILE.jsonl", "Mooncake (Kimi) requests with prefix-block ids", cli_import_mooncake},
    {"sd", "FILE.csv", "Alibaba GenAI Stable Diffusion requests: one service per base model", cli_import_sd},
    {"dlrm", "FILE.csv", "Alibaba DLRM inference instances: one long-running job each", cli_import_dlrm},
    {"openb", "PODS.csv [--nodes NODES.csv]", "Alibaba cluster-trace-gpu-v2023 (FGD): pods, and nodes as a cluster",
     cli_import_openb},
    {"k8s", "--nodes NODES.json --pods PODS.json", "a Kubernetes cluster's own snapshot (kubectl get -o json)",
     cli_import_k8s},
    {"sacct", "SACCT.txt --nodes NODES.txt", "Slurm accounting (sacct --parsable2) and its nodes (scontrol)",
     cli_import_sacct},
};
#define NIMPORTERS (sizeof importers / sizeof *importers)

static void import_usage(FILE *out)
{
    fprintf(out, "usage: gpusim import FORMAT INPUT... [options] [--out-trace T.csv]\n\n");
    for (size_t i = 0; i < NIMPORTERS; i++)
        fprintf(out, "  %s %s\n      %s\n", importers[i].name, importers[i].input, importers[i].what);
    fprintf(out, "\n  gpusim import FORMAT --help gives a format's options and mapping. Without --out-trace the\n"
                 "  trace goes to stdout; outputs are written atomically, and every row not converted is counted\n"
                 "  by reason on stderr.\n");
}

int cmd_import(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        import_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < NIMPORTERS; i++)
        if (!strcmp(argv[1], importers[i].name))
            return importers[i].run(argc, argv);
    char names[256];
    size_t w = 0;
    for (size_t i = 0; i < NIMPORTERS; i++)
        w += (size_t)snprintf(names + w, sizeof names - w, "%s%s", i ? ", " : "", importers[i].name);
    fprintf(stderr, "gpusim: error: unknown import format '%s' (formats: %s)\n", argv[1], names);
    return 2;
}
