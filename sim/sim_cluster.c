/* sim_cluster.c - cluster ledger and the nodes of a cluster file (see sim_cluster.h).
 * SPDX-License-Identifier: MIT */
#include "sim_cluster.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "../base/gs_num.h"
#include "sim_elastic.h"

/* {==== building ====} */

typedef struct node_group {
    const gpu_model *model;
    int count, gpus;
    double cpu, mem_gib;
    char prefix[24];
    bool spot; /* a spot group: its nodes make a pool of their own (sim_elastic.h) */
} node_group;

static int pool_for(sim_cluster *c, const gpu_model *m, bool spot)
{
    for (int i = 0; i < c->npools; i++)
        if (c->pools[i].model == m && c->pools[i].spot == spot)
            return i;
    if (c->npools == CL_MAX_POOLS)
        return -1;
    memset(&c->pools[c->npools], 0, sizeof c->pools[0]);
    c->pools[c->npools].model = m;
    c->pools[c->npools].price_override = -1;
    c->pools[c->npools].spot = spot;
    return c->npools++;
}

static inline double free_or_inf(double total, double used)
{
    return total < 0 ? INFINITY : total - used;
}

static void bucket_unlink(sim_cluster *c, sim_node *n)
{
    sim_pool *p = &c->pools[n->pool];
    if (p->fit)
        sim_fit_index_remove(&p->fit[n->free_gpus], c->fit_slot[n->id], c->fit_slot);
    if (n->prev >= 0)
        c->nodes[n->prev].next = n->next;
    else
        p->head[n->free_gpus] = n->next;
    if (n->next >= 0)
        c->nodes[n->next].prev = n->prev;
    if (n->free_gpus > 0 && p->head[n->free_gpus] < 0)
        p->nonempty &= ~(1ULL << (n->free_gpus - 1));
    p->count[n->free_gpus]--;
    n->prev = n->next = -1;
}

static void bucket_link(sim_cluster *c, sim_node *n)
{
    sim_pool *p = &c->pools[n->pool];
    int h = p->head[n->free_gpus];
    if (p->fit) /* the newest slot: the same order as the list's head */
        sim_fit_index_insert(&p->fit[n->free_gpus], n->id, free_or_inf(n->cpu_total, n->cpu_used),
                      free_or_inf(n->mem_total_gib, n->mem_used_gib), c->fit_slot);
    n->prev = -1;
    n->next = h;
    if (h >= 0)
        c->nodes[h].prev = n->id;
    p->head[n->free_gpus] = n->id;
    if (n->free_gpus > 0)
        p->nonempty |= 1ULL << (n->free_gpus - 1);
    p->count[n->free_gpus]++;
}

/* bucket_unlink then bucket_link for a pool without a fit index, when a
 * take or give moves node n from bucket `from` to bucket `to`: the same
 * list operations in the same order (n ends at the head of its new bucket),
 * inline, with the node's links and the pool's mask read once instead of
 * reloaded after each store through the node array (a store there might be
 * n's own, as far as the compiler knows). */
static inline void list_move(sim_cluster *c, sim_pool *p, sim_node *n, int from, int to)
{
    sim_node *nodes = c->nodes;
    int *head = p->head;
    int prev = n->prev, next = n->next, id = n->id;
    uint64_t nonempty = p->nonempty;
    if (prev >= 0)
        nodes[prev].next = next;
    else
        head[from] = next;
    if (next >= 0)
        nodes[next].prev = prev;
    if (from > 0 && head[from] < 0)
        nonempty &= ~(1ULL << (from - 1));
    int h = head[to];
    n->prev = -1;
    n->next = h;
    if (h >= 0)
        nodes[h].prev = id;
    head[to] = id;
    if (to > 0)
        nonempty |= 1ULL << (to - 1);
    p->nonempty = nonempty;
    p->count[from]--;
    p->count[to]++;
}

