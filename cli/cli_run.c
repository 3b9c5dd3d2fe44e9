/* cli_run.c - `gpusim run`: load models and cluster, run, write the report.
 *
 * Output goes to --out DIR (default results/<trace name>.<policy>/):
 * report.json and timeseries.csv, each written to a temporary file and
 * renamed only when the whole run succeeded.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
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
#include "../base/gs_num.h"
#include "../base/gs_outdir.h"
#include "cli.h"
#include "cli_opts.h"
#include "trace_facts.h"
#include "../sim/sim_cluster_file.h"
#include "../sim/sim.h"
#include "../sim/sim_jobs_csv.h"
#include "../policies/registry.h"
#include "../sim/sim_report.h"

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
 * end. When stderr is not a terminal (a CI log, a batch job), a long run
 * still says it is alive: a line every log_s seconds (GPUSIM_PROGRESS=S,
 * default 10) once it has run that long (a short run prints nothing). Off
 * for the runs compare, plan and sweep start (GPUSIM_PROGRESS=off: their
 * stderr.log holds the error). stderr only: the report is the same either
 * way. */
typedef struct progress {
    struct timespec t0, last;
    bool shown, tty;
    double log_s;
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
    double wall = since(&p->t0, &now);
    if (!p->tty) {
        if (since(p->shown ? &p->last : &p->t0, &now) < p->log_s)
            return;
        fprintf(stderr, "gpusim: simulated %.2f h, %llu events, %.0f events/s\n", gs_us_to_s(sim_now(s)) / 3600.0,
                (unsigned long long)sim_events(s), wall > 0 ? (double)sim_events(s) / wall : 0.0);
        p->last = now;
        p->shown = true;
        return;
    }
    if (p->shown && since(&p->last, &now) < 0.25)
        return;
    fprintf(stderr, "\rgpusim: simulated %.2f h, %llu events, %.0f events/s ", gs_us_to_s(sim_now(s)) / 3600.0,
            (unsigned long long)sim_events(s), wall > 0 ? (double)sim_events(s) / wall : 0.0);
    p->last = now;
    p->shown = true;
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

/* {==== options ====} */

typedef struct run_args {
    cli_opts o;
    sim_config cfg;
    bool json, fill, seeds_given, fill_to_given, jobs_csv;
    const char *mode;
    cli_fill_opts fo;
} run_args;

/* --sample-s: 0 (no timeseries) or a step from a millisecond: below that a
 * row per step says nothing the events do not; the row cap
 * (sim_timeseries.h) bounds the file either way. */
static int parse_sample(const char *opt, const char *v, void *p, gs_error *err)
{
    double x;
    if (!gs_num_double(v, 0, 9e12, &x) || (x > 0 && x < 0.001))
        return gs_err(err, GS_EUSAGE, "--%s: expected 0 (no timeseries) or seconds from 0.001 to 9e12", opt);
    *(gs_time_us *)p = (gs_time_us)(x * 1e6 + 0.5);
    return 0;
}

/* --seeds A..B (at most 1000) or N, into the fill options. */
static int parse_fill_seeds(const char *opt, const char *v, void *p, gs_error *err)
{
    run_args *a = p;
    uint64_t lo, hi;
    const char *dots = strstr(v, "..");
    if (dots && cli_parse_u64(v, (size_t)(dots - v), &lo) && cli_parse_u64(dots + 2, strlen(dots + 2), &hi) &&
        lo <= hi && hi - lo < 1000) {
        a->fo.seed_lo = lo;
        a->fo.seed_hi = hi;
    } else if (!dots && cli_parse_u64(v, strlen(v), &lo)) {
        a->fo.seed_lo = a->fo.seed_hi = lo;
    } else {
        return gs_err(err, GS_EUSAGE, "--%s: expected A..B (at most 1000 seeds) or N", opt);
    }
    a->seeds_given = true;
    return 0;
}

static const char run_synopsis[] = "usage: gpusim run --trace FILE --policy NAME[+TIME_POLICY...] [options]\n\n";

/* Parses and checks the options; the --set values split into cfg.sets
 * (argv's strings cut at '='). 0, 1 after --help, or GS_EUSAGE. */
static int run_options(int argc, char **argv, run_args *a, gs_error *err)
{
    sim_config *cfg = &a->cfg;
    double fill_to = 0;
    const cli_opt table[] = {
        CLI_SHARED(CLI_OPT_TRACE, NULL),
        {.name = "policy", .arg = "NAME", .kind = CLI_ARG_STR, .p = &cfg->policy,
         .help = "space policy, optionally +time policies ('gpusim policies')"},
        CLI_SHARED(CLI_OPT_CLUSTER, NULL),
        CLI_SHARED(CLI_OPT_GPUS, NULL),
        CLI_SHARED(CLI_OPT_GPUS_PER_NODE, NULL),
        CLI_SHARED(CLI_OPT_PRICE, NULL),
        CLI_SHARED(CLI_OPT_MIG, NULL),
        {.name = "seed", .arg = "N", .kind = CLI_ARG_FN, .fn = cli_opts_u64, .p = &cfg->seed,
         .help = "run seed (default 1)"},
        CLI_SHARED(CLI_OPT_SET, NULL),
        CLI_SHARED(CLI_OPT_OUT, "output directory (default results/<trace>.<policy>/, on another cluster\n"
                                "than the shipped one results/<trace>.<cluster name or --gpus>.<policy>/)"),
        {.name = "json", .kind = CLI_ARG_FLAG, .p = &a->json,
         .help = "print report.json to stdout instead of the summary (both write it to --out)"},
        CLI_SHARED(CLI_OPT_UNTIL, NULL),
        {.name = "sample-s", .arg = "SECONDS", .kind = CLI_ARG_FN, .fn = parse_sample, .p = &cfg->sample_us,
         .help = "timeseries step, 0.001 s or more (default 60; 0 = no timeseries); at most\n"
                 "100000 rows: at the cap the step doubles and every second row is dropped"},
        {.name = "jobs-csv", .kind = CLI_ARG_FLAG, .p = &a->jobs_csv,
         .help = "also write OUT/jobs.csv: a row per job, session and service replica as it\n"
                 "ends (submit, start, end, queue, JCT, GPUs, card model, node, slowdown,\n"
                 "preemptions, interruptions, with failures on the effective-time ratio,\n"
                 "outcome and reason)"},
        {.name = "allow-extra-columns", .kind = CLI_ARG_FLAG, .p = &cfg->allow_extra_columns,
         .help = "ignore unknown trace columns"},
        {.name = "check-all-columns", .kind = CLI_ARG_FLAG, .p = &cfg->check_all_columns,
         .help = "read and check every trace column, also those this run's configuration\n"
                 "never reads (else left unread, named on stderr and in inputs.unread_columns)"},
        CLI_SHARED(CLI_OPT_MODELS, NULL),
        {.name = "mode", .arg = "run|fill", .kind = CLI_ARG_CHOICE, .choices = "run,fill", .p = &a->mode,
         .help = "fill: the fill-up experiment (FGD, ATC'23): tasks in seeded random order,\n"
                 "never departing, until --fill-to x the cluster's GPUs were requested;\n"
                 "writes report.json and fill.csv (default out results/<trace>.<policy>.fill/)"},
        {.name = "fill-to", .arg = "X", .kind = CLI_ARG_NUM, .lo = 0, .lo_open = true, .hi = 10, .p = &fill_to,
         .help = "fill mode: multiple of capacity to request (default 1.3)"},
        {.name = "seeds", .arg = "A..B", .kind = CLI_ARG_FN, .fn = parse_fill_seeds, .p = a,
         .help = "fill mode: average seeds A to B (default: --seed)"},
        {.name = "max-work", .arg = "N", .kind = CLI_ARG_NUM, .lo = 1, .hi = 1e18, .p = &cfg->max_work,
         .help = "the most events generated rows may ask for (default 1e9, else $GPUSIM_MAX_WORK);\n"
                 "a trace asking more is refused before the run with the estimate"},
        {0},
    };
    a->o.gpus_per_node = 8;
    int rc = cli_opts_parse("run", argc, argv, table, &a->o, run_synopsis, NULL, err);
    if (rc)
        return rc;
    cfg->trace_path = a->o.trace;
    cfg->until_us = a->o.until_us;
    const char *mw = getenv("GPUSIM_MAX_WORK"); /* the runs compare, plan and sweep start inherit it */
    if (cfg->max_work == 0 && mw && *mw && !gs_num_double(mw, 1, 1e18, &cfg->max_work))
        return gs_err(err, GS_EUSAGE, "GPUSIM_MAX_WORK: expected a number from 1 to 1e18, found '%s'", mw);
    a->fill = a->mode && !strcmp(a->mode, "fill");
    a->fill_to_given = fill_to > 0;
    if (a->fill_to_given)
        a->fo.fill_to = fill_to;
    if (!cfg->trace_path || !cfg->policy)
        return gs_err(err, GS_EUSAGE, "run: --trace and --policy are required");
    if (a->o.cluster && a->o.gpus)
        return gs_err(err, GS_EUSAGE, "run: give --cluster or --gpus, not both");
    if (a->o.mig && !a->o.gpus)
        return gs_err(err, GS_EUSAGE, "run: --mig goes with --gpus (a cluster file says \"mig\" per node group)");
    if (!a->fill && (a->seeds_given || a->fill_to_given))
        return gs_err(err, GS_EUSAGE, "--seeds and --fill-to need --mode fill");
    if (a->fill && a->jobs_csv) /* no job ever ends in the fill-up protocol */
        return gs_err(err, GS_EUSAGE, "--jobs-csv is not used by --mode fill");
    if (a->fill && a->o.mig) /* the fill-up protocol places whole-card and shared tasks, not MIG instances */
        return gs_err(err, GS_EUSAGE, "--mig is not used by --mode fill");
    for (int i = 0; i < a->o.nsets; i++) {
        char *kv = (char *)a->o.sets[i], *eq = strchr(kv, '=');
        *eq = 0;
        cfg->sets[cfg->nsets++] = (sim_set){.key = kv, .value = eq + 1};
    }
    return 0;
}

/* {==== the cluster ====} */

/* The model catalog and the cluster (a file, --gpus with --mig, or the
 * shipped example), with --price applied. 0 or the error; on success the
 * caller frees both. */
static int run_cluster(const run_args *a, gpu_catalog *cat, sim_cluster *cl, gs_error *err)
{
    char mdir[512], cpath[512];
    if (a->o.models)
        snprintf(mdir, sizeof mdir, "%s", a->o.models);
    else
        gpu_catalog_default_dir(mdir, sizeof mdir);
    int rc = gpu_catalog_load(cat, mdir, err);
    if (rc)
        return rc;
    if (a->o.gpus) {
        rc = sim_cluster_from_spec(cl, a->o.gpus, (int)a->o.gpus_per_node, cat, err);
        if (rc == 0 && a->o.mig && (rc = sim_cluster_set_mig(cl, a->o.mig, err)) != 0)
            sim_cluster_free(cl);
    } else {
        if (!a->o.cluster)
            cli_shipped_path(cpath, sizeof cpath, "workloads/examples/cluster.json");
        rc = sim_cluster_load(cl, a->o.cluster ? a->o.cluster : cpath, cat, err);
    }
    for (int i = 0; rc == 0 && i < a->o.nprices; i++)
        if ((rc = sim_cluster_set_price(cl, cat, a->o.prices[i], err)) != 0)
            sim_cluster_free(cl);
    if (rc)
        gpu_catalog_free(cat);
    return rc;
}

/* {==== one run ====} */

/* The two clocks of a run: setup (sim_init: nodes, cards, policy state,
 * built once per run and growing with the cluster) and the event loop
 * (sim_run: reading the trace and every event). sim.wall_s and
 * events_per_s are the loop's alone, so a per-event cost is not the setup
 * spread over the events; sim.setup_s is the setup's. sim.cpu_s is the
 * loop's process CPU time: on a shared machine it moves less with load than
 * wall time does (the benches' per-event figures use it). */
typedef struct run_clock {
    struct timespec t0, t_loop, t1, c_loop, c1;
} run_clock;

/* One warning line per reason jobs were rejected for (jobs.rejected_reasons). */
static void warn_rejected(const cJSON *rep)
{
    const cJSON *r, *rs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "jobs"),
                                                            "rejected_reasons");
    cJSON_ArrayForEach(r, rs)
    {
        double n = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "count"));
        char ids[200] = "";
        const cJSON *id;
        cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(r, "ids"))
        {
            size_t l = strlen(ids);
            snprintf(ids + l, sizeof ids - l, "%s'%s'", l ? ", " : "", cJSON_GetStringValue(id));
        }
        fprintf(stderr, "gpusim: warning: %.0f job%s rejected: %s (%s%s)\n", n, n == 1 ? "" : "s", r->string,
                n > 1 ? "first: " : "", ids);
    }
}

