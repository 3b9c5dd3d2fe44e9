/* sim_elastic_conf.c - a node group's elastic keys in the cluster file
 * (sim_elastic.h): tier, autoscale, trigger, spot reclaims.
 *
 * Defaults, with their sources:
 *   idle_s 600: cluster-autoscaler's --scale-down-unneeded-time (10 min,
 *     kubernetes/autoscaler cluster-autoscaler/FAQ.md);
 *   provision_s 420: a GPU node from the request to schedulable, image pull
 *     and driver start included (an assumption: set it per cloud);
 *   notice_s 120: AWS issues a Spot Instance interruption notice two
 *     minutes before it stops the instance
 *     (docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html);
 *     Google Compute Engine gives a Spot or preemptible VM 30 s
 *     (cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms): set
 *     notice_s 30 there;
 *   util_high 0.85, mem_high 0.9, p99_high_ms 200: the scale-out rule on
 *     pooled cluster metrics of the GPU-pooling seed article; period_s 60
 *     (an assumption).
 * SPDX-License-Identifier: MIT */
#include "sim_elastic.h"

#include <cJSON.h>
#include <math.h>
#include <string.h>

static const char *const tier_names[TIER_N] = {"reserved", "on-demand", "spot"};
static const char *const elastic_keys[] = {"tier", "autoscale", "trigger", "reclaim_per_node_hour", "notice_s",
                                           "period_s", "util_high", "mem_high", "p99_high_ms", NULL};

const char *sim_tier_name(int tier) { return tier >= 0 && tier < TIER_N ? tier_names[tier] : "?"; }

bool sim_elastic_key(const char *key)
{
    for (int k = 0; elastic_keys[k]; k++)
        if (strcmp(key, elastic_keys[k]) == 0)
            return true;
    return false;
}

static int bad(gs_error *err, const char *path, int idx, const char *field, const char *want)
{
    return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].%s: expected %s", path, idx, field, want);
}

/* Number key of obj into *v when present, within [lo, hi]. */
static int num(const cJSON *obj, const char *key, double lo, double hi, double *v, const char *path, int idx,
               const char *field, const char *want, gs_error *err)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!x)
        return 0;
    if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi))
        return bad(err, path, idx, field, want);
    *v = x->valuedouble;
    return 0;
}

static int parse_autoscale(const cJSON *a, const char *path, int idx, sim_group_elastic *e, gs_error *err)
{
    if (!cJSON_IsObject(a))
        return bad(err, path, idx, "autoscale", "an object {\"min\", \"max\", \"provision_s\", \"idle_s\"}");
    const cJSON *k;
    cJSON_ArrayForEach(k, a)
    {
        if (strcmp(k->string, "min") && strcmp(k->string, "max") && strcmp(k->string, "provision_s") &&
            strcmp(k->string, "idle_s") && strcmp(k->string, "comment"))
            return gs_err(err, GS_EINPUT,
                          "cluster '%s': nodes[%d].autoscale: unknown key '%s' (expected min, max, provision_s, "
                          "idle_s)", path, idx, k->string);
    }
    if (!cJSON_GetObjectItemCaseSensitive(a, "max"))
        return bad(err, path, idx, "autoscale.max", "the most nodes of the group, an integer from 1 to 1e7");
    double mn = 0, mx = 0;
    int rc = num(a, "max", 1, 1e7, &mx, path, idx, "autoscale.max", "an integer from 1 to 1e7", err);
    if (!rc)
        rc = num(a, "min", 0, 1e7, &mn, path, idx, "autoscale.min", "an integer from 0 to 1e7", err);
    if (!rc && (mn != floor(mn) || mx != floor(mx) || mn > mx))
        rc = bad(err, path, idx, "autoscale", "integers min <= max");
    if (!rc)
        rc = num(a, "provision_s", 0, 1e7, &e->provision_s, path, idx, "autoscale.provision_s",
                 "seconds from 0 to 1e7", err);
    if (!rc)
        rc = num(a, "idle_s", 0, 1e7, &e->idle_s, path, idx, "autoscale.idle_s", "seconds from 0 to 1e7", err);
    e->min = (int)mn;
    e->max = (int)mx;
    e->autoscale = true;
    return rc;
}

