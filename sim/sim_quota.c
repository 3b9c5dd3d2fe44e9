/* sim_quota.c - tenant quota table (see sim_quota.h).
 * SPDX-License-Identifier: MIT */
#include "sim_quota.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(gs_error *err, const char *path, int i, const char *field, const char *want)
{
    return gs_err(err, GS_EINPUT, "cluster '%s': tenants[%d].%s: expected %s", path, i, field, want);
}

static bool count_ok(const cJSON *v) { return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 1e9; }

int sim_quota_parse(sim_quota *q, const cJSON *arr, const char *path, const sim_cluster *c,
                    const gpu_catalog *cat, gs_error *err)
{
    memset(q, 0, sizeof *q);
    if (!cJSON_IsArray(arr))
        return gs_err(err, GS_EINPUT, "cluster '%s': 'tenants' must be an array", path);
    int n = cJSON_GetArraySize(arr), i = 0;
    q->t = xcalloc((size_t)n + 1, sizeof *q->t);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        sim_tenant *t = &q->t[i];
        t->gpus_max = t->gpumem_max_gib = -1;
        for (int p = 0; p < CL_MAX_POOLS; p++)
            t->cards_max[p] = -1;
        sim_sketch_init(&t->blocked_queue_s);
        q->n = i + 1;
        const cJSON *k;
        cJSON_ArrayForEach(k, it)
        {
            if (strcmp(k->string, "name") && strcmp(k->string, "gpus") && strcmp(k->string, "gpu_mem_gib") &&
                strcmp(k->string, "cards") && strcmp(k->string, "comment"))
                return gs_err(err, GS_EINPUT,
                              "cluster '%s': tenants[%d]: unknown key '%s' (expected name, gpus, gpu_mem_gib, "
                              "cards, comment)",
                              path, i, k->string);
        }
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= sizeof t->name)
            return bad(err, path, i, "name", "a tenant name of 1..63 characters");
        if (sim_quota_find(q, v->valuestring))
            return gs_err(err, GS_EINPUT, "cluster '%s': tenants[%d].name: tenant '%s' listed twice", path, i,
                          v->valuestring);
        snprintf(t->name, sizeof t->name, "%s", v->valuestring);
        if ((v = cJSON_GetObjectItemCaseSensitive(it, "gpus"))) {
            if (!count_ok(v) || v->valuedouble != floor(v->valuedouble))
                return bad(err, path, i, "gpus", "an integer >= 0");
            t->gpus_max = v->valuedouble;
        }
        if ((v = cJSON_GetObjectItemCaseSensitive(it, "gpu_mem_gib"))) {
            if (!count_ok(v))
                return bad(err, path, i, "gpu_mem_gib", "a number of GiB >= 0");
            t->gpumem_max_gib = v->valuedouble;
        }
        if ((v = cJSON_GetObjectItemCaseSensitive(it, "cards"))) {
            if (!cJSON_IsObject(v))
                return bad(err, path, i, "cards", "an object {\"MODEL\": count}");
            const cJSON *m;
            cJSON_ArrayForEach(m, v)
            {
                const gpu_model *gm = gpu_catalog_find(cat, m->string);
                if (!gm)
                    return gs_err(err, GS_EINPUT, "cluster '%s': tenants[%d].cards: unknown GPU model '%s'", path,
                                  i, m->string);
                if (!count_ok(m) || m->valuedouble != floor(m->valuedouble))
                    return bad(err, path, i, "cards", "integer counts >= 0");
                int p = sim_cluster_pool_of(c, gm);
                if (p >= 0)
                    t->cards_max[p] = (int)m->valuedouble;
            }
        }
        i++;
    }
    return 0;
}

void sim_quota_free(sim_quota *q)
{
    for (int i = 0; i < q->n; i++)
        sim_sketch_free(&q->t[i].blocked_queue_s);
    free(q->t);
    memset(q, 0, sizeof *q);
}

int sim_quota_find(const sim_quota *q, const char *name)
{
    for (int i = 0; q && i < q->n; i++)
        if (!strcmp(q->t[i].name, name))
            return i + 1;
    return 0;
}
