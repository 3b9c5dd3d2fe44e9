/* wl_trace.c - trace format v1 reader on libcsv (see wl_trace.h).
 *
 * A regular file is mapped whole (map_file); other input (a pipe, a FIFO)
 * is read in big blocks (BLOCK_BYTES, read(2) on the stream's descriptor;
 * stdio's buffer is never used). Either is cut into physical lines
 * here, so the reader always knows the line number a record starts on, even
 * when quoted fields span lines. A line with no quote character is split on
 * commas in place (split_plain: no copy, no per-character state machine);
 * any other line is fed to csv_parse, whose fields are copied out inside the
 * callback (libcsv reuses its buffer). Either way the record ends as an
 * array of NUL-terminated field pointers, valid until the next record.
 * Before either, a trace whose header has only id, submit, duration, gpus
 * and ignored columns (generated and exported job traces) has each plain
 * line parsed in one pass straight from the block (fast_row, by the
 * per-file plan decided at the header); it declines any line it cannot
 * vouch for, which then goes the field-by-field way above.
 * SPDX-License-Identifier: MIT */
#include "wl_trace.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/gs_file.h"
#include "../base/gs_num.h"

enum col_id {
    C_ID, C_SUBMIT, C_DURATION, C_GPUS, C_KIND, C_GPUMEM, C_GPUCORES, C_MIG, C_PRIORITY, C_PREEMPTIBLE,
    C_CHECKPOINT_GIB, C_TENANT, C_GPU_MODEL, C_CPU, C_MEM_GIB, C_GPUMEM_PCT, C_UTIL,
    C_SERVICE, C_INPUT_TOKENS, C_OUTPUT_TOKENS,
    C_REPLICAS_MIN, C_REPLICAS_MAX, C_REPLICAS_INIT, C_MAX_BATCH, C_SLO_MS, C_WEIGHTS_GIB, C_RATE, C_PATTERN,
    C_SVC_MEAN_MS, C_PREFILL_MS, C_DECODE_BASE_MS, C_DECODE_SEQ_MS, C_SESSION, C_WAKE, C_DUE, C_PARAMS_B,
    C_SLO_TTFT_MS, C_SLO_TPOT_MS, C_KV_KIB, C_HASH_IDS, C_REF_GPU, C_MEM_BOUND, C_SPEEDUP, C_PROFILE, C_NCOLS
};

/* The fast row path's plan for a field (wl_trace.fast): the columns of
 * generated and exported job traces, and ignored extra columns. */
enum { F_SKIP, F_ID, F_SUBMIT, F_DURATION, F_GPUS };

static const struct {
    const char *name;
    bool required;
} cols[C_NCOLS] = {
    [C_ID] = {"id", true},         [C_SUBMIT] = {"submit", true},   [C_DURATION] = {"duration", false},
    [C_GPUS] = {"gpus", false},     [C_KIND] = {"kind", false},      [C_GPUMEM] = {"gpumem", false},
    [C_GPUCORES] = {"gpucores", false}, [C_MIG] = {"mig", false},   [C_PRIORITY] = {"priority", false},
    [C_PREEMPTIBLE] = {"preemptible", false}, [C_CHECKPOINT_GIB] = {"checkpoint_gib", false},
    [C_TENANT] = {"tenant", false}, [C_GPU_MODEL] = {"gpu_model", false}, [C_CPU] = {"cpu", false},
    [C_MEM_GIB] = {"mem_gib", false}, [C_GPUMEM_PCT] = {"gpumem_pct", false}, [C_UTIL] = {"util", false},
    [C_SERVICE] = {"service", false},
    [C_INPUT_TOKENS] = {"input_tokens", false}, [C_OUTPUT_TOKENS] = {"output_tokens", false},
    [C_REPLICAS_MIN] = {"replicas_min", false}, [C_REPLICAS_MAX] = {"replicas_max", false},
    [C_REPLICAS_INIT] = {"replicas_init", false}, [C_MAX_BATCH] = {"max_batch", false},
    [C_SLO_MS] = {"slo_ms", false}, [C_WEIGHTS_GIB] = {"weights_gib", false}, [C_RATE] = {"rate", false},
    [C_PATTERN] = {"pattern", false}, [C_SVC_MEAN_MS] = {"svc_mean_ms", false},
    [C_PREFILL_MS] = {"prefill_ms_per_token", false}, [C_DECODE_BASE_MS] = {"decode_ms_base", false},
    [C_DECODE_SEQ_MS] = {"decode_ms_per_seq", false},
    [C_SESSION] = {"session", false}, [C_WAKE] = {"wake", false}, [C_DUE] = {"due", false},
    [C_PARAMS_B] = {"params_b", false},
    [C_SLO_TTFT_MS] = {"slo_ttft_ms", false}, [C_SLO_TPOT_MS] = {"slo_tpot_ms", false},
    [C_KV_KIB] = {"kv_kib_per_token", false}, [C_HASH_IDS] = {"hash_ids", false},
    [C_REF_GPU] = {"ref_gpu", false}, [C_MEM_BOUND] = {"mem_bound", false}, [C_SPEEDUP] = {"speedup", false},
    [C_PROFILE] = {"profile", false},
};

