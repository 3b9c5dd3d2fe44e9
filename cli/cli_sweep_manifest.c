/* cli_sweep_manifest.c - the manifest (JSON Lines, one run a line), run
 * ids, and where a run's result or failure lives.
 * SPDX-License-Identifier: MIT */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_sweep.h"
#include "../base/gs_json.h"
#include "../base/gs_jsonpos.h"
#include "../base/gs_sha256.h"
#include "../sim/sim_cluster.h"

cJSON *sw_run_json(const sw_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", r->index);
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "trace", r->trace);
    cJSON_AddStringToObject(o, "trace_label", r->trace_label);
    if (r->cluster)
        cJSON_AddStringToObject(o, "cluster", r->cluster);
    if (r->gpus)
        cJSON_AddStringToObject(o, "gpus", r->gpus);
    if (r->gpus_per_node)
        cJSON_AddNumberToObject(o, "gpus_per_node", (double)r->gpus_per_node);
    cJSON_AddStringToObject(o, "cluster_label", r->cluster_label);
    cJSON_AddStringToObject(o, "label", r->label);
    cJSON_AddStringToObject(o, "policy", r->policy);
    cJSON *sa = cJSON_AddArrayToObject(o, "set");
    for (int i = 0; i < r->nsets; i++)
        cJSON_AddItemToArray(sa, cJSON_CreateString(r->sets[i]));
    cJSON_AddNumberToObject(o, "seed", (double)r->seed);
    if (r->until)
        cJSON_AddStringToObject(o, "until", r->until);
    if (r->models)
        cJSON_AddStringToObject(o, "models", r->models);
    cJSON_AddStringToObject(o, "version", GPUSIM_VERSION);
    return o;
}

void sw_run_free(sw_run *r)
{
    free(r->trace), free(r->trace_label), free(r->cluster), free(r->gpus), free(r->cluster_label);
    free(r->label), free(r->policy), free(r->until), free(r->models);
    for (int i = 0; i < r->nsets; i++)
        free(r->sets[i]);
    memset(r, 0, sizeof *r);
}

/* The id hashes what decides a run's numbers: the bytes of its inputs (not
 * their names, so moving a trace keeps its results), the policy and every
 * parameter in the order given (a later --set wins), the seed, --until,
 * --models and the version of gpusim. */
static void id_from(sw_run *r, const char *trace_sha, const char *cluster_sha, const char *models_sha)
{
    gs_sha256 s;
    gs_sha256_init(&s);
    char *head = cli_batch_fmt("gpusim sweep run\nversion=%s\ntrace=%s\n", GPUSIM_VERSION, trace_sha);
    gs_sha256_update(&s, head, strlen(head));
    free(head);
    char *cl = r->cluster ? cli_batch_fmt("cluster=%s\n", cluster_sha)
                          : cli_batch_fmt("gpus=%s per_node=%ld\n", r->gpus, r->gpus_per_node);
    gs_sha256_update(&s, cl, strlen(cl));
    free(cl);
    char *pol = cli_batch_fmt("policy=%s\n", r->policy);
    gs_sha256_update(&s, pol, strlen(pol));
    free(pol);
    for (int i = 0; i < r->nsets; i++) {
        char *kv = cli_batch_fmt("set=%s\n", r->sets[i]);
        gs_sha256_update(&s, kv, strlen(kv));
        free(kv);
    }
    char *tail = cli_batch_fmt("seed=%llu\nuntil=%s\nmodels=%s\n", (unsigned long long)r->seed, r->until ? r->until : "",
                        models_sha);
    gs_sha256_update(&s, tail, strlen(tail));
    free(tail);
    char hex[65];
    gs_sha256_hex(&s, hex);
    memcpy(r->id, hex, SW_ID_HEX);
    r->id[SW_ID_HEX] = 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int sw_models_sha(const char *dir, char hex[65], gs_error *err)
{
    hex[0] = 0;
    if (!dir)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return gs_err(err, GS_EINPUT, "cannot open GPU model directory '%s': %s", dir, strerror(errno));
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
            names = xrealloc(names, (size_t)(n + 1) * sizeof *names);
            names[n++] = xstrdup(e->d_name);
        }
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    gs_sha256 s;
    gs_sha256_init(&s);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char *p = cli_batch_fmt("%s/%s", dir, names[i]), fh[65];
        if (rc == 0 && (rc = gs_sha256_file(p, fh, err)) == 0) {
            char *line = cli_batch_fmt("%s %s\n", names[i], fh);
            gs_sha256_update(&s, line, strlen(line));
            free(line);
        }
        free(p), free(names[i]);
    }
    free(names);
    if (rc == 0)
        gs_sha256_hex(&s, hex);
    return rc;
}

