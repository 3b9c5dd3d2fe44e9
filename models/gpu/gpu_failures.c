/* gpu_failures.c - failure blocks of model files and cluster node groups
 * (gpu_failures.h). O(causes^2) per block, once at load.
 * SPDX-License-Identifier: MIT */
#include "gpu_failures.h"

#include <stdio.h>
#include <string.h>

#define MAX_REPAIR_H 1e6 /* a century: keeps every conversion in range */
#define MAX_PER_DAY 1e6

static int fail_at(char *field, size_t n, const char **want, const char *path, const char *w)
{
    snprintf(field, n, "%s", path);
    *want = w;
    return -1;
}

/* A number at key within [lo, hi]: 1 found, 0 absent, -1 wrong. */
static int num(const cJSON *o, const char *key, double lo, double hi, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
        return -1;
    *out = v->valuedouble;
    return 1;
}

static int find(const gpu_failures *f, const char *name)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->cause[i].name, name))
            return i;
    return -1;
}

/* The keys of a cause object, checked against those allowed. */
static bool keys_ok(const cJSON *c, const char *const *allowed)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, c)
    {
        bool ok = false;
        for (int q = 0; allowed[q]; q++)
            ok |= strcmp(k->string, allowed[q]) == 0;
        if (!ok)
            return false;
    }
    return true;
}

/* One cause: its name, and "per" when given (1 node, 0 GPU, -1 absent). */
static int cause_head(const cJSON *c, const char **name, int *per_node)
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(c, "cause");
    if (!cJSON_IsString(nm) || !*nm->valuestring || strlen(nm->valuestring) >= sizeof ((gpu_fail_cause *)0)->name)
        return -1;
    *name = nm->valuestring;
    const cJSON *per = cJSON_GetObjectItemCaseSensitive(c, "per");
    *per_node = -1;
    if (per && (!cJSON_IsString(per) || (strcmp(per->valuestring, "gpu") && strcmp(per->valuestring, "node"))))
        return -2;
    if (per)
        *per_node = strcmp(per->valuestring, "node") == 0;
    return 0;
}

int gpu_failures_parse_model(const cJSON *j, gpu_failures *out, char *field, size_t nf, const char **want)
{
    memset(out, 0, sizeof *out);
    out->scale = 1;
    const cJSON *obs = cJSON_GetObjectItemCaseSensitive(j, "observed"), *cs = cJSON_GetObjectItemCaseSensitive(j, "causes");
    double gpus = 0, per_node = 0, days = 0;
    if (!cJSON_IsObject(j))
        return fail_at(field, nf, want, "failures", "an object");
    if (!cJSON_IsObject(obs) || num(obs, "gpus", 1, 1e9, &gpus) != 1 || num(obs, "gpus_per_node", 1, 64, &per_node) != 1 ||
        num(obs, "days", 1e-6, 1e6, &days) != 1)
        return fail_at(field, nf, want, "failures.observed",
                       "an object with gpus (1..1e9), gpus_per_node (1..64) and days (> 0)");
    if (!cJSON_IsArray(cs) || cJSON_GetArraySize(cs) == 0 || cJSON_GetArraySize(cs) > GPU_FAIL_MAX_CAUSES)
        return fail_at(field, nf, want, "failures.causes", "an array of 1 to 32 causes");
    static const char *const allowed[] = {"cause", "per", "count", "repair_h", "repair_source", NULL};
    const cJSON *c;
    cJSON_ArrayForEach(c, cs)
    {
        char path[64];
        snprintf(path, sizeof path, "failures.causes[%d]", out->n);
        const char *name;
        int node;
        double count, repair_h;
        if (!cJSON_IsObject(c) || !keys_ok(c, allowed) || cause_head(c, &name, &node) || node < 0 ||
            num(c, "count", 0, 1e12, &count) != 1 || num(c, "repair_h", 0, MAX_REPAIR_H, &repair_h) != 1 ||
            find(out, name) >= 0)
            return fail_at(field, nf, want, path,
                           "an object with a unique cause (< 48 characters), per (gpu or node), count (>= 0) and "
                           "repair_h (hours >= 0), optionally repair_source");
        gpu_fail_cause *k = &out->cause[out->n++];
        snprintf(k->name, sizeof k->name, "%s", name);
        k->per_node = node == 1;
        k->per_day = count / ((node ? gpus / per_node : gpus) * days);
        k->repair_s = repair_h * 3600;
    }
    return 0;
}

int gpu_failures_parse_override(const cJSON *j, gpu_failures *f, char *field, size_t nf, const char **want)
{
    if (!cJSON_IsObject(j) || !keys_ok(j, (const char *const[]){"scale", "causes", "comment", NULL}))
        return fail_at(field, nf, want, "failures", "an object with scale and/or causes");
    double scale;
    int rs = num(j, "scale", 0, 1e6, &scale);
    if (rs < 0)
        return fail_at(field, nf, want, "failures.scale", "a number from 0 to 1e6");
    if (rs > 0)
        f->scale = scale;
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(j, "causes"), *c;
    if (cs && !cJSON_IsArray(cs))
        return fail_at(field, nf, want, "failures.causes", "an array of causes");
    static const char *const allowed[] = {"cause", "per", "per_day", "repair_h", "comment", NULL};
    int i = 0;
    cJSON_ArrayForEach(c, cs)
    {
        char path[64];
        snprintf(path, sizeof path, "failures.causes[%d]", i++);
        const char *name;
        int node;
        double per_day = 0, repair_h = 0;
        int rp = cJSON_IsObject(c) ? num(c, "per_day", 0, MAX_PER_DAY, &per_day) : -1;
        int rr = cJSON_IsObject(c) ? num(c, "repair_h", 0, MAX_REPAIR_H, &repair_h) : -1;
        int at = -1;
        bool ok = cJSON_IsObject(c) && keys_ok(c, allowed) && cause_head(c, &name, &node) == 0 && rp >= 0 && rr >= 0;
        if (ok && (at = find(f, name)) < 0) /* a new cause: every figure */
            ok = node >= 0 && rp == 1 && rr == 1 && f->n < GPU_FAIL_MAX_CAUSES;
        if (!ok)
            return fail_at(field, nf, want, path,
                           "an object with cause, and per_day (>= 0) and/or repair_h (hours >= 0); a cause the "
                           "model does not list also needs per (gpu or node) and both figures (at most 32 causes)");
        if (at < 0) {
            at = f->n++;
            snprintf(f->cause[at].name, sizeof f->cause[at].name, "%s", name);
        }
        gpu_fail_cause *k = &f->cause[at];
        if (node >= 0)
            k->per_node = node == 1;
        if (rp)
            k->per_day = per_day;
        if (rr)
            k->repair_s = repair_h * 3600;
    }
    return 0;
}

double gpu_failures_cause_per_day(const gpu_failures *f, int i, int gpus)
{
    const gpu_fail_cause *k = &f->cause[i];
    return f->scale * k->per_day * (k->per_node ? 1 : gpus);
}

double gpu_failures_node_per_day(const gpu_failures *f, int gpus)
{
    double r = 0;
    for (int i = 0; i < f->n; i++)
        r += gpu_failures_cause_per_day(f, i, gpus);
    return r;
}