/* Bytes read at a time: big enough that the read system calls cost
 * nothing next to the parsing, small enough to stay in the L2 cache. */
#define BLOCK_BYTES (256u * 1024u)
/* The longest physical line read from a pipe: a row of a million hash ids
 * is about 20 MiB; a line past this is an error, not a block that grows
 * with it. */
#define WL_TRACE_MAX_LINE (256 << 20)

struct wl_trace {
    FILE *f;
    char *path;
    struct csv_parser csv;
    /* the block reader: bytes [blk_pos, blk_len) of blk are not yet cut into
     * lines; nul_at is the first NUL byte at or after blk_pos, or blk_len */
    char *blk;
    size_t blk_pos, blk_len, blk_cap, nul_at;
    size_t nl_scanned; /* bytes from blk_pos already searched for a newline (a line still arriving) */
    bool blk_eof;
    size_t map_len;  /* > 0: blk is the whole file mapped (map_file), map_len bytes to unmap */
    size_t map_done; /* the mapped bytes before this, whole pages, are read and given back */
    /* the row fast_row filled last, when every field it does not write is
     * still at reset_row's default: the next fast line into the same row
     * writes its own fields and skips the reset */
    const wl_row *clean;
    long lineno;     /* physical lines read */
    long rec_start;  /* line where the current record started */
    bool in_record;
    /* the record being assembled: libcsv's fields copied into one growing
     * buffer (off[i] into buf), or a plain line's fields split in place;
     * fld[i] points at field i once the record is complete */
    char *buf;
    size_t buf_len, buf_cap;
    size_t *off;
    const char **fld;
    int nfields, fields_cap;
    bool record_done;
    /* header mapping: col_of[field index] = col_id or -1 (ignored extra) */
    int *col_of;
    int ncols_header;
    int has[C_NCOLS];
    long rows;
    gs_time_us last_submit_us;
    bool eof;
    /* the per-file column plan, decided at the header: fast[i] is what the
     * fast row path does with field i; fast_ok: every column has a plan */
    unsigned char *fast;
    bool fast_ok;
    bool fast_std; /* and the first four are id, submit, duration, gpus, any others ignored */
};

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
         * read at a time, and searching it whole after each read was
         * quadratic in its length */
        char *p = t->blk + t->blk_pos,
             *nl = avail > t->nl_scanned ? memchr(p + t->nl_scanned, '\n', avail - t->nl_scanned) : NULL;
        t->nl_scanned = avail;
        if (nl || (t->blk_eof && avail)) {
            size_t n = nl ? (size_t)(nl - p) + 1 : avail;
            t->nl_scanned = 0;
            *line = p;
            /* the caller stops reading at a NUL; a mapped file is searched
             * line by line, on this path only (fast_row stops at a NUL
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
         * one byte of slack: split_plain ends a last line without a newline
         * with a NUL there, and fast_row finds one there */
        ssize_t r;
        do
            r = read(fileno(t->f), t->blk + avail, t->blk_cap - avail - 1);
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
        t->blk[t->blk_len] = 0; /* in the slack: where fast_row's scan of an unfinished line stops */
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


bool wl_parse_seconds(const char *s, gs_time_us *out_us) { return gs_num_seconds_us(s, out_us); }

static int col_err(wl_trace *t, gs_error *err, int fi, const char *want)
{
    return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('%s'): expected %s, found '%s'", t->path,
                  t->rec_start, fi + 1, cols[t->col_of[fi]].name, want, field(t, fi));
}

