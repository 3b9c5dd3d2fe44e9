/* wl_import_csv.h - the CSV side of the importers: one record at a time, a
 * header mapped by column name, errors naming file, line and column.
 *
 * The importers of public traces read their input through this: memory is
 * one record (fields of at most WL_CSV_FW - 1 characters), whatever the file
 * length. wl_csv_rewind lets an importer take a second pass (to declare every
 * service before the first request) without holding the file.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_IMPORT_CSV_H
#define GPUSIM_WL_IMPORT_CSV_H

#include <csv.h>
#include <stdio.h>

#include "../base/gs.h"

#define WL_CSV_MAXF 32
#define WL_CSV_FW 128

typedef struct wl_csv {
    const char *path;
    FILE *fp;
    struct csv_parser p;
    char *line;
    size_t cap;
    long lineno;                       /* physical line of the current record */
    int nhdr;
    char hdr[WL_CSV_MAXF][WL_CSV_FW];  /* header names */
    char f[WL_CSV_MAXF][WL_CSV_FW];    /* the current record's fields */
    int nf;
    int too_long;                      /* 1 + index of a field cut at WL_CSV_FW - 1; 0: none */
    bool done;
} wl_csv;

/* Opens path and reads its header; every name in need[0..nneed) must be
 * there, and idx[i] receives its 0-based column. A column in `opt` (NULL
 * ended, may be NULL) that is absent gets -1 in oidx. Returns 0 or GS_EINPUT
 * (nothing stays open). */
int wl_csv_open(wl_csv *c, const char *path, const char *const *need, int nneed, int *idx, gs_error *err);
/* Next record: 1, 0 at the end, or < 0 (GS_EINPUT: malformed CSV, a field
 * count unlike the header's, a field too long), naming the line. */
int wl_csv_next(wl_csv *c, gs_error *err);
/* Back to the first record after the header (second pass). 0 or GS_EINPUT. */
int wl_csv_rewind(wl_csv *c, gs_error *err);
void wl_csv_close(wl_csv *c);
/* Column index of name in the header, or -1. */
int wl_csv_col(const wl_csv *c, const char *name);
/* GS_EINPUT: "'path' line L, column C ('name'): expected WHAT, found 'field'". */
int wl_csv_bad(const wl_csv *c, int col, const char *what, gs_error *err);
/* A decimal number in [lo, hi] ("30.0", "475.00000000000006") as the trace
 * reader takes one (gs_num_double: no hex, inf, nan or blanks); false on
 * anything else, the empty string included. */
bool wl_csv_num(const char *s, double lo, double hi, double *out);
/* "YYYY-MM-DD HH:MM:SS" -> seconds since the epoch (UTC); false if not a
 * real date and time (gs_num_datetime_us: 25:00:00 is refused, never
 * normalised). */
bool wl_csv_datetime(const char *s, int64_t *sec);

#endif
