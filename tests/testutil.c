/* testutil.c - see testutil.h.
 * SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

/* One scratch directory per process (each case runs in its own), under
 * $TMPDIR when set (tests/run_all.sh points it at a directory it removes):
 * a test never leaves files behind and never writes into the repository. */
static char tmp_dir[512];

const char *tu_tmp_dir(void)
{
    if (!tmp_dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp_dir, sizeof tmp_dir, "%s/gpusim-test-XXXXXX", base && *base ? base : P_tmpdir);
        if (!mkdtemp(tmp_dir)) {
            perror("mkdtemp");
            abort();
        }
    }
    return tmp_dir;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void tu_tmp_cleanup(void)
{
    if (tmp_dir[0])
        nftw(tmp_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    tmp_dir[0] = 0;
}

const char *tu_write_tmp(const char *text)
{
    static char paths[8][600];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 600, "%s/file-XXXXXX", tu_tmp_dir());
    int fd = mkstemp(p);
    if (fd < 0) {
        perror("mkstemp");
        abort();
    }
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n)
        abort();
    close(fd);
    return p;
}

static gpu_catalog cat;
static bool cat_loaded;

const gpu_catalog *tu_catalog(void)
{
    if (!cat_loaded) {
        gs_error err;
        if (gpu_catalog_load(&cat, "models/gpu", &err) != 0) {
            fprintf(stderr, "cannot load models/gpu: %s\n", err.msg);
            abort();
        }
        cat_loaded = true;
    }
    return &cat;
}

void tu_catalog_free(void)
{
    if (cat_loaded)
        gpu_catalog_free(&cat);
    cat_loaded = false;
}

int tu_sim_init(sim *s, sim_config *cfg, const gpu_catalog *catalog, sim_cluster *cl, FILE *ts, gs_error *err)
{
    if (!cfg->registry)
        cfg->registry = pol_all();
    return sim_init(s, cfg, catalog, cl, ts, err);
}

int tu_run_trace(tu_run *r, const char *trace_path, const char *gpus_spec, int gpus_per_node, const char *policy,
                 const char *const *sets, void (*on_done)(void *, const job *), void *ud)
{
    memset(r, 0, sizeof *r);
    r->cfg.trace_path = trace_path;
    r->cfg.policy = policy;
    r->cfg.seed = 1;
    tu_add_sets(&r->cfg, sets);
    r->rc = sim_cluster_from_spec(&r->cl, gpus_spec, gpus_per_node, tu_catalog(), &r->err);
    if (r->rc)
        return r->rc;
    r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err);
    if (r->rc)
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.job_done = on_done, .job_done_ud = ud});
    r->rc = sim_run(&r->s);
    if (r->rc)
        r->err = r->s.err;
    return r->rc;
}

void tu_run_free(tu_run *r)
{
    sim_free(&r->s);
    sim_cluster_free(&r->cl);
    for (int i = 0; i < r->cfg.nsets; i++)
        free(r->cfg.sets[i].key);
}

void tu_add_sets(sim_config *cfg, const char *const *sets)
{
    for (int i = 0; sets && sets[i]; i++) {
        char *kv = xstrdup(sets[i]), *eq = strchr(kv, '=');
        *eq = 0;
        cfg->sets[cfg->nsets].key = kv;
        cfg->sets[cfg->nsets++].value = eq + 1;
    }
}

double tu_batch_means(const double *x, long n, double *se)
{
    enum { NB = 30 };
    long warm = n / 10, per = (n - warm) / NB;
    double mean = 0, bm[NB], var = 0;
    for (long b = 0; b < NB; b++) {
        double sum = 0;
        for (long i = 0; i < per; i++)
            sum += x[warm + b * per + i];
        bm[b] = sum / (double)per;
        mean += bm[b] / NB;
    }
    for (long b = 0; b < NB; b++)
        var += (bm[b] - mean) * (bm[b] - mean);
    *se = sqrt(var / (NB - 1) / NB);
    return mean;
}

double tu_erlang_c(int c, double a)
{
    double term = 1.0, sum = 1.0; /* sum_{k<c} a^k/k!, computed stably */
    for (int k = 1; k < c; k++) {
        term *= a / k;
        sum += term;
    }
    double last = term * a / c; /* a^c/c! */
    double rho = a / c;
    double top = last / (1 - rho);
    return top / (sum + top);
}