int sw_run_id(sw_run *r, gs_error *err)
{
    char tsha[65], csha[65] = "", msha[65];
    if (gs_sha256_file(r->trace, tsha, err))
        return err->code;
    if (r->cluster && gs_sha256_file(r->cluster, csha, err))
        return err->code;
    if (sw_models_sha(r->models, msha, err))
        return err->code;
    id_from(r, tsha, csha, msha);
    return 0;
}

void sw_run_id_from(sw_run *r, const char *trace_sha, const char *cluster_sha, const char *models_sha)
{
    id_from(r, trace_sha, cluster_sha, models_sha);
}

static char *opt_str(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? xstrdup(s) : NULL;
}

/* v is a whole number in [lo, hi] (so that casting it is defined). */
static bool whole_in(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi && v->valuedouble == floor(v->valuedouble);
}

static int line_from_json(sw_run *r, const cJSON *o, const char *path, int line, gs_error *err)
{
    memset(r, 0, sizeof *r);
    const cJSON *idx = cJSON_GetObjectItemCaseSensitive(o, "index");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(o, "seed");
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "id"));
    r->trace = opt_str(o, "trace");
    r->trace_label = opt_str(o, "trace_label");
    r->cluster = opt_str(o, "cluster");
    r->gpus = opt_str(o, "gpus");
    r->cluster_label = opt_str(o, "cluster_label");
    r->label = opt_str(o, "label");
    r->policy = opt_str(o, "policy");
    r->until = opt_str(o, "until");
    r->models = opt_str(o, "models");
    /* numbers are checked before any cast: a seed of -1 or 1e300 or a
     * gpus_per_node of 1e300 is undefined to convert, and would make every run fail */
    const cJSON *gpn = cJSON_GetObjectItemCaseSensitive(o, "gpus_per_node");
    if (gpn && !whole_in(gpn, 1, CL_MAX_NODE_GPUS))
        return gs_err(err, GS_EINPUT, "%s:%d:1: \"gpus_per_node\": expected an integer 1..%d", path, line,
                      CL_MAX_NODE_GPUS);
    r->gpus_per_node = gpn ? (long)gpn->valuedouble : 0;
    if (seed && !whole_in(seed, 0, 9007199254740992.0))
        return gs_err(err, GS_EINPUT, "%s:%d:1: \"seed\": expected an integer 0..2^53", path, line);
    if (idx && !whole_in(idx, 0, INT_MAX))
        return gs_err(err, GS_EINPUT, "%s:%d:1: \"index\": expected an integer >= 0", path, line);
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(o, "set"))
    {
        if (!cJSON_IsString(s) || r->nsets == CLI_BATCH_MAX_SETS)
            return gs_err(err, GS_EINPUT, "%s:%d:1: \"set\": expected at most %d strings key=value", path, line,
                          CLI_BATCH_MAX_SETS);
        r->sets[r->nsets++] = xstrdup(s->valuestring);
    }
    if (!cJSON_IsNumber(idx) || !cJSON_IsNumber(seed) || !id || strlen(id) != SW_ID_HEX || !r->trace ||
        !r->trace_label || (!r->cluster && !r->gpus) || !r->cluster_label || !r->label || !r->policy)
        return gs_err(err, GS_EINPUT,
                      "%s:%d:1: not a sweep manifest line (needs index, id, trace, trace_label, cluster or gpus, "
                      "cluster_label, label, policy, seed; made by 'gpusim sweep init')",
                      path, line);
    r->index = (int)idx->valuedouble;
    r->seed = (uint64_t)seed->valuedouble;
    memcpy(r->id, id, SW_ID_HEX + 1);
    if (r->index != line - 1)
        return gs_err(err, GS_EINPUT, "%s:%d:1: index %d on line %d (line N holds index N-1)", path, line, r->index,
                      line);
    return 0;
}