/* The report of a finished run, written to rep_tmp; *text is what was
 * written (the caller frees it and the report). */
static int run_report(sim *s, const run_clock *k, bool jobs_csv, const char *rep_tmp, cJSON **rep, char **text,
                      gs_error *err)
{
    *rep = sim_report_build(s, since(&k->t_loop, &k->t1), peak_rss_mib());
    if (jobs_csv) /* the report names the outputs beside it that only an option writes */
        cJSON_AddStringToObject(cJSON_AddObjectToObject(*rep, "outputs"), "jobs_csv", "jobs.csv");
    cJSON *sm = cJSON_GetObjectItemCaseSensitive(*rep, "sim");
    cJSON_AddNumberToObject(sm, "setup_s", since(&k->t0, &k->t_loop));
    cJSON_AddNumberToObject(sm, "cpu_s", since(&k->c_loop, &k->c1));
    size_t n;
    *text = gs_json_print(*rep, &n);
    int rc = gs_write_atomic(rep_tmp, *text, n, err);
    /* a service whose replica fits no card is never served: say so even
     * when the summary is not printed */
    const cJSON *sv, *svcs = cJSON_GetObjectItemCaseSensitive(*rep, "services");
    cJSON_ArrayForEach(sv, svcs)
    {
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(sv, "unplaceable_reason");
        if (cJSON_IsString(why))
            fprintf(stderr, "gpusim: warning: service '%s' fits no card of the cluster and is never served: %s\n",
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sv, "id")), why->valuestring);
    }
    warn_rejected(*rep);
    return rc;
}

