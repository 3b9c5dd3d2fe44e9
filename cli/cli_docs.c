/* cli_docs.c - see cli_docs.h. The checks are written as tables of
 * (key path, type) so that what a document must hold reads as a list.
 * SPDX-License-Identifier: MIT */
#include "cli_docs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef enum { T_OBJECT, T_ARRAY, T_STRING, T_NUMBER, T_NUMBER_OR_NULL } doc_type;

typedef struct need {
    const char *key; /* dotted path from the object checked */
    doc_type type;
} need;

static const char *type_name(doc_type t)
{
    static const char *names[] = {"an object", "an array", "a string", "a finite number", "a number or null"};
    return names[t];
}

static const cJSON *at(const cJSON *o, const char *dotted)
{
    char key[64];
    const char *p = dotted;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t l = dot ? (size_t)(dot - p) : strlen(p);
        if (l >= sizeof key)
            return NULL;
        memcpy(key, p, l);
        key[l] = 0;
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
        p = dot ? dot + 1 : p + l;
    }
    return o;
}

static bool is(const cJSON *v, doc_type t)
{
    switch (t) {
    case T_OBJECT: return cJSON_IsObject(v);
    case T_ARRAY: return cJSON_IsArray(v);
    case T_STRING: return cJSON_IsString(v);
    case T_NUMBER: return cJSON_IsNumber(v) && isfinite(v->valuedouble);
    case T_NUMBER_OR_NULL: return cJSON_IsNull(v) || (cJSON_IsNumber(v) && isfinite(v->valuedouble));
    }
    return false;
}

/* where: the path of o in the document ("" at the top, "policies[2]"). */
static int check_all(const cJSON *o, const need *n, size_t nn, const char *what, const char *path, const char *where,
                     gs_error *err)
{
    for (size_t i = 0; i < nn; i++) {
        const cJSON *v = at(o, n[i].key);
        if (!is(v, n[i].type))
            return gs_err(err, GS_EINPUT, "%s '%s': %s%s%s: %s %s", what, path, where, *where ? "." : "", n[i].key,
                          v ? "expected" : "missing, expected", type_name(n[i].type));
    }
    return 0;
}

/* Every element of the array at key must be an object holding n. */
static int check_each(const cJSON *d, const char *key, const need *n, size_t nn, const char *what, const char *path,
                      gs_error *err)
{
    const cJSON *e;
    int i = 0, rc;
    cJSON_ArrayForEach(e, at(d, key))
    {
        char where[96];
        snprintf(where, sizeof where, "%s[%d]", key, i++);
        if (!cJSON_IsObject(e))
            return gs_err(err, GS_EINPUT, "%s '%s': %s: expected an object", what, path, where);
        if ((rc = check_all(e, n, nn, what, path, where, err)))
            return rc;
    }
    return 0;
}

#define N(a) (sizeof(a) / sizeof *(a))

static int check_kind(const cJSON *d, const char *kind, const char *path, gs_error *err)
{
    if (!cJSON_IsObject(d))
        return gs_err(err, GS_EINPUT, "%s '%s': expected a JSON object", kind, path);
    const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "kind"));
    if (!k || strcmp(k, kind))
        return gs_err(err, GS_EINPUT, "%s '%s': kind: expected \"%s\"", kind, path, kind);
    return 0;
}

int cd_check_report(const cJSON *r, const char *path, gs_error *err)
{
    static const need run[] = {
        {"inputs", T_OBJECT},     {"inputs.policy", T_STRING}, {"inputs.trace", T_STRING},
        {"jobs", T_OBJECT},       {"jobs.arrived", T_NUMBER},  {"gpu", T_OBJECT},
        {"sim", T_OBJECT},        {"sim.end_s", T_NUMBER},
    };
    static const need fill[] = {{"inputs", T_OBJECT}, {"inputs.policy", T_STRING}, {"sim", T_OBJECT}};
    static const need svc[] = {{"id", T_STRING}};
    if (!cJSON_IsObject(r))
        return gs_err(err, GS_EINPUT, "report '%s': expected a JSON object", path);
    const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "mode"));
    if (mode && !strcmp(mode, "fill"))
        return check_all(r, fill, N(fill), "report", path, "", err);
    int rc = check_all(r, run, N(run), "report", path, "", err);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "services");
    if (rc == 0 && s && !cJSON_IsArray(s))
        rc = gs_err(err, GS_EINPUT, "report '%s': services: expected an array", path);
    if (rc == 0 && s)
        rc = check_each(r, "services", svc, N(svc), "report", path, err);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "policy");
    if (rc == 0 && p && !cJSON_IsObject(p))
        rc = gs_err(err, GS_EINPUT, "report '%s': policy: expected an object", path);
    return rc;
}

int cd_check_compare(const cJSON *d, const char *path, gs_error *err)
{
    static const need top[] = {{"trace", T_STRING}, {"policies", T_ARRAY}, {"rows", T_ARRAY}};
    static const need pol[] = {{"label", T_STRING}, {"metrics", T_OBJECT}};
    static const need row[] = {{"key", T_STRING}, {"path", T_STRING}};
    int rc = check_kind(d, "compare", path, err);
    if (rc == 0)
        rc = check_all(d, top, N(top), "compare", path, "", err);
    if (rc == 0)
        rc = check_each(d, "policies", pol, N(pol), "compare", path, err);
    if (rc == 0)
        rc = check_each(d, "rows", row, N(row), "compare", path, err);
    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(d, "seeds");
    if (rc == 0 && seeds && !is(seeds, T_NUMBER))
        rc = gs_err(err, GS_EINPUT, "compare '%s': seeds: expected a finite number", path);
    return rc;
}

int cd_check_plan(const cJSON *d, const char *path, gs_error *err)
{
    static const need top[] = {{"trace", T_STRING}, {"gpu", T_STRING}, {"slo", T_ARRAY}, {"policies", T_ARRAY}};
    static const need slo[] = {{"path", T_STRING}, {"op", T_STRING}, {"value", T_NUMBER}};
    static const need pol[] = {{"label", T_STRING}, {"points", T_ARRAY}};
    static const need pt[] = {{"gpus", T_NUMBER}, {"terms", T_ARRAY}};
    int rc = check_kind(d, "plan", path, err);
    if (rc == 0)
        rc = check_all(d, top, N(top), "plan", path, "", err);
    if (rc == 0)
        rc = check_each(d, "slo", slo, N(slo), "plan", path, err);
    if (rc == 0)
        rc = check_each(d, "policies", pol, N(pol), "plan", path, err);
    if (rc)
        return rc;
    const cJSON *po;
    int i = 0;
    cJSON_ArrayForEach(po, cJSON_GetObjectItemCaseSensitive(d, "policies"))
    {
        const cJSON *e;
        int k = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(po, "points"))
        {
            char where[96];
            snprintf(where, sizeof where, "policies[%d].points[%d]", i, k++);
            if (!cJSON_IsObject(e))
                return gs_err(err, GS_EINPUT, "plan '%s': %s: expected an object", path, where);
            if ((rc = check_all(e, pt, N(pt), "plan", path, where, err)))
                return rc;
        }
        i++;
    }
    return rc;
}
