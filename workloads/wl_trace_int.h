/* wl_trace_int.h - private to the trace reader: its column table, its state
 * and what its files share. Bottom-up: wl_trace_names.{c,h} (numbered
 * names), wl_trace_cols.c (the column table, the value parsers, the row
 * rules: what a row means), wl_trace.c (lines and records out of the file,
 * the header, the field-by-field path every line can take),
 * wl_trace_fast.c (wl_trace_open and wl_trace_next: plain lines parsed
 * straight from the block, the same outcome or a decline to wl_trace.c).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_TRACE_INT_H
#define GPUSIM_WL_TRACE_INT_H

#include <csv.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../base/gs_num.h"
#include "wl_trace.h"

/* The documented columns, in the order of the table (wl_cols). */
enum col_id {
    C_ID, C_SUBMIT, C_DURATION, C_GPUS, C_KIND, C_GPUMEM, C_GPUCORES, C_MIG, C_PRIORITY, C_PREEMPTIBLE,
    C_CHECKPOINT_GIB, C_TENANT, C_GPU_MODEL, C_CPU, C_MEM_GIB, C_GPUMEM_PCT, C_UTIL,
    C_SERVICE, C_INPUT_TOKENS, C_OUTPUT_TOKENS,
    C_REPLICAS_MIN, C_REPLICAS_MAX, C_REPLICAS_INIT, C_MAX_BATCH, C_SLO_MS, C_WEIGHTS_GIB, C_RATE, C_PATTERN,
    C_SVC_MEAN_MS, C_PREFILL_MS, C_DECODE_BASE_MS, C_DECODE_SEQ_MS, C_SESSION, C_WAKE, C_DUE, C_PARAMS_B,
    C_SLO_TTFT_MS, C_SLO_TPOT_MS, C_KV_KIB, C_HASH_IDS, C_REF_GPU, C_MEM_BOUND, C_SPEEDUP, C_PROFILE,
    C_GPUS_PER_NODE, C_TIME_LIMIT, C_COMM, C_TOPOLOGY, C_CLASS, C_TIER, C_OBSERVED_START,
    C_MODEL, C_DTYPE, C_TP, C_PP, C_EP, C_PD, C_NCOLS
};
/* a row's given columns are one bit each in a 64-bit mask */
_Static_assert(C_NCOLS <= 64, "wl_trace.given is a uint64_t");
#define COL_BIT(c) (UINT64_C(1) << (c))
/* the public names of the columns a run may leave unread (wl_trace.h) */
#define SAME_COL_(pub, c) ((int)(pub) == (int)(c))
_Static_assert(SAME_COL_(WL_COL_GPUMEM, C_GPUMEM) && SAME_COL_(WL_COL_GPUCORES, C_GPUCORES) &&
                   SAME_COL_(WL_COL_PREEMPTIBLE, C_PREEMPTIBLE) && SAME_COL_(WL_COL_CHECKPOINT_GIB, C_CHECKPOINT_GIB) &&
                   SAME_COL_(WL_COL_TENANT, C_TENANT) && SAME_COL_(WL_COL_CPU, C_CPU) &&
                   SAME_COL_(WL_COL_MEM_GIB, C_MEM_GIB) && SAME_COL_(WL_COL_GPUMEM_PCT, C_GPUMEM_PCT) &&
                   SAME_COL_(WL_COL_PARAMS_B, C_PARAMS_B) && SAME_COL_(WL_COL_TIME_LIMIT, C_TIME_LIMIT) &&
                   SAME_COL_(WL_COL_TIER, C_TIER),
               "wl_trace.h's WL_COL_* are the column table's numbers");

/* How a column's text becomes its value. */
enum col_type {
    WT_TEXT,    /* copied as is: a char array of size bytes (its NUL included) */
    WT_SECONDS, /* decimal seconds >= 0 (wl_parse_seconds) into a gs_time_us */
    WT_INT,     /* a decimal integer lo..hi into an int (size 4) or int64_t (size 8) */
    WT_NUM,     /* a plain decimal number lo..hi into a double */
    WT_CHOICE,  /* one of choices: its index into an int, or (size > sizeof(int)) its name into a char array */
    WT_IDS,     /* '|'-separated integers 0..10^18-1: the text's address into hash_ids, the count into nhash */
};

/* One column: everything the reader knows of it. The value goes to the
 * wl_row member at off; its 1-based column number also to the int at
 * col_off when a later check (the engine's) names it (0: none; offset 0 is
 * wl_row.line, never such an int). */