int sim_cluster_gpu_node(const sim_cluster *c, int g)
{
    /* the last node whose GPUs start at or before g: nodes number their
     * GPUs in node order, and a node without GPUs starts where the next
     * one does, so the last of them is the one that has g */
    int lo = 0, hi = c->nnodes - 1;
    if (g < 0 || g >= c->ngpus)
        GS_BUG("sim_cluster_gpu_node: no such GPU");
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (c->nodes[mid].gpu0 <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int build(sim_cluster *c, const node_group *g, int ng, gs_error *err)
{
    int64_t nodes64 = 0, gpus64 = 0; /* summed wide: the limits are checked before any int holds them */
    for (int i = 0; i < ng; i++) {
        nodes64 += g[i].count;
        gpus64 += (int64_t)g[i].count * g[i].gpus;
    }
    if (nodes64 > CL_MAX_NODES || gpus64 > CL_MAX_GPUS)
        return gs_err(err, GS_EINPUT, "cluster '%s': %lld nodes and %lld GPUs exceed the limit of %d nodes and %d GPUs",
                      c->name, (long long)nodes64, (long long)gpus64, CL_MAX_NODES, CL_MAX_GPUS);
    int total_nodes = (int)nodes64;
    if (total_nodes == 0)
        return gs_err(err, GS_EINPUT, "cluster '%s' has no nodes", c->name);
    c->nodes = xcalloc((size_t)total_nodes, sizeof *c->nodes);
    c->group_prefix = xcalloc((size_t)ng, sizeof *c->group_prefix);
    c->group_first = xcalloc((size_t)ng, sizeof *c->group_first);
    for (int i = 0; i < ng; i++) {
        int pi = pool_for(c, g[i].model, g[i].spot);
        if (pi < 0)
            return gs_err(err, GS_EINPUT, "cluster '%s': more than %d GPU models", c->name, CL_MAX_POOLS);
        sim_pool *p = &c->pools[pi];
        if (g[i].gpus > p->max_node_gpus)
            p->max_node_gpus = g[i].gpus;
        int seen = -1;
        for (int s = 0; s < p->nshapes; s++)
            if (p->shapes[s].ngpus == g[i].gpus && p->shapes[s].cpu == g[i].cpu && p->shapes[s].mem_gib == g[i].mem_gib)
                seen = s;
        if (seen < 0) {
            p->shapes = xrealloc(p->shapes, (size_t)(p->nshapes + 1) * sizeof *p->shapes);
            p->shapes[p->nshapes++] = (node_shape){g[i].gpus, g[i].cpu, g[i].mem_gib, 0};
            seen = p->nshapes - 1;
        }
        p->shapes[seen].count += g[i].count;
        memcpy(c->group_prefix[i], g[i].prefix, sizeof c->group_prefix[i]);
        c->group_first[i] = c->nnodes;
        for (int k = 0; k < g[i].count; k++) {
            sim_node *n = &c->nodes[c->nnodes];
            n->id = c->nnodes++;
            n->group = i;
            n->pool = pi;
            n->ngpus = n->free_gpus = g[i].gpus;
            n->gpu0 = c->ngpus;
            n->free_mask = g[i].gpus == 64 ? ~0ULL : ((1ULL << g[i].gpus) - 1);
            n->cpu_total = g[i].cpu;
            n->mem_total_gib = g[i].mem_gib;
            c->ngpus += g[i].gpus;
            p->nnodes++;
            p->ngpus += g[i].gpus;
            p->free_gpus += g[i].gpus;
        }
    }
    for (int pi = 0; pi < c->npools; pi++) {
        sim_pool *p = &c->pools[pi];
        p->head = xmalloc((size_t)(p->max_node_gpus + 1) * sizeof *p->head);
        for (int k = 0; k <= p->max_node_gpus; k++)
            p->head[k] = -1;
        p->count = xcalloc((size_t)p->max_node_gpus + 1, sizeof *p->count);
        bool host = false;
        for (int s = 0; s < p->nshapes; s++)
            host |= p->shapes[s].cpu >= 0 || p->shapes[s].mem_gib >= 0;
        if (host) {
            p->fit = xcalloc((size_t)p->max_node_gpus + 1, sizeof *p->fit);
            if (!c->fit_slot)
                c->fit_slot = xmalloc((size_t)c->nnodes * sizeof *c->fit_slot);
        }
    }
    /* link in reverse so that bucket order starts at the lowest node id */
    for (int i = c->nnodes - 1; i >= 0; i--)
        bucket_link(c, &c->nodes[i]);
    return 0;
}

/* The group's elastic keys (sim_elastic.h); the table is made at the first
 * group that has one, so a fixed cluster keeps none. */
static int elastic_group(sim_cluster *c, const cJSON *it, const char *path, int i, int ng, int *count,
                         gs_error *err)
{
    sim_group_elastic e;
    bool any;
    int rc = sim_elastic_group_parse(it, path, i, &e, count, &any, err);
    if (rc || !any)
        return rc;
    if (!c->group_elastic) {
        c->group_elastic = xcalloc((size_t)ng, sizeof *c->group_elastic);
        for (int k = 0; k < ng; k++)
            c->group_elastic[k].tier = TIER_RESERVED;
    }
    c->group_elastic[i] = e;
    return 0;
}

static int bad_field(gs_error *err, const char *path, int idx, const char *field, const char *want)
{
    return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].%s: expected %s", path, idx, field, want);
}

/* Group i's "failures" (onto its model's rates) and "spares" (nodes added
 * to its count). */
static int group_failures(sim_cluster *c, const cJSON *it, int i, node_group *g, const gpu_catalog *cat,
                          gs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "spares");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(it, "failures");
    if (!v && !f)
        return 0;
    if (!c->group_fail) {
        c->group_fail = xcalloc((size_t)c->ngroups, sizeof *c->group_fail);
        c->group_spares = xcalloc((size_t)c->ngroups, sizeof *c->group_spares);
    }
    if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e6 ||
              v->valuedouble != floor(v->valuedouble)))
        return bad_field(err, c->path, i, "spares", "an integer from 0 to 1e6 (hot-spare nodes beyond count)");
    if (v) {
        c->group_spares[i] = (int)v->valuedouble;
        g->count += c->group_spares[i];
    }
    if (!f)
        return 0;
    const gpu_model *from;
    const gpu_failures *base = gpu_catalog_failures(cat, g->model, &from);
    gpu_failures *o = c->group_fail[i] = xcalloc(1, sizeof *o);
    if (base)
        *o = *base;
    else
        o->scale = 1;
    char field[96];
    const char *want;
    if (gpu_failures_parse_override(f, o, field, sizeof field, &want))
        return bad_field(err, c->path, i, field, want);
    return 0;
}

