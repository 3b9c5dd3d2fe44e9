/* cli_sweep_spec.c - `gpusim sweep init SPEC`: expand a grid spec (JSON)
 * into a manifest, one run a line: every trace x cluster x policy x seed, in
 * that order, each with a stable index (its line) and an id from its inputs.
 *
 * A bad spec is reported as SPEC:LINE:COLUMN: what was expected, at the
 * value (or key) at fault; cJSON gives the offset of a syntax error, and
 * gs_json_locate finds a value that parsed but is wrong.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_sweep.h"
#include "../base/gs_json.h"
#include "../base/gs_jsonpos.h"
#include "../base/gs_sha256.h"
#include "../models/gpu/gpu_model.h"
#include "../policies/registry.h"
#include "../base/gs_file.h"

typedef struct spec_ctx {
    const char *path; /* the spec file, as given */
    const char *text;
    char *dir;        /* its directory: relative paths in it start there */
    gs_error *err;
} spec_ctx;

/* Fails at the value reached by the path (NULL-terminated components);
 * at_key: point at the member's key instead (an unknown key). */
static int bad_at(spec_ctx *c, bool at_key, const char *const *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_at(spec_ctx *c, bool at_key, const char *const *path, const char *fmt, ...)
{
    int n = 0;
    while (path[n])
        n++;
    size_t koff = (size_t)-1, off = gs_json_locate(c->text, path, n, &koff);
    if (at_key && koff != (size_t)-1)
        off = koff;
    int line = 1, col = 1;
    if (off != (size_t)-1)
        gs_text_linecol(c->text, off, &line, &col);
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gs_err(c->err, GS_EINPUT, "%s:%d:%d: %s", c->path, line, col, msg);
}

/* An object member not in allowed[] is a typo the user wants to hear about
 * ("lable"), not a silently ignored key. where: the object's path. */
static int check_keys(spec_ctx *c, const cJSON *o, const char *const *where, int nwhere,
                      const char *const *allowed, const char *what)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, o)
    {
        bool ok = false;
        for (int k = 0; allowed[k]; k++)
            ok |= !strcmp(m->string, allowed[k]);
        if (ok)
            continue;
        const char *path[8];
        int n = 0;
        for (; n < nwhere && n < 6; n++)
            path[n] = where[n];
        path[n++] = m->string;
        path[n] = NULL;
        char list[200] = "";
        for (int k = 0; allowed[k]; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", allowed[k]);
        return bad_at(c, true, path, "%s: unknown key '%s' (expected %s)", what, m->string, list);
    }
    return 0;
}

static char *read_text(const char *path, gs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gs_err(err, GS_EINPUT, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0, got;
    char *buf = xmalloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2)
            buf = xrealloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = 0;
    return buf;
}

/* A path from the spec: relative to the spec's directory, made absolute so
 * that a task started anywhere (another node, a container) finds it. */
static int resolve(spec_ctx *c, const char *const *where, const char *p, char **out)
{
    char *joined = p[0] == '/' ? xstrdup(p) : cli_batch_fmt("%s/%s", c->dir, p);
    char abs[PATH_MAX];
    if (!realpath(joined, abs)) {
        int e = errno;
        free(joined);
        return bad_at(c, false, where, "'%s': %s", p, strerror(e));
    }
    free(joined);
    *out = xstrdup(abs);
    return 0;
}

static char *base_label(const char *path, const char *ext)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t l = strlen(b), el = strlen(ext);
    if (l > el && strcmp(b + l - el, ext) == 0)
        l -= el;
    return cli_batch_fmt("%.*s", (int)l, b);
}

/* A number or string parameter value as `run --set` takes it. */
static char *value_text(const cJSON *v)
{
    if (cJSON_IsString(v))
        return xstrdup(v->valuestring);
    if (!cJSON_IsNumber(v))
        return NULL;
    char *s = cli_batch_fmt("%.15g", v->valuedouble);
    if (strtod(s, NULL) != v->valuedouble) {
        free(s);
        s = cli_batch_fmt("%.17g", v->valuedouble);
    }
    return s;
}

typedef struct axis_item {
    char *path, *label, *gpus, *sha;
    long gpus_per_node;
} axis_item;

