/* sim_cluster_file.c - see sim_cluster_file.h. It sits above both the
 * ledger and the quota table so that neither needs the other's loader.
 * SPDX-License-Identifier: MIT */
#include "sim_cluster_file.h"

#include <stdlib.h>

#include "sim_quota.h"

int sim_cluster_load(sim_cluster *c, const char *path, const gpu_catalog *cat, gs_error *err)
{
    cJSON *tenants = NULL;
    int rc = sim_cluster_load_nodes(c, path, cat, &tenants, err);
    if (rc == 0 && tenants) {
        c->quota = xcalloc(1, sizeof *c->quota);
        rc = sim_quota_parse(c->quota, tenants, path, c, cat, err);
        if (rc)
            sim_cluster_free(c);
    }
    cJSON_Delete(tenants);
    return rc;
}

void sim_cluster_free(sim_cluster *c)
{
    if (c->quota) {
        sim_quota_free(c->quota);
        free(c->quota);
        c->quota = NULL;
    }
    sim_cluster_free_nodes(c);
}