/* One line on stderr naming the trace's columns the run leaves unread
 * (sim_unread_columns), if any: their values were not checked. */
static void note_unread(const sim *s, const char *trace)
{
    uint64_t unread = sim_unread_columns(s);
    if (!unread)
        return;
    fprintf(stderr, "gpusim: %s: columns this run does not read (their values not checked): ", trace);
    for (int c = 0, n = 0; c < 64; c++)
        if (unread >> c & 1)
            fprintf(stderr, "%s%s", n++ ? ", " : "", wl_col_name(c));
    fputc('\n', stderr);
}

/* Runs the simulation into odir. Both files go to a temporary directory
 * beside odir, put in place as one unit at the end (gs_outdir.h): a failed
 * or interrupted run leaves nothing, and no reader sees the new report
 * beside an old timeseries (with --sample-s 0 an old timeseries.csv in odir
 * is removed). */
static int run_sim(const run_args *a, const gpu_catalog *cat, sim_cluster *cl, const char *odir, gs_error *err)
{
    static const char *const owned[] = {"timeseries.csv", "jobs.csv", "report.json", NULL};
    char ts_path[1200], rep_path[1200], ts_tmp[1300], rep_tmp[1300], jobs_tmp[1300];
    snprintf(ts_path, sizeof ts_path, "%s/timeseries.csv", odir);
    snprintf(rep_path, sizeof rep_path, "%s/report.json", odir);
    FILE *ts = NULL, *jobs = NULL;
    sim *s = sim_create();
    gs_outdir od;
    run_clock k;
    rss_reset();
    clock_gettime(CLOCK_MONOTONIC, &k.t0);
    int rc = sim_init(s, &a->cfg, cat, cl, NULL, err);
    bool begun = false;
    if (rc == 0 && (rc = gs_outdir_begin(&od, odir, owned, err)) == 0) {
        begun = true;
        gs_outdir_file(&od, "timeseries.csv", ts_tmp, sizeof ts_tmp);
        gs_outdir_file(&od, "report.json", rep_tmp, sizeof rep_tmp);
        if (a->cfg.sample_us > 0) {
            ts = fopen(ts_tmp, "w");
            if (!ts)
                rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", ts_tmp, strerror(errno));
            sim_set_timeseries(s, ts);
        }
        gs_outdir_file(&od, "jobs.csv", jobs_tmp, sizeof jobs_tmp);
        if (rc == 0 && a->jobs_csv && !(jobs = fopen(jobs_tmp, "w")))
            rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", jobs_tmp, strerror(errno));
        sim_set_jobs_csv(s, jobs);
    }
    progress prog = {.t0 = k.t0, .tty = isatty(STDERR_FILENO), .log_s = 10};
    const char *pe = getenv("GPUSIM_PROGRESS");
    if (pe && *pe && strcmp(pe, "off") && !gs_num_double(pe, 0.001, 1e6, &prog.log_s))
        rc = gs_err(err, GS_EUSAGE, "GPUSIM_PROGRESS: expected off or seconds from 0.001, found '%s'", pe);
    if (rc == 0 && !(pe && !strcmp(pe, "off")))
        sim_set_progress(s, show_progress, &prog);
    for (int w = 0; rc == 0 && w < sim_nwarnings(s); w++)
        fprintf(stderr, "gpusim: warning: %s\n", sim_warning(s, w));
    clock_gettime(CLOCK_MONOTONIC, &k.t_loop);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &k.c_loop);
    if (rc == 0 && (rc = sim_run(s)) != 0)
        *err = *sim_error(s);
    if (rc == 0) /* after the run: a run stopped by an input error names that error alone */
        note_unread(s, a->cfg.trace_path);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &k.c1);
    clock_gettime(CLOCK_MONOTONIC, &k.t1);
    if (prog.shown && prog.tty)
        fprintf(stderr, "\r\033[K"); /* erase the progress line */
    if (ts && (fclose(ts) != 0) && rc == 0)
        rc = gs_err(err, GS_EWRITE, "cannot write '%s'", ts_path);
    if (jobs && (fclose(jobs) != 0) && rc == 0)
        rc = gs_err(err, GS_EWRITE, "cannot write '%s/jobs.csv'", odir);
    cJSON *rep = NULL;
    char *text = NULL;
    if (rc == 0)
        rc = run_report(s, &k, jobs != NULL, rep_tmp, &rep, &text, err);
    if (rc == 0)
        rc = gs_outdir_commit(&od, err);
    if (rc != 0) {
        if (begun)
            gs_outdir_abort(&od);
    } else if (a->json) {
        fputs(text, stdout);
    } else {
        sim_report_summary(stdout, rep);
        printf("report: %s\n", rep_path);
        if (ts)
            printf("timeseries: %s\n", ts_path);
        if (jobs)
            printf("jobs: %s/jobs.csv\n", odir);
    }
    free(text);
    cJSON_Delete(rep);
    sim_destroy(s);
    return rc;
}

