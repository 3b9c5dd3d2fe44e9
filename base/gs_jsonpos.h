/* gs_jsonpos.h - where a value sits in a JSON text, for error messages that
 * name file, line and column. cJSON keeps no positions, so a checker that
 * finds a bad value afterwards asks here where it was written.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_JSONPOS_H
#define GPUSIM_GS_JSONPOS_H

#include <stddef.h>

/* 1-based line and column (in bytes) of text[off]. */
void gs_text_linecol(const char *text, size_t off, int *line, int *col);

/* Offset of the value reached from the top-level value of a valid JSON
 * text by following path: each element is an object key, or "#N" for the
 * N-th (0-based) array element. For an object member whose key is the last
 * element, key_off (may be NULL) receives the offset of the key's opening
 * quote. Returns the offset, or (size_t)-1 when the path is not there. */
size_t gs_json_locate(const char *text, const char *const *path, int n, size_t *key_off);

#endif
