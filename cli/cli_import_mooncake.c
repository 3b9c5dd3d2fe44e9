/* cli_import_mooncake.c - `gpusim import mooncake FILE.jsonl`: Mooncake's
 * request traces to a trace with prefix-block ids (workloads/wl_import_mooncake.c).
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
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
    static const struct option opts[] = {
        {"service", required_argument, 0, 'n'}, {"gpus", required_argument, 0, 'g'},
        {"replicas", required_argument, 0, 'r'}, {"weights-gib", required_argument, 0, 'w'},
        {"slo-ttft-ms", required_argument, 0, 'T'}, {"slo-tpot-ms", required_argument, 0, 'P'},
        {"kv-kib-per-token", required_argument, 0, 'k'}, {"block-tokens", required_argument, 0, 'b'},
        {"bursts", no_argument, 0, 'B'}, {"bucket-ms", required_argument, 0, 'm'},
        {"seed", required_argument, 0, 's'}, {"limit", required_argument, 0, 'l'},
        {"warmup-s", required_argument, 0, 'W'},
        {"out-trace", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    /* defaults: workloads/README.md ("Mooncake") gives their sources */
    wl_mc_opts o = {.service = "llm", .gpus = 8, .replicas_min = 8, .replicas_max = 8,
                    .weights_gib = 70e9 * 2 / 1073741824.0, .slo_ttft_ms = 2000, .slo_tpot_ms = 200,
                    .kv_kib_per_token = 320, .block_tokens = 512, .bucket_ms = 3000, .seed = 1, .warmup_s = 180};
    const char *out_path = NULL;
    double d;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!*optarg || strpbrk(optarg, ",\"\n") || strlen(optarg) > 60) {
                fprintf(stderr, "gpusim: error: --service: a name without commas or quotes, at most 60 characters\n");
                return 2;
            }
            o.service = optarg;
            break;
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
            if (!cli_opt_num("--weights-gib", optarg, 0, 1e5, &o.weights_gib))
                return 2;
            break;
        case 'T':
            if (!cli_opt_num("--slo-ttft-ms", optarg, 0, 1e9, &o.slo_ttft_ms))
                return 2;
            break;
        case 'P':
            if (!cli_opt_num("--slo-tpot-ms", optarg, 0, 1e9, &o.slo_tpot_ms))
                return 2;
            break;
        case 'k':
            if (!cli_opt_num("--kv-kib-per-token", optarg, 1e-3, 1e6, &o.kv_kib_per_token))
                return 2;
            break;
        case 'b':
            if (!cli_opt_num("--block-tokens", optarg, 1, 1e6, &d) || d != (int)d)
                return 2;
            o.block_tokens = (int)d;
            break;
        case 'B': o.bursts = true; break;
        case 'm':
            if (!cli_opt_num("--bucket-ms", optarg, 0, 1e9, &o.bucket_ms))
                return 2;
            break;
        case 's':
            if (!cli_opt_num("--seed", optarg, 0, 1e15, &d) || d != floor(d))
                return 2;
            o.seed = (uint64_t)d;
            break;
        case 'l':
            if (!cli_opt_num("--limit", optarg, 0, 1e12, &d))
                return 2;
            o.limit = (long)d;
            break;
        case 'W':
            if (!cli_opt_num("--warmup-s", optarg, 0, 1e6, &o.warmup_s))
                return 2;
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: import mooncake: unknown or incomplete option\n"
                            "try 'gpusim import mooncake --help'\n");
            return 2;
        }
    }
    if (optind + 1 >= argc || optind + 2 < argc) {
        fprintf(stderr, "gpusim: error: import mooncake: give one input FILE.jsonl\n");
        return 2;
    }
    gs_error err = {0};
    wl_mc_counts n;
    mc_job j = {argv[optind + 1], &o, &n};
    int rc = cli_emit(out_path, emit, &j, &err);
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
