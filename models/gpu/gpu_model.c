/* gpu_model.c - load and validate the model files in models/gpu/ (see gpu_model.h).
 * cJSON trees live only inside the loader: values are copied into plain
 * structs and the tree is deleted at once.
 * SPDX-License-Identifier: MIT */
#include "gpu_model.h"

#include <cJSON.h>
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/gs_json.h"

static int bad(gs_error *err, const char *path, const char *field, const char *want)
{
    return gs_err(err, GS_EINPUT, "GPU model '%s': field '%s': expected %s", path, field, want);
}

/* A number field within [lo, hi]: 1 found, 0 absent (and not required),
 * -1 wrong type or out of range. Every caller converts to an integer type
 * afterwards, so the range check comes first: a value such as 1e300 must be
 * an input error, never an out-of-range conversion. */
static int get_num(const cJSON *o, const char *key, double *out, bool required, double lo, double hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return required ? -1 : 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
        return -1;
    *out = v->valuedouble;
    return 1;
}

/* Upper bounds that no real card reaches but that keep every conversion
 * in range: 16 TiB of memory, a million SMs, 1 PB/s of host link, a
 * million dollars an hour. */
#define MAX_MEMORY_MIB (16.0 * 1024 * 1024)
#define MAX_SMS 1e6
#define MAX_GBPS 1e6
#define MAX_PRICE 1e6
#define MAX_TFLOPS 1e6

/* The optional speed figures (null or absent: unknown, -1; nvlink_gpus
 * defaults to 1, and is 1 without NVLink: nvlink_gbps is read before). */
static int load_speed(gpu_model *m, const cJSON *j, const char *path, gs_error *err)
{
    static const struct {
        const char *key;
        size_t off;
        double lo, hi;
        const char *want;
    } fields[] = {
#define TFLOPS_WANT "a positive number of TFLOPS up to 1e6, or null"
#define GBPS_WANT "a positive number of GB/s up to 1e6, or null"
        {"tensor_tflops", offsetof(gpu_model, tensor_tflops), 1e-3, MAX_TFLOPS, TFLOPS_WANT},
        {"mem_bw_gbps", offsetof(gpu_model, mem_bw_gbps), 1e-3, MAX_GBPS, GBPS_WANT},
        {"fp8_tflops", offsetof(gpu_model, fp8_tflops), 1e-3, MAX_TFLOPS, TFLOPS_WANT},
        {"fp4_tflops", offsetof(gpu_model, fp4_tflops), 1e-3, MAX_TFLOPS, TFLOPS_WANT},
        {"net_gbps", offsetof(gpu_model, net_gbps), 1e-3, MAX_GBPS, GBPS_WANT},
#undef TFLOPS_WANT
#undef GBPS_WANT
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        double v, *dst = (double *)(void *)((char *)m + fields[i].off);
        *dst = -1;
        int pr = get_num(j, fields[i].key, &v, false, fields[i].lo, fields[i].hi);
        if (pr < 0)
            return bad(err, path, fields[i].key, fields[i].want);
        if (pr > 0)
            *dst = v;
    }
    double g = 1;
    if (get_num(j, "nvlink_gpus", &g, false, 1, 1024) < 0 || g != (int)g)
        return bad(err, path, "nvlink_gpus", "an integer from 1 to 1024");
    m->nvlink_gpus = (int)g;
    if (m->nvlink_gbps <= 0)
        m->nvlink_gpus = 1;
    return 0;
}