typedef struct spec {
    axis_item *traces, *clusters;
    int ntraces, nclusters;
    cli_batch_policy *pols; /* one per entry */
    int npols;
    uint64_t *seeds;
    int nseeds;
    char *sets[CLI_BATCH_MAX_SETS];
    int nsets;
    char *until, *models;
    char models_sha[65];
} spec;

static void spec_free(spec *s)
{
    for (int i = 0; i < s->ntraces; i++)
        free(s->traces[i].path), free(s->traces[i].label), free(s->traces[i].sha);
    for (int i = 0; i < s->nclusters; i++)
        free(s->clusters[i].path), free(s->clusters[i].label), free(s->clusters[i].gpus), free(s->clusters[i].sha);
    free(s->traces), free(s->clusters);
    cli_batch_policies_free(s->pols, s->npols);
    free(s->seeds);
    for (int i = 0; i < s->nsets; i++)
        free(s->sets[i]);
    free(s->until), free(s->models);
}

/* Labels name columns in the collected table; two inputs with one base
 * name get their position appended so they stay apart. */
static void unique_labels(axis_item *it, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(it[i].label, it[j].label)) {
                char *l = cli_batch_fmt("%s.%d", it[i].label, i + 1);
                free(it[i].label);
                it[i].label = l;
                break;
            }
}

static int parse_traces(spec_ctx *c, const cJSON *a, spec *s)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return bad_at(c, false, (const char *[]){"traces", NULL},
                      "\"traces\": expected a non-empty list of trace files (strings, or {\"path\", \"label\"})");
    const cJSON *t;
    int i = 0;
    cJSON_ArrayForEach(t, a)
    {
        char ix[16];
        snprintf(ix, sizeof ix, "#%d", i);
        const char *where[] = {"traces", ix, NULL};
        const char *p = cJSON_IsString(t) ? t->valuestring
                                          : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "path"));
        const char *lab = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "label"));
        if (!p || !p[0])
            return bad_at(c, false, where, "traces[%d]: expected a file name, or {\"path\": FILE, \"label\": NAME}", i);
        if (cJSON_IsObject(t) && check_keys(c, t, where, 2, (const char *[]){"path", "label", NULL}, "traces"))
            return c->err->code;
        s->traces = xrealloc(s->traces, (size_t)(s->ntraces + 1) * sizeof *s->traces);
        axis_item *it = &s->traces[s->ntraces++];
        memset(it, 0, sizeof *it);
        if (resolve(c, where, p, &it->path))
            return c->err->code;
        it->label = lab ? xstrdup(lab) : base_label(p, ".csv");
        it->sha = xmalloc(65);
        if (gs_sha256_file(it->path, it->sha, c->err))
            return bad_at(c, false, where, "%s", c->err->msg);
        i++;
    }
    unique_labels(s->traces, s->ntraces);
    return 0;
}