/* "0|14|15" -> 3; -1 unless non-empty decimal integers below 2^63 joined by '|'. */
static int count_ids(const char *s)
{
    int n = 0;
    for (;;) {
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++)
            if (++digits > 18)
                return -1;
        if (!digits || n == 1 << 20)
            return -1;
        n++;
        if (!*s)
            return n;
        if (*s++ != '|')
            return -1;
    }
}

static bool copy_str(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        return false;
    memcpy(dst, src, l + 1);
    return true;
}

/* A regular file is mapped whole, as one block at end of file: its bytes
 * are read where the page cache holds them, not copied into the block by
 * read(2) (the kernel's copy was 4% of the plain replay's time, make
 * bench). Private and writable: split_plain writes NULs into a line, which
 * copies only that page. The file's pages are followed by one anonymous
 * page, so at least a page of zeros follows its last byte: the NUL every
 * scan stops at, and room for fast_row's fixed 32-byte id copy. Pages come
 * in as they are first read (the kernel maps a few around each fault), and
 * the pages read are given back every MAP_RELEASE_BYTES (map_release), so
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

wl_trace *wl_trace_open(const char *path, const wl_opts *opts, gs_error *err)
{
    FILE *f = gs_open_input(path, "trace", err);
    if (!f)
        return NULL;
    wl_trace *t = xcalloc(1, sizeof *t);
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
    for (int i = 0; i < t->nfields; i++) {
        const char *name = field(t, i);
        int id = -1;
        for (int c = 0; c < C_NCOLS; c++)
            if (strcmp(name, cols[c].name) == 0)
                id = c;
        if (id < 0 && !(opts && opts->allow_extra_columns)) {
            gs_err(err, GS_EINPUT,
                   "trace '%s' line %ld, column %d: unknown column '%s' (see workloads/README.md for the "
                   "columns; --allow-extra-columns ignores others)",
                   path, t->rec_start, i + 1, name);
            wl_trace_close(t);
            return NULL;
        }
        if (id >= 0 && t->has[id]) {
            gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d: duplicate column '%s'", path, t->rec_start,
                   i + 1, name);
            wl_trace_close(t);
            return NULL;
        }
        if (id >= 0)
            t->has[id] = i + 1;
        t->col_of[i] = id;
    }
    for (int c = 0; c < C_NCOLS; c++) {
        if (cols[c].required && !t->has[c]) {
            gs_err(err, GS_EINPUT, "trace '%s' line 1: missing required column '%s' (required: id, submit; "
                                   "job rows also need duration and gpus)", path, cols[c].name);
            wl_trace_close(t);
            return NULL;
        }
    }
    /* the fast row path's plan; a header it cannot serve leaves every row to
     * the field-by-field path (rows without duration or gpus are errors) */
    t->fast = xmalloc((size_t)t->nfields);
    t->fast_ok = t->has[C_DURATION] && t->has[C_GPUS];
    for (int i = 0; i < t->nfields; i++) {
        int c = t->col_of[i];
        t->fast[i] = c < 0 ? F_SKIP : c == C_ID ? F_ID : c == C_SUBMIT ? F_SUBMIT : c == C_DURATION ? F_DURATION
                   : c == C_GPUS ? F_GPUS : F_SKIP;
        if (c >= 0 && t->fast[i] == F_SKIP)
            t->fast_ok = false;
    }
    t->fast_std = t->fast_ok && t->nfields >= 4 && t->fast[0] == F_ID && t->fast[1] == F_SUBMIT &&
                  t->fast[2] == F_DURATION && t->fast[3] == F_GPUS;
    return t;
}

/* Cross-field rules of session and burst rows (workloads/README.md): a
 * burst names its session, asks for no resources of its own, and a scheduled
 * burst has a due time >= its submit; the session columns belong to bursts. */