/* The cluster file's top-level keys are known ones. */
static int check_top_keys(const cJSON *j, const char *path, gs_error *err)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, j)
    {
        if (strcmp(it->string, "name") && strcmp(it->string, "nodes") && strcmp(it->string, "comment") &&
            strcmp(it->string, "tenants") && strcmp(it->string, "topology"))
            return gs_err(err, GS_EINPUT,
                          "cluster '%s': unknown key '%s' (expected name, nodes, tenants, topology, comment)",
                          path,
                          it->string);
    }
    return 0;
}

/* Node group i's keys are known ones (the elastic keys among them). */
static int check_group_keys(const cJSON *it, const char *path, int i, gs_error *err)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, it)
    {
        static const char *known[] = {"model", "count", "gpus", "cpu", "mem_gib", "name", "comment", "mig",
                                      "price_per_gpu_hour_usd", "failures", "spares", "tco", NULL};
        bool ok = false;
        for (int q = 0; known[q]; q++)
            ok |= strcmp(k->string, known[q]) == 0;
        ok |= sim_elastic_key(k->string);
        if (!ok)
            return gs_err(err, GS_EINPUT,
                          "cluster '%s': nodes[%d]: unknown key '%s' (expected model, count, gpus, cpu, "
                          "mem_gib, name, mig, price_per_gpu_hour_usd, failures, spares, tier, autoscale, trigger, tco, ...)",
                          path, i, k->string);
    }
    return 0;
}

/* Node group i's model (a catalog name) and count (an integer, or the
 * elastic group's max), and whether it is spot. */
static int group_model_count(sim_cluster *c, const cJSON *it, const char *path, int i, int ng, const gpu_catalog *cat,
                             node_group *g, gs_error *err)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "model");
    if (!cJSON_IsString(m))
        return bad_field(err, path, i, "model", "a GPU model name");
    g->model = gpu_catalog_find(cat, m->valuestring);
    if (!g->model) {
        char names[2048];
        gpu_catalog_names(cat, names, sizeof names);
        return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d].model: unknown GPU model '%s' (known: %s)", path, i,
                      m->valuestring, names);
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "count");
    g->count = 1;
    if (cJSON_IsString(v)) /* "N", "N/4": a template, sized by plan */
        return gs_err(err, GS_EINPUT,
                      "cluster '%s': nodes[%d].count '%s' scales: this is a cluster template, sized by "
                      "'gpusim plan --cluster-template %s'; a cluster file needs an integer count",
                      path, i, v->valuestring, path);
    if (v && (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble != floor(v->valuedouble) ||
              v->valuedouble > 1e7))
        return bad_field(err, path, i, "count", "an integer from 1 to 1e7");
    if (v)
        g->count = (int)v->valuedouble;
    int rc = elastic_group(c, it, path, i, ng, &g->count, err);
    if (rc)
        return rc;
    g->spot = c->group_elastic && c->group_elastic[i].tier == TIER_SPOT;
    return 0;
}

/* Node group i's cards, cores and memory per node (cpu, mem_gib: -1 when
 * not given). */
static int group_shape(const cJSON *it, const char *path, int i, node_group *g, gs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "gpus");
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > CL_MAX_NODE_GPUS ||
        v->valuedouble != floor(v->valuedouble))
        return bad_field(err, path, i, "gpus", "an integer 0..64");
    g->gpus = (int)v->valuedouble;
    g->cpu = g->mem_gib = -1;
    v = cJSON_GetObjectItemCaseSensitive(it, "cpu");
    if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= CL_MAX_NODE_CPU)))
        return bad_field(err, path, i, "cpu", "a number of cores from 0 to 1e6");
    if (v)
        g->cpu = v->valuedouble;
    v = cJSON_GetObjectItemCaseSensitive(it, "mem_gib");
    if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= CL_MAX_NODE_MEM_GIB)))
        return bad_field(err, path, i, "mem_gib", "a number of GiB from 0 to 1e9");
    if (v)
        g->mem_gib = v->valuedouble;
    return 0;
}

/* Node group i's negotiated price (it overrides the model file's list
 * price for this group's cards) and ownership terms (sim_tco.h: every
 * group or none). */
static int group_money(sim_cluster *c, const cJSON *it, const char *path, int i, const node_group *g, gs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "price_per_gpu_hour_usd");
    c->group_price[i] = -1;
    if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e4)))
        return bad_field(err, path, i, "price_per_gpu_hour_usd", "US dollars per GPU-hour from 0 to 1e4");
    if (v)
        c->group_price[i] = v->valuedouble;
    int rc = sim_tco_parse(&c->group_tco[i], cJSON_GetObjectItemCaseSensitive(it, "tco"), g->model->tdp_w, path, i,
                           err);
    if (rc)
        return rc;
    if (c->group_tco[i].given != c->group_tco[0].given)
        return gs_err(err, GS_EINPUT, "cluster '%s': nodes[%d]: a \"tco\" object is given for %s node group: "
                      "give it for every group or for none", path, i, c->group_tco[0].given ? "the first" : "this");
    return 0;
}

