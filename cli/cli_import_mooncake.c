/* cli_import_mooncake.c - `gpusim import mooncake FILE.jsonl`: Mooncake's
 * request traces to a trace with prefix-block ids (workloads/wl_import_mooncake.c).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_import.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import mooncake FILE.jsonl [--service NAME] [--gpus N] [--replicas MIN:MAX]\n"
            "                       [--weights-gib G] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--kv-kib-per-token K]\n"
            "                       [--block-tokens N] [--bursts] [--bucket-ms MS] [--seed N] [--warmup-s S]\n"
            "                       [--limit N] [--out-trace T.csv]\n"
            "\n"
            "  Mooncake (Kimi, FAST '25) JSON Lines -> one service (default 'llm': Llama2-70B on 8 GPUs, weights\n"
            "  70e9 x 2 bytes = 130.4 GiB, KV 320 KiB/token, TTFT/TPOT SLOs 2000/200 ms, replicas 8:8) and one\n"
            "  request per line with input/output tokens and its hash_ids (one per 512-token prefix block).\n"
            "  Timestamps share ~3 s buckets: spread uniformly in their bucket (seeded), or kept with --bursts.\n"
            "  The service is declared --warmup-s (180) before the first request, so its replicas are ready.\n");
}

typedef struct mc_job {
    const char *in;
    const wl_mc_opts *o;
    wl_mc_counts *n;
} mc_job;

static int emit(FILE *out, void *ud, gs_error *err)
{
    mc_job *j = ud;
    return wl_import_mooncake(j->in, out, stderr, j->o, j->n, err);
}

int cli_import_mooncake(int argc, char **argv)
{
    /* defaults: workloads/README.md ("Mooncake") gives their sources */
    wl_mc_opts o = {.service = "llm", .gpus = 8, .replicas_min = 8, .replicas_max = 8,
                    .weights_gib = 70e9 * 2 / 1073741824.0, .slo_ttft_ms = 2000, .slo_tpot_ms = 200,
                    .kv_kib_per_token = 320, .block_tokens = 512, .bucket_ms = 3000, .seed = 1, .warmup_s = 180};
    const cli_iopt opts[] = {
        {"service", CLI_IOPT_NAME, 0, 0, 0, &o.service, NULL, NULL},
        {"gpus", CLI_IOPT_INT, 1, 64, 0, &o.gpus, NULL, NULL},
        {"replicas", CLI_IOPT_RANGE, 0, 0, 0, &o.replicas_min, &o.replicas_max, NULL},
        {"weights-gib", CLI_IOPT_NUM, 0, 1e5, 0, &o.weights_gib, NULL, NULL},
        {"slo-ttft-ms", CLI_IOPT_NUM, 0, 1e9, 0, &o.slo_ttft_ms, NULL, NULL},
        {"slo-tpot-ms", CLI_IOPT_NUM, 0, 1e9, 0, &o.slo_tpot_ms, NULL, NULL},
        {"kv-kib-per-token", CLI_IOPT_NUM, 1e-3, 1e6, 0, &o.kv_kib_per_token, NULL, NULL},
        {"block-tokens", CLI_IOPT_INT, 1, 1e6, 0, &o.block_tokens, NULL, NULL},
        {"bursts", CLI_IOPT_FLAG, 0, 0, 0, &o.bursts, NULL, NULL},
        {"bucket-ms", CLI_IOPT_NUM, 0, 1e9, 0, &o.bucket_ms, NULL, NULL},
        {"seed", CLI_IOPT_U64, 0, 1e15, 0, &o.seed, NULL, NULL},
        {"limit", CLI_IOPT_LONG, 0, 1e12, 0, &o.limit, NULL, NULL},
        {"warmup-s", CLI_IOPT_NUM, 0, 1e6, 0, &o.warmup_s, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    const char *in, *out_path;
    int rc = cli_import_args(argc, argv, "mooncake", "FILE.jsonl", opts, usage, &in, &out_path);
    if (rc >= 0)
        return rc;
    gs_error err = {0};
    wl_mc_counts n;
    mc_job j = {in, &o, &n};
    rc = cli_emit(out_path, emit, &j, &err);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "import mooncake: %ld lines read, %ld requests converted (%ld prefix blocks; %ld timestamps, at "
                    "most %ld requests at one, %s), %ld skipped%s%s\n", n.rows_in, n.converted, n.blocks, n.buckets,
            n.largest_bucket, o.bursts ? "kept as bursts" : "spread within their bucket", n.skipped,
            out_path ? ", written to " : "", out_path ? out_path : "");
    for (int i = 0; i < WL_MC_NREASONS; i++)
        if (n.skipped_by[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n.skipped_by[i], wl_mc_reason[i]);
    return 0;
}
