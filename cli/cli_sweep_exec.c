/* cli_sweep_exec.c - `gpusim sweep run MANIFEST`: run manifest lines, each
 * into its own directory, atomically, skipping those already done.
 *
 * Which lines: --index LIST ("7", "0-3,9"), --shard K/N (lines whose index
 * is K-1 mod N, for engines without array indices), else the index an
 * engine puts in the environment: SLURM_ARRAY_TASK_ID (sbatch --array) or
 * JOB_COMPLETION_INDEX (a Kubernetes Indexed Job).
 *
 * A run goes to runs/.tmp.<id>.<host>.<pid>/ and is renamed to runs/<id>/
 * only when it succeeded; a failed one is moved to failed/<id>/ with its
 * stderr.log. Before running, the id is computed again from the files: a
 * trace edited since `sweep init` is refused rather than filed under the
 * old id.
 * SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sweep.h"
#include "../base/gs_cleanup.h"
#include "../base/gs_file.h"
#include "../base/gs_num.h"

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim sweep run MANIFEST [--index LIST | --shard K/N] [--force]\n"
            "\n"
            "  --index LIST   lines to run by index: 7, or 0-3,9 (default: $SLURM_ARRAY_TASK_ID,\n"
            "                 else $JOB_COMPLETION_INDEX)\n"
            "  --shard K/N    every line whose index is K-1 modulo N (K in 1..N), one after another\n"
            "  --force        run again even when the result exists\n"
            "A line whose result (runs/<id>/report.json beside the manifest) exists is skipped.\n");
}

/* "0-3,9" into want[0..n-1]. */
static int parse_list(const char *s, bool *want, int n, const char *what, gs_error *err)
{
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            return gs_err(err, GS_EUSAGE, "%s '%s': expected indexes like 7 or 0-3,9", what, s);
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a)
                return gs_err(err, GS_EUSAGE, "%s '%s': expected indexes like 7 or 0-3,9", what, s);
            p = end;
        }
        if (b >= n)
            return gs_err(err, GS_EUSAGE, "%s '%s': index %ld, but the manifest has %d lines (0..%d)", what, s, b, n,
                          n - 1);
        for (long i = a; i <= b; i++)
            want[i] = true;
        if (*p == ',')
            p++;
        else if (*p)
            return gs_err(err, GS_EUSAGE, "%s '%s': expected indexes like 7 or 0-3,9", what, s);
    }
    return 0;
}

/* What a run's temporary directory holds until it is renamed: registered
 * with the signal cleanup (files first, then the directory), so a SIGINT or
 * SIGTERM leaves none of it (the child run, told too, removes its own). */
static const char *const tmp_files[] = {"stderr.log", "report.json", "timeseries.csv", "fill.csv", "run.json"};
#define NTMP (sizeof tmp_files / sizeof *tmp_files)

static void tmp_register(const char *tmp, int *slots)
{
    for (size_t k = 0; k < NTMP; k++) {
        char p[1500];
        snprintf(p, sizeof p, "%s/%s", tmp, tmp_files[k]);
        slots[k] = gs_cleanup_add(p, false);
    }
    slots[NTMP] = gs_cleanup_add(tmp, true);
}

static void tmp_forget(const int *slots)
{
    for (size_t k = 0; k <= NTMP; k++)
        gs_cleanup_remove(slots[k]);
}

/* A line that failed before its run started (its trace unreadable): said on
 * stderr as a failed run is, never an exit code alone. */
static int line_failed(const sw_run *r, int i, gs_error *err)
{
    fprintf(stderr, "sweep: [%d] %s seed %llu failed: %s\n", i, r->label, (unsigned long long)r->seed, err->msg);
    return err->code;
}

static int run_commit(const sw_manifest *m, int i, bool force, const char *tmp, const char *final,
                      const char *failed, int rc, gs_error *err);