/* Node group i of the cluster file into g: its keys, model and count,
 * shape, money, MIG text (validated by the MIG policies at init),
 * failures and node names. */
static int parse_group(sim_cluster *c, const cJSON *it, const char *path, int i, int ng, const gpu_catalog *cat,
                       node_group *g, gs_error *err)
{
    int rc;
    if ((rc = check_group_keys(it, path, i, err)) || (rc = group_model_count(c, it, path, i, ng, cat, g, err)) ||
        (rc = group_shape(it, path, i, g, err)) || (rc = group_money(c, it, path, i, g, err)))
        return rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "mig");
    if (v)
        c->group_mig[i] = cJSON_PrintUnformatted(v);
    if ((rc = group_failures(c, it, i, g, cat, err)) != 0)
        return rc;
    v = cJSON_GetObjectItemCaseSensitive(it, "name");
    snprintf(g->prefix, sizeof g->prefix, "%s-%d-", cJSON_IsString(v) ? v->valuestring : "node", i);
    return 0;
}

int sim_cluster_nodes_from_json(sim_cluster *c, const cJSON *j, const char *path, const gpu_catalog *cat,
                                gs_error *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    if (!cJSON_IsObject(j))
        return gs_err(err, GS_EINPUT, "cluster '%s': expected a JSON object with 'nodes'", path);
    int rc = 0;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(j, "name");
    snprintf(c->name, sizeof c->name, "%s", cJSON_IsString(nm) ? nm->valuestring : path);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes"), *it;
    int ng = cJSON_GetArraySize(nodes);
    node_group *g = xcalloc((size_t)ng + 1, sizeof *g);
    c->group_mig = xcalloc((size_t)ng + 1, sizeof *c->group_mig);
    c->group_price = xcalloc((size_t)ng + 1, sizeof *c->group_price);
    c->group_tco = xcalloc((size_t)ng + 1, sizeof *c->group_tco);
    c->ngroups = ng;
    if (!cJSON_IsArray(nodes) || ng == 0) {
        rc = gs_err(err, GS_EINPUT, "cluster '%s': 'nodes' must be a non-empty array", path);
        goto out;
    }
    if ((rc = check_top_keys(j, path, err)) != 0)
        goto out;
    int i = 0;
    cJSON_ArrayForEach(it, nodes)
    {
        if ((rc = parse_group(c, it, path, i, ng, cat, &g[i], err)) != 0)
            goto out;
        i++;
    }
    snprintf(c->name, sizeof c->name, "%s", cJSON_IsString(nm) ? nm->valuestring : path);
    rc = build(c, g, ng, err); /* tenants: the caller parses them once the pools exist (quotas per model) */
out:
    free(g);
    if (rc)
        sim_cluster_free_nodes(c);
    return rc;
}

int sim_cluster_from_spec(sim_cluster *c, const char *spec, int gpus_per_node, const gpu_catalog *cat,
                          gs_error *err)
{
    memset(c, 0, sizeof *c);
    if (gpus_per_node < 1 || gpus_per_node > CL_MAX_NODE_GPUS)
        return gs_err(err, GS_EUSAGE, "--gpus-per-node must be 1..%d", CL_MAX_NODE_GPUS);
    snprintf(c->name, sizeof c->name, "%s", spec);
    char *copy = xstrdup(spec), *save = NULL;
    node_group *g = NULL;
    int ng = 0, rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(tok, ':');
        long count = 0;
        if (!colon || !gs_num_long(colon + 1, 1, 100000000, &count)) {
            rc = gs_err(err, GS_EUSAGE, "--gpus '%s': expected MODEL:COUNT[,MODEL:COUNT] with COUNT >= 1", spec);
            break;
        }
        *colon = 0;
        const gpu_model *m = gpu_catalog_find(cat, tok);
        if (!m) {
            char names[2048];
            gpu_catalog_names(cat, names, sizeof names);
            rc = gs_err(err, GS_EUSAGE, "--gpus: unknown GPU model '%s' (known: %s)", tok, names);
            break;
        }
        long full = count / gpus_per_node, rest = count % gpus_per_node;
        g = xrealloc(g, (size_t)(ng + 2) * sizeof *g);
        if (full > 0) {
            g[ng] = (node_group){m, (int)full, gpus_per_node, -1, -1, "", false};
            snprintf(g[ng].prefix, sizeof g[ng].prefix, "%.16s-", m->name);
            ng++;
        }
        if (rest > 0) {
            g[ng] = (node_group){m, 1, (int)rest, -1, -1, "", false};
            snprintf(g[ng].prefix, sizeof g[ng].prefix, "%.14s-r", m->name);
            ng++;
        }
    }
    if (rc == 0)
        rc = build(c, g, ng, err);
    c->ngroups = rc == 0 ? ng : 0;
    free(g);
    free(copy);
    if (rc)
        sim_cluster_free_nodes(c);
    return rc;
}

