/* sim_cluster_file.c - see sim_cluster_file.h. It sits above both the
 * ledger and the quota table so that neither needs the other's loader.
 * SPDX-License-Identifier: MIT */
#include "sim_cluster_file.h"

#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "sim_quota.h"

int sim_cluster_load(sim_cluster *c, const char *path, const gpu_catalog *cat, gs_error *err)
{
    memset(c, 0, sizeof *c);
    cJSON *j = gs_json_read(path, "cluster", err); /* syntax errors with line and column */
    if (!j)
        return GS_EINPUT;
    int rc = sim_cluster_from_json(c, j, path, cat, err);
    cJSON_Delete(j);
    return rc;
}

/* The topology's index over the nodes as built (every card free). */
static void topo_build(sim_cluster *c)
{
    int *pool = xmalloc((size_t)c->nnodes * sizeof *pool), *free_ = xmalloc((size_t)c->nnodes * sizeof *free_);
    int g[CL_MAX_POOLS];
    for (int n = 0; n < c->nnodes; n++) {
        pool[n] = c->nodes[n].pool;
        free_[n] = c->nodes[n].free_gpus;
    }
    for (int p = 0; p < c->npools; p++)
        g[p] = c->pools[p].max_node_gpus;
    sim_topo_build(c->topo, &(topo_nodes){c->nnodes, c->npools, g, pool, free_});
    free(pool);
    free(free_);
}

int sim_cluster_from_json(sim_cluster *c, const cJSON *j, const char *path, const gpu_catalog *cat, gs_error *err)
{
    int rc = sim_cluster_nodes_from_json(c, j, path, cat, err);
    if (rc == 0 && (rc = sim_topo_parse(&c->topo, cJSON_GetObjectItemCaseSensitive(j, "topology"), path, err)) != 0)
        sim_cluster_free_nodes(c);
    else if (c->topo)
        topo_build(c);
    const cJSON *tenants = rc == 0 ? cJSON_GetObjectItemCaseSensitive(j, "tenants") : NULL;
    if (tenants) { /* after the nodes: quotas per model need the pools */
        c->quota = xcalloc(1, sizeof *c->quota);
        rc = sim_quota_parse(c->quota, tenants, path, c, cat, err);
        if (rc)
            sim_cluster_free(c);
    }
    return rc;
}

void sim_cluster_free(sim_cluster *c)
{
    sim_topo_free(c->topo);
    c->topo = NULL;
    if (c->quota) {
        sim_quota_free(c->quota);
        free(c->quota);
        c->quota = NULL;
    }
    sim_cluster_free_nodes(c);
}
