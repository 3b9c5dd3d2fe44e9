/* cli_gen_agents.c - `gpusim gen agents`: agent sessions.
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
            "usage: gpusim gen agents --sessions N [--hours H] [--session-mean-s S] [--session-min-s S]\n"
            "                         [--burst-mean-s S] [--gap-mean-s S] [--scheduled F] [--gpu-share F]\n"
            "                         [--cpu C] [--mem-gib G] [--seed N] [--out FILE]\n"
            "\n"
            "  Sessions arrive as a Poisson process over --hours (default 24), last --session-min-s\n"
            "  (default 600) plus an exponential of mean --session-mean-s minus that (default 7200), and ask\n"
            "  for --cpu cores (default 2), --mem-gib (default 8) and, with probability --gpu-share\n"
            "  (default 0), one GPU. Bursts (mean --burst-mean-s, default 120) and idle gaps (mean\n"
            "  --gap-mean-s, default 1800) alternate; a share --scheduled (default 0.2) of the bursts after\n"
            "  the first are scheduled wakes. --out FILE writes atomically; without it, stdout.\n");
}

static int emit_agents(FILE *out, void *ud, gs_error *err) { return wl_gen_agents(out, ud, err); }

int cmd_gen_agents(int argc, char **argv)
{
    static const struct option opts[] = {
        {"sessions", required_argument, 0, 'n'},     {"hours", required_argument, 0, 'H'},
        {"session-mean-s", required_argument, 0, 'L'}, {"session-min-s", required_argument, 0, 'l'},
        {"burst-mean-s", required_argument, 0, 'b'}, {"gap-mean-s", required_argument, 0, 'g'},
        {"scheduled", required_argument, 0, 'S'},    {"gpu-share", required_argument, 0, 'G'},
        {"cpu", required_argument, 0, 'c'},          {"mem-gib", required_argument, 0, 'm'},
        {"seed", required_argument, 0, 's'},         {"out", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},               {0, 0, 0, 0},
    };
    wl_agents_opts o = {.sessions = -1, .hours = 24, .session_mean_s = 7200, .session_min_s = 600,
                        .burst_mean_s = 120, .gap_mean_s = 1800, .scheduled_share = 0.2, .gpu_share = 0,
                        .cpu = 2, .mem_gib = 8, .seed = 1};
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    long l = 0;
    bool ok = true;
    while (ok && (c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
        /* the trace reader's ranges for cpu and mem_gib; counts and spans that keep the trace writable */
        switch (c) {
        case 'n': ok = cli_opt_long("--sessions", optarg, 0, 10000000L, &l), o.sessions = l; break;
        case 'H': ok = cli_opt_num("--hours", optarg, 0, 1e5, &o.hours); break;
        case 'L': ok = cli_opt_num("--session-mean-s", optarg, 0, 1e9, &o.session_mean_s); break;
        case 'l': ok = cli_opt_num("--session-min-s", optarg, 0, 1e9, &o.session_min_s); break;
        case 'b': ok = cli_opt_num("--burst-mean-s", optarg, 0, 1e9, &o.burst_mean_s); break;
        case 'g': ok = cli_opt_num("--gap-mean-s", optarg, 0, 1e9, &o.gap_mean_s); break;
        case 'S': ok = cli_opt_num("--scheduled", optarg, 0, 1, &o.scheduled_share); break;
        case 'G': ok = cli_opt_num("--gpu-share", optarg, 0, 1, &o.gpu_share); break;
        case 'c': ok = cli_opt_num("--cpu", optarg, 0, 1e6, &o.cpu); break;
        case 'm': ok = cli_opt_num("--mem-gib", optarg, 0, 1e9, &o.mem_gib); break;
        case 's':
            if (!cli_opt_seed(optarg, &o.seed))
                return 2;
            break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "gpusim: error: gen agents: unknown or incomplete option '%s'\n"
                            "try 'gpusim gen agents --help'\n", argv[optind]);
            return 2;
        }
    }
    if (!ok)
        return 2;
    if (o.sessions < 0 || !(o.hours > 0) || !(o.session_min_s >= 0) || !(o.session_mean_s > o.session_min_s) ||
        !(o.burst_mean_s > 0) || !(o.gap_mean_s > 0) || !(o.scheduled_share >= 0 && o.scheduled_share <= 1) ||
        !(o.gpu_share >= 0 && o.gpu_share <= 1) || !(o.cpu >= 0) || !(o.mem_gib >= 0) || !isfinite(o.hours)) {
        fprintf(stderr, "gpusim: error: gen agents: need --sessions >= 0, --hours > 0, --session-mean-s > "
                        "--session-min-s >= 0, --burst-mean-s > 0, --gap-mean-s > 0, --scheduled and --gpu-share "
                        "in 0..1, --cpu, --mem-gib >= 0\ntry 'gpusim gen agents --help'\n");
        return 2;
    }
    gs_error err = {0};
    int rc = cli_emit(out_path, emit_agents, &o, &err);
    return rc ? cli_fail(&err) : 0;
}
