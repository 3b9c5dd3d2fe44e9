/* wl_import_csv.c - record-at-a-time CSV input for the importers (see
 * wl_import_csv.h). libcsv parses each physical line; a record ends when
 * libcsv reports its end, so quoted fields spanning lines still work and the
 * line number is where the record ended.
 * SPDX-License-Identifier: MIT */
#include "wl_import_csv.h"

#include "../base/gs_num.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void cb_field(void *s, size_t len, void *data)
{
    wl_csv *c = data;
    if (c->nf < WL_CSV_MAXF) {
        if (len >= WL_CSV_FW && !c->too_long)
            c->too_long = c->nf + 1;
        size_t l = len < WL_CSV_FW - 1 ? len : WL_CSV_FW - 1;
        memcpy(c->f[c->nf], s, l);
        c->f[c->nf][l] = 0;
    }
    c->nf++;
}

static void cb_row(int ch, void *data)
{
    (void)ch;
    ((wl_csv *)data)->done = true;
}

/* The next record, without checking its field count. */
static int next_raw(wl_csv *c, gs_error *err)
{
    ssize_t n;
    c->nf = 0;
    c->too_long = 0;
    c->done = false;
    while ((n = getline(&c->line, &c->cap, c->fp)) >= 0) {
        c->lineno++;
        if (csv_parse(&c->p, c->line, (size_t)n, cb_field, cb_row, c) != (size_t)n)
            return gs_err(err, GS_EINPUT, "'%s' line %ld: malformed CSV (%s)", c->path, c->lineno,
                          csv_strerror(csv_error(&c->p))), -1;
        if (c->done)
            return 1;
    }
    if (ferror(c->fp))
        return gs_err(err, GS_EINPUT, "'%s': read error: %s", c->path, strerror(errno)), -1;
    csv_fini(&c->p, cb_field, cb_row, c); /* a last record without a newline */
    return c->done ? 1 : 0;
}

int wl_csv_col(const wl_csv *c, const char *name)
{
    for (int i = 0; i < c->nhdr; i++)
        if (!strcmp(c->hdr[i], name))
            return i;
    return -1;
}

int wl_csv_open(wl_csv *c, const char *path, const char *const *need, int nneed, int *idx, gs_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->fp = fopen(path, "rb");
    if (!c->fp)
        return gs_err(err, GS_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    csv_init(&c->p, CSV_STRICT | CSV_APPEND_NULL);
    int got = next_raw(c, err), rc = 0;
    if (got < 0)
        rc = GS_EINPUT;
    else if (got == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': empty file (expected a header)", path);
    else if (c->nf > WL_CSV_MAXF || c->too_long)
        rc = gs_err(err, GS_EINPUT, "'%s' line %ld: not the expected header (%d columns)", path, c->lineno, c->nf);
    if (rc == 0) {
        c->nhdr = c->nf;
        memcpy(c->hdr, c->f, sizeof c->hdr);
        for (int i = 0; i < nneed && rc == 0; i++)
            if ((idx[i] = wl_csv_col(c, need[i])) < 0)
                rc = gs_err(err, GS_EINPUT, "'%s' line %ld: no column '%s' in the header", path, c->lineno, need[i]);
    }
    if (rc)
        wl_csv_close(c);
    return rc;
}

int wl_csv_next(wl_csv *c, gs_error *err)
{
    int got;
    do
        got = next_raw(c, err);
    while (got == 1 && c->nf == 1 && !c->f[0][0]); /* a blank line */
    if (got <= 0)
        return got;
    if (c->nf != c->nhdr)
        return gs_err(err, GS_EINPUT, "'%s' line %ld: expected %d fields (as in the header), found %d", c->path,
                      c->lineno, c->nhdr, c->nf), -1;
    if (c->too_long)
        return wl_csv_bad(c, c->too_long - 1, "a shorter field", err), -1;
    return 1;
}

int wl_csv_rewind(wl_csv *c, gs_error *err)
{
    csv_free(&c->p);
    csv_init(&c->p, CSV_STRICT | CSV_APPEND_NULL);
    if (fseek(c->fp, 0, SEEK_SET) != 0)
        return gs_err(err, GS_EINPUT, "'%s': cannot read it twice (not a regular file?)", c->path);
    c->lineno = 0;
    return next_raw(c, err) == 1 ? 0 : gs_err(err, GS_EINPUT, "'%s' changed while being read", c->path);
}

void wl_csv_close(wl_csv *c)
{
    free(c->line);
    c->line = NULL;
    csv_free(&c->p);
    if (c->fp)
        fclose(c->fp);
    c->fp = NULL;
}

int wl_csv_bad(const wl_csv *c, int col, const char *what, gs_error *err)
{
    return gs_err(err, GS_EINPUT, "'%s' line %ld, column %d ('%s'): expected %s, found '%s'", c->path, c->lineno,
                  col + 1, c->hdr[col], what, c->f[col]);
}

bool wl_csv_num(const char *s, double lo, double hi, double *out) { return gs_num_double(s, lo, hi, out); }

bool wl_csv_datetime(const char *s, int64_t *sec)
{
    int64_t us;
    if (!gs_num_datetime_us(s, false, &us))
        return false;
    *sec = us / GS_US_PER_S;
    return true;
}
