/* cli_gen_training.c - `gpusim gen training`: a day of training jobs.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_gen.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim gen training [--jobs N] [--hours H] [--mix CLUSTER] [--max-gpus G]\n"
            "                           [--gpus-per-node P] [--overask F] [--max-hours H] [--seed N]\n"
            "                           [--out FILE]\n"
            "\n"
            "  Training jobs shaped like a Helios cluster's GPU jobs (Hu et al., SC '21): --mix venus,\n"
            "  earth, saturn (default) or uranus gives the job-size mix, the hourly submission rate, the\n"
            "  lognormal durations and the mean run time (reference/helios-jobs.csv). --jobs (default:\n"
            "  the cluster's mean day, scaled to --hours) over --hours (default 24); jobs above 64 GPUs\n"
            "  up to --max-gpus (default 1024); gpus_per_node for nodes of --gpus-per-node (default 8);\n"
            "  time_limit = duration x U(1, --overask) (default 3) rounded up to a round wall time;\n"
            "  no job or limit above --max-hours (default 168). --out FILE writes atomically; without\n"
            "  it, stdout. The model: workloads/README.md, \"gen training\".\n");
}

static int emit_training(FILE *out, void *ud, gs_error *err) { return wl_gen_training(out, ud, err); }

static int bad(const char *msg)
{
    fprintf(stderr, "gpusim: error: gen training: %s\ntry 'gpusim gen training --help'\n", msg);
    return 2;
}

int cmd_gen_training(int argc, char **argv)
{
    static const struct option opts[] = {
        {"jobs", required_argument, 0, 'n'},      {"hours", required_argument, 0, 'H'},
        {"mix", required_argument, 0, 'x'},       {"max-gpus", required_argument, 0, 'g'},
        {"gpus-per-node", required_argument, 0, 'p'}, {"overask", required_argument, 0, 'f'},
        {"max-hours", required_argument, 0, 'M'}, {"seed", required_argument, 0, 's'},
        {"out", required_argument, 0, 'o'},       {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    wl_training_opts o = {.jobs = -1, .hours = 24, .mix = "saturn", .max_gpus = 1024, .gpus_per_node = 8,
                          .overask = 3, .max_hours = 168, .seed = 1};
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'n':
            o.jobs = strtol(optarg, &end, 10);
            if (o.jobs < 0)
                return bad("--jobs: expected 0..1e8");
            break;
        case 'H': o.hours = strtod(optarg, &end); break;
        case 'x': o.mix = optarg; break;
        case 'g': o.max_gpus = (int)strtol(optarg, &end, 10); break;
        case 'p': o.gpus_per_node = (int)strtol(optarg, &end, 10); break;
        case 'f': o.overask = strtod(optarg, &end); break;
        case 'M': o.max_hours = strtod(optarg, &end); break;
        case 's':
            if (!cli_parse_u64(optarg, strlen(optarg), &o.seed)) {
                fprintf(stderr, "gpusim: error: --seed: expected an integer 0..18446744073709551615\n");
                return 2;
            }
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown or incomplete option '%s'", argv[optind]);
            return bad(msg);
        }
        }
        if (end && (*end || end == optarg)) {
            char msg[256];
            snprintf(msg, sizeof msg, "'%s' is not a number", optarg);
            return bad(msg);
        }
    }
    if (optind + 1 < argc)
        return bad("unexpected argument");
    if (!wl_training_mix_find(o.mix))
        return bad("--mix: expected venus, earth, saturn or uranus");
    if (o.jobs > 100000000 || !(o.hours > 0 && o.hours <= 1e5) || o.max_gpus < 65 || o.max_gpus > (1 << 20) ||
        o.gpus_per_node < 1 || o.gpus_per_node > 64 || !(o.overask >= 1 && o.overask <= 1000) ||
        !(o.max_hours >= 1.0 / 60 && o.max_hours <= 1e5) || !isfinite(o.hours))
        return bad("need --jobs 0..1e8, --hours in (0, 1e5], --max-gpus 65..1048576, --gpus-per-node 1..64, "
                   "--overask 1..1000, --max-hours 1/60..1e5");
    gs_error err = {0};
    int rc = cli_emit(out_path, emit_training, &o, &err);
    return rc ? cli_fail(&err) : 0;
}