void sim_cluster_free_nodes(sim_cluster *c)
{
    for (int i = 0; i < c->npools; i++) {
        free(c->pools[i].head);
        free(c->pools[i].count);
        free(c->pools[i].shapes);
        free(c->pools[i].wshapes);
        for (int k = 0; c->pools[i].fit && k <= c->pools[i].max_node_gpus; k++)
            sim_fit_index_free(&c->pools[i].fit[k]);
        free(c->pools[i].fit);
    }
    free(c->nodes);
    free(c->fit_slot);
    for (int i = 0; c->group_mig && i < c->ngroups; i++)
        cJSON_free(c->group_mig[i]);
    free(c->group_mig);
    for (int i = 0; c->group_fail && i < c->ngroups; i++)
        free(c->group_fail[i]);
    free(c->group_fail);
    free(c->group_spares);
    free(c->group_price);
    free(c->group_elastic);
    free(c->group_tco);
    free(c->group_prefix);
    free(c->group_first);
    free(c->given);
    free(c->given_flag);
    free(c->withheld);
    if (c->quota || c->topo)
        GS_BUG("sim_cluster_free_nodes: the cluster still holds quotas or a topology (sim_cluster_free)");
    memset(c, 0, sizeof *c);
}

void sim_cluster_node_name(const sim_cluster *c, int node, char *buf, size_t cap)
{
    if (node < 0 || node >= c->nnodes) {
        snprintf(buf, cap, "node-%d", node);
        return;
    }
    int g = c->nodes[node].group;
    snprintf(buf, cap, "%s%d", c->group_prefix[g], node - c->group_first[g]);
}

/* {==== queries and allocation ====} */

int sim_cluster_pool_of(const sim_cluster *c, const gpu_model *m)
{
    for (int i = 0; i < c->npools; i++)
        if (c->pools[i].model == m)
            return i;
    return -1;
}

uint64_t sim_cluster_pools_of(const sim_cluster *c, const gpu_model *m)
{
    uint64_t mask = 0;
    for (int i = 0; i < c->npools; i++)
        if (c->pools[i].model == m)
            mask |= 1ULL << i;
    return mask;
}

uint64_t sim_cluster_model_mask(const sim_cluster *c, const gpu_catalog *cat, const char *list, gs_error *err)
{
    if (!list || !*list)
        return sim_cluster_all_pools(c);
    uint64_t mask = 0;
    char *copy = xstrdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
        const gpu_model *m = gpu_catalog_find(cat, tok);
        if (!m) {
            char names[2048];
            gpu_catalog_names(cat, names, sizeof names);
            gs_err(err, GS_EINPUT, "unknown GPU model '%s' (known: %s)", tok, names);
            free(copy);
            return 0;
        }
        mask |= sim_cluster_pools_of(c, m);
    }
    free(copy);
    if (!mask)
        gs_err(err, GS_EINPUT, "none of the GPU models '%s' is in this cluster", list);
    return mask;
}

static inline bool fits_host(const sim_node *n, double cpu, double mem) { return sim_node_host_fits(n, cpu, mem); }

void sim_cluster_host_room(const sim_cluster *c, double *cpu, double *mem_gib)
{
    double hc = -INFINITY, hm = -INFINITY;
    for (int i = 0; i < c->npools; i++) {
        const sim_pool *p = &c->pools[i];
        if (!p->fit) { /* no node of the pool has a CPU or memory total */
            if (p->nnodes > 0)
                hc = hm = INFINITY;
            continue;
        }
        for (int k = 0; k <= p->max_node_gpus; k++) {
            const sim_fit_index *f = &p->fit[k];
            if (f->live == 0)
                continue;
            if (f->cpu[1] > hc)
                hc = f->cpu[1];
            if (f->mem[1] > hm)
                hm = f->mem[1];
        }
    }
    *cpu = hc;
    *mem_gib = hm;
}

bool sim_cluster_host_fits_any(const sim_cluster *c, double cpu, double mem_gib)
{
    for (int i = 0; i < c->npools; i++) {
        const sim_pool *p = &c->pools[i];
        if (!p->fit) {
            if (p->nnodes > 0)
                return true; /* unlimited CPU and memory */
            continue;
        }
        for (int k = 0; k <= p->max_node_gpus; k++)
            if (sim_fit_index_find(&p->fit[k], cpu, mem_gib, NULL) >= 0)
                return true;
    }
    return false;
}

int sim_cluster_given_since(const sim_cluster *c, uint64_t since, double *cpu, double *mem_gib, int max)
{
    uint64_t n = c->gives - since;
    if (n > CL_GIVE_LOG || n > (uint64_t)max)
        return -1;
    for (uint64_t k = 0; k < n; k++) { /* the values the fit index holds */
        const sim_node *nd = &c->nodes[c->give_log[(since + k) % CL_GIVE_LOG]];
        cpu[k] = free_or_inf(nd->cpu_total, nd->cpu_used);
        mem_gib[k] = free_or_inf(nd->mem_total_gib, nd->mem_used_gib);
    }
    return (int)n;
}

