/* cli_gen_training.c - `gpusim gen training`: a day of training jobs.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
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
    long l = 0;
    /* every value through the strict parser (cli_opt_num/long: no hex,
     * blanks or '+'; a range checked before any cast) */
    while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'n': ok = cli_opt_long("--jobs", optarg, 0, 100000000, &o.jobs); break;
        case 'H':
            if (!gs_num_double(optarg, 0, 1e5, &o.hours) || !(o.hours > 0)) {
                fprintf(stderr, "gpusim: error: --hours: expected a number above 0 up to 100000, found '%s'\n", optarg);
                return 2;
            }
            break;
        case 'x': o.mix = optarg; break;
        case 'g':
            ok = cli_opt_long("--max-gpus", optarg, 65, 1 << 20, &l);
            o.max_gpus = (int)l;
            break;
        case 'p':
            ok = cli_opt_long("--gpus-per-node", optarg, 1, 64, &l);
            o.gpus_per_node = (int)l;
            break;
        case 'f': ok = cli_opt_num("--overask", optarg, 1, 1000, &o.overask); break;
        case 'M': ok = cli_opt_num("--max-hours", optarg, 1.0 / 60, 1e5, &o.max_hours); break;
        case 's':
            if (!cli_opt_seed(optarg, &o.seed))
                return 2;
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown or incomplete option '%s'", argv[optind]);
            return bad(msg);
        }
        }
        if (!ok)
            return 2;
    }
    if (optind + 1 < argc)
        return bad("unexpected argument");
    if (!wl_training_mix_find(o.mix))
        return bad("--mix: expected venus, earth, saturn or uranus");
    gs_error err = {0};
    int rc = cli_emit(out_path, emit_training, &o, &err);
    return rc ? cli_fail(&err) : 0;
}
