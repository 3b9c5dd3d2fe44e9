/* cli_import.c - `gpusim import FORMAT FILE`: convert public traces.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_import.h"
#include "cli.h"
#include "../base/gs_num.h"
#include "../sim/sim_report.h"

static void import_usage(FILE *out)
{
    fprintf(out, "usage: gpusim import azure-llm FILE [--service NAME] [--gpus N] [--replicas MIN:MAX]\n"
                 "                       [--weights-gib G] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-batch N]\n"
                 "                       [--warmup-s S]\n"
                 "                       [--limit N] [--out-trace T.csv]\n"
                 "\n"
                 "  azure-llm: the Azure LLM inference trace 2023 (TIMESTAMP,ContextTokens,GeneratedTokens)\n"
                 "             -> one service row (default 'llm': Llama2-70B, the performance model's, on 8 GPUs per\n"
                 "             replica, replicas 2:4, max_batch 64, weights 70e9 x 2 bytes = 130.4 GiB, SLOs: TTFT\n"
                 "             2000 ms and TPOT 200 ms, MLPerf's Llama2-70B server targets) declared 180 s (warm-up)\n"
                 "             before the first of one request row per input row.\n"
                 "             Without --out-trace the trace goes to stdout.\n"
                 "\n"
                 "       gpusim import openb PODS.csv [--nodes NODES.csv] [--out-trace T.csv] [--out-cluster C.json]\n"
                 "\n"
                 "  openb: Alibaba cluster-trace-gpu-v2023 pod list -> trace (gpu_milli/10 -> gpucores and gpumem_pct,\n"
                 "         num_gpu -> gpus, gpu_spec -> gpu_model, cpu_milli, memory_mib, creation/deletion times), rows\n"
                 "         sorted by submit; the node list -> cluster JSON. Skipped rows are reported with their reason.\n"
                 "\n"
                 "       gpusim import sd FILE.csv ...     Alibaba GenAI Stable Diffusion requests (gpusim import sd --help)\n"
                 "       gpusim import dlrm FILE.csv ...   Alibaba DLRM inference instances (gpusim import dlrm --help)\n"
                 "       gpusim import mooncake F.jsonl .. Mooncake requests with prefix-block ids (gpusim import mooncake --help)\n");
}

/* A whole decimal integer in [lo, hi] (atoi would take "banana" as 0). */
static bool int_arg(const char *s, long lo, long hi, int *out)
{
    long v;
    if (!gs_num_long(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

/* MIN:MAX, both whole integers 0..100000. */
static bool replicas_arg(const char *s, int *lo, int *hi)
{
    const char *colon = strchr(s, ':');
    if (!colon || colon - s > 15)
        return false;
    char a[16];
    memcpy(a, s, (size_t)(colon - s));
    a[colon - s] = 0;
    return int_arg(a, 0, 100000, lo) && int_arg(colon + 1, 0, 100000, hi);
}

typedef struct openb_job {
    const char *in;
    wl_openb_counts *n;
    int (*conv)(const char *, FILE *, FILE *, wl_openb_counts *, gs_error *);
} openb_job;

static int emit_openb(FILE *out, void *ud, gs_error *err)
{
    openb_job *o = ud;
    return o->conv(o->in, out, stderr, o->n, err);
}

/* Writes the output of conv(in) to path atomically, or to stdout. */
static int to_file(const char *path, const char *in, wl_openb_counts *n, gs_error *err,
                   int (*conv)(const char *, FILE *, FILE *, wl_openb_counts *, gs_error *))
{
    openb_job o = {in, n, conv};
    return cli_emit(path, emit_openb, &o, err);
}

typedef struct azure_job {
    const char *in;
    const wl_azure_opts *o;
    wl_import_counts *n;
} azure_job;

static int emit_azure(FILE *out, void *ud, gs_error *err)
{
    azure_job *a = ud;
    return wl_import_azure(a->in, out, a->o, a->n, err);
}

/* `import openb PODS.csv [--nodes NODES.csv] [--out-trace T] [--out-cluster C]`. */
static int import_openb(int argc, char **argv)
{
    static const struct option opts[] = {
        {"nodes", required_argument, 0, 'n'}, {"out-trace", required_argument, 0, 'o'},
        {"out-cluster", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    const char *nodes = NULL, *out_trace = NULL, *out_cluster = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': nodes = optarg; break;
        case 'o': out_trace = optarg; break;
        case 'c': out_cluster = optarg; break;
        case 'h': import_usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: import: unknown or incomplete option\ntry 'gpusim import --help'\n");
            return 2;
        }
    }
    if (optind + 1 >= argc || optind + 2 < argc) {
        fprintf(stderr, "gpusim: error: import openb: give one pod list PODS.csv\n");
        return 2;
    }
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
    int rc = to_file(out_trace, argv[optind + 1], &n, &err, wl_import_openb_pods);
    if (rc == 0 && nodes)
        rc = to_file(out_cluster, nodes, &n, &err, wl_import_openb_nodes);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "import openb: %ld pod rows read, %ld converted (%ld never scheduled, %ld without times), "
                    "%ld skipped%s%s\n", n.pods_in, n.pods_converted, n.pending, n.timeless, n.pods_skipped,
            out_trace ? ", written to " : "", out_trace ? out_trace : "");
    for (int i = 0; i < WL_OPENB_NREASONS; i++)
        if (n.skipped[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n.skipped[i], wl_openb_reason[i]);
    if (nodes)
        fprintf(stderr, "import openb: %ld node rows read, %ld converted (%ld GPUs, %ld CPU-only nodes), "
                        "%ld skipped%s%s\n", n.nodes_in, n.nodes_converted, n.gpus, n.cpu_only_nodes,
                n.nodes_skipped, out_cluster ? ", written to " : "", out_cluster ? out_cluster : "");
    return 0;
}

static int import_azure(int argc, char **argv);

/* The formats: one line per trace family. */
const cli_family cli_importers[] = {
    {"azure-llm", import_azure, "Azure LLM inference trace 2023 -> a chat service and its requests"},
    {"openb", import_openb, "Alibaba cluster-trace-gpu-v2023 (FGD's openb) pods and nodes -> trace and cluster"},
    {"sd", cli_import_sd, "Alibaba GenAI Stable Diffusion requests -> models (LoRA) and requests"},
    {"dlrm", cli_import_dlrm, "Alibaba DLRM inference instances (Prism) -> long-running jobs"},
    {"mooncake", cli_import_mooncake, "Mooncake (Kimi) requests with prefix-block ids -> a service and requests"},
    {NULL, NULL, NULL},
};

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

/* `gpusim import azure-llm FILE [options]`. */
static int import_azure(int argc, char **argv)
{
    static const struct option opts[] = {
        {"service", required_argument, 0, 's'}, {"gpus", required_argument, 0, 'g'},
        {"replicas", required_argument, 0, 'r'}, {"limit", required_argument, 0, 'l'},
        {"out-trace", required_argument, 0, 'o'}, {"weights-gib", required_argument, 0, 'w'},
        {"slo-ttft-ms", required_argument, 0, 'T'}, {"slo-tpot-ms", required_argument, 0, 'P'},
        {"max-batch", required_argument, 0, 'b'}, {"warmup-s", required_argument, 0, 'W'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    /* Llama2-70B (the default performance model's): 70e9 parameters x 2 bytes
     * (FP16); SLOs: MLPerf Inference's llama2-70b Server targets (loadgen
     * mlperf.conf: ttft_latency 2000 ms, tpot_latency 200 ms) */
    wl_azure_opts o = {.service = "llm", .gpus = 8, .replicas_min = 2, .replicas_max = 4,
                       .weights_gib = 70e9 * 2 / 1073741824.0, .slo_ttft_ms = 2000, .slo_tpot_ms = 200,
                       .max_batch = 64, .warmup_s = 180};
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': o.service = optarg; break;
        case 'g':
            if (!int_arg(optarg, 1, 64, &o.gpus)) {
                fprintf(stderr, "gpusim: error: --gpus: expected an integer 1..64, found '%s'\n", optarg);
                return 2;
            }
            break;
        case 'r':
            if (!replicas_arg(optarg, &o.replicas_min, &o.replicas_max)) {
                fprintf(stderr, "gpusim: error: --replicas: expected MIN:MAX\n");
                return 2;
            }
            break;
        case 'l': {
            int lim;
            if (!int_arg(optarg, 1, 2000000000, &lim)) {
                fprintf(stderr, "gpusim: error: --limit: expected an integer 1..2000000000, found '%s'\n", optarg);
                return 2;
            }
            o.limit = lim;
            break;
        }
        case 'o': out_path = optarg; break;
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
        case 'b': {
            double d;
            if (!cli_opt_num("--max-batch", optarg, 1, 4096, &d) || d != (int)d)
                return 2;
            o.max_batch = (int)d;
            break;
        }
        case 'W':
            if (!cli_opt_num("--warmup-s", optarg, 0, 1e6, &o.warmup_s))
                return 2;
            break;
        case 'h': import_usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: import: unknown or incomplete option\ntry 'gpusim import --help'\n");
            return 2;
        }
    }
    if (optind + 1 >= argc) {
        fprintf(stderr, "gpusim: error: import azure-llm: give the input FILE\n");
        return 2;
    }
    if (o.gpus < 1 || o.gpus > 64 || o.replicas_min < 0 || o.replicas_max < 1 || o.replicas_min > o.replicas_max ||
        !gs_text_field_ok(o.service, 60)) {
        fprintf(stderr, "gpusim: error: import: --gpus 1..64, --replicas MIN:MAX with 0 <= MIN <= MAX, MAX >= 1, "
                        "and a service name without commas, quotes or control characters\n");
        return 2;
    }
    const char *in = argv[optind + 1];
    gs_error err = {0};
    wl_import_counts n;
    azure_job aj = {in, &o, &n};
    int rc = cli_emit(out_path, emit_azure, &aj, &err);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "import azure-llm: %ld rows read, %ld requests converted, %ld skipped (out of order)%s%s\n",
            n.rows_in, n.converted, n.skipped, out_path ? ", written to " : "", out_path ? out_path : "");
    return 0;
}