bool sim_cluster_can_ever_fit(const sim_cluster *c, uint64_t pools, int ngpus, double cpu, double mem_gib)
{
    if (!c->fit_slot) { /* no shape limits CPU or memory: the pool's largest node decides */
        for (int pi = 0; pi < c->npools; pi++)
            if ((pools >> pi & 1) && c->pools[pi].nshapes > 0 && c->pools[pi].max_node_gpus >= ngpus)
                return true;
        return false;
    }
    for (int pi = 0; pi < c->npools; pi++) {
        if (!(pools >> pi & 1))
            continue;
        const sim_pool *p = &c->pools[pi];
        for (int s = 0; s < p->nshapes; s++)
            if (p->shapes[s].ngpus >= ngpus && (p->shapes[s].cpu < 0 || p->shapes[s].cpu >= cpu) &&
                (p->shapes[s].mem_gib < 0 || p->shapes[s].mem_gib >= mem_gib))
                return true;
    }
    return false;
}

/* The first node with k free cards, in pool order, that has the host room:
 * through the pool's fit index where it has one, else its bucket list. */
static int find_in_bucket(const sim_cluster *c, uint64_t pools, int ngpus, int k, double cpu, double mem_gib)
{
    for (int pi = 0; pi < c->npools; pi++) {
        const sim_pool *p = &c->pools[pi];
        if (!(pools >> pi & 1) || k > p->max_node_gpus || p->free_gpus < ngpus ||
            (k >= 1 && !(p->nonempty >> (k - 1) & 1))) /* an empty bucket finds nothing */
            continue;
        if (p->fit) {
            int id = sim_fit_index_find(&p->fit[k], cpu, mem_gib, NULL);
            if (id >= 0)
                return id;
            continue;
        }
        for (int id = p->head[k]; id >= 0; id = c->nodes[id].next)
            if (fits_host(&c->nodes[id], cpu, mem_gib))
                return id;
    }
    return -1;
}

static int find_node_scan(const sim_cluster *c, uint64_t pools, int ngpus, double cpu, double mem_gib, bool spread);

int sim_cluster_find_node(const sim_cluster *c, uint64_t pools, int ngpus, double cpu, double mem_gib,
                          bool spread)
{
    if (ngpus < 1 || ngpus > CL_MAX_NODE_GPUS)
        return find_node_scan(c, pools, ngpus, cpu, mem_gib, spread);
    /* the scan below, visiting only the bucket sizes some allowed pool has
     * a node in (an empty bucket finds nothing): the same node, in
     * O(nonempty sizes x pools) instead of O(sizes x pools) */
    uint64_t any = 0;
    for (int pi = 0; pi < c->npools; pi++)
        if ((pools >> pi & 1) && c->pools[pi].free_gpus >= ngpus)
            any |= c->pools[pi].nonempty;
    any &= ~0ULL << (ngpus - 1); /* sizes k >= ngpus */
    while (any) {
        int b = spread ? 63 - __builtin_clzll(any) : __builtin_ctzll(any), k = b + 1;
        any &= ~(1ULL << b);
        int id = find_in_bucket(c, pools, ngpus, k, cpu, mem_gib);
        if (id >= 0)
            return id;
    }
    return -1;
}

/* Every bucket size from ngpus up (spread: from the largest down), every
 * allowed pool at each: the first node that fits. */
static int find_node_scan(const sim_cluster *c, uint64_t pools, int ngpus, double cpu, double mem_gib, bool spread)
{
    int maxk = 0;
    for (int pi = 0; pi < c->npools; pi++)
        if ((pools >> pi & 1) && c->pools[pi].max_node_gpus > maxk)
            maxk = c->pools[pi].max_node_gpus;
    for (int step = 0; step <= maxk - ngpus; step++) {
        int k = spread ? maxk - step : ngpus + step;
        int id = find_in_bucket(c, pools, ngpus, k, cpu, mem_gib);
        if (id >= 0)
            return id;
    }
    return -1;
}

bool sim_cluster_node_fits(const sim_cluster *c, int node, uint64_t pools, int ngpus, double cpu, double mem_gib)
{
    if (node < 0 || node >= c->nnodes)
        return false;
    const sim_node *n = &c->nodes[node];
    return n->state == NODE_UP && (pools >> n->pool & 1) && n->free_gpus >= ngpus && fits_host(n, cpu, mem_gib);
}

/* A take or give on a node out of service: its cards and host room only,
 * no bucket or index (sim_cluster_node_out). */
