/* cli_import.c - `gpusim import FORMAT ...`: one table row per trace
 * family; each family's options and summary live in cli_import_<family>.c.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The families, in the order `gpusim import --help` and `gpusim --help`
 * list them. */
const cli_family cli_importers[] = {
    {"azure-llm", cli_import_azure, "Azure LLM inference trace 2023: one service, one request per row", "FILE.csv"},
    {"mooncake", cli_import_mooncake, "Mooncake (Kimi) requests with prefix-block ids", "FILE.jsonl"},
    {"sd", cli_import_sd, "Alibaba GenAI Stable Diffusion requests: one service per base model", "FILE.csv"},
    {"dlrm", cli_import_dlrm, "Alibaba DLRM inference instances: one long-running job each", "FILE.csv"},
    {"openb", cli_import_openb, "Alibaba cluster-trace-gpu-v2023 (FGD): pods, and nodes as a cluster",
     "PODS.csv [--nodes NODES.csv]"},
    {"k8s", cli_import_k8s, "a Kubernetes cluster's own snapshot (kubectl get -o json)",
     "--nodes NODES.json --pods PODS.json"},
    {"sacct", cli_import_sacct, "Slurm accounting (sacct --parsable2) and its nodes (scontrol)",
     "SACCT.txt --nodes NODES.txt"},
    {NULL, NULL, NULL, NULL},
};

static void import_usage(FILE *out)
{
    fprintf(out, "usage: gpusim import FORMAT INPUT... [options] [--out-trace T.csv]\n\n");
    for (const cli_family *f = cli_importers; f->name; f++)
        fprintf(out, "  %s %s\n      %s\n", f->name, f->input, f->summary);
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
    for (const cli_family *f = cli_importers; f->name; f++)
        if (!strcmp(argv[1], f->name))
            return f->run(argc, argv);
    fprintf(stderr, "gpusim: error: unknown import format '%s' (formats:", argv[1]);
    for (const cli_family *f = cli_importers; f->name; f++)
        fprintf(stderr, "%s %s", f == cli_importers ? "" : ",", f->name);
    fprintf(stderr, ")\n");
    return 2;
}
