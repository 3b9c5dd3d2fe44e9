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

/* FNV-1a: spreads short, similar names ("team-00017") over the table. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of name in the table: its entry, or the empty slot it would go to. */
static size_t name_slot(const sim_quota *q, const char *name)
{
    size_t i = (size_t)name_hash(name) & (q->cap - 1);
    while (q->by_name[i] && strcmp(q->t[q->by_name[i] - 1].name, name))
        i = (i + 1) & (q->cap - 1);
    return i;
}

int sim_quota_parse(sim_quota *q, const cJSON *arr, const char *path, const sim_cluster *c,
                    const gpu_catalog *cat, gs_error *err)
{
    memset(q, 0, sizeof *q);
    if (!cJSON_IsArray(arr))
        return gs_err(err, GS_EINPUT, "cluster '%s': 'tenants' must be an array", path);
    int n = cJSON_GetArraySize(arr), i = 0;
    q->t = xcalloc((size_t)n + 1, sizeof *q->t);
    for (q->cap = 4; q->cap < 2 * (size_t)n; q->cap *= 2)
        ;
    q->by_name = xcalloc(q->cap, sizeof *q->by_name);
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
        q->by_name[name_slot(q, t->name)] = i + 1;
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
                if (__builtin_popcountll(sim_cluster_pools_of(c, gm)) > 1)
                    return gs_err(err, GS_EINPUT, "cluster '%s': tenants[%d].cards: '%s' has spot and other nodes; "
                                  "a card quota per tier is not supported", path, i, m->string);
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
    free(q->by_name);
    memset(q, 0, sizeof *q);
}

int sim_quota_find(const sim_quota *q, const char *name)
{
    return q && q->cap ? q->by_name[name_slot(q, name)] : 0;
}

void sim_quota_reset(sim_quota *q)
{
    for (int i = 0; i < q->n; i++) {
        sim_tenant *t = &q->t[i];
        t->gpus_used = t->gpumem_used_gib = t->peak_gpus = t->peak_gpumem_gib = 0;
        memset(t->cards_used, 0, sizeof t->cards_used);
        t->arrived = t->blocked = t->rejected = 0;
        sim_sketch_free(&t->blocked_queue_s);
        sim_sketch_init(&t->blocked_queue_s);
    }
}

sim_tenant *sim_quota_tenant(const sim_cluster *c, const job *j)
{
    return j->tenant_ix ? &c->quota->t[j->tenant_ix - 1] : NULL;
}

/* GPU memory a job requests per GPU on pool p (job_req_gpumem_mib: gpumem,
 * or gpumem_pct of the card), or the whole card when it states none. */
static double mem_per_gpu_gib(const sim_cluster *c, const job *j, int pool)
{
    int64_t card = c->pools[pool].model->memory_mib, m = job_req_gpumem_mib(&j->req, card);
    return (double)(m > 0 ? m : card) / 1024.0;
}

/* Would charging j on pool p keep t within its caps, given its usage now
 * (ever: on an empty cluster)? */
static bool fits(const sim_cluster *c, const sim_tenant *t, const job *j, int p, bool ever)
{
    double g = j->req.gpus, m = g * mem_per_gpu_gib(c, j, p);
    double gu = ever ? 0 : t->gpus_used, mu = ever ? 0 : t->gpumem_used_gib;
    int cu = ever ? 0 : t->cards_used[p];
    return (t->gpus_max < 0 || gu + g <= t->gpus_max + 1e-9) &&
           (t->gpumem_max_gib < 0 || mu + m <= t->gpumem_max_gib + 1e-9) &&
           (t->cards_max[p] < 0 || cu + j->req.gpus <= t->cards_max[p]);
}

uint64_t sim_quota_pools(const sim_cluster *c, const job *j, bool ever)
{
    const sim_tenant *t = sim_quota_tenant(c, j);
    if (!t)
        return j->pools;
    uint64_t out = 0;
    for (int p = 0; p < c->npools; p++)
        if ((j->pools >> p & 1) && fits(c, t, j, p, ever))
            out |= 1ULL << p;
    return out;
}

void sim_quota_charge(sim_cluster *c, const job *j, int sign)
{
    sim_tenant *t = sim_quota_tenant(c, j);
    if (!t)
        return;
    /* the model of the node it runs on; a policy that sets no node: its first allowed model */
    int p = j->node >= 0 ? c->nodes[j->node].pool : (j->pools ? __builtin_ctzll(j->pools) : 0);
    if (sign > 0 && !fits(c, t, j, p, false))
        GS_BUG("a space policy started a job over its tenant's quota (it must use sim_admit_pools)");
    t->gpus_used += sign * j->req.gpus;
    t->gpumem_used_gib += sign * j->req.gpus * mem_per_gpu_gib(c, j, p);
    t->cards_used[p] += sign * j->req.gpus;
    if (t->gpus_used > t->peak_gpus)
        t->peak_gpus = t->gpus_used;
    if (t->gpumem_used_gib > t->peak_gpumem_gib)
        t->peak_gpumem_gib = t->gpumem_used_gib;
}

void sim_quota_report(const sim_cluster *c, cJSON *root)
{
    cJSON *tn = cJSON_AddArrayToObject(root, "tenants");
    for (int i = 0; c->quota && i < c->quota->n; i++) {
        const sim_tenant *t = &c->quota->t[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", t->name);
        if (t->gpus_max >= 0)
            cJSON_AddNumberToObject(o, "quota_gpus", t->gpus_max);
        if (t->gpumem_max_gib >= 0)
            cJSON_AddNumberToObject(o, "quota_gpu_mem_gib", t->gpumem_max_gib);
        cJSON *cards = cJSON_AddObjectToObject(o, "quota_cards");
        for (int p = 0; p < c->npools; p++)
            if (t->cards_max[p] >= 0)
                cJSON_AddNumberToObject(cards, c->pools[p].model->name, t->cards_max[p]);
        cJSON_AddNumberToObject(o, "peak_gpus", t->peak_gpus);
        cJSON_AddNumberToObject(o, "peak_gpu_mem_gib", t->peak_gpumem_gib);
        cJSON_AddNumberToObject(o, "arrivals", (double)t->arrived);
        cJSON_AddNumberToObject(o, "quota_blocked", (double)t->blocked);
        cJSON_AddNumberToObject(o, "quota_rejected", (double)t->rejected);
        sim_report_add_stats(o, "quota_blocked_queue_s", &t->blocked_queue_s);
        cJSON_AddItemToArray(tn, o);
    }
}
