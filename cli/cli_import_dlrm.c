/* cli_import_dlrm.c - `gpusim import dlrm FILE.csv`: Alibaba's DLRM
 * inference instances to a trace (see workloads/wl_import_dlrm.c).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_import.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import dlrm FILE.csv [--roles HN,CN] [--end S] [--sort-lines N] [--out-trace T.csv]\n"
            "\n"
            "  Alibaba cluster-trace-gpu-v2025 DLRM inference instances -> one long-running job per instance,\n"
            "  sorted by submit: creation_time (empty: 0) to deletion_time (empty: --end, default the latest time\n"
            "  in the file); GPU-node (HN) instances keep gpu_request, CPU-node (CN) ones get 0 GPUs; cpu, mem_gib;\n"
            "  tenant = app_name. RDMA shares and instances-per-node caps are counted, not modeled.\n");
}

typedef struct dlrm_job {
    const char *in;
    const wl_dlrm_opts *o;
    wl_dlrm_counts *n;
} dlrm_job;

static int emit(FILE *out, void *ud, gs_error *err)
{
    dlrm_job *j = ud;
    return wl_import_dlrm(j->in, out, stderr, j->o, j->n, err);
}

/* --roles HN, CN or HN,CN */
static bool roles(const char *opt, const char *v, void *p)
{
    wl_dlrm_opts *o = p;
    o->hn = !strcmp(v, "HN") || !strcmp(v, "HN,CN") || !strcmp(v, "CN,HN");
    o->cn = !strcmp(v, "CN") || !strcmp(v, "HN,CN") || !strcmp(v, "CN,HN");
    if (!o->hn && !o->cn)
        fprintf(stderr, "gpusim: error: %s: expected HN, CN or HN,CN, found '%s'\n", opt, v);
    return o->hn || o->cn;
}

int cli_import_dlrm(int argc, char **argv)
{
    wl_dlrm_opts o = {.cn = true, .hn = true, .sort_lines = 65536};
    const cli_iopt opts[] = {
        {"roles", CLI_IOPT_FN, 0, 0, 0, &o, NULL, roles},
        {"end", CLI_IOPT_NUM, 0, 1e12, 0, &o.end_s, NULL, NULL},
        {"sort-lines", CLI_IOPT_SIZE, 1, 1e8, 0, &o.sort_lines, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    const char *in, *out_path;
    int rc = cli_import_args(argc, argv, "dlrm", "FILE.csv", opts, usage, &in, &out_path);
    if (rc >= 0)
        return rc;
    gs_error err = {0};
    wl_dlrm_counts n;
    dlrm_job j = {in, &o, &n};
    rc = cli_emit(out_path, emit, &j, &err);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "import dlrm: %ld rows read, %ld instances converted (%ld GPU-node HN with %ld GPUs, %ld CPU-node "
                    "CN; %ld existed before the trace, %ld alive at its end, run to %.0f s), %ld skipped%s%s\n",
            n.rows_in, n.converted, n.hn, n.gpus, n.cn, n.pre_existing, n.alive_at_end, n.end_s, n.skipped,
            out_path ? ", written to " : "", out_path ? out_path : "");
    for (int i = 0; i < WL_DLRM_NREASONS; i++)
        if (n.skipped_by[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n.skipped_by[i], wl_dlrm_reason[i]);
    fprintf(stderr, "  not modeled: RDMA share on %ld instances, instances-per-node cap on %ld instances\n", n.rdma,
            n.per_node_limit);
    return 0;
}
