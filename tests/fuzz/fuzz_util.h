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
/* An importer's converted trace must read whole through the trace reader:
 * a value it wrote that the reader refuses is the importer's failure (the
 * error would name the converted file, not the input line). Aborts on one. */
void fz_trace_reads(const char *path);
/* The same for a converted cluster file: it must load as `run --cluster`
 * loads it. Aborts when it does not. */
void fz_cluster_reads(const char *path);
/* Runs command fn(argc, argv) (a `gpusim` subcommand) with its stdout going
 * nowhere; its exit code must be one a command returns (0 to 4). */
int fz_command(int (*fn)(int, char **), int argc, const char *const *argv);

#endif
