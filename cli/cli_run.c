/* cli_run.c - `gpusim run`: load models and cluster, run, write the report.
 *
 * Output goes to --out DIR (default results/<trace name>.<policy>/):
 * report.json and timeseries.csv, each written to a temporary file and
 * renamed only when the whole run succeeded.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../base/gs_file.h"
#include "cli.h"
#include "../sim/sim.h"
#include "../policies/registry.h"
#include "../sim/sim_report.h"

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim run --trace FILE --policy NAME[+TIME_POLICY...] [options]\n"
            "\n"
            "  --trace FILE            trace, CSV format v1 (workloads/README.md)\n"
            "  --policy NAME           space policy, optionally +time policies ('gpusim policies')\n"
            "  --cluster FILE          cluster JSON (default: workloads/examples/cluster.json)\n"
            "  --gpus MODEL:N[,...]    cluster shorthand instead of --cluster ('gpusim models')\n"
            "  --gpus-per-node N       GPUs per node for --gpus (default 8)\n"
            "  --seed N                run seed (default 1)\n"
            "  --set KEY=VALUE         policy parameter (repeatable)\n"
            "  --out DIR               output directory (default results/<trace>.<policy>/)\n"
            "  --json                  also print report.json to stdout (instead of the summary)\n"
            "  --until SECONDS         stop the simulation at this time\n"
            "  --sample-s SECONDS      timeseries step (default 60; 0 = no timeseries)\n"
            "  --allow-extra-columns   ignore unknown trace columns\n"
            "  --models DIR            GPU model directory (default models/gpu beside the binary)\n"
            "  --mode run|fill         fill: the fill-up experiment (FGD, ATC'23): tasks in seeded random order,\n"
            "                          never departing, until --fill-to x the cluster's GPUs were requested;\n"
            "                          writes report.json and fill.csv (default out results/<trace>.<policy>.fill/)\n"
            "  --fill-to X             fill mode: multiple of capacity to request (default 1.3)\n"
            "  --seeds A..B            fill mode: average seeds A to B (default: --seed)\n");
}

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* ru_maxrss is KiB on Linux */
}

/* Progress on a terminal: simulated time reached and events/s,
 * at most 4 lines a second, rewritten in place with \r and erased at the
 * end. Not shown when stderr is not a terminal (CI logs, compare's runs). */
typedef struct progress {
    struct timespec t0, last;
    bool shown;
} progress;

static double since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void show_progress(void *ud, const sim *s)
{
    progress *p = ud;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (p->shown && since(&p->last, &now) < 0.25)
        return;
    double wall = since(&p->t0, &now);
    fprintf(stderr, "\rgpusim: simulated %.2f h, %llu events, %.0f events/s ", gs_us_to_s(sim_now(s)) / 3600.0,
            (unsigned long long)s->events, wall > 0 ? (double)s->events / wall : 0.0);
    p->last = now;
    p->shown = true;
}

static bool parse_seconds_arg(const char *s, gs_time_us *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 9e12)
        return false;
    *out = (gs_time_us)(v * 1e6 + 0.5);
    return true;
}