int sw_manifest_read(sw_manifest *m, const char *path, gs_error *err)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err(err, GS_EINPUT, "cannot read '%s': %s", path, strerror(errno));
    m->path = xstrdup(path);
    char *slash = strrchr(m->path, '/');
    m->dir = slash ? cli_batch_fmt("%.*s", (int)(slash - m->path), m->path) : xstrdup(".");
    if (!m->dir[0]) {
        free(m->dir);
        m->dir = xstrdup("/");
    }
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int line = 0, rc = 0;
    long nruns = 0;
    while (rc == 0 && (len = getline(&buf, &cap, f)) >= 0) {
        line++;
        if (++nruns > SW_MAX_RUNS) {
            rc = gs_err(err, GS_EINPUT, "%s:%d:1: more than %d runs in one manifest", path, line, SW_MAX_RUNS);
            break;
        }
        /* the one JSON reader: a second value on the line, a duplicate key
         * or a NUL byte is an error, not silently dropped */
        cJSON *o = gs_json_parse_at(buf, (size_t)len, "manifest", path, line, err);
        if (!o || !cJSON_IsObject(o)) {
            if (o)
                rc = gs_err(err, GS_EINPUT, "%s:%d:1: expected one JSON object per line", path, line);
            else
                rc = GS_EINPUT;
            cJSON_Delete(o);
            break;
        }
        if ((m->n & (m->n - 1)) == 0) /* doubling at each power of two: O(lines) copying, not O(lines^2) */
            m->runs = xrealloc(m->runs, (size_t)(m->n ? 2 * m->n : 1) * sizeof *m->runs);
        rc = line_from_json(&m->runs[m->n], o, path, line, err);
        m->n++;
        cJSON_Delete(o);
    }
    free(buf);
    fclose(f);
    if (rc == 0 && m->n == 0)
        rc = gs_err(err, GS_EINPUT, "%s: no runs (an empty manifest)", path);
    if (rc)
        sw_manifest_free(m);
    return rc;
}

void sw_manifest_free(sw_manifest *m)
{
    for (int i = 0; i < m->n; i++)
        sw_run_free(&m->runs[i]);
    free(m->runs), free(m->path), free(m->dir);
    memset(m, 0, sizeof *m);
}

void sw_run_dir(const sw_manifest *m, int i, char *buf, size_t n)
{
    snprintf(buf, n, "%s/runs/%s", m->dir, m->runs[i].id);
}

sw_state sw_state_of(const sw_manifest *m, int i, char *why, size_t n)
{
    char p[1400];
    struct stat st;
    if (why && n)
        why[0] = 0;
    snprintf(p, sizeof p, "%s/runs/%s/report.json", m->dir, m->runs[i].id);
    if (stat(p, &st) == 0)
        return SW_DONE;
    snprintf(p, sizeof p, "%s/failed/%s/stderr.log", m->dir, m->runs[i].id);
    FILE *f = fopen(p, "r");
    if (!f)
        return SW_MISSING;
    char line[1024] = "";
    if (!fgets(line, sizeof line, f))
        snprintf(line, sizeof line, "(no error message)");
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    if (why)
        snprintf(why, n, "%s", strncmp(line, "gpusim: error: ", 15) == 0 ? line + 15 : line);
    return SW_FAILED;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

int sw_remove_tree(const char *path, gs_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return gs_err(err, GS_EWRITE, "cannot remove '%s': %s", path, strerror(errno));
    return 0;
}

char *sw_index_list(const bool *want, int n)
{
    size_t cap = 64, len = 0;
    char *s = xmalloc(cap);
    s[0] = 0;
    for (int i = 0; i < n; i++) {
        if (!want[i])
            continue;
        int j = i;
        while (j + 1 < n && want[j + 1])
            j++;
        char part[48];
        int l = j > i ? snprintf(part, sizeof part, "%s%d-%d", len ? "," : "", i, j)
                      : snprintf(part, sizeof part, "%s%d", len ? "," : "", i);
        while (len + (size_t)l + 1 > cap)
            s = xrealloc(s, cap *= 2);
        memcpy(s + len, part, (size_t)l + 1);
        len += (size_t)l;
        i = j;
    }
    return s;
}
