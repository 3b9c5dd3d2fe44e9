/* gs_json.h - the one JSON reader: every JSON file gpusim reads (GPU models,
 * cluster files, reports, compare.json, plan.json) goes through here, so
 * every one gets the same limits and the same messages.
 *
 * On top of cJSON it adds what a hand-edited file needs: a size bound read
 * before anything is allocated, a UTF-8 byte-order mark skipped, NUL bytes
 * named, nothing but white space allowed after the value, duplicate keys
 * rejected with their key path, and every syntax error reported as
 * "<what> 'FILE' line L, column C: ...". Columns count bytes from 1.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_JSON_H
#define GPUSIM_GS_JSON_H

#include <cJSON.h>
#include <stddef.h>

#include "gs.h"

/* Largest JSON file read: reports of long runs are a few MiB. */
#define GS_JSON_MAX_BYTES (256u * 1024 * 1024)

/* Reads and parses path. what names the kind of file in messages
 * ("cluster", "GPU model", "report"). Returns the tree (cJSON_Delete it) or
 * NULL with err set to GS_EINPUT. */
cJSON *gs_json_read(const char *path, const char *what, gs_error *err);

/* The same checks on n bytes in memory (which may hold NUL bytes); name is
 * the file name used in messages. */
cJSON *gs_json_parse(const char *text, size_t n, const char *what, const char *name, gs_error *err);

/* As gs_json_parse, for a text that starts on line first_line of its file
 * (a JSON Lines record): messages name that line ("'FILE' line L, column
 * C", with no leading kind when what is ""). */
cJSON *gs_json_parse_at(const char *text, size_t n, const char *what, const char *name, int first_line,
                        gs_error *err);
/* As gs_json_parse_at, for a value cut out of the middle of a line (one
 * item of a streamed List): text[0] sits at first_line, first_col. */
cJSON *gs_json_parse_cut(const char *text, size_t n, const char *what, const char *name, int first_line,
                         int first_col, gs_error *err);

/* Reads a whole regular file, at most max bytes, into a NUL-terminated
 * buffer (*n bytes before the terminator). A directory, a missing file or a
 * file over max is GS_EINPUT naming path. */
char *gs_read_file(const char *path, const char *what, size_t max, size_t *n, gs_error *err);

/* The tree printed (formatted, with a final newline) as valid UTF-8 text:
 * bytes that are not UTF-8 in any string (an id copied from a trace in
 * Latin-1) become U+FFFD, so the file always parses as JSON. free() it;
 * *n (if non-NULL) receives the length. */
char *gs_json_print(const cJSON *j, size_t *n);

#endif
