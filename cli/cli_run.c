/* cli_run.c - `gpusim run`: load models and cluster, run, write the report.
 *
 * Output goes to --out DIR (default results/<trace name>.<policy>/):
 * report.json and timeseries.csv, each written to a temporary file and
 * renamed only when the whole run succeeded.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/gs_file.h"
#include "../base/gs_json.h"
#include "../base/gs_outdir.h"
#include "cli.h"
#include "../sim/sim_cluster_file.h"
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
            "  --price MODEL=USD       price per GPU-hour of a model's cards (repeatable; wins over the cluster\n"
            "                          file's price_per_gpu_hour_usd and the model file's list price)\n"
            "  --mig LAYOUT            with --gpus: MIG on every card that has it: all-<profile>, balanced, whole,\n"
            "                          dynamic (empty cards, for dynmig), or the JSON of a cluster file's \"mig\"\n"
            "  --seed N                run seed (default 1)\n"
            "  --set KEY=VALUE         policy parameter (repeatable)\n"
            "  --out DIR               output directory (default results/<trace>.<policy>/, on another cluster\n"
            "                          than the shipped one results/<trace>.<cluster name or --gpus>.<policy>/)\n"
            "  --json                  also print report.json to stdout (instead of the summary)\n"
            "  --until SECONDS         stop the simulation at this time\n"
            "  --sample-s SECONDS      timeseries step, 0.001 s or more (default 60; 0 = no timeseries); at most\n"
            "                          100000 rows: at the cap the step doubles and every second row is dropped\n"
            "  --allow-extra-columns   ignore unknown trace columns\n"
            "  --models DIR            GPU model directory (default models/gpu beside the binary)\n"
            "  --mode run|fill         fill: the fill-up experiment (FGD, ATC'23): tasks in seeded random order,\n"
            "                          never departing, until --fill-to x the cluster's GPUs were requested;\n"
            "                          writes report.json and fill.csv (default out results/<trace>.<policy>.fill/)\n"
            "  --fill-to X             fill mode: multiple of capacity to request (default 1.3)\n"
            "  --seeds A..B            fill mode: average seeds A to B (default: --seed)\n");
}

/* The simulation's own peak resident memory. ru_maxrss is not it: Linux
 * keeps it across exec, so a run started by a large harness (a Python
 * benchmark script) reports the harness's peak. VmHWM in /proc/self/status
 * is this process image's high-water mark, and writing 5 to
 * /proc/self/clear_refs resets it to the current RSS: rss_reset() is called
 * just before the run is set up, so the figure is the peak from there on
 * (the binary, the cluster, the run's own state; not what loading models
 * touched and gave back). Where /proc is missing, ru_maxrss. */
static void rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static double peak_rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        long kib = -1;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
                break;
        fclose(f);
        if (kib >= 0)
            return (double)kib / 1024.0;
    }
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
            (unsigned long long)sim_events(s), wall > 0 ? (double)sim_events(s) / wall : 0.0);
    p->last = now;
    p->shown = true;
}

static bool parse_seconds_arg(const char *s, gs_time_us *out)
{
    char *end;
    double v = cli_strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 9e12)
        return false;
    *out = (gs_time_us)(v * 1e6 + 0.5);
    return true;
}