static int check_session_fields(wl_trace *t, const wl_row *row, gs_error *err)
{
    const char *f = t->path;
    long ln = t->rec_start;
    if (row->kind != WL_KIND_BURST) {
        if (row->session[0] || row->due_us >= 0 || (t->has[C_WAKE] && field(t, t->has[C_WAKE] - 1)[0]))
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld: columns 'session', 'wake' and 'due' are for "
                          "rows of kind 'burst' only", f, ln);
        return 0;
    }
    if (!row->session[0])
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('session'): expected the id of the "
                      "burst's session, found nothing", f, ln, t->has[C_SESSION]);
    if (row->gpus || row->cpu > 0 || row->mem_gib > 0 || row->gpumem_mib || row->gpucores || row->mig[0])
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a burst uses its session's sandbox; expected "
                      "empty or zero gpus, cpu, mem_gib, gpumem, gpucores, mig", f, ln);
    if (row->wake == WL_WAKE_SCHEDULED && row->due_us < row->submit_us)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('due'): expected the due time (seconds "
                      ">= submit) of a scheduled burst, found '%s'", f, ln, t->has[C_DUE],
                      t->has[C_DUE] ? field(t, t->has[C_DUE] - 1) : "");
    if (row->wake == WL_WAKE_USER && row->due_us >= 0)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('due'): a user-driven burst runs at "
                      "its submit time; expected no due", f, ln, t->has[C_DUE]);
    return 0;
}

/* Every column's default: what a row holds before its fields are read.
 * Field by field: a memset of the whole row (strings included) showed up in
 * profiles of million-row traces. */
static void reset_row(wl_row *row)
{
    row->kind = WL_KIND_JOB;
    row->id[0] = row->mig[0] = row->tenant[0] = row->gpu_model[0] = 0;
    row->submit_us = row->dur_us = 0;
    row->gpus = row->gpucores = row->priority = row->preemptible = row->gpu_model_col = 0;
    row->gpumem_mib = 0;
    row->checkpoint_gib = row->params_b = -1;
    row->slo_ttft_ms = row->slo_tpot_ms = row->kv_kib_per_token = -1;
    row->hash_ids = NULL;
    row->nhash = 0;
    row->cpu = row->mem_gib = 0;
    row->gpumem_pct = 0;
    row->util = 0;
    row->has_duration = false;
    row->service[0] = row->pattern[0] = 0;
    row->input_tokens = row->output_tokens = -1;
    row->replicas_min = row->replicas_max = row->replicas_init = -1;
    row->max_batch = 0;
    row->slo_ms = row->weights_gib = row->svc_mean_ms = -1;
    row->prefill_ms_per_token = row->decode_ms_base = row->decode_ms_per_seq = -1;
    row->rate = 0;
    row->session[0] = 0;
    row->ref_gpu[0] = row->speedup[0] = row->profile[0] = 0;
    row->ref_gpu_col = row->speedup_col = 0;
    row->mem_bound = -1;
    row->wake = WL_WAKE_USER;
    row->due_us = -1;
}

/* Bytes that end the fast path's scan of a field: bit 1 for any field (the
 * comma, the line end, and what only libcsv or split_plain handle: a quote,
 * a CR, a NUL), bit 2 also for the id (blanks, which split_plain trims). */
static const unsigned char stop_at[256] = {
    [','] = 3, ['\n'] = 3, ['"'] = 3, ['\r'] = 3, [0] = 3, [' '] = 2, ['\t'] = 2,
};

/* The fast path's id at *pp: up to the first byte that ends it; false
 * when empty or too long for the row (cap bytes with its NUL). */
static inline bool fast_id(const unsigned char **pp, const unsigned char **id, size_t *id_len, size_t cap)
{
    const unsigned char *p = *pp;
    *id = p;
    while (!(stop_at[*p] & 2))
        p++;
    *id_len = (size_t)(p - *id);
    *pp = p;
    return *id_len != 0 && *id_len < cap;
}

/* The fast path's gpus at *pp, gs_num_long(v, 0, 64): one or two digits;
 * others decline. */
static inline bool fast_gpus(const unsigned char **pp, unsigned *gpus)
{
    const unsigned char *p = *pp;
    unsigned g, d;
    if ((g = (unsigned)(*p - '0')) > 9)
        return false;
    if ((d = (unsigned)(*++p - '0')) <= 9) {
        g = g * 10 + d;
        p++;
    }
    *pp = p;
    *gpus = g;
    return g <= 64;
}

