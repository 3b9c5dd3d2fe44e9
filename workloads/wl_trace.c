/* wl_trace.c - trace format v1 reader on libcsv (see wl_trace.h): the file
 * cut into lines and records, the header, and the field-by-field read that
 * wl_trace_next (wl_trace_fast.c) falls back on.
 *
 * A regular file is mapped whole (map_file); other input (a pipe, a FIFO)
 * is read in big blocks (BLOCK_BYTES, read(2) on the stream's descriptor;
 * stdio's buffer is never used). Either is cut into physical lines
 * here, so the reader always knows the line number a record starts on, even
 * when quoted fields span lines. Each line is first offered to the fast path
 * (wl_trace_fast.c), which parses a plain line straight from the block or
 * declines it; this file calls nothing of it. A declined line with no quote character is split on commas in
 * place (split_plain: no copy, no per-character state machine); any other
 * line is fed to csv_parse, whose fields are copied out inside the callback
 * (libcsv reuses its buffer). Either way the record ends as an array of
 * NUL-terminated field pointers, valid until the next record, each read by
 * its column's table entry (wl_trace_cols.c): the field-by-field path, the
 * one every line can take and the reference of the fast path.
 * SPDX-License-Identifier: MIT */
#include "wl_trace_names.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/gs_file.h"

static void grow_fields(wl_trace *t)
{
    t->fields_cap = t->fields_cap ? t->fields_cap * 2 : 32;
    t->off = xrealloc(t->off, (size_t)t->fields_cap * sizeof *t->off);
    t->fld = xrealloc(t->fld, (size_t)t->fields_cap * sizeof *t->fld);
}

static void cb_field(void *s, size_t len, void *data)
{
    wl_trace *t = data;
    if (t->nfields == t->fields_cap)
        grow_fields(t);
    if (t->buf_len + len + 1 > t->buf_cap) {
        while (t->buf_len + len + 1 > t->buf_cap)
            t->buf_cap = t->buf_cap ? t->buf_cap * 2 : 1024;
        t->buf = xrealloc(t->buf, t->buf_cap);
    }
    t->off[t->nfields++] = t->buf_len;
    if (len)
        memcpy(t->buf + t->buf_len, s, len);
    t->buf[t->buf_len + len] = 0;
    t->buf_len += len + 1;
}

static void cb_row(int c, void *data)
{
    (void)c;
    ((wl_trace *)data)->record_done = true;
}

static const char *field(const wl_trace *t, int i) { return t->fld[i]; }

/* The next physical line, newline included (the last line may lack one):
 * *line points into the block and stays valid until the next call; the
 * reader may write into it. 0 at end of file, -1 on a read error. A line
 * longer than half a block grows the block. *nul: the line holds a NUL byte
 * (each block is searched for one once, not each line; a mapped file's
 * line is). */
static ssize_t next_line(wl_trace *t, char **line, bool *nul)
{
    for (;;) {
        size_t avail = t->blk_len - t->blk_pos;
        /* only the bytes not searched yet: a long line from a pipe arrives a
         * read at a time, and searching it whole after each read would be
         * quadratic in its length */
        char *p = t->blk + t->blk_pos,
             *nl = avail > t->nl_scanned ? memchr(p + t->nl_scanned, '\n', avail - t->nl_scanned) : NULL;
        t->nl_scanned = avail;
        if (nl || (t->blk_eof && avail)) {
            size_t n = nl ? (size_t)(nl - p) + 1 : avail;
            t->nl_scanned = 0;
            *line = p;
            /* the caller stops reading at a NUL; a mapped file is searched
             * line by line, on this path only (the fast path stops at a NUL
             * itself): a search of the whole file at open would be the first
             * touch of every page, a pass over memory of its own */
            *nul = t->map_len ? memchr(p, 0, n) != NULL : t->nul_at < t->blk_pos + n;
            t->blk_pos += n;
            return (ssize_t)n;
        }
        if (t->blk_eof)
            return 0;
        if (avail >= WL_TRACE_MAX_LINE)
            return -2;
        /* keep the partial line, at the front (moved once, not at every
         * read); grow when little room is left */
        if (avail && t->blk_pos)
            memmove(t->blk, p, avail);
        t->nul_at -= t->blk_pos; /* the first NUL at or after blk_pos, or blk_len: none */
        t->blk_len = avail;
        t->blk_pos = 0;
        if (t->blk_cap - t->blk_len < BLOCK_BYTES / 2) {
            t->blk_cap = t->blk_cap ? t->blk_cap * 2 : BLOCK_BYTES;
            t->blk = xrealloc(t->blk, t->blk_cap);
        }
        /* read(2), not fread: a pipe or FIFO hands over what it has, so rows
         * are replayed as they arrive (fread would wait for a whole block);
         * BLOCK_SLACK bytes of slack: split_plain ends a last line without a
         * newline with a NUL there, the fast path finds one there, and may
         * read 16 bytes from any byte of the block */
        ssize_t r;
        do
            r = read(fileno(t->f), t->blk + avail, t->blk_cap - avail - BLOCK_SLACK);
        while (r < 0 && errno == EINTR);
        if (r < 0)
            return -1;
        size_t got = (size_t)r;
        if (got == 0)
            t->blk_eof = true;
        if (t->nul_at == avail) {
            char *z = memchr(t->blk + avail, 0, got);
            t->nul_at = z ? (size_t)(z - t->blk) : avail + got;
        }
        t->blk_len = avail + got;
        memset(t->blk + t->blk_len, 0, BLOCK_SLACK); /* where the fast path's scan of an unfinished line stops */
    }
}

