/* cli_import_sd.c - `gpusim import sd FILE.csv`: the Alibaba GenAI Stable
 * Diffusion request log to a trace (see workloads/wl_import_sd.c).
 * SPDX-License-Identifier: MIT */
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
    /* defaults: see workloads/README.md ("Stable Diffusion") for their sources */
    wl_sd_opts o = {.gpus = 1, .replicas_min = 0, .replicas_max = 4, .weights_gib = 4.0, .lora_load_s = 3.0,
                    .slo_ms = 120000};
    const cli_iopt opts[] = {
        {"gpus", CLI_IOPT_INT, 1, 64, 0, &o.gpus, NULL, NULL},
        {"replicas", CLI_IOPT_RANGE, 0, 0, 0, &o.replicas_min, &o.replicas_max, NULL},
        {"weights-gib", CLI_IOPT_NUM, 0, 1e4, 0, &o.weights_gib, NULL, NULL},
        {"lora-load-s", CLI_IOPT_NUM, 0, 3600, 0, &o.lora_load_s, NULL, NULL},
        {"slo-s", CLI_IOPT_NUM, 0, 1e6, 1000.0, &o.slo_ms, NULL, NULL},
        {"limit", CLI_IOPT_LONG, 0, 1e12, 0, &o.limit, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    const char *in, *out_path;
    int rc = cli_import_args(argc, argv, "sd", "FILE.csv", opts, usage, &in, &out_path);
    if (rc >= 0)
        return rc;
    gs_error err = {0};
    wl_sd_counts n;
    sd_job j = {in, &o, &n};
    rc = cli_emit(out_path, emit, &j, &err);
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
