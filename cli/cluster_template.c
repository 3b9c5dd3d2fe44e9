/* cluster_template.c - see cluster_template.h.
 * SPDX-License-Identifier: MIT */
#include "cluster_template.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "../sim/sim_elastic.h"
#include "../base/gs_num.h"

/* The decimal number at *s after blanks, read as a trace's numbers are
 * (gs_num.h: no hex, inf or nan); *s moves past it and the blanks after. */
static bool decimal_at(const char **s, double *v)
{
    const char *p = *s + strspn(*s, " ");
    size_t n = strspn(p, "0123456789.eE+-");
    if (!gs_num_decimal_n(p, n, v))
        return false;
    *s = p + n + strspn(p + n, " ");
    return true;
}

/* "N", "N*A", "N/B", "N*A/B" (spaces allowed) -> A/B; false otherwise. */
static bool parse_ratio(const char *s, double *ratio)
{
    while (*s == ' ')
        s++;
    if (*s++ != 'N')
        return false;
    double a = 1, b = 1;
    while (*s == ' ')
        s++;
    if (*s == '*') {
        s++;
        if (!decimal_at(&s, &a))
            return false;
    }
    if (*s == '/') {
        s++;
        if (!decimal_at(&s, &b))
            return false;
    }
    if (*s || !(a > 0 && a <= 1e6) || !(b > 0 && b <= 1e6))
        return false;
    *ratio = a / b;
    return true;
}

/* A group's burst tier: TIER_SPOT or TIER_ON_DEMAND with "autoscale", else -1. */
static int burst_tier(const cJSON *g)
{
    if (!cJSON_GetObjectItemCaseSensitive(g, "autoscale"))
        return -1;
    const char *tier = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(g, "tier"));
    return tier && !strcmp(tier, "spot") ? TIER_SPOT : TIER_ON_DEMAND;
}

/* The groups of t->doc into t's tables. */
static int template_parse(cluster_template *t, gs_error *err)
{
    const char *path = t->path;
    if (!cJSON_IsObject(t->doc))
        return gs_err(err, GS_EINPUT, "cluster template '%s': expected a JSON object with 'nodes'", path);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(t->doc, "nodes"), *g;
    if (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) == 0)
        return gs_err(err, GS_EINPUT, "cluster template '%s': 'nodes' must be a non-empty array", path);
    if (cJSON_GetArraySize(nodes) > CT_MAX_GROUPS)
        return gs_err(err, GS_EINPUT, "cluster template '%s': more than %d node groups", path, CT_MAX_GROUPS);
    bool scales = false;
    cJSON_ArrayForEach(g, nodes)
    {
        int i = t->ngroups++;
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(g, "count");
        t->burst[i] = burst_tier(g);
        if (t->burst[i] >= 0) {
            t->fixed[i] = 0; /* the loader refuses a count beside autoscale */
        } else if (cJSON_IsString(c)) {
            if (!parse_ratio(c->valuestring, &t->ratio[i]))
                return gs_err(err, GS_EINPUT,
                              "cluster template '%s': nodes[%d].count '%s': expected an integer or N, N*A, N/B, "
                              "N*A/B (A, B positive numbers up to 1e6)",
                              path, i, c->valuestring);
            scales = true;
        } else if (!c) {
            t->fixed[i] = 1;
        } else if (cJSON_IsNumber(c) && c->valuedouble >= 1 && c->valuedouble <= 1e7 &&
                   c->valuedouble == floor(c->valuedouble)) {
            t->fixed[i] = (long)c->valuedouble;
        } else {
            return gs_err(err, GS_EINPUT, "cluster template '%s': nodes[%d].count: expected an integer from 1 to 1e7 "
                          "or a string in N such as \"N\" or \"N/4\"", path, i);
        }
    }
    if (!scales)
        return gs_err(err, GS_EINPUT,
                      "cluster template '%s': no node group scales (give one a count such as \"N\" or \"N/4\"); "
                      "a fixed cluster is run with --cluster",
                      path);
    return 0;
}

int cluster_template_load(cluster_template *t, const char *path, gs_error *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->doc = gs_json_read(path, "cluster template", err); /* line and column of a syntax error */
    if (!t->doc)
        return GS_EINPUT;
    return template_parse(t, err);
}

bool cluster_template_has_burst(const cluster_template *t, int tier)
{
    for (int i = 0; i < t->ngroups; i++)
        if (t->burst[i] >= 0 && (tier < 0 || t->burst[i] == tier))
            return true;
    return false;
}

int cluster_template_variant(const cluster_template *t, int keep, cluster_template *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", t->path);
    out->doc = cJSON_Duplicate(t->doc, 1);
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(out->doc, "nodes");
    for (int i = t->ngroups - 1; i >= 0; i--)
        if (t->burst[i] >= 0 && t->burst[i] != keep)
            cJSON_DeleteItemFromArray(nodes, i);
    return template_parse(out, err);
}

void cluster_template_free(cluster_template *t)
{
    cJSON_Delete(t->doc);
    memset(t, 0, sizeof *t);
}

long cluster_template_count(const cluster_template *t, int g, long n)
{
    if (t->ratio[g] <= 0)
        return t->fixed[g];
    /* the small epsilon keeps N*3/4 at N=4 at 3, not 4, after rounding */
    return (long)ceil((double)n * t->ratio[g] - 1e-9);
}

cJSON *cluster_template_instance(const cluster_template *t, long n)
{
    cJSON *d = cJSON_Duplicate(t->doc, 1);
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d, "nodes");
    for (int i = 0; i < t->ngroups; i++) {
        cJSON *g = cJSON_GetArrayItem(nodes, i);
        if (cJSON_GetObjectItemCaseSensitive(g, "count"))
            cJSON_ReplaceItemInObjectCaseSensitive(g, "count",
                                                   cJSON_CreateNumber((double)cluster_template_count(t, i, n)));
    }
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(d, "name");
    char name[200];
    snprintf(name, sizeof name, "%s.N%ld", cJSON_IsString(nm) ? nm->valuestring : "template", n);
    if (nm)
        cJSON_ReplaceItemInObjectCaseSensitive(d, "name", cJSON_CreateString(name));
    else
        cJSON_AddStringToObject(d, "name", name);
    return d;
}