/* One pass over the next plain job line, straight from the block, each
 * field parsed where it stands (no line search, no split, no per-column
 * dispatch on names): for traces whose every column has a plan. It takes
 * only a line whose outcome it knows is that of the field-by-field path --
 * the same fields, each valid, in submit order -- and declines anything
 * else, reading nothing (a quote, a CR, a NUL, blanks around a field, an
 * empty or bad value, a field count off the header's, a line not yet
 * wholly in the block: every scan stops at the NUL kept after the block's
 * bytes), which then goes the long way and gets its exact error. */
static bool fast_row(wl_trace *t, wl_row *row)
{
    const unsigned char *p = (const unsigned char *)t->blk + t->blk_pos;
    const unsigned char *end = (const unsigned char *)t->blk + t->blk_len; /* the block's bytes read */
    /* parsed into locals first: a declined line leaves *row as it was (the
     * field-by-field path writes it only once a record is read) */
    const unsigned char *id = p;
    size_t id_len = 0;
    gs_time_us submit_us = 0, dur_us = 0;
    unsigned gpus = 0;
    int last = t->ncols_header - 1;
    if (t->fast_std) { /* the generated layout: the same steps as the loop below, without its dispatch */
        if (!fast_id(&p, &id, &id_len, sizeof row->id) || *p++ != ',' || !gs_num_seconds_prefix(&p, end, &submit_us) ||
            *p++ != ',' || !gs_num_seconds_prefix(&p, end, &dur_us) || *p++ != ',' || !fast_gpus(&p, &gpus))
            return false;
        for (int i = 4; i <= last; i++) {
            if (*p++ != ',')
                return false;
            while (!(stop_at[*p] & 1))
                p++;
        }
    } else
        for (int i = 0;; i++) {
            switch (t->fast[i]) {
            case F_ID:
                if (!fast_id(&p, &id, &id_len, sizeof row->id))
                    return false;
                break;
            case F_SUBMIT:
                if (!gs_num_seconds_prefix(&p, end, &submit_us))
                    return false;
                break;
            case F_DURATION:
                if (!gs_num_seconds_prefix(&p, end, &dur_us))
                    return false;
                break;
            case F_GPUS:
                if (!fast_gpus(&p, &gpus))
                    return false;
                break;
            default:
                while (!(stop_at[*p] & 1))
                    p++;
                break;
            }
            if (i == last)
                break;
            if (*p++ != ',')
                return false;
        }
    if (*p != '\n' || submit_us < t->last_submit_us)
        return false;
    t->blk_pos = (size_t)((const char *)p + 1 - t->blk); /* the line is read */
    t->lineno++;
    t->rec_start = t->lineno;
    if (t->clean != row) {
        reset_row(row);
        t->clean = row;
    }
    row->line = t->rec_start;
    /* A short id is copied as a fixed 32 bytes (two vector moves) when the
     * block has them: a copy of variable length is inlined as `rep movsq`,
     * whose start-up costs more than the whole line's parse. The bytes past
     * the NUL are never read. */
    if (id_len < 32 && sizeof row->id >= 32 && (const char *)id + 32 <= t->blk + t->blk_cap)
        memcpy(row->id, id, 32);
    else
        memcpy(row->id, id, id_len);
    row->id[id_len] = 0;
    row->submit_us = submit_us;
    row->dur_us = dur_us;
    row->has_duration = true; /* the plan has all four columns (fast_ok) */
    row->gpus = (int)gpus;
    t->last_submit_us = submit_us;
    t->rows++;
    return true;
}

/* Bytes of a mapped file read between two give-backs: the block's size. */
#define MAP_RELEASE_BYTES BLOCK_BYTES

/* Gives back the mapped pages wholly before the next unread byte (the
 * previous record's fields, the only pointers into them, end with this
 * call): MADV_DONTNEED drops them from the process, and the file stays as
 * it is (a private mapping writes nothing back). */
static void map_release(wl_trace *t)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t upto = page > 0 ? t->blk_pos / (size_t)page * (size_t)page : t->map_done;
    if (upto > t->map_done && madvise(t->blk + t->map_done, upto - t->map_done, MADV_DONTNEED) == 0)
        t->map_done = upto;
}

