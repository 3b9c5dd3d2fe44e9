/* wl_gpu_names.h - what an importer of a site's own cluster asks about GPU
 * models: the catalog name of a product string, and where MIG instances go
 * on a card. The importers sit beside the model catalog, not above it, so
 * the caller (cli/import_gpu.c) answers through these callbacks.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_GPU_NAMES_H
#define GPUSIM_WL_GPU_NAMES_H

#include <stdbool.h>

typedef struct wl_gpu_names {
    /* The catalog's canonical name for a product string (a GPU feature
     * discovery label, a Slurm GRES type, a model name or alias), or NULL
     * when it names no model. */
    const char *(*model)(void *ud, const char *product);
    /* Legal starts for MIG instances profiles[0..n) on one card of model
     * (the catalog's placement table, no two overlapping): true with
     * starts[i] for each, false when they cannot all be placed. */
    bool (*mig_starts)(void *ud, const char *model, const char *const *profiles, int n, int *starts);
    /* How many instances of profile one card of model holds when it is cut
     * into that profile only (the cluster file's "all-<profile>"); 0 when
     * the model has no such profile. */
    int (*mig_all)(void *ud, const char *model, const char *profile);
    void *ud;
} wl_gpu_names;

#endif