/* Runs line i. Returns 0 (done now or already), or the run's failure. */
static int run_line(const sw_manifest *m, int i, bool force, gs_error *err)
{
    const sw_run *r = &m->runs[i];
    char final[1300], tmp[1400], failed[1300], host[256] = "host";
    sw_run_dir(m, i, final, sizeof final);
    if (!force && sw_state_of(m, i, NULL, 0) == SW_DONE) { /* before hashing: a skip costs one stat */
        printf("sweep: [%d] %s seed %llu already done: %s\n", i, r->label, (unsigned long long)r->seed, final);
        return 0;
    }
    sw_run now = *r;
    if (sw_run_id(&now, err))
        return line_failed(r, i, err);
    if (strcmp(now.id, r->id))
        return gs_err(err, GS_EINPUT,
                      "%s:%d: the inputs of run %d (trace, cluster, GPU models or the gpusim version) changed "
                      "since 'sweep init' (id %s, now %s): run 'gpusim sweep init' again",
                      m->path, i + 1, i, r->id, now.id);
    gethostname(host, sizeof host - 1);
    host[strcspn(host, "/ ")] = 0;
    snprintf(tmp, sizeof tmp, "%s/runs/.tmp.%s.%s.%ld", m->dir, r->id, host, (long)getpid());
    snprintf(failed, sizeof failed, "%s/failed/%s", m->dir, r->id);
    if (sw_remove_tree(tmp, err))
        return line_failed(r, i, err);
    int slots[NTMP + 1];
    tmp_register(tmp, slots);

    cli_opts com = {.trace = r->trace, .cluster = r->cluster, .gpus = r->gpus, .models = r->models,
                     .until = r->until, .gpus_per_node = r->gpus_per_node};
    cli_batch_policy pol = {0};
    snprintf(pol.name, sizeof pol.name, "%s", r->policy);
    for (int k = 0; k < r->nsets; k++)
        pol.sets[pol.nsets++] = r->sets[k];
    cli_batch_run run;
    cli_batch_run_init(&run, &com, &pol, NULL, r->seed, tmp);
    char what[300];
    snprintf(what, sizeof what, "sweep [%d]", i);
    int rc = cli_batch_run_all(&run, 1, 1, what, err);
    cli_batch_run_free(&run);
    rc = run_commit(m, i, force, tmp, final, failed, rc, err);
    tmp_forget(slots);
    return rc;
}

/* After line i's run: renames tmp to final (done) or to failed/<id>. */
static int run_commit(const sw_manifest *m, int i, bool force, const char *tmp, const char *final,
                      const char *failed, int rc, gs_error *err)
{
    const sw_run *r = &m->runs[i];
    if (rc == 0) {
        cJSON *o = sw_run_json(r);
        char *text = cJSON_Print(o);
        char *withnl = cli_batch_fmt("%s\n", text);
        char p[1500];
        snprintf(p, sizeof p, "%s/run.json", tmp);
        rc = cli_batch_write_text(p, withnl, err);
        free(text), free(withnl);
        cJSON_Delete(o);
        if (rc == 0 && force && sw_remove_tree(final, err))
            rc = err->code;
        if (rc == 0 && rename(tmp, final) != 0) {
            if (errno == EEXIST || errno == ENOTEMPTY) /* another task finished it first: keep theirs */
                rc = sw_remove_tree(tmp, err);
            else
                rc = gs_err(err, GS_EWRITE, "cannot rename '%s' to '%s': %s", tmp, final, strerror(errno));
        }
        if (rc == 0)
            rc = sw_remove_tree(failed, err);
        if (rc == 0)
            printf("sweep: [%d] %s seed %llu done: %s\n", i, r->label, (unsigned long long)r->seed, final);
        return rc;
    }
    /* keep the evidence where `sweep status` looks: failed/<id>/stderr.log */
    gs_error e2 = {0};
    char fdir[1300];
    snprintf(fdir, sizeof fdir, "%s/failed", m->dir);
    if (gs_mkdirs(fdir, &e2) == 0 && sw_remove_tree(failed, &e2) == 0 && rename(tmp, failed) != 0)
        sw_remove_tree(tmp, &e2);
    fprintf(stderr, "sweep: [%d] %s seed %llu failed: %s\n", i, r->label, (unsigned long long)r->seed, err->msg);
    return rc;
}

/* Whether a runs/ entry is a temporary of a sweep run on this host whose
 * process is gone: ".tmp.<id>.<host>.<pid>" (and the run's own
 * "...<pid>.tmp.<child pid>"), pid no longer alive (a kill -9, a node
 * lost). A pid that is alive, or another host's, is left alone. */
static bool stale_tmp(const char *name, const char *host)
{
    if (strncmp(name, ".tmp.", 5))
        return false;
    const char *p = name + 5 + strspn(name + 5, "0123456789abcdef");
    size_t hl = strlen(host);
    if (p != name + 5 + SW_ID_HEX || *p != '.' || strncmp(p + 1, host, hl) || p[1 + hl] != '.')
        return false;
    p += 2 + hl;
    size_t nd = strspn(p, "0123456789");
    char digits[24];
    long pid;
    if (nd == 0 || nd >= sizeof digits || (p[nd] && strncmp(p + nd, ".tmp.", 5)))
        return false;
    memcpy(digits, p, nd);
    digits[nd] = 0;
    if (!gs_num_long(digits, 1, INT_MAX, &pid) || pid == (long)getpid())
        return false;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the stale temporaries under DIR/runs (stale_tmp) before this
 * run starts: a sweep killed with -9 leaves them, and no later run would.
 * O(entries of runs/). */
static void sweep_stale(const sw_manifest *m)
{
    char host[256] = "host", *dir = cli_batch_fmt("%s/runs", m->dir);
    gethostname(host, sizeof host - 1);
    host[strcspn(host, "/ ")] = 0;
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!stale_tmp(e->d_name, host))
            continue;
        char *p = cli_batch_fmt("%s/%s", dir, e->d_name);
        gs_error e2;
        n += sw_remove_tree(p, &e2) == 0;
        free(p);
    }
    if (d)
        closedir(d);
    if (n)
        fprintf(stderr, "sweep: removed %d temporary director%s left by a sweep run that was killed\n", n,
                n == 1 ? "y" : "ies");
    free(dir);
}

