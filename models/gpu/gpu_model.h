/* gpu_model.h - GPU model catalog: one JSON file per model in models/gpu/,
 * loaded and validated at start, then read-only for the whole run.
 *
 * A model carries whole-card facts (memory, SMs, host link, price) and, for
 * MIG-capable cards, its profile and legal-placement table. Lookups accept the
 * canonical name or any alias, case-insensitively.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GPU_MODEL_H
#define GPUSIM_GPU_MODEL_H

#include "../../base/gs.h"
#include "gpu_failures.h"

#define MIG_MAX_PROFILES 16
#define MIG_MAX_SLICES 8

typedef struct mig_profile {
    char name[24];
    int compute_slices;
    int size;           /* memory slices occupied */
    int64_t memory_mib;
    int sms;
    int max_instances;
    int nplacements;
    int placements[MIG_MAX_SLICES]; /* legal start slices */
    bool unverified;
} mig_profile;

typedef struct mig_table {
    int memory_slices, compute_slices;
    bool placements_verified;
    int nprofiles;
    mig_profile profiles[MIG_MAX_PROFILES];
} mig_table;

typedef struct gpu_model {
    char name[48];
    char **aliases;
    int naliases;
    char architecture[24];
    int64_t memory_mib;
    int sms;
    char host_link_kind[24];
    double host_link_gbps_per_dir; /* GB/s (1e9 B/s) per direction */
    double nvlink_gbps;            /* GB/s, both directions, per GPU; 0: no NVLink */
    double price_per_hour_usd;     /* < 0 when unknown */
    double tdp_w;                  /* maximum board power, W; < 0 when unknown (a cluster's TCO then needs its own) */
    /* speed: peak dense tensor throughput (BF16, else FP16) and memory
     * bandwidth; < 0 when the file gives none. Jobs and services scale their
     * times by these ratios (models/gpu/README.md) */
    double tensor_tflops;
    double mem_bw_gbps;            /* GB/s = 1e9 B/s */
    /* precisions below BF16: dense tensor TFLOPS; < 0 when the card has
     * none (a service asking for it is refused there) */
    double fp8_tflops, fp4_tflops;
    /* between GPUs: the GPUs one NVLink domain joins (8 on an NVSwitch
     * board, 2 bridged, 1 none; nvlink_gbps above); the scale-out network
     * per GPU, GB/s per direction (< 0 unknown) */
    int nvlink_gpus;
    double net_gbps;
    char unverified[256];          /* comma-separated field names, "" if none */
    mig_table *mig;                /* NULL when the card has no MIG */
    gpu_failures *failures;        /* the file's "failures" block; NULL: none (gpu_catalog_failures) */
} gpu_model;

typedef struct gpu_catalog {
    gpu_model *models;
    int n;
    char dir[512];
} gpu_catalog;

/* Loads every *.json in dir (sorted by file name). Returns 0, or GS_EINPUT
 * with the file and the field at fault in err. */
int gpu_catalog_load(gpu_catalog *cat, const char *dir, gs_error *err);
void gpu_catalog_free(gpu_catalog *cat);
/* Canonical name or alias, case-insensitive; NULL if unknown. */
const gpu_model *gpu_catalog_find(const gpu_catalog *cat, const char *name);
/* The failure rates of m's nodes: its file's block, else that of
 * GPU_FAIL_DEFAULT_MODEL (*from: the model whose block it is); NULL when
 * neither has one. */
const gpu_failures *gpu_catalog_failures(const gpu_catalog *cat, const gpu_model *m, const gpu_model **from);
/* Whether the model file lists field among its unverified figures. */
bool gpu_model_unverified(const gpu_model *m, const char *field);
/* Does some model of the catalog offer MIG profile name (case-insensitive)?
 * O(models x profiles). */
bool gpu_catalog_has_mig_profile(const gpu_catalog *cat, const char *name);
/* Writes "A, B, C" (canonical names) into buf. */
void gpu_catalog_names(const gpu_catalog *cat, char *buf, size_t n);
/* Default directory: $GPUSIM_MODELS, else <dir of the executable>/models/gpu,
 * else ./models/gpu. */
void gpu_catalog_default_dir(char *buf, size_t n);

#endif