static int parse_clusters(spec_ctx *c, const cJSON *a, spec *s)
{
    if (!a) { /* the shipped example cluster, as `run` uses without --cluster */
        char p[PATH_MAX], abs[PATH_MAX];
        cli_shipped_path(p, sizeof p, "workloads/examples/cluster.json");
        if (!realpath(p, abs))
            return gs_err(c->err, GS_EINPUT, "%s: no \"clusters\", and the example cluster '%s' is not there", c->path,
                          p);
        s->clusters = xcalloc(1, sizeof *s->clusters);
        s->nclusters = 1;
        s->clusters[0].path = xstrdup(abs);
        s->clusters[0].label = xstrdup("cluster");
        s->clusters[0].sha = xmalloc(65);
        return gs_sha256_file(abs, s->clusters[0].sha, c->err);
    }
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return bad_at(c, false, (const char *[]){"clusters", NULL},
                      "\"clusters\": expected a non-empty list of cluster files or {\"gpus\": \"MODEL:N\"}");
    const cJSON *t;
    int i = 0;
    cJSON_ArrayForEach(t, a)
    {
        char ix[16];
        snprintf(ix, sizeof ix, "#%d", i);
        const char *where[] = {"clusters", ix, NULL};
        s->clusters = xrealloc(s->clusters, (size_t)(s->nclusters + 1) * sizeof *s->clusters);
        axis_item *it = &s->clusters[s->nclusters++];
        memset(it, 0, sizeof *it);
        const char *p = cJSON_IsString(t) ? t->valuestring
                                          : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "path"));
        const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "gpus"));
        const char *lab = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "label"));
        const cJSON *gpn = cJSON_GetObjectItemCaseSensitive(t, "gpus_per_node");
        if (cJSON_IsObject(t) &&
            check_keys(c, t, where, 2, (const char *[]){"path", "gpus", "gpus_per_node", "label", NULL}, "clusters"))
            return c->err->code;
        if ((!p && !g) || (p && g) || (p && !p[0]) || (g && !g[0]))
            return bad_at(c, false, where,
                          "clusters[%d]: expected a cluster file, {\"path\": FILE} or {\"gpus\": \"MODEL:N[,...]\", "
                          "\"gpus_per_node\": N}",
                          i);
        if (gpn && (!cJSON_IsNumber(gpn) || gpn->valuedouble < 1 || gpn->valuedouble > CL_MAX_NODE_GPUS ||
                    gpn->valuedouble != floor(gpn->valuedouble) || !g)) {
            const char *w2[] = {"clusters", ix, "gpus_per_node", NULL};
            return bad_at(c, false, w2, "clusters[%d].gpus_per_node: expected an integer 1..%d (with \"gpus\")", i,
                          CL_MAX_NODE_GPUS);
        }
        if (p) {
            if (resolve(c, where, p, &it->path))
                return c->err->code;
            it->sha = xmalloc(65);
            if (gs_sha256_file(it->path, it->sha, c->err))
                return bad_at(c, false, where, "%s", c->err->msg);
            it->label = lab ? xstrdup(lab) : base_label(p, ".json");
        } else {
            it->gpus = xstrdup(g);
            it->gpus_per_node = gpn ? (long)gpn->valuedouble : 0;
            it->label = lab ? xstrdup(lab) : xstrdup(g);
        }
        i++;
    }
    unique_labels(s->clusters, s->nclusters);
    return 0;
}

/* Every part of "space+time" must be a policy the registry holds. */
static bool policy_known(const char *name)
{
    char *copy = xstrdup(name), *save = NULL;
    bool ok = true;
    for (char *tok = strtok_r(copy, "+", &save); tok; tok = strtok_r(NULL, "+", &save))
        ok &= pol_find(tok) != NULL;
    free(copy);
    return ok && name[0] && name[strlen(name) - 1] != '+';
}

/* Policy entry i given as an object, {"name", "params", "label"}, as the
 * command line's text NAME[KEY=VALUE,...] into *entry (the caller frees
 * it): 0, or the error at the value at fault. */
static int object_entry(spec_ctx *c, const cJSON *t, int i, const char *const *where, char **entry)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(t, "params");
    if (check_keys(c, t, where, 2, (const char *[]){"name", "params", "label", NULL}, "policies"))
        return c->err->code;
    if (!name || !name[0] || strpbrk(name, "[],") || (params && !cJSON_IsObject(params)))
        return bad_at(c, false, where, "policies[%d]: expected {\"name\": POLICY, \"params\": {KEY: VALUE}}", i);
    char *e = xstrdup(name);
    const cJSON *kv;
    int k = 0;
    cJSON_ArrayForEach(kv, params)
    {
        char *v = value_text(kv);
        if (!v || strpbrk(kv->string, "=,[]") || (cJSON_IsString(kv) && strpbrk(v, ",[]"))) {
            free(v), free(e);
            const char *w2[] = {"policies", where[1], "params", kv->string, NULL};
            return bad_at(c, false, w2, "policies[%d].params.%s: expected a number or a string without , [ ]", i,
                          kv->string);
        }
        char *e2 = cli_batch_fmt("%s%s%s=%s", e, k ? "," : "[", kv->string, v);
        free(e), free(v);
        e = e2;
        k++;
    }
    if (k) {
        char *e2 = cli_batch_fmt("%s]", e);
        free(e);
        e = e2;
    }
    *entry = e;
    return 0;
}

/* Policy entry i's text (entry, freed here) parsed as one policy, labelled
 * (its "label", else the parser's), checked against the registry and the
 * labels before it, and appended to s->pols. */