int wl_trace_next(wl_trace *t, wl_row *row, gs_error *err)
{
    if (t->map_len && t->blk_pos - t->map_done >= MAP_RELEASE_BYTES)
        map_release(t);
    if (t->fast_ok && !t->eof && fast_row(t, row))
        return 1;
    int rc = read_record(t, err);
    if (rc <= 0)
        return rc;
    t->clean = NULL; /* the field-by-field path may set any field */
    if (t->nfields != t->ncols_header)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: expected %d fields (as in the header), found %d",
                      t->path, t->rec_start, t->ncols_header, t->nfields);
    reset_row(row);
    row->line = t->rec_start;
    int has_gpus = 0;
    for (int i = 0; i < t->nfields; i++) {
        const char *v = field(t, i);
        long l;
        double d;
        int c = t->col_of[i];
        if (c < 0)
            continue;
        if (!*v) { /* empty: only optional columns may be empty (per-kind needs are checked below) */
            if (cols[c].required)
                return col_err(t, err, i, "a value (required column)");
            continue;
        }
        switch (c) {
        case C_ID:
            if (!copy_str(row->id, sizeof row->id, v))
                return col_err(t, err, i, "an id shorter than 128 characters");
            break;
        case C_SUBMIT:
            if (!wl_parse_seconds(v, &row->submit_us))
                return col_err(t, err, i, "a non-negative decimal number of seconds");
            break;
        case C_DURATION:
            if (!wl_parse_seconds(v, &row->dur_us))
                return col_err(t, err, i, "a non-negative decimal number of seconds");
            row->has_duration = true;
            break;
        case C_GPUS:
            if (!gs_num_long(v, 0, 64, &l))
                return col_err(t, err, i, "an integer 0..64");
            row->gpus = (int)l;
            has_gpus = 1;
            break;
        case C_KIND:
            if (!strcmp(v, "job"))
                row->kind = WL_KIND_JOB;
            else if (!strcmp(v, "service"))
                row->kind = WL_KIND_SERVICE;
            else if (!strcmp(v, "request"))
                row->kind = WL_KIND_REQUEST;
            else if (!strcmp(v, "session"))
                row->kind = WL_KIND_SESSION;
            else if (!strcmp(v, "burst"))
                row->kind = WL_KIND_BURST;
            else
                return col_err(t, err, i, "a row kind: job, service, request, session or burst");
            break;
        case C_SERVICE:
            if (!copy_str(row->service, sizeof row->service, v))
                return col_err(t, err, i, "a service id shorter than 64 characters");
            break;
        case C_INPUT_TOKENS:
        case C_OUTPUT_TOKENS:
            if (!gs_num_long(v, c == C_INPUT_TOKENS ? 0 : 1, 10000000L, &l))
                return col_err(t, err, i, c == C_INPUT_TOKENS ? "an integer number of tokens >= 0"
                                                              : "an integer number of tokens >= 1");
            *(c == C_INPUT_TOKENS ? &row->input_tokens : &row->output_tokens) = l;
            break;
        case C_REPLICAS_MIN:
        case C_REPLICAS_MAX:
        case C_REPLICAS_INIT:
            if (!gs_num_long(v, c == C_REPLICAS_MAX ? 1 : 0, 100000L, &l))
                return col_err(t, err, i, c == C_REPLICAS_MAX ? "an integer >= 1" : "an integer >= 0");
            *(c == C_REPLICAS_MIN ? &row->replicas_min : c == C_REPLICAS_MAX ? &row->replicas_max
                                                                             : &row->replicas_init) = (int)l;
            break;
        case C_MAX_BATCH:
            if (!gs_num_long(v, 1, 4096, &l))
                return col_err(t, err, i, "an integer batch size 1..4096");
            row->max_batch = (int)l;
            break;
        case C_SLO_MS:
        case C_WEIGHTS_GIB:
        case C_SVC_MEAN_MS:
        case C_PREFILL_MS:
        case C_DECODE_BASE_MS:
        case C_DECODE_SEQ_MS:
            if (!gs_num_double(v, 0, 1e12, &d) || (c == C_SVC_MEAN_MS && d <= 0))
                return col_err(t, err, i, c == C_SVC_MEAN_MS ? "a positive number" : "a non-negative number");
            *(c == C_SLO_MS ? &row->slo_ms : c == C_WEIGHTS_GIB ? &row->weights_gib
                : c == C_SVC_MEAN_MS ? &row->svc_mean_ms : c == C_PREFILL_MS ? &row->prefill_ms_per_token
                : c == C_DECODE_BASE_MS ? &row->decode_ms_base : &row->decode_ms_per_seq) = d;
            break;
        case C_RATE:
            if (!gs_num_double(v, 0, 1e9, &d))
                return col_err(t, err, i, "a non-negative number of requests per second");
            row->rate = d;
            break;
        case C_PATTERN:
            if (strcmp(v, "poisson") && strcmp(v, "diurnal"))
                return col_err(t, err, i, "poisson or diurnal");
            snprintf(row->pattern, sizeof row->pattern, "%s", v);
            break;
        case C_GPUMEM:
            if (!gs_num_long(v, 1, 1L << 40, &l))
                return col_err(t, err, i, "an integer number of MiB >= 1");
            row->gpumem_mib = l;
            break;
        case C_GPUCORES:
            if (!gs_num_long(v, 1, 100, &l))
                return col_err(t, err, i, "an integer percent 1..100");
            row->gpucores = (int)l;
            break;
        case C_MIG:
            if (!copy_str(row->mig, sizeof row->mig, v))
                return col_err(t, err, i, "a MIG profile name such as '1g.10gb'");
            break;
        case C_PRIORITY:
            if (!gs_num_long(v, -2000000000L, 2000000000L, &l))
                return col_err(t, err, i, "an integer priority");
            row->priority = (int)l;
            break;
        case C_PREEMPTIBLE:
            if (strcmp(v, "0") && strcmp(v, "1"))
                return col_err(t, err, i, "0 or 1");
            row->preemptible = v[0] == '1';
            break;
        case C_CHECKPOINT_GIB:
            if (!gs_num_double(v, 0, 1e9, &d))
                return col_err(t, err, i, "a non-negative number of GiB");
            row->checkpoint_gib = d;
            break;
        case C_PARAMS_B:
            if (!gs_num_double(v, 0, 1e6, &d))
                return col_err(t, err, i, "a non-negative number of billions of parameters");
            row->params_b = d;
            break;
        case C_SLO_TTFT_MS:
        case C_SLO_TPOT_MS:
        case C_KV_KIB:
            if (!gs_num_double(v, 0, 1e12, &d) || (c == C_KV_KIB && d <= 0))
                return col_err(t, err, i, c == C_KV_KIB ? "a positive number of KiB" : "a non-negative number of ms");
            *(c == C_SLO_TTFT_MS ? &row->slo_ttft_ms : c == C_SLO_TPOT_MS ? &row->slo_tpot_ms
                                                                          : &row->kv_kib_per_token) = d;
            break;
        case C_HASH_IDS:
            if ((row->nhash = count_ids(v)) < 0)
                return col_err(t, err, i, "prefix-block ids: integers >= 0 separated by '|', e.g. 0|1|2");
            row->hash_ids = v;
            break;
        case C_TENANT:
            if (!copy_str(row->tenant, sizeof row->tenant, v))
                return col_err(t, err, i, "a tenant name shorter than 64 characters");
            break;
        case C_GPU_MODEL:
            if (!gs_text_list_ok(v, '|') || !copy_str(row->gpu_model, sizeof row->gpu_model, v))
                return col_err(t, err, i, "'|'-separated GPU model names");
            row->gpu_model_col = i + 1;
            break;
        case C_CPU:
            if (!gs_num_double(v, 0, 1e6, &d))
                return col_err(t, err, i, "a non-negative number of cores");
            row->cpu = d;
            break;
        case C_MEM_GIB:
            if (!gs_num_double(v, 0, 1e9, &d))
                return col_err(t, err, i, "a non-negative number of GiB");
            row->mem_gib = d;
            break;
        case C_GPUMEM_PCT:
            if (!gs_num_long(v, 1, 100, &l))
                return col_err(t, err, i, "an integer percent 1..100");
            row->gpumem_pct = (int)l;
            break;
        case C_UTIL:
            if (!gs_num_double(v, 0, 1, &d) || d <= 0)
                return col_err(t, err, i, "a demand 0 < util <= 1");
            row->util = d;
            break;
        case C_SESSION:
            if (!copy_str(row->session, sizeof row->session, v))
                return col_err(t, err, i, "a session id shorter than 128 characters");
            break;
        case C_WAKE:
            if (!strcmp(v, "user"))
                row->wake = WL_WAKE_USER;
            else if (!strcmp(v, "scheduled"))
                row->wake = WL_WAKE_SCHEDULED;
            else
                return col_err(t, err, i, "user or scheduled");
            break;
        case C_DUE:
            if (!wl_parse_seconds(v, &row->due_us))
                return col_err(t, err, i, "a non-negative decimal number of seconds");
            break;
        case C_REF_GPU:
            if (!copy_str(row->ref_gpu, sizeof row->ref_gpu, v))
                return col_err(t, err, i, "a GPU model name");
            row->ref_gpu_col = i + 1;
            break;
        case C_MEM_BOUND:
            if (!gs_num_double(v, 0, 1, &d))
                return col_err(t, err, i, "a share of time bound by memory bandwidth, 0..1");
            row->mem_bound = d;
            break;
        case C_SPEEDUP:
            if (!copy_str(row->speedup, sizeof row->speedup, v))
                return col_err(t, err, i, "MODEL:factor pairs separated by '|'");
            row->speedup_col = i + 1;
            break;
        case C_PROFILE:
            if (!copy_str(row->profile, sizeof row->profile, v))
                return col_err(t, err, i, "a performance profile name shorter than 32 characters");
            break;
        }
    }
    /* what each kind needs beyond id and submit */
    if (row->kind == WL_KIND_JOB || row->kind == WL_KIND_SESSION) {
        const char *kind = row->kind == WL_KIND_JOB ? "job" : "session";
        int missing = !row->has_duration ? C_DURATION : !has_gpus ? C_GPUS : -1;
        if (missing >= 0 && t->has[missing])
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('%s'): expected a value (a %s row "
                          "needs 'duration' and 'gpus'), found ''", t->path, t->rec_start, t->has[missing],
                          cols[missing].name, kind);
        if (missing >= 0)
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a %s row needs 'duration' and 'gpus'; the "
                          "header has no column '%s'", t->path, t->rec_start, kind, cols[missing].name);
    }
    rc = check_session_fields(t, row, err);
    if (rc)
        return rc;
    if (row->kind == WL_KIND_SERVICE && !has_gpus)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a service row needs 'gpus' (per replica)", t->path,
                      t->rec_start);
    if (row->hash_ids && row->kind != WL_KIND_REQUEST)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('hash_ids'): only request rows carry "
                      "prefix-block ids", t->path, t->rec_start, t->has[C_HASH_IDS]);
    if (row->kind == WL_KIND_REQUEST && !row->service[0])
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a request row needs 'service'", t->path,
                      t->rec_start);
    if (row->kind == WL_KIND_SERVICE && row->replicas_min >= 0 && row->replicas_max >= 0 &&
        row->replicas_min > row->replicas_max)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: replicas_min %d exceeds replicas_max %d", t->path,
                      t->rec_start, row->replicas_min, row->replicas_max);
    if ((row->gpumem_mib || row->gpucores || row->mig[0] || row->gpumem_pct || row->util > 0) && row->gpus == 0)
        return gs_err(err, GS_EINPUT,
                      "trace '%s' line %ld, column %d ('gpus'): expected gpus >= 1 when gpumem, gpumem_pct, "
                      "gpucores, util or mig is given, found '0'",
                      t->path, t->rec_start, t->has[C_GPUS]);
    if (row->submit_us < t->last_submit_us)
        return gs_err(err, GS_EINPUT,
                      "trace '%s' line %ld, column %d ('submit'): rows must be in non-decreasing submit order; "
                      "%.6f comes after %.6f",
                      t->path, t->rec_start, t->has[C_SUBMIT], gs_us_to_s(row->submit_us),
                      gs_us_to_s(t->last_submit_us));
    t->last_submit_us = row->submit_us;
    t->rows++;
    return 1;
}

long wl_trace_rows(const wl_trace *t) { return t->rows; }
const char *wl_trace_path(const wl_trace *t) { return t->path; }

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
    free(t);
}