typedef struct wl_col {
    const char *name;
    unsigned char type;    /* enum col_type */
    bool required;         /* every row gives it (id, submit) */
    bool lo_open;          /* WT_NUM, WT_SECONDS: the value must exceed lo */
    bool list;             /* WT_TEXT: non-empty items joined by '|' (gs_text_list_ok) */
    unsigned char kinds;   /* bit per WL_KIND_* whose rows may give it; 0: any row */
    uint16_t size;         /* bytes at off (WT_TEXT, WT_INT, WT_CHOICE) */
    uint16_t off;          /* offsetof(wl_row, member) */
    uint16_t col_off;      /* offsetof the int that gets the column number, or 0 */
    uint16_t sym_off;      /* WT_TEXT: offsetof the uint32_t that gets the name's number (wl_name_find), or 0 */
    double lo, hi;         /* WT_INT, WT_NUM bounds (integers up to 2^53 are exact) */
    double dflt;           /* not given: the value (a choice's index); texts are "" */
    const char *const *choices; /* WT_CHOICE: the names, NULL-terminated */
    const char *want;      /* the error's "expected ..." */
    const char *kind_note; /* the error when a row of another kind gives it; NULL: none can */
    bool note_whole_row;   /* kind_note names the row, not the column */
} wl_col;

extern const wl_col wl_cols[C_NCOLS];

/* Bytes read at a time: big enough that the read system calls cost
 * nothing next to the parsing, small enough that a block stays near. */
#define BLOCK_BYTES (256u * 1024u)
/* The longest physical line read from a pipe: a row of a million hash ids
 * is about 20 MiB; a line past this is an error, not a block that grows
 * with it. */
#define WL_TRACE_MAX_LINE (256 << 20)
/* Zero bytes kept after the block's last byte (a mapped file has a page of
 * them): a scan stops at the first, and the fast path may read 16 bytes
 * from any byte of the block. */
#define BLOCK_SLACK 16u

/* One numbered name (wl_trace_names.c). */
typedef struct wl_name {
    uint64_t hash;
    const char *text; /* NULL: a free slot */
    uint32_t len, sym;
    uint8_t col;
} wl_name;

/* A column's recently seen names, by a cheap key of their bytes. */
#define NAME_RECENT 8

typedef struct wl_names {
    wl_name *slot;
    size_t cap, used;
    uint32_t count[C_NCOLS]; /* names numbered so far, per column */
    struct {
        const char *text;
        uint32_t len, sym;
    } recent[C_NCOLS][NAME_RECENT];
    char **chunks, *chunk; /* the texts; chunk: the newest one's free bytes */
    size_t nchunks, chunk_left;
} wl_names;

/* What the fast path does with a header field (wl_trace_fast.c): its
 * column's table entry, unpacked at the header so that a row reads one
 * small record a field. */