static int add_policy(spec_ctx *c, spec *s, const cJSON *t, int i, const char *const *where, char *entry)
{
    cli_batch_policy *one;
    int n;
    gs_error e2 = {0};
    int rc = cli_batch_policies_parse(entry, &one, &n, &e2);
    if (rc == 0 && n != 1) {
        cli_batch_policies_free(one, n);
        rc = gs_err(&e2, GS_EUSAGE, "one policy per entry");
    }
    free(entry);
    if (rc)
        return bad_at(c, false, where, "policies[%d]: %s", i, e2.msg);
    const cJSON *lab = cJSON_GetObjectItemCaseSensitive(t, "label");
    if (cJSON_IsString(lab) && lab->valuestring[0])
        snprintf(one->label, sizeof one->label, "%s", lab->valuestring);
    if (!policy_known(one->name)) {
        char msg[300];
        snprintf(msg, sizeof msg, "policies[%d]: unknown policy '%s' (see 'gpusim policies')", i, one->name);
        cli_batch_policies_free(one, n);
        return bad_at(c, false, where, "%s", msg);
    }
    for (int p = 0; p < s->npols; p++)
        if (!strcmp(s->pols[p].label, one->label)) {
            cli_batch_policies_free(one, n);
            return bad_at(c, false, where, "policies[%d]: the label '%s' is already used", i, s->pols[p].label);
        }
    s->pols = xrealloc(s->pols, (size_t)(s->npols + 1) * sizeof *s->pols);
    s->pols[s->npols++] = one[0];
    free(one);
    return 0;
}

static int parse_policies(spec_ctx *c, const cJSON *a, spec *s)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return bad_at(c, false, (const char *[]){"policies", NULL},
                      "\"policies\": expected a non-empty list: \"whole\", \"whole[queue=fifo]\" or "
                      "{\"name\": \"vgpu\", \"params\": {\"split_count\": 20}}");
    const cJSON *t;
    int i = 0;
    cJSON_ArrayForEach(t, a)
    {
        char ix[16];
        snprintf(ix, sizeof ix, "#%d", i);
        const char *where[] = {"policies", ix, NULL};
        char *entry = NULL;
        if (cJSON_IsString(t))
            entry = xstrdup(t->valuestring);
        else if (!cJSON_IsObject(t))
            return bad_at(c, false, where, "policies[%d]: expected a string or an object", i);
        else if (object_entry(c, t, i, where, &entry))
            return c->err->code;
        if (add_policy(c, s, t, i, where, entry))
            return c->err->code;
        i++;
    }
    return 0;
}

static int parse_seeds(spec_ctx *c, const cJSON *a, spec *s)
{
    const char *where[] = {"seeds", NULL};
    if (!a) {
        s->seeds = xmalloc(sizeof *s->seeds);
        s->seeds[0] = 1;
        s->nseeds = 1;
        return 0;
    }
    if (cJSON_IsNumber(a)) {
        if (a->valuedouble < 1 || a->valuedouble > 10000 || a->valuedouble != floor(a->valuedouble))
            return bad_at(c, false, where, "\"seeds\": expected a count 1..10000 (seeds 1..N) or a list of seeds");
        s->nseeds = (int)a->valuedouble;
        s->seeds = xmalloc((size_t)s->nseeds * sizeof *s->seeds);
        for (int i = 0; i < s->nseeds; i++)
            s->seeds[i] = (uint64_t)i + 1;
        return 0;
    }
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return bad_at(c, false, where, "\"seeds\": expected a count (seeds 1..N) or a non-empty list of seeds");
    const cJSON *t;
    cJSON_ArrayForEach(t, a)
    {
        char ix[16];
        snprintf(ix, sizeof ix, "#%d", s->nseeds);
        const char *w2[] = {"seeds", ix, NULL};
        if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 9007199254740992.0 ||
            t->valuedouble != floor(t->valuedouble))
            return bad_at(c, false, w2, "seeds[%d]: expected a non-negative integer", s->nseeds);
        for (int i = 0; i < s->nseeds; i++)
            if (s->seeds[i] == (uint64_t)t->valuedouble)
                return bad_at(c, false, w2, "seeds[%d]: seed %.0f is listed twice", s->nseeds, t->valuedouble);
        s->seeds = xrealloc(s->seeds, (size_t)(s->nseeds + 1) * sizeof *s->seeds);
        s->seeds[s->nseeds++] = (uint64_t)t->valuedouble;
    }
    return 0;
}