static void default_out(char *buf, size_t n, const char *trace, const char *policy)
{
    const char *base = strrchr(trace, '/');
    base = base ? base + 1 : trace;
    size_t l = strlen(base);
    if (l > 4 && strcmp(base + l - 4, ".csv") == 0)
        l -= 4;
    snprintf(buf, n, "results/%.*s.%s", (int)l, base, policy);
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"trace", required_argument, 0, 't'},   {"policy", required_argument, 0, 'p'},
        {"cluster", required_argument, 0, 'c'}, {"gpus", required_argument, 0, 'g'},
        {"gpus-per-node", required_argument, 0, 'n'}, {"seed", required_argument, 0, 's'},
        {"set", required_argument, 0, 'S'},     {"out", required_argument, 0, 'o'},
        {"json", no_argument, 0, 'j'},          {"until", required_argument, 0, 'u'},
        {"sample-s", required_argument, 0, 'i'}, {"allow-extra-columns", no_argument, 0, 'x'},
        {"models", required_argument, 0, 'm'},  {"help", no_argument, 0, 'h'},
        {"mode", required_argument, 0, 'M'},    {"fill-to", required_argument, 0, 'F'},
        {"seeds", required_argument, 0, 'D'},
        {0, 0, 0, 0},
    };
    static sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.registry = pol_all();
    cfg.seed = 1;
    cfg.sample_us = 60 * GS_US_PER_S;
    const char *cluster_path = NULL, *gpus_spec = NULL, *out_dir = NULL, *models_dir = NULL;
    long gpn = 8;
    bool json = false, fill = false, seeds_given = false;
    cli_fill_opts fo = {.fill_to = 1.3};
    gs_error err = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 't': cfg.trace_path = optarg; break;
        case 'p': cfg.policy = optarg; break;
        case 'c': cluster_path = optarg; break;
        case 'g': gpus_spec = optarg; break;
        case 'n':
            gpn = strtol(optarg, &end, 10);
            if (*end || gpn < 1 || gpn > CL_MAX_NODE_GPUS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--gpus-per-node: expected an integer 1..64"});
            break;
        case 's':
            cfg.seed = strtoull(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-')
                return cli_fail(&(gs_error){GS_EUSAGE, "--seed: expected a non-negative integer"});
            break;
        case 'S': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg)
                return cli_fail(&(gs_error){GS_EUSAGE, "--set: expected KEY=VALUE"});
            if (cfg.nsets == SIM_MAX_SETS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--set: too many parameters"});
            *eq = 0;
            cfg.sets[cfg.nsets].key = optarg;
            cfg.sets[cfg.nsets++].value = eq + 1;
            break;
        }
        case 'o': out_dir = optarg; break;
        case 'j': json = true; break;
        case 'u':
            if (!parse_seconds_arg(optarg, &cfg.until_us) || cfg.until_us == 0)
                return cli_fail(&(gs_error){GS_EUSAGE, "--until: expected a positive number of seconds"});
            break;
        case 'i':
            if (!parse_seconds_arg(optarg, &cfg.sample_us))
                return cli_fail(&(gs_error){GS_EUSAGE, "--sample-s: expected a non-negative number of seconds"});
            break;
        case 'x': cfg.allow_extra_columns = true; break;
        case 'm': models_dir = optarg; break;
        case 'M':
            if (strcmp(optarg, "run") && strcmp(optarg, "fill"))
                return cli_fail(&(gs_error){GS_EUSAGE, "--mode: expected run or fill"});
            fill = !strcmp(optarg, "fill");
            break;
        case 'F':
            fo.fill_to = strtod(optarg, &end);
            if (end == optarg || *end || !(fo.fill_to > 0 && fo.fill_to <= 10))
                return cli_fail(&(gs_error){GS_EUSAGE, "--fill-to: expected a number in (0, 10]"});
            break;
        case 'D': {
            unsigned long long a, b;
            int used = 0;
            if (sscanf(optarg, "%llu..%llu%n", &a, &b, &used) == 2 && !optarg[used] && a <= b && b - a < 1000) {
                fo.seed_lo = a;
                fo.seed_hi = b;
            } else if (sscanf(optarg, "%llu%n", &a, &used) == 1 && !optarg[used]) {
                fo.seed_lo = fo.seed_hi = a;
            } else {
                return cli_fail(&(gs_error){GS_EUSAGE, "--seeds: expected A..B (at most 1000 seeds) or N"});
            }
            seeds_given = true;
            break;
        }
        case 'h': run_usage(stdout); return 0;
        default:
            gs_err(&err, GS_EUSAGE, "run: unknown or incomplete option '%s'", argv[optind - 1]);
            return cli_fail(&err);
        }
    }
    if (optind < argc) {
        gs_err(&err, GS_EUSAGE, "run: unexpected argument '%s'", argv[optind]);
        return cli_fail(&err);
    }
    if (!cfg.trace_path || !cfg.policy) {
        gs_err(&err, GS_EUSAGE, "run: --trace and --policy are required");
        return cli_fail(&err);
    }
    if (cluster_path && gpus_spec) {
        gs_err(&err, GS_EUSAGE, "run: give --cluster or --gpus, not both");
        return cli_fail(&err);
    }

    char mdir[512], cpath[512], odir[1024];
    if (models_dir)
        snprintf(mdir, sizeof mdir, "%s", models_dir);
    else
        gpu_catalog_default_dir(mdir, sizeof mdir);
    gpu_catalog cat;
    int rc = gpu_catalog_load(&cat, mdir, &err);
    if (rc)
        return cli_fail(&err);
    sim_cluster cl;
    if (gpus_spec) {
        rc = sim_cluster_from_spec(&cl, gpus_spec, (int)gpn, &cat, &err);
    } else {
        if (!cluster_path)
            cli_shipped_path(cpath, sizeof cpath, "workloads/examples/cluster.json");
        rc = sim_cluster_load(&cl, cluster_path ? cluster_path : cpath, &cat, &err);
    }
    if (rc) {
        gpu_catalog_free(&cat);
        return cli_fail(&err);
    }
    if (out_dir)
        snprintf(odir, sizeof odir, "%s", out_dir);
    else
        default_out(odir, sizeof odir, cfg.trace_path, cfg.policy);
    if (fill || seeds_given || fo.fill_to != 1.3) { /* the fill-up experiment (cli_fill.c) */
        sim_cluster_free(&cl);
        if (!fill) {
            gpu_catalog_free(&cat);
            return cli_fail(&(gs_error){GS_EUSAGE, "--seeds and --fill-to need --mode fill"});
        }
        if (!seeds_given)
            fo.seed_lo = fo.seed_hi = cfg.seed;
        if (!out_dir)
            strncat(odir, ".fill", sizeof odir - strlen(odir) - 1);
        cli_cluster_src src = {cluster_path, gpus_spec, (int)gpn};
        rc = cli_run_fill(&cfg, &cat, &src, odir, &fo, json);
        gpu_catalog_free(&cat);
        return rc;
    }

    /* The timeseries goes to a temporary file first: a run that fails midway
     * leaves no partial result behind. */
    char ts_tmp[1300], ts_path[1200], rep_path[1200];
    snprintf(ts_path, sizeof ts_path, "%s/timeseries.csv", odir);
    snprintf(rep_path, sizeof rep_path, "%s/report.json", odir);
    snprintf(ts_tmp, sizeof ts_tmp, "%s.tmp.%ld", ts_path, (long)getpid());
    FILE *ts = NULL;
    sim s;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = sim_init(&s, &cfg, &cat, &cl, NULL, &err);
    bool made_odir = access(odir, F_OK) != 0; /* a failed run removes the directory it made */
    if (rc == 0 && (rc = gs_mkdirs(odir, &err)) == 0 && cfg.sample_us > 0) {
        ts = fopen(ts_tmp, "w");
        if (!ts)
            rc = gs_err(&err, GS_EWRITE, "cannot write '%s'", ts_path);
        sim_set_timeseries(&s, ts);
    }
    progress prog = {.t0 = t0};
    if (rc == 0 && isatty(STDERR_FILENO)) {
        s.progress = show_progress;
        s.progress_ud = &prog;
    }
    if (rc == 0 && (rc = sim_run(&s)) != 0)
        err = s.err;
    if (prog.shown)
        fprintf(stderr, "\r\033[K"); /* erase the progress line */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (ts && (fclose(ts) != 0) && rc == 0)
        rc = gs_err(&err, GS_EWRITE, "cannot write '%s'", ts_path);
    cJSON *rep = NULL;
    char *text = NULL;
    if (rc == 0) {
        rep = sim_report_build(&s, wall_s, peak_rss_mib());
        text = cJSON_Print(rep);
        size_t n = strlen(text);
        text = xrealloc(text, n + 2);
        text[n] = '\n';
        text[n + 1] = 0;
        rc = gs_write_atomic(rep_path, text, n + 1, &err);
    }
    if (rc == 0 && ts && rename(ts_tmp, ts_path) != 0)
        rc = gs_err(&err, GS_EWRITE, "cannot rename '%s' to '%s'", ts_tmp, ts_path);
    if (rc != 0) {
        if (ts)
            unlink(ts_tmp);
        if (made_odir)
            rmdir(odir); /* only if empty: never anything the user put there */
    } else if (json) {
        fputs(text, stdout);
    } else {
        sim_report_summary(stdout, rep);
        printf("report: %s\n", rep_path);
        if (ts)
            printf("timeseries: %s\n", ts_path);
    }
    free(text);
    cJSON_Delete(rep);
    sim_free(&s);
    sim_cluster_free(&cl);
    gpu_catalog_free(&cat);
    return rc ? cli_fail(&err) : 0;
}