/* What sweep run is asked to do: the runs by --index (or the array task's
 * variable, named by `what`) or by --shard K/N. */
typedef struct run_args {
    const char *index, *shard, *what;
    bool force;
    long k, nsh;
} run_args;

/* sweep run's options into *a: 1, 0 when --help was printed, or -1 with
 * *err. */
static int run_options(int argc, char **argv, run_args *a, gs_error *err)
{
    static const struct option opts[] = {{"index", required_argument, 0, 'i'},
                                         {"shard", required_argument, 0, 's'},
                                         {"force", no_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'i': a->index = optarg; break;
        case 's': a->shard = optarg; break;
        case 'f': a->force = true; break;
        case 'h': run_usage(stdout); return 0;
        default: return gs_err(err, GS_EUSAGE, "sweep run: unknown or incomplete option '%s'", argv[optind - 1]), -1;
        }
    }
    if (optind != argc - 1)
        return gs_err(err, GS_EUSAGE, "sweep run: expected one MANIFEST"), -1;
    if (a->index && a->shard)
        return gs_err(err, GS_EUSAGE, "sweep run: give --index or --shard, not both"), -1;
    a->what = "--index";
    if (!a->index && !a->shard) {
        if ((a->index = getenv("SLURM_ARRAY_TASK_ID")) && a->index[0])
            a->what = "SLURM_ARRAY_TASK_ID";
        else if ((a->index = getenv("JOB_COMPLETION_INDEX")) && a->index[0])
            a->what = "JOB_COMPLETION_INDEX";
        else
            return gs_err(err, GS_EUSAGE, "sweep run: give --index I or --shard K/N (or run inside a Slurm "
                                          "array or a Kubernetes Indexed Job)"), -1;
    }
    if (a->shard) {
        char *end;
        const char *slash = strchr(a->shard, '/');
        char first[24] = "";
        if (slash && slash - a->shard < (long)sizeof first)
            memcpy(first, a->shard, (size_t)(slash - a->shard));
        a->k = cli_strtol(first, &end);
        if (slash && !*end)
            a->nsh = cli_strtol(slash + 1, &end);
        if (!slash || *end || a->nsh < 1 || a->k < 1 || a->k > a->nsh)
            return gs_err(err, GS_EUSAGE, "--shard: expected K/N with 1 <= K <= N, e.g. 2/8"), -1;
    }
    return 1;
}

/* The wanted runs of m, each in turn; a stale manifest stops them. 0, the
 * first failed run's exit code (after a count of the others), or the stale
 * manifest's error through cli_fail. */
static int run_wanted(const sw_manifest *m, const bool *want, bool force, gs_error *err)
{
    int nfail = 0, first = 0;
    gs_error first_err = {0};
    for (int i = 0; i < m->n; i++) {
        if (!want[i])
            continue;
        int r1 = run_line(m, i, force, err);
        if (r1 == GS_EINPUT && strstr(err->msg, "changed since")) /* the manifest is stale: stop */
            return cli_fail(err);
        if (r1 && nfail++ == 0)
            first = r1, first_err = *err;
    }
    if (nfail) {
        if (nfail > 1)
            fprintf(stderr, "sweep: %d runs failed ('gpusim sweep status' lists them)\n", nfail);
        return cli_exit_code(first ? first : first_err.code);
    }
    return 0;
}

int sw_cmd_run(int argc, char **argv)
{
    run_args a = {0};
    gs_error err = {0};
    int o = run_options(argc, argv, &a, &err);
    if (o <= 0)
        return o == 0 ? 0 : cli_fail(&err);
    sw_manifest m;
    if (sw_manifest_read(&m, argv[optind], &err))
        return cli_fail(&err);
    sweep_stale(&m);
    bool *want = xcalloc((size_t)m.n, sizeof *want);
    int rc = 0;
    if (a.shard)
        for (int i = 0; i < m.n; i++)
            want[i] = i % a.nsh == a.k - 1;
    else
        rc = parse_list(a.index, want, m.n, a.what, &err);
    rc = rc ? cli_fail(&err) : run_wanted(&m, want, a.force, &err);
    free(want);
    sw_manifest_free(&m);
    return rc;
}
