/* import_gpu.h - the model catalog behind the site importers' questions
 * (workloads/wl_gpu_names.h): product strings to catalog names, MIG
 * instance placement. Linked into the tests with the library.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_IMPORT_GPU_H
#define GPUSIM_IMPORT_GPU_H

#include "../models/gpu/gpu_model.h"
#include "../workloads/wl_gpu_names.h"

#define IMPORT_GPU_MAX_MAP 32

typedef struct import_gpu {
    const gpu_catalog *cat;
    struct {
        char from[128];
        const char *to;  /* canonical name in cat */
    } map[IMPORT_GPU_MAX_MAP];
    int nmap;
} import_gpu;

void import_gpu_init(import_gpu *g, const gpu_catalog *cat);
/* The shipped catalog (models/gpu) loaded into *cat, which the caller
 * frees, and g answering from it: 0, or the loader's error. */
int import_gpu_load(import_gpu *g, gpu_catalog *cat, gs_error *err);
/* A user's mapping "PRODUCT=MODEL" (MODEL a catalog name or alias). false
 * with why set when MODEL is unknown, the text malformed or the table
 * full. */
bool import_gpu_map(import_gpu *g, const char *spec, char *why, size_t n);
/* The callbacks, answering from g (which must outlive them). */
wl_gpu_names import_gpu_names(import_gpu *g);

#endif