static int parse_spec(spec_ctx *c, const cJSON *root, spec *s)
{
    static const char *const keys[] = {"traces", "clusters", "policies", "seeds", "set", "until", "models", "comment"};
    if (!cJSON_IsObject(root))
        return bad_at(c, false, (const char *[]){NULL}, "expected an object {\"traces\": [...], \"policies\": [...], ...}");
    const cJSON *m;
    cJSON_ArrayForEach(m, root)
    {
        bool ok = false;
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            ok |= !strcmp(m->string, keys[k]);
        if (!ok)
            return bad_at(c, true, (const char *[]){m->string, NULL},
                          "unknown key '%s' (expected traces, clusters, policies, seeds, set, until, models, comment)",
                          m->string);
    }
    int rc = parse_traces(c, cJSON_GetObjectItemCaseSensitive(root, "traces"), s);
    if (rc == 0)
        rc = parse_clusters(c, cJSON_GetObjectItemCaseSensitive(root, "clusters"), s);
    if (rc == 0)
        rc = parse_policies(c, cJSON_GetObjectItemCaseSensitive(root, "policies"), s);
    if (rc == 0)
        rc = parse_seeds(c, cJSON_GetObjectItemCaseSensitive(root, "seeds"), s);
    if (rc)
        return rc;
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "set");
    if (set && !cJSON_IsObject(set))
        return bad_at(c, false, (const char *[]){"set", NULL}, "\"set\": expected an object {KEY: VALUE} for every run");
    const cJSON *kv;
    cJSON_ArrayForEach(kv, set)
    {
        char *v = value_text(kv);
        if (!v || strchr(kv->string, '=') || s->nsets == CLI_BATCH_MAX_SETS) {
            free(v);
            return bad_at(c, false, (const char *[]){"set", kv->string, NULL},
                          "set.%s: expected a number or a string (at most %d parameters)", kv->string, CLI_BATCH_MAX_SETS);
        }
        s->sets[s->nsets++] = cli_batch_fmt("%s=%s", kv->string, v);
        free(v);
    }
    for (int p = 0; p < s->npols; p++)
        if (s->nsets + s->pols[p].nsets > CLI_BATCH_MAX_SETS)
            return bad_at(c, false, (const char *[]){"policies", NULL}, "'%s': more than %d parameters with \"set\"",
                          s->pols[p].label, CLI_BATCH_MAX_SETS);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "until");
    if (u) {
        if (!cJSON_IsNumber(u) || !(u->valuedouble > 0))
            return bad_at(c, false, (const char *[]){"until", NULL}, "\"until\": expected seconds > 0");
        s->until = value_text(u);
    }
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(root, "models");
    if (md) {
        if (!cJSON_IsString(md))
            return bad_at(c, false, (const char *[]){"models", NULL}, "\"models\": expected a directory");
        if (resolve(c, (const char *[]){"models", NULL}, md->valuestring, &s->models))
            return c->err->code;
    } else { /* the directory `run` would use here, made absolute: a task's cwd may differ */
        char d[PATH_MAX], abs[PATH_MAX];
        gpu_catalog_default_dir(d, sizeof d);
        if (!realpath(d, abs))
            return gs_err(c->err, GS_EINPUT, "%s: no \"models\", and the GPU model directory '%s' is not there: %s",
                          c->path, d, strerror(errno));
        s->models = xstrdup(abs);
    }
    return sw_models_sha(s->models, s->models_sha, c->err);
}

/* The run of trace t, cluster k, policy p and seed e (borrowed strings). */
static sw_run run_of(const spec *s, int t, int k, int p, int e, int index)
{
    sw_run r = {.index = index, .seed = s->seeds[e], .gpus_per_node = s->clusters[k].gpus_per_node};
    r.trace = s->traces[t].path, r.trace_label = s->traces[t].label;
    r.cluster = s->clusters[k].path, r.gpus = s->clusters[k].gpus;
    r.cluster_label = s->clusters[k].label;
    r.label = s->pols[p].label, r.policy = s->pols[p].name;
    for (int i = 0; i < s->nsets; i++)
        r.sets[r.nsets++] = s->sets[i];
    for (int i = 0; i < s->pols[p].nsets; i++) /* the entry's own win */
        r.sets[r.nsets++] = s->pols[p].sets[i];
    r.until = s->until, r.models = s->models;
    return r;
}

