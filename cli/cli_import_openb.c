/* cli_import_openb.c - `gpusim import openb PODS.csv [--nodes NODES.csv]`:
 * Alibaba cluster-trace-gpu-v2023 to a trace and a cluster (see
 * workloads/wl_import_openb.c).
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "../workloads/wl_import.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import openb PODS.csv [--nodes NODES.csv] [--out-trace T.csv] [--out-cluster C.json]\n"
            "\n"
            "  Alibaba cluster-trace-gpu-v2023 pod list -> trace (gpu_milli/10 -> gpucores and gpumem_pct,\n"
            "  num_gpu -> gpus, gpu_spec -> gpu_model, cpu_milli, memory_mib, creation/deletion times), rows\n"
            "  sorted by submit; the node list -> cluster JSON. Skipped rows are reported with their reason.\n");
}

typedef struct openb_job {
    const char *in;
    wl_openb_counts *n;
    int (*conv)(const char *, FILE *, FILE *, wl_openb_counts *, gs_error *);
} openb_job;

static int emit(FILE *out, void *ud, gs_error *err)
{
    openb_job *o = ud;
    return o->conv(o->in, out, stderr, o->n, err);
}

static void print_counts(const wl_openb_counts *n, const char *nodes, const char *out_trace, const char *out_cluster)
{
    fprintf(stderr, "import openb: %ld pod rows read, %ld converted (%ld never scheduled, %ld without times), "
                    "%ld skipped%s%s\n", n->pods_in, n->pods_converted, n->pending, n->timeless, n->pods_skipped,
            out_trace ? ", written to " : "", out_trace ? out_trace : "");
    for (int i = 0; i < WL_OPENB_NREASONS; i++)
        if (n->skipped[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n->skipped[i], wl_openb_reason[i]);
    if (nodes)
        fprintf(stderr, "import openb: %ld node rows read, %ld converted (%ld GPUs, %ld CPU-only nodes), "
                        "%ld skipped%s%s\n", n->nodes_in, n->nodes_converted, n->gpus, n->cpu_only_nodes,
                n->nodes_skipped, out_cluster ? ", written to " : "", out_cluster ? out_cluster : "");
}

int cli_import_openb(int argc, char **argv)
{
    const char *nodes = NULL, *out_cluster = NULL;
    const cli_iopt opts[] = {
        {"nodes", CLI_IOPT_PATH, 0, 0, 0, &nodes, NULL, NULL},
        {"out-cluster", CLI_IOPT_PATH, 0, 0, 0, &out_cluster, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    const char *in, *out_trace;
    int rc = cli_import_args(argc, argv, "openb", "pod list PODS.csv", opts, usage, &in, &out_trace);
    if (rc >= 0)
        return rc;
    if (out_cluster && !nodes) {
        fprintf(stderr, "gpusim: error: import openb: --out-cluster needs --nodes NODES.csv\n");
        return 2;
    }
    if (nodes && !out_cluster && !out_trace) {
        fprintf(stderr, "gpusim: error: import openb: with --nodes, give --out-trace or --out-cluster "
                        "(both cannot go to stdout)\n");
        return 2;
    }
    gs_error err = {0};
    wl_openb_counts n = {0};
    openb_job pods = {in, &n, wl_import_openb_pods}, nds = {nodes, &n, wl_import_openb_nodes};
    rc = cli_emit(out_trace, emit, &pods, &err);
    if (rc == 0 && nodes)
        rc = cli_emit(out_cluster, emit, &nds, &err);
    if (rc)
        return cli_fail(&err);
    print_counts(&n, nodes, out_trace, out_cluster);
    return 0;
}
