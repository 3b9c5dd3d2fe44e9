/* cli_gen.c - `gpusim gen KIND`: write a synthetic trace.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../workloads/wl_gen.h"
#include "cli.h"
#include "../sim/sim_report.h"

static void gen_usage(FILE *out)
{
    fprintf(out, "usage: gpusim gen mmc --jobs N --servers C --util RHO [--mean-s S] [--gpus-per-job G]\n"
                 "                      [--seed N] [--out FILE]\n"
                 "\n"
                 "  mmc: Poisson arrivals at rate util * (servers / gpus-per-job) / mean-s and exponential\n"
                 "       durations of mean mean-s (default 1) seconds; G GPUs per job (default 1).\n"
                 "       Replaying it under policy 'whole' on C GPUs is an M/M/c queue (Erlang C).\n"
                 "  --out FILE writes atomically; without it the trace goes to stdout.\n"
                 "       gpusim gen agents --sessions N ...   agent sessions and bursts (gen agents --help)\n"
                 "       gpusim gen training [--jobs N] ...   a day of training jobs (gen training --help)\n"
                 "       gpusim gen openb-variant --pods FILE --family F --pct P   an FGD-style openb variant\n");
}

static int emit_mmc(FILE *out, void *ud, gs_error *err) { return wl_gen_mmc(out, ud, err); }

static int gen_mmc(int argc, char **argv);

const cli_family cli_generators[] = {
    {"mmc", gen_mmc, "Poisson arrivals and exponential durations: an M/M/c queue (Erlang C)", NULL},
    {"agents", cmd_gen_agents, "agent sessions (a sandbox each) and their bursts of activity", NULL},
    {"training", cmd_gen_training, "a day of training jobs from a Helios cluster's figures (Hu et al., SC '21)", NULL},
    {"openb-variant", cmd_gen_openb, "an openb pod list resampled like the FGD paper's variants", NULL},
    {NULL, NULL, NULL, NULL},
};

int cmd_gen(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        gen_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (const cli_family *g = cli_generators; g->name; g++)
        if (!strcmp(argv[1], g->name))
            return g->run(argc, argv);
    fprintf(stderr, "gpusim: error: unknown generator '%s' (generators:", argv[1]);
    for (const cli_family *g = cli_generators; g->name; g++)
        fprintf(stderr, "%s %s", g == cli_generators ? "" : ",", g->name);
    fprintf(stderr, ")\n");
    return 2;
}

static int gen_mmc(int argc, char **argv)
{
    static const struct option opts[] = {
        {"jobs", required_argument, 0, 'n'}, {"servers", required_argument, 0, 'c'},
        {"util", required_argument, 0, 'u'}, {"mean-s", required_argument, 0, 'm'},
        {"gpus-per-job", required_argument, 0, 'g'}, {"seed", required_argument, 0, 's'},
        {"out", required_argument, 0, 'o'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    wl_mmc_opts o = {.jobs = -1, .servers = -1, .util = -1, .mean_s = 1.0, .gpus_per_job = 1, .seed = 1};
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    long l = 0;
    bool ok = true;
    while (ok && (c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        /* the bounds keep the trace writable (1e8 rows, a few GB) and the load meaningful */
        switch (c) {
        case 'n': ok = cli_opt_long("--jobs", optarg, 0, 100000000L, &l), o.jobs = l; break;
        case 'c': ok = cli_opt_long("--servers", optarg, 1, 1000000L, &l), o.servers = (int)l; break;
        case 'u': ok = cli_opt_num("--util", optarg, 0, 10, &o.util); break;
        case 'm': ok = cli_opt_num("--mean-s", optarg, 0, 1e9, &o.mean_s); break;
        case 'g': ok = cli_opt_long("--gpus-per-job", optarg, 1, 64, &l), o.gpus_per_job = (int)l; break;
        case 's':
            if (!cli_opt_seed(optarg, &o.seed))
                return 2;
            break;
        case 'o': out_path = optarg; break;
        case 'h': gen_usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: gen: unknown or incomplete option '%s'\ntry 'gpusim gen --help'\n",
                    argv[optind]);
            return 2;
        }
    }
    if (!ok)
        return 2;
    if (o.jobs < 0 || o.servers < 1 || !(o.util > 0) || !(o.mean_s > 0) || o.gpus_per_job < 1 ||
        o.gpus_per_job > 64) {
        fprintf(stderr, "gpusim: error: gen mmc: need --jobs >= 0, --servers >= 1, --util > 0, --mean-s > 0, "
                        "--gpus-per-job 1..64\ntry 'gpusim gen --help'\n");
        return 2;
    }
    gs_error err = {0};
    int rc = cli_emit(out_path, emit_mmc, &o, &err);
    return rc ? cli_fail(&err) : 0;
}