static int load_mig(gpu_model *m, const cJSON *mj, const char *path, gs_error *err)
{
    mig_table *t = xcalloc(1, sizeof *t);
    m->mig = t;
    double v;
    if (get_num(mj, "memory_slices", &v, true, 1, MIG_MAX_SLICES) < 0)
        return bad(err, path, "mig.memory_slices", "an integer 1..8");
    t->memory_slices = (int)v;
    if (get_num(mj, "compute_slices", &v, true, 1, MIG_MAX_SLICES) < 0)
        return bad(err, path, "mig.compute_slices", "an integer 1..8");
    t->compute_slices = (int)v;
    t->placements_verified = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(mj, "placements_verified"));
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(mj, "profiles");
    if (!cJSON_IsArray(ps) || cJSON_GetArraySize(ps) < 1 || cJSON_GetArraySize(ps) > MIG_MAX_PROFILES)
        return bad(err, path, "mig.profiles", "an array of 1..16 profiles");
    const cJSON *p;
    cJSON_ArrayForEach(p, ps)
    {
        mig_profile *pr = &t->profiles[t->nprofiles++];
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (!cJSON_IsString(nm) || strlen(nm->valuestring) >= sizeof pr->name)
            return bad(err, path, "mig.profiles[].name", "a profile name such as \"1g.10gb\"");
        strcpy(pr->name, nm->valuestring);
        if (get_num(p, "compute_slices", &v, true, 1, t->compute_slices) < 0)
            return bad(err, path, "mig.profiles[].compute_slices", "1..compute_slices");
        pr->compute_slices = (int)v;
        if (get_num(p, "size", &v, true, 1, t->memory_slices) < 0)
            return bad(err, path, "mig.profiles[].size", "1..memory_slices");
        pr->size = (int)v;
        if (get_num(p, "memory_mib", &v, true, 1, (double)m->memory_mib) < 0)
            return bad(err, path, "mig.profiles[].memory_mib", "a positive number no larger than the card");
        pr->memory_mib = (int64_t)v;
        if (get_num(p, "sms", &v, false, 0, m->sms) < 0)
            return bad(err, path, "mig.profiles[].sms", "a number from 0 to the card's sms");
        pr->sms = (int)v;
        if (get_num(p, "max_instances", &v, true, 1, t->memory_slices) < 0)
            return bad(err, path, "mig.profiles[].max_instances", "1..memory_slices");
        pr->max_instances = (int)v;
        const cJSON *pl = cJSON_GetObjectItemCaseSensitive(p, "placements");
        if (!cJSON_IsArray(pl) || cJSON_GetArraySize(pl) < 1 || cJSON_GetArraySize(pl) > MIG_MAX_SLICES)
            return bad(err, path, "mig.profiles[].placements", "an array of legal start slices");
        const cJSON *s;
        cJSON_ArrayForEach(s, pl)
        {
            if (!cJSON_IsNumber(s) || !(s->valuedouble >= 0 && s->valuedouble + pr->size <= t->memory_slices))
                return gs_err(err, GS_EINPUT,
                              "GPU model '%s': profile '%s': placement start must lie in 0..%d so the "
                              "instance fits in %d memory slices",
                              path, pr->name, t->memory_slices - pr->size, t->memory_slices);
            pr->placements[pr->nplacements++] = (int)s->valuedouble;
        }
        pr->unverified = cJSON_GetObjectItemCaseSensitive(p, "unverified") != NULL;
    }
    return 0;
}

/* A model file's name and aliases. */
static int load_names(gpu_model *m, const cJSON *j, const char *path, gs_error *err)
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(j, "name");
    if (!cJSON_IsString(nm) || !*nm->valuestring || strlen(nm->valuestring) >= sizeof m->name)
        return bad(err, path, "name", "a non-empty string");
    strcpy(m->name, nm->valuestring);
    const cJSON *al = cJSON_GetObjectItemCaseSensitive(j, "aliases"), *a;
    if (al && !cJSON_IsArray(al))
        return bad(err, path, "aliases", "an array of strings");
    m->aliases = xcalloc((size_t)cJSON_GetArraySize(al) + 1, sizeof *m->aliases);
    cJSON_ArrayForEach(a, al)
    {
        if (!cJSON_IsString(a))
            return bad(err, path, "aliases", "an array of strings");
        m->aliases[m->naliases++] = xstrdup(a->valuestring);
    }
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(j, "architecture");
    snprintf(m->architecture, sizeof m->architecture, "%s", cJSON_IsString(ar) ? ar->valuestring : "");
    return 0;
}

/* A model file's card: memory, SMs, host link, NVLink, power and price
 * (tdp_w, price_per_hour_usd: -1 when null or absent). */