/* The common line -- a whole record with no quote character and no stray
 * CR -- is split on commas here, in place (each comma and the line end
 * become NULs), giving the fields libcsv would give for it (unquoted fields,
 * spaces and tabs trimmed at both ends); it saves libcsv's per-character
 * state machine and a copy of every field on million-row traces (make
 * bench). Every other line (quotes, a line inside a quoted field, blank or
 * blank-looking lines) goes through libcsv. */
static bool split_plain(wl_trace *t, char *line, size_t n)
{
    size_t len = n;
    if (len && line[len - 1] == '\n')
        len--;
    if (len && line[len - 1] == '\r')
        len--;
    if (len == 0 || memchr(line, '"', len) || memchr(line, '\r', len))
        return false;
    if (line[0] == ' ' || line[0] == '\t') { /* only then can the line be all blanks */
        bool blank = true;
        for (size_t i = 0; i < len && blank; i++)
            blank = line[i] == ' ' || line[i] == '\t';
        if (blank)
            return false;
    }
    char *p = line, *end = line + len;
    for (;;) {
        char *comma = memchr(p, ',', (size_t)(end - p));
        char *a = p, *b = comma ? comma : end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        *b = 0; /* b is the comma, a trimmed blank, or the line end (newline, CR or the block's slack) */
        if (t->nfields == t->fields_cap)
            grow_fields(t);
        t->fld[t->nfields++] = a;
        if (!comma)
            break;
        p = comma + 1;
    }
    t->record_done = true;
    return true;
}

/* Reads lines until one whole record is assembled. 1 = record, 0 = EOF. */
static int read_record(wl_trace *t, gs_error *err)
{
    t->nfields = 0;
    t->buf_len = 0;
    t->record_done = false;
    t->in_record = false;
    bool plain = false;
    while (!t->record_done) {
        if (t->eof)
            return 0;
        char *line;
        bool nul;
        ssize_t n = next_line(t, &line, &nul);
        if (n == -2) {
            t->eof = true;
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a line longer than %d MiB", t->path, t->lineno + 1,
                          WL_TRACE_MAX_LINE >> 20);
        }
        if (n < 0) {
            t->eof = true;
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld: cannot read the file", t->path, t->lineno + 1);
        }
        if (n == 0) {
            t->eof = true;
            if (csv_fini(&t->csv, cb_field, cb_row, t) != 0)
                return gs_err(err, GS_EINPUT, "trace '%s' line %ld: malformed CSV: %s (unterminated quote?)",
                              t->path, t->rec_start, csv_strerror(csv_error(&t->csv)));
            break;
        }
        t->lineno++;
        if (nul) {
            char *z = memchr(line, 0, (size_t)n);
            int col = 1; /* the field the NUL byte is in (commas before it, quotes aside) */
            for (char *q = line; q < z; q++)
                col += *q == ',';
            t->eof = true;
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d: NUL byte at byte %ld of the line "
                          "(not a text file?)", t->path, t->lineno, col, (long)(z - line) + 1);
        }
        if (t->lineno == 1 && n >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
            /* a UTF-8 byte-order mark (spreadsheet exports write one): not part of the first column's name */
            line += 3;
            n -= 3;
        }
        if (!t->in_record) {
            t->rec_start = t->lineno;
            t->in_record = true;
            if ((plain = split_plain(t, line, (size_t)n)))
                break;
        }
        if (csv_parse(&t->csv, line, (size_t)n, cb_field, cb_row, t) != (size_t)n)
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld: malformed CSV: %s", t->path, t->lineno,
                          csv_strerror(csv_error(&t->csv)));
        /* libcsv's pstate 0 is "row not begun": a blank line gave no record */
        if (!t->record_done && t->nfields == 0 && t->csv.pstate == 0)
            t->in_record = false;
    }
    if (!t->record_done)
        return 0;
    if (!plain) /* libcsv's fields: their buffer stopped moving */
        for (int i = 0; i < t->nfields; i++)
            t->fld[i] = t->buf + t->off[i];
    return 1;
}