static int parse_choice(const cJSON *it, const char *key, const char *const *names, int n, int *out,
                        const char *path, int idx, const char *want, gs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, key);
    if (!v)
        return 0;
    for (int i = 0; cJSON_IsString(v) && i < n; i++)
        if (strcmp(v->valuestring, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return bad(err, path, idx, key, want);
}

/* The pooled trigger's and the spot keys. */
static int parse_rest(const cJSON *it, const char *path, int idx, sim_group_elastic *e, gs_error *err)
{
    int rc = num(it, "period_s", 1e-3, 1e7, &e->period_s, path, idx, "period_s", "seconds from 0.001 to 1e7", err);
    if (!rc)
        rc = num(it, "util_high", 0, 1, &e->util_high, path, idx, "util_high", "a share from 0 to 1", err);
    if (!rc)
        rc = num(it, "mem_high", 0, 1, &e->mem_high, path, idx, "mem_high", "a share from 0 to 1", err);
    if (!rc)
        rc = num(it, "p99_high_ms", 0, 1e9, &e->p99_high_ms, path, idx, "p99_high_ms", "milliseconds >= 0", err);
    if (!rc)
        rc = num(it, "reclaim_per_node_hour", 0, 1e6, &e->reclaim_per_node_hour, path, idx, "reclaim_per_node_hour",
                 "reclaims per node-hour from 0 to 1e6", err);
    if (!rc)
        rc = num(it, "notice_s", 0, 1e7, &e->notice_s, path, idx, "notice_s", "seconds from 0 to 1e7", err);
    return rc;
}

int sim_elastic_group_parse(const cJSON *it, const char *path, int idx, sim_group_elastic *e, int *count,
                            bool *any, gs_error *err)
{
    *e = (sim_group_elastic){.tier = -1, .provision_s = 420, .idle_s = 600, .period_s = 60, .util_high = 0.85,
                             .mem_high = 0.9, .p99_high_ms = 200, .notice_s = 120};
    *any = false;
    for (int k = 0; elastic_keys[k]; k++)
        *any |= cJSON_GetObjectItemCaseSensitive(it, elastic_keys[k]) != NULL;
    if (!*any)
        return 0;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(it, "autoscale");
    int rc = a ? parse_autoscale(a, path, idx, e, err) : 0;
    if (!rc && a && cJSON_GetObjectItemCaseSensitive(it, "count"))
        rc = gs_err(err, GS_EINPUT,
                    "cluster '%s': nodes[%d]: 'count' beside 'autoscale': an autoscaled group has between "
                    "autoscale.min and autoscale.max nodes", path, idx);
    if (!rc)
        rc = parse_choice(it, "tier", tier_names, TIER_N, &e->tier, path, idx, "reserved, on-demand or spot", err);
    static const char *const triggers[] = {"pending", "pooled"};
    if (!rc)
        rc = parse_choice(it, "trigger", triggers, 2, &e->trigger, path, idx, "pending or pooled", err);
    if (!rc)
        rc = parse_rest(it, path, idx, e, err);
    if (e->tier < 0)
        e->tier = e->autoscale ? TIER_ON_DEMAND : TIER_RESERVED;
    if (!rc && e->tier == TIER_SPOT && !e->autoscale)
        rc = bad(err, path, idx, "tier", "an 'autoscale' object beside \"spot\" (spot nodes come and go)");
    if (!rc && e->tier == TIER_RESERVED && e->autoscale)
        rc = bad(err, path, idx, "tier", "on-demand or spot beside 'autoscale' (reserved capacity is paid "
                 "for the whole run: a fixed group)");
    if (!rc && !e->autoscale && cJSON_GetObjectItemCaseSensitive(it, "trigger"))
        rc = bad(err, path, idx, "trigger", "an 'autoscale' object beside it");
    if (a)
        *count = e->max;
    return rc;
}