static int load_card(gpu_model *m, const cJSON *j, const char *path, gs_error *err)
{
    double v;
    if (get_num(j, "memory_mib", &v, true, 1, MAX_MEMORY_MIB) < 0)
        return bad(err, path, "memory_mib", "a number of MiB from 1 to 16 TiB");
    m->memory_mib = (int64_t)v;
    if (get_num(j, "sms", &v, true, 1, MAX_SMS) < 0)
        return bad(err, path, "sms", "an integer from 1 to 1e6");
    m->sms = (int)v;
    const cJSON *hl = cJSON_GetObjectItemCaseSensitive(j, "host_link");
    if (!cJSON_IsObject(hl) || get_num(hl, "gbps_per_dir", &v, true, 1e-9, MAX_GBPS) < 0)
        return bad(err, path, "host_link.gbps_per_dir", "a positive number of GB/s up to 1e6");
    m->host_link_gbps_per_dir = v;
    int nl = get_num(j, "nvlink_gbps", &v, false, 0, MAX_GBPS);
    if (nl < 0)
        return bad(err, path, "nvlink_gbps", "a number of GB/s from 0 to 1e6 (0: no NVLink)");
    m->nvlink_gbps = nl > 0 ? v : 0;
    const cJSON *hk = cJSON_GetObjectItemCaseSensitive(hl, "kind");
    snprintf(m->host_link_kind, sizeof m->host_link_kind, "%s", cJSON_IsString(hk) ? hk->valuestring : "");
    m->tdp_w = -1;
    int tw = get_num(j, "tdp_w", &v, false, 1, 1e5);
    if (tw < 0)
        return bad(err, path, "tdp_w", "a number of watts from 1 to 1e5, or null");
    if (tw > 0)
        m->tdp_w = v;
    m->price_per_hour_usd = -1;
    int pr = get_num(j, "price_per_hour_usd", &v, false, 0, MAX_PRICE);
    if (pr < 0)
        return bad(err, path, "price_per_hour_usd", "a number from 0 to 1e6, or null");
    if (pr > 0)
        m->price_per_hour_usd = v;
    return 0;
}

/* A model file's unverified fields (a comma-separated list kept as far as
 * it fits), MIG table and failure rates. */
static int load_rest(gpu_model *m, const cJSON *j, const char *path, gs_error *err)
{
    const cJSON *uv = cJSON_GetObjectItemCaseSensitive(j, "unverified"), *a;
    cJSON_ArrayForEach(a, uv)
    {
        if (cJSON_IsString(a) && strlen(m->unverified) + strlen(a->valuestring) + 2 < sizeof m->unverified) {
            if (*m->unverified)
                strcat(m->unverified, ",");
            strcat(m->unverified, a->valuestring);
        }
    }
    int rc = 0;
    const cJSON *mj = cJSON_GetObjectItemCaseSensitive(j, "mig");
    if (mj && !cJSON_IsNull(mj)) {
        if (!cJSON_IsObject(mj))
            return bad(err, path, "mig", "an object or null");
        rc = load_mig(m, mj, path, err);
    }
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(j, "failures");
    if (rc == 0 && fj && !cJSON_IsNull(fj)) {
        char field[96];
        const char *want;
        m->failures = xmalloc(sizeof *m->failures);
        if (gpu_failures_parse_model(fj, m->failures, field, sizeof field, &want))
            rc = bad(err, path, field, want);
    }
    return rc;
}

static int load_one(gpu_model *m, const char *path, gs_error *err)
{
    cJSON *j = gs_json_read(path, "GPU model", err);
    if (!j)
        return GS_EINPUT;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return gs_err(err, GS_EINPUT, "GPU model '%s': expected a JSON object", path);
    }
    int rc = load_names(m, j, path, err);
    if (rc == 0)
        rc = load_card(m, j, path, err);
    if (rc == 0)
        rc = load_speed(m, j, path, err);
    if (rc == 0)
        rc = load_rest(m, j, path, err);
    cJSON_Delete(j);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Each name and alias names one model: an alias equal to another model's
 * name or alias would shadow it (the first file found would win every
 * lookup, silently). O(names^2) over a catalog of a few dozen models. */
static int check_names(const gpu_catalog *cat, const char *dir, gs_error *err)
{
    for (int i = 0; i < cat->n; i++)
        for (int a = -1; a < cat->models[i].naliases; a++) {
            const char *x = a < 0 ? cat->models[i].name : cat->models[i].aliases[a];
            for (int k = i + 1; k < cat->n; k++)
                for (int b = -1; b < cat->models[k].naliases; b++) {
                    const char *y = b < 0 ? cat->models[k].name : cat->models[k].aliases[b];
                    if (gs_streq_ci(x, y))
                        return gs_err(err, GS_EINPUT, "GPU models in '%s': '%s' is %s of '%s' and %s of '%s'; a "
                                      "name or alias must name one model", dir, x, a < 0 ? "the name" : "an alias",
                                      cat->models[i].name, b < 0 ? "the name" : "an alias", cat->models[k].name);
                }
        }
    return 0;
}