/* A regular file is mapped whole, as one block at end of file: its bytes
 * are read where the page cache holds them, not copied into the block by
 * read(2) (a kernel copy of every byte). Private and writable: split_plain writes NULs into a line, which
 * copies only that page. The file's pages are followed by one anonymous
 * page, so at least a page of zeros follows its last byte: the NUL every
 * scan stops at, and room for the fast path's fixed 32-byte text copies. Pages come
 * in as they are first read (the kernel maps a few around each fault), and
 * the pages read are given back every MAP_RELEASE_BYTES (wl_map_release), so
 * the run's memory holds about as much of the trace as the block did, not
 * the whole file. Any other input (a pipe, a FIFO, an empty file) or a
 * failed mapping keeps the block reader. The file is the one opened: a
 * trace replaced by rename (gen --out) keeps its old bytes mapped; one
 * truncated in place under the run raises SIGBUS at the first page gone,
 * which gs_cleanup turns into exit 3 with a message and no output. */
static bool map_file(wl_trace *t)
{
    struct stat st;
    if (fstat(fileno(t->f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return false;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || (uintmax_t)st.st_size > SIZE_MAX / 2)
        return false;
    size_t size = (size_t)st.st_size, pages = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
    size_t len = pages + (size_t)page;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return false;
    if (mmap(m, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fileno(t->f), 0) == MAP_FAILED) {
        munmap(m, len);
        return false;
    }
    t->blk = m;
    t->map_len = len;
    t->blk_cap = len;
    t->blk_len = size;
    t->blk_pos = 0;
    t->blk_eof = true;
    t->nul_at = size; /* unused: next_line searches each line it hands out */
    return true;
}

/* The columns the header just read leaves unread (wl_opts.unread): those
 * of job rows' mask without a kind column, else those of every kind's;
 * never a required column. */
static uint64_t header_unread(const wl_trace *t, const wl_opts *opts)
{
    if (!opts)
        return 0;
    bool kinds = false;
    for (int i = 0; i < t->nfields && !kinds; i++)
        kinds = strcmp(field(t, i), wl_cols[C_KIND].name) == 0;
    uint64_t unread = opts->unread[WL_KIND_JOB];
    for (int k = 0; kinds && k < WL_NKINDS; k++)
        unread &= opts->unread[k];
    for (int c = 0; c < C_NCOLS; c++)
        if (wl_cols[c].required)
            unread &= ~COL_BIT(c);
    return unread & (C_NCOLS < 64 ? (COL_BIT(C_NCOLS) - 1) : ~UINT64_C(0));
}

wl_trace *wl_open_header(const char *path, const wl_opts *opts, gs_error *err)
{
    FILE *f = gs_open_input(path, "trace", err);
    if (!f)
        return NULL;
    wl_trace *t = xcalloc(1, sizeof *t);
    wl_row_init(&t->row);
    t->f = f;
    t->path = xstrdup(path);
    if (!map_file(t)) {
        t->blk_cap = BLOCK_BYTES; /* never NULL: next_line's pointer arithmetic starts from it */
        t->blk = xmalloc(t->blk_cap);
    }
    if (csv_init(&t->csv, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        GS_BUG("csv_init failed");
    int rc = read_record(t, err);
    if (rc <= 0) {
        if (rc == 0)
            gs_err(err, GS_EINPUT, "trace '%s' line 1: expected a header row (id,submit,duration,gpus,...), "
                                   "found an empty file", path);
        wl_trace_close(t);
        return NULL;
    }
    t->ncols_header = t->nfields;
    t->col_of = xmalloc((size_t)t->nfields * sizeof *t->col_of);
    uint64_t unread = header_unread(t, opts);
    for (int i = 0; i < t->nfields; i++) {
        const char *name = field(t, i);
        int id = -1;
        for (int c = 0; c < C_NCOLS && id < 0; c++)
            if (strcmp(name, wl_cols[c].name) == 0)
                id = c;
        if (id < 0 && !(opts && opts->allow_extra_columns)) {
            gs_err(err, GS_EINPUT,
                   "trace '%s' line %ld, column %d: unknown column '%s' (see workloads/README.md for the "
                   "columns; --allow-extra-columns ignores others)",
                   path, t->rec_start, i + 1, name);
            wl_trace_close(t);
            return NULL;
        }
        if (id >= 0 && (t->has[id] || (t->unread & COL_BIT(id)))) {
            gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d: duplicate column '%s'", path, t->rec_start,
                   i + 1, name);
            wl_trace_close(t);
            return NULL;
        }
        if (id >= 0 && (unread & COL_BIT(id))) { /* mapped as an ignored extra column */
            t->unread |= COL_BIT(id);
            id = -1;
        }
        if (id >= 0)
            t->has[id] = i + 1;
        t->col_of[i] = id;
    }
    for (int c = 0; c < C_NCOLS; c++) {
        if (wl_cols[c].required && !t->has[c]) {
            gs_err(err, GS_EINPUT, "trace '%s' line 1: missing required column '%s' (required: id, submit; "
                                   "job rows also need duration and gpus)", path, wl_cols[c].name);
            wl_trace_close(t);
            return NULL;
        }
    }
    for (int k = 0; k < 5; k++)
        for (int c = 0; c < C_NCOLS; c++)
            if (!wl_cols[c].kinds || wl_cols[c].kinds & (1u << k))
                t->kind_ok[k] |= COL_BIT(c);
    return t;
}

/* Gives back the mapped pages wholly before the next unread byte (the
 * previous record's fields, the only pointers into them, end with this
 * call): MADV_DONTNEED drops them from the process, and the file stays as
 * it is (a private mapping writes nothing back). */
void wl_map_release(wl_trace *t)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t upto = page > 0 ? t->blk_pos / (size_t)page * (size_t)page : t->map_done;
    if (upto > t->map_done && madvise(t->blk + t->map_done, upto - t->map_done, MADV_DONTNEED) == 0)
        t->map_done = upto;
}

/* The current record, field by field, into t->row: each header column's
 * value or default. */
static int read_fields(wl_trace *t, gs_error *err)
{
    if (t->nfields != t->ncols_header)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: expected %d fields (as in the header), found %d",
                      t->path, t->rec_start, t->ncols_header, t->nfields);
    wl_row *row = &t->row;
    row->line = t->rec_start;
    t->given = 0;
    for (int i = 0; i < t->nfields; i++) {
        int c = t->col_of[i];
        if (c < 0)
            continue;
        const char *v = field(t, i);
        if (!*v) { /* empty: only optional columns may be empty (per-kind needs are rules) */
            if (wl_cols[c].required)
                return wl_col_err(t, err, i, "a value (required column)");
            wl_col_default(&wl_cols[c], row);
            continue;
        }
        if (!wl_parse_field(t, c, v, row, i + 1))
            return wl_col_err(t, err, i, wl_cols[c].want);
        t->given |= COL_BIT(c);
    }
    row->has_duration = (t->given & COL_BIT(C_DURATION)) != 0;
    int rule = wl_rule_broken(t, row);
    if (rule)
        return wl_rule_err(t, row, rule, err);
    t->last_submit_us = row->submit_us;
    t->rows++;
    return 1;
}

int wl_read_slow(wl_trace *t, gs_error *err)
{
    int rc = read_record(t, err);
    if (rc <= 0)
        return rc;
    return read_fields(t, err);
}

long wl_trace_rows(const wl_trace *t) { return t->rows; }

uint64_t wl_trace_unread(const wl_trace *t) { return t->unread; }

uint64_t wl_cols_but_durations(void)
{
    return (C_NCOLS < 64 ? COL_BIT(C_NCOLS) - 1 : ~UINT64_C(0)) & ~(COL_BIT(C_KIND) | COL_BIT(C_DURATION) | COL_BIT(C_GPUS));
}

const char *wl_col_name(int c) { return c >= 0 && c < C_NCOLS ? wl_cols[c].name : NULL; }

int wl_trace_column(const wl_trace *t, const char *name)
{
    for (int c = 0; c < C_NCOLS; c++)
        if (strcmp(name, wl_cols[c].name) == 0)
            return t->has[c];
    return 0;
}

void wl_trace_close(wl_trace *t)
{
    if (!t)
        return;
    csv_free(&t->csv);
    if (t->f)
        fclose(t->f);
    free(t->path);
    if (t->map_len)
        munmap(t->blk, t->map_len);
    else
        free(t->blk);
    free(t->buf);
    free(t->off);
    free(t->fld);
    free(t->col_of);
    free(t->fast);
    wl_names_free(&t->names);
    free(t);
}
