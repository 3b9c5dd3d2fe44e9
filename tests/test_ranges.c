/* test_ranges.c - a huge number in any numeric field of a model file or a
 * cluster file is an input error (exit 3), never an out-of-range float to
 * integer conversion: each numeric field of shipped files is set to 1e300 in
 * turn (and to -1e300), and the loader, or the CLI for cluster files (whose
 * MIG layouts are read by the policy), must refuse it.
 * SPDX-License-Identifier: MIT */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../models/gpu/gpu_model.h"
#include "check.h"
#include "testutil.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* Collects every numeric leaf of the tree, depth first. */
static void numbers(cJSON *n, cJSON **out, int *k, int cap)
{
    for (cJSON *c = n->child; c; c = c->next) {
        if (cJSON_IsNumber(c) && *k < cap)
            out[(*k)++] = c;
        numbers(c, out, k, cap);
    }
}

/* For each numeric leaf of `path`, writes a copy with that leaf set to v to
 * `dst` and calls try(); returns the number of leaves tried. */
static int each_leaf(const char *path, double v, const char *dst, void (*try)(const char *, const char *))
{
    char *text = slurp(path);
    CHECK(text != NULL);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    CHECK(j != NULL);
    if (!j)
        return 0;
    cJSON *leaf[512];
    int n = 0;
    numbers(j, leaf, &n, 512);
    for (int i = 0; i < n; i++) {
        double old = leaf[i]->valuedouble;
        cJSON_SetNumberValue(leaf[i], v);
        char *out = cJSON_Print(j);
        FILE *f = fopen(dst, "w");
        CHECK(f != NULL);
        if (f) {
            fputs(out, f);
            fclose(f);
        }
        free(out);
        char what[160];
        snprintf(what, sizeof what, "%s, field '%s' = %g", path, leaf[i]->string ? leaf[i]->string : "[]", v);
        try(dst, what);
        cJSON_SetNumberValue(leaf[i], old);
    }
    cJSON_Delete(j);
    return n;
}

static void try_model(const char *file, const char *what)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s", file);
    *strrchr(dir, '/') = 0;
    gpu_catalog cat;
    gs_error err;
    int rc = gpu_catalog_load(&cat, dir, &err);
    if (rc != GS_EINPUT) {
        check_failures++;
        fprintf(stderr, "    %s: loader returned %d, expected an input error\n", what, rc);
    }
    if (rc == 0)
        gpu_catalog_free(&cat);
}

static void model_fields(void)
{
    char dir[600], file[700];
    snprintf(dir, sizeof dir, "%s/models", tu_tmp_dir());
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(file, sizeof file, "%s/X.json", dir);
    const char *models[] = {"models/gpu/A100-SXM4-80GB.json", "models/gpu/H200-SXM5-141GB.json"};
    for (int m = 0; m < 2; m++) {
        CHECK(each_leaf(models[m], 1e300, file, try_model) >= 5);
        CHECK(each_leaf(models[m], -1e300, file, try_model) >= 5);
    }
}

static const char *trace_path;

static void try_cluster(const char *file, const char *what)
{
    const char *g = getenv("GPUSIM") ? getenv("GPUSIM") : "build/test/gpusim";
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run --trace %s --cluster %s --policy mig --until 1 --out %s/out >%s/log 2>&1", g,
             trace_path, file, tu_tmp_dir(), tu_tmp_dir());
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 3) {
        check_failures++;
        fprintf(stderr, "    %s: gpusim exit status %d, expected 3\n", what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

static void cluster_fields(void)
{
    trace_path = tu_write_tmp("id,submit,duration,gpus\na,0,10,1\n");
    char file[700];
    snprintf(file, sizeof file, "%s/cluster.json", tu_tmp_dir());
    const char *clusters[] = {"workloads/examples/cluster-mig.json", "workloads/examples/cluster-preempt.json"};
    for (int c = 0; c < 2; c++)
        CHECK(each_leaf(clusters[c], 1e300, file, try_cluster) >= 3);
}

const test_case tests_ranges[] = {
    {"ranges/model_file_every_number_1e300_is_input_error", model_fields},
    {"ranges/cluster_file_every_number_1e300_exit3", cluster_fields},
    {NULL, NULL},
};