int gpu_catalog_load(gpu_catalog *cat, const char *dir, gs_error *err)
{
    memset(cat, 0, sizeof *cat);
    snprintf(cat->dir, sizeof cat->dir, "%s", dir);
    DIR *d = opendir(dir);
    if (!d)
        return gs_err(err, GS_EINPUT, "cannot open GPU model directory '%s': %s", dir, strerror(errno));
    char **names = NULL;
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
            names = xrealloc(names, (size_t)(nn + 1) * sizeof *names);
            names[nn++] = xstrdup(e->d_name);
        }
    }
    closedir(d);
    if (nn > 1)
        qsort(names, (size_t)nn, sizeof *names, cmp_str); /* stable order, whatever readdir gives */
    cat->models = xcalloc((size_t)nn, sizeof *cat->models);
    int rc = 0;
    for (int i = 0; i < nn && rc == 0; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        rc = load_one(&cat->models[cat->n++], path, err);
        for (int k = 0; rc == 0 && k < cat->n - 1; k++)
            if (gs_streq_ci(cat->models[k].name, cat->models[cat->n - 1].name))
                rc = gs_err(err, GS_EINPUT, "GPU model '%s': duplicate model name '%s'", path,
                            cat->models[k].name);
    }
    for (int i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (rc == 0)
        rc = check_names(cat, dir, err);
    if (rc == 0 && cat->n == 0)
        rc = gs_err(err, GS_EINPUT, "no GPU model files (*.json) in '%s'", dir);
    if (rc)
        gpu_catalog_free(cat);
    return rc;
}

void gpu_catalog_free(gpu_catalog *cat)
{
    for (int i = 0; i < cat->n; i++) {
        for (int k = 0; k < cat->models[i].naliases; k++)
            free(cat->models[i].aliases[k]);
        free(cat->models[i].aliases);
        free(cat->models[i].mig);
        free(cat->models[i].failures);
    }
    free(cat->models);
    cat->models = NULL;
    cat->n = 0;
}

const gpu_failures *gpu_catalog_failures(const gpu_catalog *cat, const gpu_model *m, const gpu_model **from)
{
    const gpu_model *d = m->failures ? m : gpu_catalog_find(cat, GPU_FAIL_DEFAULT_MODEL);
    *from = d && d->failures ? d : NULL;
    return *from ? (*from)->failures : NULL;
}

bool gpu_model_unverified(const gpu_model *m, const char *field)
{
    size_t n = strlen(field);
    for (const char *p = m->unverified; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, field, n))
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

const gpu_model *gpu_catalog_find(const gpu_catalog *cat, const char *name)
{
    for (int i = 0; i < cat->n; i++)
        if (gs_names_entry(cat->models[i].name, cat->models[i].aliases, cat->models[i].naliases, name))
            return &cat->models[i];
    return NULL;
}

void gpu_catalog_names(const gpu_catalog *cat, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < cat->n && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", cat->models[i].name);
}

bool gpu_catalog_has_mig_profile(const gpu_catalog *cat, const char *name)
{
    for (int i = 0; i < cat->n; i++) {
        const mig_table *t = cat->models[i].mig;
        for (int p = 0; t && p < t->nprofiles; p++)
            if (gs_streq_ci(t->profiles[p].name, name))
                return true;
    }
    return false;
}

/* A model directory holds *.json files; build/<config>/models/gpu holds
 * objects only, so a name match alone is not enough. */
static bool has_json(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        found = l > 5 && strcmp(e->d_name + l - 5, ".json") == 0;
    }
    closedir(d);
    return found;
}

void gpu_catalog_default_dir(char *buf, size_t n)
{
    const char *env = getenv("GPUSIM_MODELS");
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        return;
    }
    if (gs_exe_relative(buf, n, "models/gpu") && has_json(buf))
        return;
    snprintf(buf, n, "models/gpu");
}
