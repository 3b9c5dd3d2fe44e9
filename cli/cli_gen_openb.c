/* cli_gen_openb.c - `gpusim gen openb-variant`: an openb pod list resampled
 * like the FGD paper's variants (workloads/wl_gen_openb.c says how).
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_gen.h"
#include "cli.h"
#include "../sim/sim_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim gen openb-variant --pods FILE --family F --pct P [--seed N] [--out FILE]\n"
            "\n"
            "  FILE: an openb pod list (the default one: workloads/traces/alibaba-openb-gpu-v2023/).\n"
            "  F and P, as the FGD paper's variants:\n"
            "    cpu       CPU-only pods are P%% of pods (0 <= P < 100)\n"
            "    gpushare  sharing pods hold P%% of the GPU request (0..100)\n"
            "    multigpu  multi-GPU pods appended until they hold P%% of it (0 <= P < 100)\n"
            "    gpuspec   P%% of GPU pods get a gpu_spec (0..100)\n"
            "  Writes an openb pod list (gpusim import openb reads it); --out writes atomically,\n"
            "  without it stdout. Same FILE, F, P and seed (default 1): the same bytes.\n");
}

static int emit(FILE *out, void *ud, gs_error *err) { return wl_gen_openb_variant(out, ud, err); }

static int family_of(const char *s)
{
    for (int f = 0; f < WL_VAR_NFAMILIES; f++)
        if (!strcmp(s, wl_variant_family_name[f]))
            return f;
    return -1;
}

int cmd_gen_openb(int argc, char **argv)
{
    static const struct option opts[] = {
        {"pods", required_argument, 0, 'p'}, {"family", required_argument, 0, 'f'},
        {"pct", required_argument, 0, 'P'},  {"seed", required_argument, 0, 's'},
        {"out", required_argument, 0, 'o'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    wl_openb_variant_opts o = {.family = -1, .pct = NAN, .seed = 1};
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': o.pods_path = optarg; break;
        case 'f':
            if ((o.family = family_of(optarg)) < 0) {
                fprintf(stderr, "gpusim: error: gen openb-variant: --family: '%s' is not one of cpu, gpushare, "
                                "multigpu, gpuspec\n", optarg);
                return 2;
            }
            break;
        case 'P': /* the strict parser: no hex, blanks or '+' */
            if (!cli_opt_num("--pct", optarg, 0, 100, &o.pct))
                return 2;
            break;
        case 's':
            if (!cli_opt_seed(optarg, &o.seed))
                return 2;
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: gen openb-variant: unknown or incomplete option '%s'\n"
                            "try 'gpusim gen openb-variant --help'\n", argv[optind]);
            return 2;
        }
    }
    bool open_top = o.family == WL_VAR_CPU || o.family == WL_VAR_MULTIGPU; /* 100% has no meaning there */
    if (!o.pods_path || o.family < 0 || !(o.pct >= 0) || o.pct > 100 || (open_top && !(o.pct < 100))) {
        fprintf(stderr, "gpusim: error: gen openb-variant: need --pods FILE, --family cpu|gpushare|multigpu|gpuspec "
                        "and --pct in 0..100 (below 100 for cpu and multigpu)\ntry 'gpusim gen openb-variant --help'\n");
        return 2;
    }
    gs_error err = {0};
    int rc = cli_emit(out_path, emit, &o, &err);
    return rc ? cli_fail(&err) : 0;
}