static void default_out(char *buf, size_t n, const char *trace, const char *cluster, const char *policy)
{
    const char *base = strrchr(trace, '/');
    base = base ? base + 1 : trace;
    size_t l = strlen(base);
    if (l > 4 && strcmp(base + l - 4, ".csv") == 0)
        l -= 4;
    if (!cluster) {
        snprintf(buf, n, "results/%.*s.%s", (int)l, base, policy);
        return;
    }
    char slug[100];
    size_t k = 0;
    for (const char *c = cluster; *c && k + 1 < sizeof slug; c++)
        slug[k++] = (char)(isalnum((unsigned char)*c) || *c == '-' || *c == '.' ? *c : '_');
    slug[k] = 0;
    snprintf(buf, n, "results/%.*s.%s.%s", (int)l, base, slug, policy);
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
        {"seeds", required_argument, 0, 'D'},   {"mig", required_argument, 0, 'G'},
        {"price", required_argument, 0, '$'},
        {0, 0, 0, 0},
    };
    static sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.registry = pol_all();
    cfg.seed = 1;
    cfg.sample_us = 60 * GS_US_PER_S;
    const char *cluster_path = NULL, *gpus_spec = NULL, *out_dir = NULL, *models_dir = NULL, *mig = NULL;
    long gpn = 8;
    bool json = false, fill = false, seeds_given = false, fill_to_given = false;
    const char *prices[16];
    int nprices = 0;
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
        case 'G': mig = optarg; break;
        case '$':
            if (nprices == 16)
                return cli_fail(&(gs_error){GS_EUSAGE, "--price: at most 16"});
            prices[nprices++] = optarg;
            break;
        case 'n':
            gpn = cli_strtol(optarg, &end);
            if (*end || gpn < 1 || gpn > CL_MAX_NODE_GPUS)
                return cli_fail(&(gs_error){GS_EUSAGE, "--gpus-per-node: expected an integer 1..64"});
            break;
        case 's':
            if (!cli_parse_u64(optarg, strlen(optarg), &cfg.seed))
                return cli_fail(&(gs_error){GS_EUSAGE, "--seed: expected an integer 0..18446744073709551615"});
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
            /* below a millisecond a row per step says nothing the events do not;
             * the row cap (sim_timeseries.h) bounds the file either way */
            if (!parse_seconds_arg(optarg, &cfg.sample_us) || (cfg.sample_us > 0 && cfg.sample_us < 1000))
                return cli_fail(&(gs_error){GS_EUSAGE, "--sample-s: expected 0 (no timeseries) or seconds "
                                                       "from 0.001 to 9e12"});
            break;
        case 'x': cfg.allow_extra_columns = true; break;
        case 'm': models_dir = optarg; break;
        case 'M':
            if (strcmp(optarg, "run") && strcmp(optarg, "fill"))
                return cli_fail(&(gs_error){GS_EUSAGE, "--mode: expected run or fill"});
            fill = !strcmp(optarg, "fill");
            break;
        case 'F':
            fill_to_given = true;
            fo.fill_to = cli_strtod(optarg, &end);
            if (end == optarg || *end || !(fo.fill_to > 0 && fo.fill_to <= 10))
                return cli_fail(&(gs_error){GS_EUSAGE, "--fill-to: expected a number in (0, 10]"});
            break;
        case 'D': {
            uint64_t a, b;
            const char *dots = strstr(optarg, "..");
            if (dots && cli_parse_u64(optarg, (size_t)(dots - optarg), &a) && cli_parse_u64(dots + 2, strlen(dots + 2), &b) &&
                a <= b && b - a < 1000) {
                fo.seed_lo = a;
                fo.seed_hi = b;
            } else if (!dots && cli_parse_u64(optarg, strlen(optarg), &a)) {
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
    if (mig && !gpus_spec) {
        gs_err(&err, GS_EUSAGE, "run: --mig goes with --gpus (a cluster file says \"mig\" per node group)");
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
        if (rc == 0 && mig && (rc = sim_cluster_set_mig(&cl, mig, &err)) != 0)
            sim_cluster_free(&cl);
    } else {
        if (!cluster_path)
            cli_shipped_path(cpath, sizeof cpath, "workloads/examples/cluster.json");
        rc = sim_cluster_load(&cl, cluster_path ? cluster_path : cpath, &cat, &err);
    }
    for (int i = 0; rc == 0 && i < nprices; i++)
        if ((rc = sim_cluster_set_price(&cl, &cat, prices[i], &err)) != 0)
            sim_cluster_free(&cl);
    if (rc) {
        gpu_catalog_free(&cat);
        return cli_fail(&err);
    }
    if (out_dir)
        snprintf(odir, sizeof odir, "%s", out_dir);
    else
        default_out(odir, sizeof odir, cfg.trace_path, gpus_spec || cluster_path ? cl.name : NULL, cfg.policy);
    if (fill || seeds_given || fill_to_given) { /* the fill-up experiment (cli_fill.c) */
        sim_cluster_free(&cl);
        if (!fill) {
            gpu_catalog_free(&cat);
            return cli_fail(&(gs_error){GS_EUSAGE, "--seeds and --fill-to need --mode fill"});
        }
        if (mig) { /* the fill-up protocol places whole-card and shared tasks, not MIG instances */
            gpu_catalog_free(&cat);
            return cli_fail(&(gs_error){GS_EUSAGE, "--mig is not used by --mode fill"});
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

    /* Both files go to a temporary directory beside odir, put in place as
     * one unit at the end (gs_outdir.h): a failed or interrupted run leaves
     * nothing, and no reader sees the new report beside an old timeseries
     * (with --sample-s 0 an old timeseries.csv in odir is removed). */
    static const char *const owned[] = {"timeseries.csv", "report.json", NULL};
    char ts_path[1200], rep_path[1200], ts_tmp[1300], rep_tmp[1300];
    snprintf(ts_path, sizeof ts_path, "%s/timeseries.csv", odir);
    snprintf(rep_path, sizeof rep_path, "%s/report.json", odir);
    FILE *ts = NULL;
    sim *s = sim_create();
    gs_outdir od;
    /* Two clocks: setup (sim_init: nodes, cards, policy state, built once
     * per run and growing with the cluster) and the event loop (sim_run:
     * reading the trace and every event). sim.wall_s and events_per_s are
     * the loop's alone, so a per-event cost is not the setup spread over
     * the events; sim.setup_s is the setup's. sim.cpu_s is the loop's
     * process CPU time: on a shared machine it moves less with load than
     * wall time does (the benches' per-event figures use it). */
    struct timespec t0, t_loop, t1, c_loop, c1;
    rss_reset();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = sim_init(s, &cfg, &cat, &cl, NULL, &err);
    bool begun = false;
    if (rc == 0 && (rc = gs_outdir_begin(&od, odir, owned, &err)) == 0) {
        begun = true;
        gs_outdir_file(&od, "timeseries.csv", ts_tmp, sizeof ts_tmp);
        gs_outdir_file(&od, "report.json", rep_tmp, sizeof rep_tmp);
        if (cfg.sample_us > 0) {
            ts = fopen(ts_tmp, "w");
            if (!ts)
                rc = gs_err(&err, GS_EWRITE, "cannot write '%s': %s", ts_tmp, strerror(errno));
            sim_set_timeseries(s, ts);
        }
    }
    progress prog = {.t0 = t0};
    if (rc == 0 && isatty(STDERR_FILENO)) {
        sim_set_progress(s, show_progress, &prog);
    }
    for (int w = 0; rc == 0 && w < sim_nwarnings(s); w++)
        fprintf(stderr, "gpusim: warning: %s\n", sim_warning(s, w));
    clock_gettime(CLOCK_MONOTONIC, &t_loop);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c_loop);
    if (rc == 0 && (rc = sim_run(s)) != 0)
        err = *sim_error(s);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (prog.shown)
        fprintf(stderr, "\r\033[K"); /* erase the progress line */
    double setup_s = since(&t0, &t_loop), wall_s = since(&t_loop, &t1);
    if (ts && (fclose(ts) != 0) && rc == 0)
        rc = gs_err(&err, GS_EWRITE, "cannot write '%s'", ts_path);
    cJSON *rep = NULL;
    char *text = NULL;
    if (rc == 0) {
        rep = sim_report_build(s, wall_s, peak_rss_mib());
        cJSON *sm = cJSON_GetObjectItemCaseSensitive(rep, "sim");
        cJSON_AddNumberToObject(sm, "setup_s", setup_s);
        cJSON_AddNumberToObject(sm, "cpu_s", since(&c_loop, &c1));
        size_t n;
        text = gs_json_print(rep, &n);
        rc = gs_write_atomic(rep_tmp, text, n, &err);
        /* a service whose replica fits no card is never served: say so
         * even when the summary is not printed */
        const cJSON *sv, *svcs = cJSON_GetObjectItemCaseSensitive(rep, "services");
        cJSON_ArrayForEach(sv, svcs)
        {
            const cJSON *why = cJSON_GetObjectItemCaseSensitive(sv, "unplaceable_reason");
            if (cJSON_IsString(why))
                fprintf(stderr, "gpusim: warning: service '%s' fits no card of the cluster and is never served: %s\n",
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id")), why->valuestring);
        }
    }
    if (rc == 0)
        rc = gs_outdir_commit(&od, &err);
    if (rc != 0) {
        if (begun)
            gs_outdir_abort(&od);
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
    sim_destroy(s);
    sim_cluster_free(&cl);
    gpu_catalog_free(&cat);
    return rc ? cli_fail(&err) : 0;
}
