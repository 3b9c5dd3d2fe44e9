/* wl_slurm_types.h - private to the Slurm importer (wl_import_slurm.h),
 * whose files are, bottom-up:
 *   wl_value.c     times (Slurm's "%FT%T", read as UTC)
 *   wl_slurm_nodes.c   scontrol / sinfo lines -> node records; the cluster file
 *   wl_slurm_sacct.c   sacct lines -> sorted trace rows
 * Only these files include it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_SLURM_TYPES_H
#define GPUSIM_WL_SLURM_TYPES_H

#include <stdint.h>

#include "wl_import_slurm.h"

#define SLURM_MAX_MODELS 64
#define SLURM_MAX_PARTS 256

typedef struct slurm_node {
    char name[128];
    int model;          /* index into models, -1: no GPU */
    int gpus;
    double cpu, mem_gib; /* < 0: not given */
    char parts[512];    /* comma-separated partitions */
} slurm_node;

struct wl_slurm {
    const wl_sacct_opts *o;
    FILE *warn;
    wl_sacct_counts *n;
    slurm_node *nodes;
    size_t nnodes;
    char models[SLURM_MAX_MODELS][48];
    int nmodels;
    uint64_t all_models;
    struct {
        char name[64];
        uint64_t models;
    } parts[SLURM_MAX_PARTS];
    int nparts;
};

/* Index of the catalog model a GRES type names (the untyped "gpu" too, for
 * a --gpu-type gpu=MODEL), adding it; -1 when none. */
int slurm_model_of(wl_slurm *s, const char *type);
/* The models of the nodes in partition p; all models when p is unknown. */
uint64_t slurm_part_models(const wl_slurm *s, const char *p);

#endif