enum fast_op { OP_SKIP, OP_TEXT, OP_SECONDS, OP_INT, OP_INT64, OP_NUM, OP_CHOICE, OP_CHOICE_TEXT, OP_IDS };
typedef struct fast_step {
    uint8_t op;        /* enum fast_op; OP_SKIP: an ignored extra column */
    uint16_t skip_more; /* OP_SKIP: how many ignored ones follow it at once */
    bool required, lo_open, list;
    uint16_t off, size, col_off, sym_off;
    int id;            /* its enum col_id, or -1 */
    uint64_t bit;      /* COL_BIT(id) */
    double lo, hi;
    const wl_col *col;
    /* the field as the fast path's previous row gave it, with the byte
     * after it, when 16 bytes hold both (sig_len: its length, >= 1;
     * SIG_NONE: no signature): a field equal to it is that row's value
     * again. No signature is a NUL first byte, which no field starts
     * with: a NUL matches it, and ends the row (the line is declined) */
    uint64_t sig[2], sig_mask[2];
    uint16_t sig_len;
    uint16_t sig_misses, sig_rest; /* misses in a row; rows left without comparing */
    /* the length of the field the fast path last read into the row for this
     * step, 0 when the row's members may have changed since (an empty field,
     * a declined line, the field-by-field path): a name of that length equal
     * to the row's is its value already, its number and column too */
    uint16_t kept_len;
} fast_step;
#define SIG_NONE 0
#define SIG_MISSES 3
#define SIG_REST 256

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
    long lineno;     /* physical lines read */
    long rec_start;  /* line where the current record started */
    bool in_record;
    /* the record being assembled: libcsv's fields copied into one growing
     * buffer (off[i] into buf), or a plain line's fields split in place;
     * fld[i] points at field i once the record is complete. The fast path
     * copies a row's hash_ids into buf. */
    char *buf;
    size_t buf_len, buf_cap;
    size_t *off;
    const char **fld;
    int nfields, fields_cap;
    bool record_done;
    /* header mapping: col_of[field index] = col_id or -1 (ignored extra,
     * or left unread); has[c] = 1-based field index of column c, 0 = absent
     * or unread; unread: the header's columns left unread (wl_opts.unread) */
    int *col_of;
    int ncols_header;
    int has[C_NCOLS];
    uint64_t unread;
    /* the row handed out: every member of a column absent from the header
     * stays at its default (wl_row_init at open); every row writes each
     * header column's members, value or default, and the row's own */
    wl_row row;
    uint64_t given; /* the current row's non-empty columns, COL_BIT(col_id) */
    wl_names names;
    uint64_t kind_ok[5]; /* per row kind: the columns its rows may give */
    long rows, fast_rows; /* rows returned; of them, by the fast path */
    gs_time_us last_submit_us;
    bool eof;
    /* the fast path's plan, decided at the header (wl_fast_plan): one step a
     * field; fast_std: id, submit, duration, gpus first, any others ignored;
     * fast_head: those four first, then other columns (head_sigs: the plan's
     * steps for the four may hold signatures, which the straight head, not
     * keeping them, must clear before it writes the row) */
    fast_step *fast;
    bool fast_ok, fast_std, fast_head, head_sigs;
};

/* {==== wl_trace_cols.c ====} */

/* A field's text into *row by its column's type and range; false when the
 * text is no such value. Empty text is never passed. O(length). */
bool wl_parse_field(wl_trace *t, int col, const char *v, wl_row *row, int field_no);
/* The first cross-field rule *row breaks (the rules of workloads/README.md,
 * in their fixed order), 0 if none. t->given holds the row's columns. */
int wl_rule_broken(const wl_trace *t, const wl_row *row);
/* The error of rule (from wl_rule_broken) for the current record. */
int wl_rule_err(const wl_trace *t, const wl_row *row, int rule, gs_error *err);
/* "expected <want>, found '<field>'" for field fi of the current record. */
int wl_col_err(const wl_trace *t, gs_error *err, int fi, const char *want);

/* {==== wl_trace.c ====} */

/* The file opened and its header read (wl_trace_open's work but the fast
 * path's plan), or NULL with *err. */
wl_trace *wl_open_header(const char *path, const wl_opts *opts, gs_error *err);
/* The next record, field by field, into t->row: wl_trace_next's outcome
 * for a line the fast path declined. */
int wl_read_slow(wl_trace *t, gs_error *err);
/* Bytes of a mapped file read between two give-backs: the block's size. */
#define MAP_RELEASE_BYTES BLOCK_BYTES
/* Gives back the mapped pages already read (t->map_len > 0). */
void wl_map_release(wl_trace *t);


/* {==== shared by both row paths ====} */

/* Column c's members of *row at c's default (wl_cols[c].dflt; texts ""). */
static inline void wl_col_default(const wl_col *c, wl_row *row)
{
    char *at = (char *)row + c->off;
    switch (c->type) {
    case WT_TEXT:
        at[0] = 0;
        break;
    case WT_SECONDS: {
        gs_time_us us = (gs_time_us)c->dflt;
        memcpy(at, &us, sizeof us);
        break;
    }
    case WT_INT:
    case WT_CHOICE:
        if (c->type == WT_CHOICE && c->size > sizeof(int))
            at[0] = 0;
        else if (c->size == sizeof(int64_t)) {
            int64_t x = (int64_t)c->dflt;
            memcpy(at, &x, sizeof x);
        } else {
            int x = (int)c->dflt;
            memcpy(at, &x, sizeof x);
        }
        break;
    case WT_NUM:
        memcpy(at, &c->dflt, sizeof c->dflt);
        break;
    case WT_IDS:
        row->hash_ids = NULL;
        row->nhash = 0;
        break;
    }
    if (c->col_off)
        memset((char *)row + c->col_off, 0, sizeof(int));
    if (c->sym_off)
        memset((char *)row + c->sym_off, 0, sizeof(uint32_t));
}



#endif
