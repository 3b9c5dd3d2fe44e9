/* gs_file.h - atomic file output: write a temporary file in the target
 * directory, then rename, so a failed run never leaves a half-written result.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_FILE_H
#define GPUSIM_GS_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "gs.h"

/* mkdir -p. Returns 0, GS_EUSAGE for an empty name, or GS_EWRITE. */
int gs_mkdirs(const char *dir, gs_error *err);
/* Writes data to path through path.tmp.<pid> + fsync + rename. 0 or GS_EWRITE. */
int gs_write_atomic(const char *path, const char *data, size_t n, gs_error *err);

/* Opens path for reading as an input file: a directory (which fopen opens
 * and which then reads as empty) is GS_EINPUT "WHAT 'PATH' is a directory",
 * as is a missing file. NULL with err set on failure. */
FILE *gs_open_input(const char *path, const char *what, gs_error *err);

#endif
