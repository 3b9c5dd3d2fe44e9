/* cli_import_azure.c - `gpusim import azure-llm FILE`: the Azure LLM
 * inference trace 2023 to one service and its requests (see
 * workloads/wl_import_azure.c; defaults and their sources in
 * workloads/README.md, "Azure LLM inference 2023").
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_import.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import azure-llm FILE [--service NAME] [--gpus N] [--replicas MIN:MAX]\n"
            "                       [--weights-gib G] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-batch N]\n"
            "                       [--warmup-s S] [--limit N] [--out-trace T.csv]\n"
            "\n"
            "  The Azure LLM inference trace 2023 (TIMESTAMP,ContextTokens,GeneratedTokens) -> one service row\n"
            "  (default 'llm': Llama2-70B, the performance model's, on 8 GPUs per replica, replicas 2:4,\n"
            "  max_batch 64, weights 70e9 x 2 bytes = 130.4 GiB, SLOs: TTFT 2000 ms and TPOT 200 ms, MLPerf's\n"
            "  Llama2-70B server targets) declared 180 s (warm-up) before the first of one request row per\n"
            "  input row. Rows going back in time are skipped and counted.\n");
}

typedef struct azure_job {
    const char *in;
    const wl_azure_opts *o;
    wl_import_counts *n;
} azure_job;

static int emit(FILE *out, void *ud, gs_error *err)
{
    azure_job *a = ud;
    return wl_import_azure(a->in, out, a->o, a->n, err);
}

int cli_import_azure(int argc, char **argv)
{
    /* Llama2-70B (the default performance model's): 70e9 parameters x 2 bytes
     * (FP16); SLOs: MLPerf Inference's llama2-70b Server targets (loadgen
     * mlperf.conf: ttft_latency 2000 ms, tpot_latency 200 ms) */
    wl_azure_opts o = {.service = "llm", .gpus = 8, .replicas_min = 2, .replicas_max = 4,
                       .weights_gib = 70e9 * 2 / 1073741824.0, .slo_ttft_ms = 2000, .slo_tpot_ms = 200,
                       .max_batch = 64, .warmup_s = 180};
    const cli_iopt opts[] = {
        {"service", CLI_IOPT_NAME, 0, 0, 0, &o.service, NULL, NULL},
        {"gpus", CLI_IOPT_INT, 1, 64, 0, &o.gpus, NULL, NULL},
        {"replicas", CLI_IOPT_RANGE, 0, 0, 0, &o.replicas_min, &o.replicas_max, NULL},
        {"limit", CLI_IOPT_LONG, 1, 2000000000, 0, &o.limit, NULL, NULL},
        {"weights-gib", CLI_IOPT_NUM, 0, 1e5, 0, &o.weights_gib, NULL, NULL},
        {"slo-ttft-ms", CLI_IOPT_NUM, 0, 1e9, 0, &o.slo_ttft_ms, NULL, NULL},
        {"slo-tpot-ms", CLI_IOPT_NUM, 0, 1e9, 0, &o.slo_tpot_ms, NULL, NULL},
        {"max-batch", CLI_IOPT_INT, 1, 4096, 0, &o.max_batch, NULL, NULL},
        {"warmup-s", CLI_IOPT_NUM, 0, 1e6, 0, &o.warmup_s, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    const char *in, *out_path;
    int rc = cli_import_args(argc, argv, "azure-llm", "FILE", opts, usage, &in, &out_path);
    if (rc >= 0)
        return rc;
    gs_error err = {0};
    wl_import_counts n;
    azure_job aj = {in, &o, &n};
    if ((rc = cli_emit(out_path, emit, &aj, &err)))
        return cli_fail(&err);
    fprintf(stderr, "import azure-llm: %ld rows read, %ld requests converted, %ld skipped (out of order)%s%s\n",
            n.rows_in, n.converted, n.skipped, out_path ? ", written to " : "", out_path ? out_path : "");
    return 0;
}