/* A trace in milliseconds read as seconds (a median job of weeks): one
 * line on stderr, from the first RUN_HINT_ROWS rows of a regular file (a
 * pipe is read once, by the run; the run reports a bad row itself). */
#define RUN_HINT_ROWS 10000
static void run_units_hint(const char *trace, bool allow_extra_columns)
{
    struct stat st;
    trace_facts tf;
    gs_error e2;
    if (stat(trace, &st) != 0 || !S_ISREG(st.st_mode) ||
        trace_facts_read_durations(trace, RUN_HINT_ROWS, allow_extra_columns, &tf, &e2) != 0)
        return;
    char hint[600];
    trace_facts_units_hint(&tf, trace, hint, sizeof hint);
    if (hint[0])
        fprintf(stderr, "gpusim: hint: %s\n", hint);
    trace_facts_free(&tf);
}

/* {==== the command ====} */

int cmd_run(int argc, char **argv)
{
    static run_args a; /* sim_config holds the --set table: off the stack */
    memset(&a, 0, sizeof a);
    a.cfg.registry = pol_all();
    a.cfg.seed = 1;
    a.cfg.sample_us = 60 * GS_US_PER_S;
    a.fo.fill_to = 1.3;
    gs_error err = {0};
    int rc = run_options(argc, argv, &a, &err);
    if (rc)
        return rc == 1 ? 0 : cli_fail(&err);
    gpu_catalog cat;
    sim_cluster cl;
    if ((rc = run_cluster(&a, &cat, &cl, &err)) != 0)
        return cli_fail(&err);
    char odir[1024];
    if (a.o.out)
        snprintf(odir, sizeof odir, "%s", a.o.out);
    else
        default_out(odir, sizeof odir, a.cfg.trace_path, a.o.gpus || a.o.cluster ? cl.name : NULL, a.cfg.policy);
    if (a.fill) { /* the fill-up experiment (cli_fill.c) */
        sim_cluster_free(&cl);
        if (!a.seeds_given)
            a.fo.seed_lo = a.fo.seed_hi = a.cfg.seed;
        if (!a.o.out)
            strncat(odir, ".fill", sizeof odir - strlen(odir) - 1);
        cli_cluster_src src = {a.o.cluster, a.o.gpus, (int)a.o.gpus_per_node};
        rc = cli_run_fill(&a.cfg, &cat, &src, odir, &a.fo, a.json);
        gpu_catalog_free(&cat);
        return rc;
    }
    run_units_hint(a.cfg.trace_path, a.cfg.allow_extra_columns);
    rc = run_sim(&a, &cat, &cl, odir, &err);
    sim_cluster_free(&cl);
    gpu_catalog_free(&cat);
    return rc ? cli_fail(&err) : 0;
}
