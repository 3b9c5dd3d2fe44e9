/* fuzz_util.h - what the fuzz harnesses share: the libFuzzer entry point
 * each defines, a scratch file for readers that take a path, the catalog,
 * and the check every error must pass.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_FUZZ_UTIL_H
#define GPUSIM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "../../base/gs.h"
#include "../../models/gpu/gpu_model.h"

/* Each harness defines it (libFuzzer calls it; so does replay.c). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes the n bytes to NAME in this process's scratch directory (made on
 * first use under $TMPDIR, removed at exit); returns its path. */
const char *fz_write(const uint8_t *data, size_t n, const char *name);
/* The scratch directory itself. */
const char *fz_dir(void);
/* The shipped GPU models, loaded once. */
const gpu_catalog *fz_catalog(void);
/* A failure must be a known status with a message: anything else aborts
 * (which the fuzzer reports, and the replay counts as a failure). */
void fz_check_err(int rc, const gs_error *err);

#endif