/* Every cluster loads, and every policy entry starts on every cluster (the
 * first trace, the first seed), as `run` would: the error names the spec
 * entry, before a manifest is written (sw_check_run). O(clusters x
 * policies) set-ups. */
static int check_runs(spec_ctx *c, const spec *s)
{
    gpu_catalog cat;
    if (gpu_catalog_load(&cat, s->models, c->err))
        return bad_at(c, false, (const char *[]){"models", NULL}, "%s", c->err->msg);
    int rc = 0;
    for (int k = 0; k < s->nclusters && rc == 0; k++) {
        char ix[16];
        snprintf(ix, sizeof ix, "#%d", k);
        for (int p = 0; p < s->npols && rc == 0; p++) {
            sw_run r = run_of(s, 0, k, p, 0, 0);
            gs_error e = {0};
            if (sw_check_run(&cat, &r, &e) == 0)
                continue;
            char px[16];
            snprintf(px, sizeof px, "#%d", p);
            bool cluster_bad = p == 0 && sw_check_cluster(&cat, &r, &(gs_error){0}) != 0;
            rc = cluster_bad ? bad_at(c, false, (const char *[]){"clusters", ix, NULL}, "clusters[%d]: %s", k, e.msg)
                             : bad_at(c, false, (const char *[]){"policies", px, NULL},
                                      "policies[%d] '%s' on cluster '%s': %s", p, s->pols[p].label,
                                      s->clusters[k].label, e.msg);
        }
    }
    gpu_catalog_free(&cat);
    return rc;
}

/* The manifest: every trace x cluster x policy x seed, one line each. */
static int emit_manifest(FILE *out, void *ud, gs_error *err)
{
    (void)err;
    const spec *s = ud;
    int index = 0;
    for (int t = 0; t < s->ntraces; t++)
        for (int k = 0; k < s->nclusters; k++)
            for (int p = 0; p < s->npols; p++)
                for (int e = 0; e < s->nseeds; e++) {
                    /* borrowed strings: the line is printed, then dropped */
                    sw_run r = run_of(s, t, k, p, e, index++);
                    sw_run_id_from(&r, s->traces[t].sha, s->clusters[k].sha ? s->clusters[k].sha : "", s->models_sha);
                    cJSON *o = sw_run_json(&r);
                    char *line = cJSON_PrintUnformatted(o);
                    fprintf(out, "%s\n", line);
                    free(line);
                    cJSON_Delete(o);
                }
    return 0;
}

static void init_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim sweep init SPEC [--out DIR]\n"
            "\n"
            "Expands SPEC (JSON) into DIR/manifest.jsonl, one run a line: every trace x cluster x\n"
            "policy x seed. DIR defaults to results/sweep.<spec name>. Spec keys:\n"
            "  \"traces\":   [\"day1.csv\", {\"path\": \"day2.csv\", \"label\": \"tue\"}]   (relative to SPEC)\n"
            "  \"clusters\": [\"cluster.json\", {\"gpus\": \"H100-SXM5-80GB:64\", \"gpus_per_node\": 8}]\n"
            "               (default: the example cluster)\n"
            "  \"policies\": [\"whole\", \"whole[queue=fifo]\", {\"name\": \"vgpu\", \"params\": {\"split_count\": 20}}]\n"
            "  \"seeds\":    6 (seeds 1..6, the default 1) or [1, 7, 42]\n"
            "  \"set\":      {\"KEY\": VALUE} for every run;  \"until\": SECONDS;  \"models\": DIR\n");
}

/* sweep init's options: 1 with *out set (NULL: the default directory),
 * 0 when --help was printed, or -1 with *err. */
static int init_options(int argc, char **argv, const char **out, gs_error *err)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'o')
            *out = optarg;
        else if (ch == 'h')
            return init_usage(stdout), 0;
        else
            return gs_err(err, GS_EUSAGE, "sweep init: unknown or incomplete option '%s'", argv[optind - 1]), -1;
    }
    if (optind != argc - 1)
        return gs_err(err, GS_EUSAGE, "sweep init: expected one SPEC file"), -1;
    return 1;
}

