/* cli_import_dlrm.c - `gpusim import dlrm FILE.csv`: Alibaba's DLRM
 * inference instances to a trace (see workloads/wl_import_dlrm.c).
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
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

int cli_import_dlrm(int argc, char **argv)
{
    static const struct option opts[] = {
        {"roles", required_argument, 0, 'r'}, {"end", required_argument, 0, 'e'},
        {"sort-lines", required_argument, 0, 'S'}, {"out-trace", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    wl_dlrm_opts o = {.cn = true, .hn = true, .sort_lines = 65536};
    const char *out_path = NULL;
    double d;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            o.hn = !strcmp(optarg, "HN") || !strcmp(optarg, "HN,CN") || !strcmp(optarg, "CN,HN");
            o.cn = !strcmp(optarg, "CN") || !strcmp(optarg, "HN,CN") || !strcmp(optarg, "CN,HN");
            if (!o.hn && !o.cn) {
                fprintf(stderr, "gpusim: error: --roles: expected HN, CN or HN,CN, found '%s'\n", optarg);
                return 2;
            }
            break;
        case 'e':
            if (!cli_opt_num("--end", optarg, 0, 1e12, &o.end_s))
                return 2;
            break;
        case 'S':
            if (!cli_opt_num("--sort-lines", optarg, 1, 1e8, &d))
                return 2;
            o.sort_lines = (size_t)d;
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: import dlrm: unknown or incomplete option\n"
                            "try 'gpusim import dlrm --help'\n");
            return 2;
        }
    }
    if (optind + 1 >= argc || optind + 2 < argc) {
        fprintf(stderr, "gpusim: error: import dlrm: give one input FILE.csv\n");
        return 2;
    }
    gs_error err = {0};
    wl_dlrm_counts n;
    dlrm_job j = {argv[optind + 1], &o, &n};
    int rc = cli_emit(out_path, emit, &j, &err);
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