static void out_of_service(sim_node *n, bool take, const int *give_ids, int *take_ids, int ngpus, double cpu,
                           double mem_gib)
{
    for (int i = 0; i < ngpus; i++) {
        if (take) {
            int b = __builtin_ctzll(n->free_mask);
            n->free_mask &= n->free_mask - 1;
            take_ids[i] = n->gpu0 + b;
        } else {
            int b = give_ids[i] - n->gpu0;
            if (b < 0 || b >= n->ngpus || (n->free_mask >> b & 1))
                GS_BUG("sim_cluster_give: GPU not allocated on this node");
            n->free_mask |= 1ULL << b;
        }
    }
    int sign = take ? 1 : -1;
    n->free_gpus -= sign * ngpus;
    n->cpu_used += sign * cpu;
    n->mem_used_gib += sign * mem_gib;
    if (n->cpu_used < 1e-9)
        n->cpu_used = 0;
    if (n->mem_used_gib < 1e-9)
        n->mem_used_gib = 0;
}

/* The ledger's part of a take or give on an up node: the cards, the host
 * room, the buckets (sign > 0: take). Inline in both fast paths. */
static inline void take_give(sim_cluster *c, sim_node *n, bool take, const int *give_ids, int *take_ids, int ngpus,
                             double cpu, double mem_gib)
{
    sim_pool *p = &c->pools[n->pool];
    bool fit = p->fit != NULL;
    int from = n->free_gpus, to;
    if (fit)
        bucket_unlink(c, n);
    if (take) {
        for (int i = 0; i < ngpus; i++) {
            int b = __builtin_ctzll(n->free_mask);
            n->free_mask &= n->free_mask - 1;
            take_ids[i] = n->gpu0 + b;
        }
        to = from - ngpus;
        n->free_gpus = to;
        p->free_gpus -= ngpus;
        n->cpu_used += cpu;
        n->mem_used_gib += mem_gib;
    } else {
        for (int i = 0; i < ngpus; i++) {
            int b = give_ids[i] - n->gpu0;
            if (b < 0 || b >= n->ngpus || (n->free_mask >> b & 1))
                GS_BUG("sim_cluster_give: GPU not allocated on this node");
            n->free_mask |= 1ULL << b;
        }
        to = from + ngpus;
        n->free_gpus = to;
        p->free_gpus += ngpus;
        c->give_log[c->gives++ % CL_GIVE_LOG] = n->id;
        if (c->given_flag && !c->given_flag[n->id]) { /* host share alone too: a shared card's room grew */
            c->given_flag[n->id] = 1;
            c->given[c->ngiven++] = n->id;
        }
        n->cpu_used -= cpu;
        n->mem_used_gib -= mem_gib;
        if (n->cpu_used < 1e-9)
            n->cpu_used = 0;
        if (n->mem_used_gib < 1e-9)
            n->mem_used_gib = 0;
    }
    if (fit)
        bucket_link(c, n);
    else
        list_move(c, p, n, from, to);
}

/* A take or give on a node out of service, or on a cluster with a
 * topology index: out of line, so the common path calls nothing (and
 * saves no register). */
static __attribute__((noinline)) void take_give_slow(sim_cluster *c, sim_node *n, bool take, const int *give_ids,
                                                     int *take_ids, int ngpus, double cpu, double mem_gib)
{
    if (n->state != NODE_UP) {
        out_of_service(n, take, give_ids, take_ids, ngpus, cpu, mem_gib);
        return;
    }
    int from = n->free_gpus;
    take_give(c, n, take, give_ids, take_ids, ngpus, cpu, mem_gib);
    if (c->topo && ngpus)
        sim_topo_moved(c->topo, n->pool, n->id, from, n->free_gpus);
}

void sim_cluster_take(sim_cluster *c, int node, int ngpus, double cpu, double mem_gib, int *ids)
{
    sim_node *n = &c->nodes[node];
    if (ngpus > n->free_gpus || !fits_host(n, cpu, mem_gib))
        GS_BUG("sim_cluster_take: over-allocation");
    if (__builtin_expect(n->state != NODE_UP || c->topo, 0))
        take_give_slow(c, n, true, NULL, ids, ngpus, cpu, mem_gib);
    else
        take_give(c, n, true, NULL, ids, ngpus, cpu, mem_gib);
}

void sim_cluster_hold_card(sim_cluster *c, int node, int g, bool held)
{
    sim_node *n = &c->nodes[node];
    sim_pool *p = &c->pools[n->pool];
    int b = g - n->gpu0, from = n->free_gpus, to = from + (held ? -1 : 1);
    if (b < 0 || b >= n->ngpus || (n->free_mask >> b & 1) != held)
        GS_BUG("sim_cluster_hold_card: the card is not free (held) or not held");
    bool fit = p->fit != NULL;
    if (fit)
        bucket_unlink(c, n);
    n->free_mask ^= 1ULL << b;
    n->free_gpus = to;
    p->free_gpus += to - from;
    if (fit)
        bucket_link(c, n);
    else
        list_move(c, p, n, from, to);
    if (c->topo)
        sim_topo_moved(c->topo, n->pool, node, from, to);
}

void sim_cluster_node_out(sim_cluster *c, int node)
{
    sim_node *n = &c->nodes[node];
    sim_pool *p = &c->pools[n->pool];
    bucket_unlink(c, n);
    p->free_gpus -= n->free_gpus;
    if (c->topo)
        sim_topo_node(c->topo, n->pool, node, n->free_gpus, false);
}