/* c's text as JSON (*root, which the caller frees) into *s: 0, or the error
 * at SPEC:LINE:COLUMN. */
static int read_spec(spec_ctx *c, cJSON **root, spec *s)
{
    const char *end = NULL;
    *root = cJSON_ParseWithOpts(c->text, &end, 1);
    if (!*root) {
        int line, col;
        gs_text_linecol(c->text, end ? (size_t)(end - c->text) : 0, &line, &col);
        return gs_err(c->err, GS_EINPUT, "%s:%d:%d: not valid JSON here", c->path, line, col);
    }
    /* the one JSON reader's checks beside cJSON's positions: a key given
     * twice would otherwise keep its first value silently */
    cJSON *strict = gs_json_parse(c->text, strlen(c->text), "sweep spec", c->path, c->err);
    int rc = strict ? parse_spec(c, *root, s) : GS_EINPUT;
    cJSON_Delete(strict);
    return rc;
}

/* Every sweep command reads the whole manifest: a spec of more than
 * SW_MAX_RUNS runs is refused, saying what it would take. */
static int check_size(spec_ctx *c, const spec *s, size_t nruns)
{
    if (nruns <= SW_MAX_RUNS)
        return 0;
    sw_run r = run_of(s, 0, 0, 0, 0, 0);
    cJSON *o = sw_run_json(&r);
    char *line = cJSON_PrintUnformatted(o);
    double bytes = (double)nruns * (double)(strlen(line) + 1);
    int rc = gs_err(c->err, GS_EUSAGE, "%s: %zu runs (%d traces x %d clusters x %d policies x %d seeds) would make a "
                    "manifest of about %.1f GB, read whole by every sweep command; at most %d runs: split the spec",
                    c->path, nruns, s->ntraces, s->nclusters, s->npols, s->nseeds, bytes / 1e9, SW_MAX_RUNS);
    free(line);
    cJSON_Delete(o);
    return rc;
}

/* DIR/manifest.jsonl written (streamed into a temporary beside it, renamed
 * whole: memory O(one line)) and the line that says so printed. */
static int write_manifest(spec_ctx *c, spec *s, const char *odir, size_t nruns)
{
    char mpath[1000];
    snprintf(mpath, sizeof mpath, "%s/manifest.jsonl", odir);
    int rc = gs_mkdirs(odir, c->err);
    if (rc == 0)
        rc = cli_emit(mpath, emit_manifest, s, c->err);
    if (rc == 0)
        printf("sweep: %zu runs (%d trace%s x %d cluster%s x %d polic%s x %d seed%s): %s\n", nruns, s->ntraces,
               s->ntraces > 1 ? "s" : "", s->nclusters, s->nclusters > 1 ? "s" : "", s->npols,
               s->npols > 1 ? "ies" : "y", s->nseeds, s->nseeds > 1 ? "s" : "", mpath);
    return rc;
}

int sw_cmd_init(int argc, char **argv)
{
    const char *out = NULL;
    gs_error err = {0};
    int o = init_options(argc, argv, &out, &err);
    if (o <= 0)
        return o == 0 ? 0 : cli_fail(&err);
    const char *path = argv[optind];
    char *text = read_text(path, &err);
    if (!text)
        return cli_fail(&err);
    const char *slash = strrchr(path, '/');
    spec_ctx c = {path, text, slash ? cli_batch_fmt("%.*s", (int)(slash - path) + 1, path) : xstrdup("."), &err};
    cJSON *root = NULL;
    spec s = {0};
    int rc = read_spec(&c, &root, &s);
    char odir[900];
    if (out)
        snprintf(odir, sizeof odir, "%s", out);
    else {
        char *b = base_label(path, ".json");
        snprintf(odir, sizeof odir, "results/sweep.%s", b);
        free(b);
    }
    size_t nruns = rc ? 0 : (size_t)s.ntraces * (size_t)s.nclusters * (size_t)s.npols * (size_t)s.nseeds;
    if (rc == 0)
        rc = check_size(&c, &s, nruns);
    if (rc == 0)
        rc = check_runs(&c, &s);
    if (rc == 0)
        rc = write_manifest(&c, &s, odir, nruns);
    spec_free(&s);
    cJSON_Delete(root);
    free(c.dir);
    free(text);
    return rc ? cli_fail(&err) : 0;
}
