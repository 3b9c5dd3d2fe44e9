/* cli_plan_engine.c - one round of `plan` run by an engine instead of child
 * processes here: the round's runs (card counts x seeds) are written as a
 * sweep manifest and submitted with `gpusim sweep submit --engine E --wait`,
 * then read back from the sweep's run directories. A round interrupted and
 * started again reuses the runs already done (same ids).
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/gs_cleanup.h"
#include "../base/gs_file.h"
#include "../models/gpu/gpu_model.h"
#include "cli_plan_engine.h"
#include "cli_sweep.h"

static char *abs_or_copy(const char *p)
{
    char abs[PATH_MAX];
    return realpath(p, abs) ? xstrdup(abs) : xstrdup(p);
}

/* Run i's manifest line: its trace, cluster (a --gpus string or a
 * template's instance file), policy with both sets of --set, seed, models. */
static int fill_run(sw_run *r, int i, const cli_opts *com, const cli_batch_policy *pol, uint64_t seed,
                    const char *mdir, gs_error *err)
{
    r->index = i;
    r->trace = abs_or_copy(com->trace);
    r->trace_label = xstrdup("trace");
    if (com->gpus) {
        r->gpus = xstrdup(com->gpus);
        r->gpus_per_node = com->gpus_per_node;
        r->cluster_label = xstrdup(r->gpus);
    } else { /* a template's instance, written under the plan's OUT/clusters/ */
        r->cluster = abs_or_copy(com->cluster);
        r->cluster_label = xstrdup(com->cluster);
    }
    r->label = xstrdup(pol->label);
    r->policy = xstrdup(pol->name);
    for (int k = 0; k < com->nsets && r->nsets < CLI_BATCH_MAX_SETS; k++)
        r->sets[r->nsets++] = xstrdup(com->sets[k]);
    for (int k = 0; k < pol->nsets && r->nsets < CLI_BATCH_MAX_SETS; k++)
        r->sets[r->nsets++] = xstrdup(pol->sets[k]);
    r->seed = seed;
    r->until = com->until ? xstrdup(com->until) : NULL;
    r->models = abs_or_copy(mdir);
    return sw_run_id(r, err);
}

/* The round's n runs into m and its manifest file, written atomically. */
static int write_manifest(sw_manifest *m, const cli_opts *coms, const cli_batch_policy *pol,
                          const uint64_t *seeds, int n, gs_error *err)
{
    char mdir[PATH_MAX];
    if (coms[0].models)
        snprintf(mdir, sizeof mdir, "%s", coms[0].models);
    else
        gpu_catalog_default_dir(mdir, sizeof mdir);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        sw_run *r = &m->runs[m->n++];
        rc = fill_run(r, i, &coms[i], pol, seeds[i], mdir, err);
        if (rc == 0) {
            cJSON *o = sw_run_json(r);
            char *line = cJSON_PrintUnformatted(o);
            fprintf(mem, "%s\n", line);
            free(line);
            cJSON_Delete(o);
        }
    }
    fclose(mem);
    if (rc == 0)
        rc = gs_write_atomic(m->path, buf, len, err);
    free(buf);
    return rc;
}

/* `gpusim sweep submit MANIFEST --engine=E` as a child (argv, no shell),
 * waited for; stopping the plan stops it. A failed run is found afterwards,
 * by name, so its exit status is not read here. */
static int submit(const char *engine, const char *manifest, gs_error *err)
{
    char exe[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[l > 0 ? l : 0] = 0;
    char eng[64];
    snprintf(eng, sizeof eng, "--engine=%s", engine);
    /* slurm: sbatch --wait returns when the array ended; parallel: --run runs it here */
    const char *extra = !strcmp(engine, "slurm") ? "--wait" : !strcmp(engine, "parallel") ? "--run" : NULL;
    char *argv[] = {exe, (char *)"sweep", (char *)"submit", (char *)manifest, eng, (char *)extra, NULL};
    fflush(NULL);
    int slot;
    pid_t pid = gs_cleanup_fork(&slot);
    if (pid < 0)
        return gs_err(err, GS_EFAIL, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(2, 1); /* the submission's chatter goes to stderr: stdout is the plan */
        execv(exe, argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    gs_cleanup_remove_child(slot);
    return 0;
}

/* Each run's report read back from its sweep directory; the first run not
 * done is the round's error, with the sweep command that says why. */
static int collect(const char *engine, const sw_manifest *m, cli_batch_run *runs, const uint64_t *seeds, int n,
                   gs_error *err)
{
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char why[1024];
        sw_run_dir(m, i, runs[i].out_dir, sizeof runs[i].out_dir);
        if (sw_state_of(m, i, why, sizeof why) != SW_DONE)
            return gs_err(err, GS_EFAIL, "plan round on %s: run on %s seed %llu %s%s ('gpusim sweep status %s')",
                          engine, m->runs[i].cluster_label, (unsigned long long)seeds[i],
                          why[0] ? "failed: " : "did not finish", why, m->path);
        runs[i].report = cli_batch_read_report(runs[i].out_dir, err);
        if (!runs[i].report)
            rc = err->code;
        runs[i].exit_code = rc ? 1 : 0;
    }
    return rc;
}

int plan_round_engine(const char *engine, const char *dir, const cli_opts *coms, const cli_batch_policy *pol,
                      cli_batch_run *runs, const uint64_t *seeds, int n, gs_error *err)
{
    for (int i = 0; i < n; i++)
        if (coms[i].mig || coms[i].nprices)
            return gs_err(err, GS_EUSAGE, "plan --engine: --mig and --price are not carried into a sweep manifest "
                                          "yet; run this plan without --engine");
    int rc = gs_mkdirs(dir, err);
    if (rc)
        return rc;
    sw_manifest m = {.path = cli_batch_fmt("%s/manifest.jsonl", dir), .dir = xstrdup(dir)};
    m.runs = xcalloc((size_t)n, sizeof *m.runs);
    rc = write_manifest(&m, coms, pol, seeds, n, err);
    if (rc == 0)
        rc = submit(engine, m.path, err);
    if (rc == 0)
        rc = collect(engine, &m, runs, seeds, n, err);
    sw_manifest_free(&m);
    return rc;
}
