/* sim_cluster_file.h - a cluster as the user describes it: the nodes
 * (sim_cluster.h) and the tenants' quotas (sim_quota.h), read from one JSON
 * file; the format is in workloads/README.md.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_CLUSTER_FILE_H
#define GPUSIM_SIM_CLUSTER_FILE_H

#include "sim_cluster.h"

/* Reads the cluster file at path: nodes, then "tenants" (quotas per model
 * need the pools). Returns 0 or GS_EINPUT naming the file and the field. */
int sim_cluster_load(sim_cluster *c, const char *path, const gpu_catalog *cat, gs_error *err);
/* The same from a parsed document; path names it in messages (a cluster
 * template instantiated by plan is checked this way). */
int sim_cluster_from_json(sim_cluster *c, const struct cJSON *j, const char *path, const gpu_catalog *cat,
                          gs_error *err);
/* Frees a cluster from sim_cluster_load or sim_cluster_from_spec. */
void sim_cluster_free(sim_cluster *c);

#endif