void sim_cluster_node_in(sim_cluster *c, int node)
{
    sim_node *n = &c->nodes[node];
    sim_pool *p = &c->pools[n->pool];
    bucket_link(c, n);
    p->free_gpus += n->free_gpus;
    if (c->topo)
        sim_topo_node(c->topo, n->pool, node, n->free_gpus, true);
    /* what it has is given back to the schedulable cluster: the watchers of
     * gives (the queue's parked buckets, the preemption index) see it */
    c->give_log[c->gives++ % CL_GIVE_LOG] = node;
    if (c->given_flag && !c->given_flag[node]) {
        c->given_flag[node] = 1;
        c->given[c->ngiven++] = node;
    }
}

void sim_cluster_withhold(sim_cluster *c, int node, int n, int *ids)
{
    if (!c->withheld)
        c->withheld = xcalloc((size_t)c->nnodes + 1, sizeof *c->withheld);
    sim_cluster_take(c, node, n, 0, 0, ids);
    c->withheld[node] += n;
}

void sim_cluster_watch_gives(sim_cluster *c)
{
    free(c->given);
    free(c->given_flag);
    c->given = xmalloc(((size_t)c->nnodes + 1) * sizeof *c->given);
    c->given_flag = xcalloc((size_t)c->nnodes + 1, 1);
    c->ngiven = 0;
}

void sim_cluster_given_clear(sim_cluster *c)
{
    for (int i = 0; i < c->ngiven; i++)
        c->given_flag[c->given[i]] = 0;
    c->ngiven = 0;
}

void sim_cluster_give(sim_cluster *c, int node, const int *ids, int ngpus, double cpu, double mem_gib)
{
    sim_node *n = &c->nodes[node];
    if (__builtin_expect(n->state != NODE_UP || c->topo, 0))
        take_give_slow(c, n, false, ids, NULL, ngpus, cpu, mem_gib);
    else
        take_give(c, n, false, ids, NULL, ngpus, cpu, mem_gib);
}

int sim_cluster_set_mig(sim_cluster *c, const char *layout, gs_error *err)
{
    /* a layout name is a JSON string; a list or a schedule is JSON as written */
    char *text = layout[0] == '[' || layout[0] == '{' ? xstrdup(layout) : NULL;
    if (!text) {
        cJSON *str = cJSON_CreateString(layout);
        text = cJSON_PrintUnformatted(str);
        cJSON_Delete(str);
    } else {
        cJSON *chk = cJSON_Parse(text);
        bool ok = chk != NULL;
        cJSON_Delete(chk);
        if (!ok) {
            free(text);
            return gs_err(err, GS_EUSAGE, "--mig '%s': expected a layout name (all-1g.10gb, balanced, whole, "
                          "dynamic) or JSON as in a cluster file's \"mig\" key", layout);
        }
    }
    if (!c->group_mig)
        c->group_mig = xcalloc((size_t)c->ngroups + 1, sizeof *c->group_mig);
    int set = 0;
    for (int n = 0; n < c->nnodes; n++) {
        int g = c->nodes[n].group;
        if (c->pools[c->nodes[n].pool].model->mig && !c->group_mig[g]) {
            c->group_mig[g] = cJSON_malloc(strlen(text) + 1);
            strcpy(c->group_mig[g], text);
            set++;
        }
    }
    free(text);
    if (set > 0) { /* the name says so: reports and default output directories tell the clusters apart */
        size_t l = strlen(c->name);
        snprintf(c->name + l, sizeof c->name - l, " mig=%s", layout[0] == '[' || layout[0] == '{' ? "custom" : layout);
    }
    if (set == 0) {
        char names[512] = "";
        for (int p = 0; p < c->npools; p++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p ? ", " : "",
                     c->pools[p].model->name);
        return gs_err(err, GS_EUSAGE, "--mig: none of the cards (%s) has MIG", names);
    }
    return 0;
}

int sim_price_parse(const gpu_catalog *cat, const char *arg, const gpu_model **model, double *usd, gs_error *err)
{
    const char *eq = strchr(arg, '=');
    char name[200];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof name)
        return gs_err(err, GS_EUSAGE, "--price '%s': expected MODEL=USD_PER_GPU_HOUR", arg);
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    if (!gs_num_double(eq + 1, 0, 1e4, usd))
        return gs_err(err, GS_EUSAGE, "--price '%s': expected US dollars per GPU-hour from 0 to 1e4", arg);
    *model = gpu_catalog_find(cat, name);
    if (!*model) {
        char names[2048];
        gpu_catalog_names(cat, names, sizeof names);
        return gs_err(err, GS_EUSAGE, "--price: unknown GPU model '%s' (known: %s)", name, names);
    }
    return 0;
}

int sim_cluster_set_price(sim_cluster *c, const gpu_catalog *cat, const char *arg, gs_error *err)
{
    const gpu_model *m;
    double usd;
    int rc = sim_price_parse(cat, arg, &m, &usd, err);
    for (int p = 0; rc == 0 && p < c->npools; p++)
        if (c->pools[p].model == m)
            c->pools[p].price_override = usd;
    return rc;
}
