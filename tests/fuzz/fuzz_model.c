/* fuzz_model.c - the GPU model loader (models/gpu/gpu_model.c): the input
 * is the one model file of a catalog directory.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <sys/stat.h>

#include <stdlib.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char d[600], name[700];
    snprintf(d, sizeof d, "%s/models", fz_dir());
    mkdir(d, 0777);
    snprintf(name, sizeof name, "models/m.json");
    fz_write(data, size, name);
    gpu_catalog cat;
    gs_error err = {0};
    int rc = gpu_catalog_load(&cat, d, &err);
    if (rc) {
        fz_check_err(rc, &err);
        return 0;
    }
    gpu_catalog_free(&cat);
    return 0;
}
