/* cli_import_sd.c - `gpusim import sd FILE.csv`: the Alibaba GenAI Stable
 * Diffusion request log to a trace (see workloads/wl_import_sd.c).
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_import.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import sd FILE.csv [--gpus N] [--replicas MIN:MAX] [--weights-gib G] [--lora-load-s S]\n"
            "                        [--slo-s S] [--limit N] [--out-trace T.csv]\n"
            "\n"
            "  The Alibaba GenAI Stable Diffusion request log (cluster-trace-v2026-GenAI) -> one service per base\n"
            "  model (checkpoint_model_version_id; N GPUs per replica, default 1; replicas 0:4; max_batch 1;\n"
            "  weights 4 GiB; SLO 120 s) declared at time 0, and one request per SUCCEED row: service time =\n"
            "  exec_time_seconds + num_lora x lora-load-s (default 3), tenant = groupId. Other rows are skipped\n"
            "  and counted by reason.\n");
}

typedef struct sd_job {
    const char *in;
    const wl_sd_opts *o;
    wl_sd_counts *n;
} sd_job;

static int emit(FILE *out, void *ud, gs_error *err)
{
    sd_job *j = ud;
    return wl_import_sd(j->in, out, stderr, j->o, j->n, err);
}

int cli_import_sd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpus", required_argument, 0, 'g'}, {"replicas", required_argument, 0, 'r'},
        {"weights-gib", required_argument, 0, 'w'}, {"lora-load-s", required_argument, 0, 'L'},
        {"slo-s", required_argument, 0, 's'}, {"limit", required_argument, 0, 'l'},
        {"out-trace", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    /* defaults: see workloads/README.md ("Stable Diffusion") for their sources */
    wl_sd_opts o = {.gpus = 1, .replicas_min = 0, .replicas_max = 4, .weights_gib = 4.0, .lora_load_s = 3.0,
                    .slo_ms = 120000};
    const char *out_path = NULL;
    double d;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g':
            if (!cli_opt_num("--gpus", optarg, 1, 64, &d) || d != (int)d)
                return 2;
            o.gpus = (int)d;
            break;
        case 'r':
            if (!cli_opt_range("--replicas", optarg, &o.replicas_min, &o.replicas_max))
                return 2;
            break;
        case 'w':
            if (!cli_opt_num("--weights-gib", optarg, 0, 1e4, &o.weights_gib))
                return 2;
            break;
        case 'L':
            if (!cli_opt_num("--lora-load-s", optarg, 0, 3600, &o.lora_load_s))
                return 2;
            break;
        case 's':
            if (!cli_opt_num("--slo-s", optarg, 0, 1e6, &d))
                return 2;
            o.slo_ms = d * 1000.0;
            break;
        case 'l':
            if (!cli_opt_num("--limit", optarg, 0, 1e12, &d))
                return 2;
            o.limit = (long)d;
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: import sd: unknown or incomplete option\ntry 'gpusim import sd --help'\n");
            return 2;
        }
    }
    if (optind + 1 >= argc || optind + 2 < argc) {
        fprintf(stderr, "gpusim: error: import sd: give one input FILE.csv\n");
        return 2;
    }
    gs_error err = {0};
    wl_sd_counts n;
    sd_job j = {argv[optind + 1], &o, &n};
    int rc = cli_emit(out_path, emit, &j, &err);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "import sd: %ld rows read, %ld requests converted (%ld with LoRA adapters, %ld adapters) to %ld "
                    "model services, %ld skipped%s%s\n", n.rows_in, n.converted, n.with_lora, n.adapters, n.services,
            n.skipped, out_path ? ", written to " : "", out_path ? out_path : "");
    for (int i = 0; i < WL_SD_NREASONS; i++)
        if (n.skipped_by[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n.skipped_by[i], wl_sd_reason[i]);
    return 0;
}
