/* wl_trace_fast.c - the trace reader's fast path: a plain line (no quote,
 * no CR but a CRLF ending, no blank around a field, no NUL) parsed in one
 * pass straight from the block, each field by its column's type where it
 * stands (no line search, no split into fields, no copy but the values').
 *
 * The contract is wl_trace_next's: a line it takes gives exactly the row the
 * field-by-field path (wl_trace.c) gives for it, which is the reference it
 * is tested against (wl_opts.field_by_field); any line whose outcome it
 * cannot vouch for (an irregular byte, an empty required field, a value
 * out of its range or in a notation it does not read, a field count off the
 * header's, a broken row rule, a line not yet wholly in the block: every
 * scan stops at the NUL kept after the block's bytes) it declines, having
 * consumed nothing, and that line goes the field-by-field way to its row or
 * its exact error (that path writes every header column again, so what a
 * declined line began in the row never shows). The generated layout (id, submit, duration, gpus, then
 * ignored columns) has a straight-line path of its own. O(line length).
 * SPDX-License-Identifier: MIT */
#include "wl_trace_names.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes that end a field's scan: bit 1 for any field (the comma, the line
 * end, and what only libcsv or split_plain handle: a quote, a CR, a NUL),
 * bit 2 also for the id of the generated layout (blanks, which split_plain
 * trims). */
static const unsigned char stop_at[256] = {
    [','] = 3, ['\n'] = 3, ['"'] = 3, ['\r'] = 3, [0] = 3, [' '] = 2, ['\t'] = 2,
};

static inline bool is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

/* The first byte at or after p that ends a field (stop_at[byte] & bit).
 * Every stop byte is below ',' + 1, so eight bytes at a time are tested for
 * a byte below it (the lowest such byte is found exactly: a borrow moves
 * only upwards), and only such a byte is looked up; the last bytes of the
 * block, and big-endian hosts, go byte by byte. */
static inline const unsigned char *field_end(const wl_trace *t, const unsigned char *p, unsigned bit)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const unsigned char *lim = (const unsigned char *)t->blk + t->blk_cap - sizeof(uint64_t);
    while (p <= lim) {
        uint64_t x;
        memcpy(&x, p, sizeof x);
        uint64_t below = (x - 0x2D2D2D2D2D2D2D2Dull) & ~x & 0x8080808080808080ull;
        if (!below) {
            p += sizeof x;
            continue;
        }
        p += __builtin_ctzll(below) >> 3;
        if (stop_at[*p] & bit)
            return p;
        p++;
    }
#else
    (void)t;
#endif
    while (!(stop_at[*p] & bit))
        p++;
    return p;
}

static uint8_t op_of(const wl_col *c)
{
    switch (c->type) {
    case WT_TEXT:
        return OP_TEXT;
    case WT_SECONDS:
        return OP_SECONDS;
    case WT_INT:
        return c->size == sizeof(int64_t) ? OP_INT64 : OP_INT;
    case WT_NUM:
        return OP_NUM;
    case WT_CHOICE:
        return c->size > sizeof(int) ? OP_CHOICE_TEXT : OP_CHOICE;
    case WT_IDS:
        return OP_IDS;
    }
    GS_BUG("fast_plan: no such column type");
}

static void fast_forget(wl_trace *t);

/* The plan for the header just read (t->col_of, t->has). */
static void fast_plan(wl_trace *t)
{
    t->fast = xcalloc((size_t)t->ncols_header, sizeof *t->fast);
    for (int i = 0; i < t->ncols_header; i++) {
        int c = t->col_of[i];
        fast_step *s = &t->fast[i];
        s->id = c;
        if (c < 0)
            continue; /* OP_SKIP */
        const wl_col *col = &wl_cols[c];
        *s = (fast_step){.op = op_of(col), .required = col->required, .lo_open = col->lo_open, .list = col->list,
                         .off = col->off, .size = col->size, .col_off = col->col_off, .sym_off = col->sym_off,
                         .id = c, .bit = COL_BIT(c), .lo = col->lo, .hi = col->hi, .col = col};
    }
    for (int i = t->ncols_header - 2; i >= 0; i--) /* a run of ignored columns, skipped as one from its first */
        if (t->fast[i].op == OP_SKIP && t->fast[i + 1].op == OP_SKIP)
            t->fast[i].skip_more = (uint16_t)(t->fast[i + 1].skip_more + 1);
    fast_forget(t);
    t->fast_ok = t->ncols_header > 0;
    t->fast_std = t->ncols_header >= 4 && t->col_of[0] == C_ID && t->col_of[1] == C_SUBMIT &&
                  t->col_of[2] == C_DURATION && t->col_of[3] == C_GPUS;
    t->fast_head = t->fast_std && t->ncols_header > 4;
    for (int i = 4; i < t->ncols_header && t->fast_std; i++)
        t->fast_std = t->col_of[i] < 0;
    t->fast_head &= !t->fast_std;
}

/* A text of len bytes at a into the char array dst of cap bytes. A short one
 * is copied as a fixed 32 or 64 bytes (vector moves) when the block has them:
 * a copy of variable length, or of a fixed 64 bytes, is inlined as `rep
 * movs`, whose start-up costs more than a whole line's parse. Texts of 32
 * bytes and more are copied out of line (copy_long), keeping the row loop
 * small. The bytes past the NUL are never read. */
static __attribute__((noinline)) void copy_long(const wl_trace *t, char *dst, size_t cap, const unsigned char *a,
                                                size_t len)
{
    if (len < 64 && cap >= 64 && (const char *)a + 64 <= t->blk + t->blk_cap) {
        memcpy(dst, a, 32); /* two halves */
        memcpy(dst + 32, a + 32, 32);
    } else
        memcpy(dst, a, len);
    dst[len] = 0;
}

static inline void copy_text(const wl_trace *t, char *dst, size_t cap, const unsigned char *a, size_t len)
{
    if (len < 32 && cap >= 32 && (const char *)a + 32 <= t->blk + t->blk_cap) {
        memcpy(dst, a, 32);
        dst[len] = 0;
    } else
        copy_long(t, dst, cap, a, len);
}

/* A decimal integer at *pp ('-' allowed) lo..hi; false otherwise. */
static inline bool fast_int(const unsigned char **pp, double lo, double hi, int64_t *out)
{
    const unsigned char *p = *pp;
    bool neg = *p == '-';
    p += neg;
    if ((unsigned)(*p - '0') > 9)
        return false;
    uint64_t v = 0;
    int n = 0;
    for (unsigned d; (d = (unsigned)(*p - '0')) <= 9; p++, n++)
        v = v * 10 + d;
    if (n > 18) /* past what the bounds can admit (|bound| < 2^63): the long way rejects it */
        return false;
    int64_t x = neg ? -(int64_t)v : (int64_t)v;
    if ((double)x < lo || (double)x > hi)
        return false;
    *pp = p;
    *out = x;
    return true;
}

/* A plain decimal number at *pp ('-', digits, an optional '.' and digits):
 * at most 15 digits and no exponent, so the digits m are exact in a double,
 * as is 10^k for the k <= 15 fraction digits, and m / 10^k is the correctly
 * rounded value: the double strtod gives (Clinger's fast path). Anything
 * else is declined. */
static inline bool fast_num(const unsigned char **pp, double *out)
{
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const unsigned char *p = *pp;
    bool neg = *p == '-';
    p += neg;
    uint64_t m = 0;
    int digits = 0, frac = 0;
    for (unsigned d; (d = (unsigned)(*p - '0')) <= 9; p++, digits++)
        m = m * 10 + d;
    if (*p == '.')
        for (p++; (unsigned)(*p - '0') <= 9; p++, digits++, frac++)
            m = m * 10 + (unsigned)(*p - '0');
    if (digits == 0 || digits > 15 || *p == 'e' || *p == 'E')
        return false;
    double v = (double)m;
    if (frac)
        v /= pow10[frac];
    *pp = p;
    *out = neg ? -v : v;
    return true;
}

/* '|'-separated ids at *pp (count_ids' rule): their count, or -1. */
static inline int fast_ids(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    int n = 0;
    for (;;) {
        int digits = 0;
        for (; (unsigned)(*p - '0') <= 9; p++)
            if (++digits > 18)
                return -1;
        if (!digits || n == 1 << 20)
            return -1;
        n++;
        if (*p != '|')
            break;
        p++;
    }
    *pp = p;
    return n;
}

/* hash_ids' len bytes at a, NUL-terminated in the reader's buffer (valid,
 * as the field-by-field path's, until the next row). */
static const char *keep_ids(wl_trace *t, const unsigned char *a, size_t len)
{
    if (len + 1 > t->buf_cap) {
        while (len + 1 > t->buf_cap)
            t->buf_cap = t->buf_cap ? t->buf_cap * 2 : 1024;
        t->buf = xrealloc(t->buf, t->buf_cap);
    }
    memcpy(t->buf, a, len);
    t->buf[len] = 0;
    return t->buf;
}

/* The text at p is the one the step's last row read into the row at at, a
 * name too long for a signature: the same kept_len bytes, then a byte that
 * ends a field (what field_end would find). Bytes are read only as far as
 * they match, and a mismatch comes at the NUL after the block's bytes at
 * the latest. */
static inline bool same_long_text(const fast_step *s, const char *at, const unsigned char *p)
{
    return wl_same_text(at, (const char *)p, s->kept_len) && (stop_at[p[s->kept_len]] & 1);
}

/* A text field of len bytes at a into row by step s (its number too, for a
 * name column: a name seen before was checked then). */
static inline bool fast_text(wl_trace *t, fast_step *s, const unsigned char *a, size_t len, wl_row *row,
                             int field_no)
{
    char *at = (char *)row + s->off;
    if (len - 1 >= s->size - 1u || is_blank(a[0]) || is_blank(a[len - 1])) /* empty, or too long */
        return false;
    s->kept_len = (uint16_t)len;
    copy_text(t, at, s->size, a, len);
    if (s->sym_off) {
        uint32_t sym = wl_name_find(t, s->id, at, len);
        if (!sym) {
            if (s->list && !gs_text_list_ok(at, '|'))
                return false;
            sym = wl_name_add(t, s->id, at, len);
        }
        memcpy((char *)row + s->sym_off, &sym, sizeof sym);
    } else if (s->list && !gs_text_list_ok(at, '|'))
        return false;
    if (s->col_off)
        memcpy((char *)row + s->col_off, &field_no, sizeof field_no);
    return true;
}

/* The index of the len bytes at a among names (NULL-terminated), or -1.
 * Short names: byte by byte, no call. */
static inline int fast_choice(const char *const *names, const unsigned char *a, size_t len)
{
    for (int k = 0; names[k]; k++) {
        const char *ch = names[k];
        size_t i = 0;
        while (i < len && ch[i] == (char)a[i])
            i++;
        if (i == len && !ch[len])
            return k;
    }
    return -1;
}

/* The end of the n-th of the fields from p on (n >= 1, ignored ones: no
 * value read): the n-th byte that ends a field (stop_at bit 1), when the
 * ones before it are commas; NULL when one is not (the line ends sooner,
 * or holds a byte only the field-by-field path reads). Sixteen bytes at a
 * time where SSE2 and the block allow (those of commas only counted, the
 * others a field a bit); the block's last bytes one by one, up to the NUL
 * after them at the latest. */
static inline const unsigned char *skip_fields(const wl_trace *t, const unsigned char *p, unsigned n)
{
#if defined(__SSE2__)
    const unsigned char *lim = (const unsigned char *)t->blk + t->blk_cap - 16;
    const __m128i comma = _mm_set1_epi8(','), nl = _mm_set1_epi8('\n'), quote = _mm_set1_epi8('"');
    const __m128i cr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
    for (; p <= lim; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned commas = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, comma));
        __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, nl), _mm_cmpeq_epi8(x, quote)),
                                     _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, zero)));
        unsigned others = (unsigned)_mm_movemask_epi8(other), k = 0;
        if (!others && n > 4) { /* commas alone, and many fields to go: counted, passed while fewer than n */
            for (unsigned c = commas; c; c &= c - 1)
                k++;
            if (k < n) {
                n -= k;
                continue;
            }
        }
        for (unsigned stops = commas | others; stops; stops &= stops - 1) {
            unsigned at = (unsigned)__builtin_ctz(stops);
            if (--n == 0)
                return p + at;
            if (!(commas >> at & 1))
                return NULL;
        }
    }
#else
    (void)t;
#endif
    for (;; p++)
        if (stop_at[*p] & 1) {
            if (--n == 0)
                return p;
            if (*p != ',')
                return NULL;
        }
}

/* One non-empty field at *pp into row by step s (no blank at its start:
 * every parser declines one); *pp is left at the byte that ends it. */
static inline bool fast_field(wl_trace *t, fast_step *s, const unsigned char **pp, const unsigned char *end,
                              wl_row *row, int field_no)
{
    char *at = (char *)row + s->off;
    const unsigned char *p = *pp, *a = p;
    switch (s->op) {
    case OP_SKIP: /* ignored columns (1 + skip_more of them in a row): only their ends */
        if (!(p = skip_fields(t, p, 1u + s->skip_more)))
            return false;
        break;
    case OP_TEXT:
        if (s->kept_len >= sizeof s->sig && same_long_text(s, at, p)) { /* as on the step's last row */
            p += s->kept_len;
            break;
        }
        p = field_end(t, p, 1);
        if (!fast_text(t, s, a, (size_t)(p - a), row, field_no))
            return false;
        break;
    case OP_CHOICE:
    case OP_CHOICE_TEXT: {
        p = field_end(t, p, 1);
        size_t len = (size_t)(p - a);
        int k = fast_choice(s->col->choices, a, len);
        if (k < 0)
            return false;
        if (s->op == OP_CHOICE_TEXT) {
            memcpy(at, a, len);
            at[len] = 0;
        } else
            memcpy(at, &k, sizeof k);
        break;
    }
    case OP_SECONDS: {
        gs_time_us us;
        if (!gs_num_seconds_prefix(&p, end, &us) || (s->lo_open && us <= 0))
            return false;
        memcpy(at, &us, sizeof us);
        break;
    }
    case OP_INT:
    case OP_INT64: {
        int64_t x;
        if (!fast_int(&p, s->lo, s->hi, &x))
            return false;
        if (s->op == OP_INT64)
            memcpy(at, &x, sizeof x);
        else {
            int v = (int)x;
            memcpy(at, &v, sizeof v);
        }
        break;
    }
    case OP_NUM: {
        double d;
        if (!fast_num(&p, &d) || d < s->lo || d > s->hi || (s->lo_open && d <= s->lo))
            return false;
        memcpy(at, &d, sizeof d);
        break;
    }
    case OP_IDS: {
        int n = fast_ids(&p);
        if (n < 0)
            return false;
        row->nhash = n;
        row->hash_ids = keep_ids(t, a, (size_t)(p - a));
        break;
    }
    }
    *pp = p;
    return true;
}

/* The line's end at p: "\n" or "\r\n"; the byte after it, or NULL. */
static inline const unsigned char *line_end(const unsigned char *p)
{
    p += *p == '\r';
    return *p == '\n' ? p + 1 : NULL;
}

/* The row is read: the reader moves past the line at next. */
static inline void take_line(wl_trace *t, wl_row *row, const unsigned char *next)
{
    t->blk_pos = (size_t)((const char *)next - t->blk);
    t->lineno++;
    t->rec_start = t->lineno;
    row->line = t->rec_start;
    t->last_submit_us = row->submit_us;
    t->rows++;
    t->fast_rows++;
}

/* The field at p is byte for byte the one its column gave on the fast
 * path's previous row, its terminator included (the signature kept in the
 * step; the reader's row still holds that field's value). Sixteen bytes
 * compared at once (BLOCK_SLACK: always readable); a step with no
 * signature compares a NUL, so never matches. */
static inline bool same_as_before(const fast_step *s, const unsigned char *p)
{
    uint64_t x[2];
    memcpy(x, p, sizeof x);
    return !(((x[0] ^ s->sig[0]) & s->sig_mask[0]) | ((x[1] ^ s->sig[1]) & s->sig_mask[1]));
}

/* Masks of the first n bytes of 16, n = 1..16: the low and the high word. */
#define M_(n) ((n) >= 8 ? ~0ull : (n) <= 0 ? 0ull : (1ull << ((8 * (n)) & 63)) - 1)
#define MASKS(n) {M_(n), M_((n) - 8)}
static const uint64_t sig_masks[17][2] = {
    MASKS(0), MASKS(1), MASKS(2),  MASKS(3),  MASKS(4),  MASKS(5),  MASKS(6),  MASKS(7), MASKS(8),
    MASKS(9), MASKS(10), MASKS(11), MASKS(12), MASKS(13), MASKS(14), MASKS(15), MASKS(16),
};

/* After a field was parsed: keeps it (len bytes at a, and the byte after
 * it) as the step's signature when 16 bytes hold both. A column whose
 * fields keep changing stops being compared for a while (SIG_REST rows
 * after SIG_MISSES misses in a row), so a column of distinct values costs
 * a count, not a comparison and a copy a row. */
static inline void no_signature(fast_step *s)
{
    s->sig_len = SIG_NONE;
    s->sig[0] = s->sig[1] = s->sig_mask[1] = 0;
    s->sig_mask[0] = 0xff;
}

static inline void remember_field(fast_step *s, const unsigned char *a, size_t len)
{
    if (s->sig_rest) {
        s->sig_rest--;
        return;
    }
    if (s->sig_len != SIG_NONE && ++s->sig_misses >= SIG_MISSES) {
        s->sig_misses = 0;
        s->sig_rest = SIG_REST;
        no_signature(s);
        return;
    }
    if (len + 1 > 16) {
        no_signature(s);
        return;
    }
    memcpy(s->sig, a, sizeof s->sig);
    s->sig[0] &= s->sig_mask[0] = sig_masks[len + 1][0];
    s->sig[1] &= s->sig_mask[1] = sig_masks[len + 1][1];
    s->sig_len = (uint16_t)len;
}

static void fast_forget(wl_trace *t)
{
    for (int i = 0; t->fast && i < t->ncols_header; i++) {
        no_signature(&t->fast[i]);
        t->fast[i].kept_len = 0;
        t->fast[i].sig_misses = 0;
        /* id and submit differ on nearly every row: never compared */
        t->fast[i].sig_rest = t->fast[i].id == C_ID || t->fast[i].id == C_SUBMIT ? UINT16_MAX : 0;
    }
}

/* The common row's rules, inline: a job row with duration and gpus >= 1,
 * no column a job may not give, in submit order. Those break no rule of
 * wl_rule_broken but the two checked here; false: ask wl_rule_broken. */
static inline bool job_rules_hold(const wl_trace *t, const wl_row *row)
{
    uint64_t given = t->given, need = COL_BIT(C_DURATION) | COL_BIT(C_GPUS);
    return row->kind == WL_KIND_JOB && (given & need) == need && !(given & ~t->kind_ok[WL_KIND_JOB]) &&
           row->gpus > 0 && row->gpus_per_node <= row->gpus && row->submit_us >= t->last_submit_us &&
           (!(given & COL_BIT(C_OBSERVED_START)) || row->observed_start_us >= row->submit_us);
}

/* The fast path's id at *pp: up to the first byte that ends it; false
 * when empty or too long for the row (cap bytes with its NUL). */
static inline bool std_id(const wl_trace *t, const unsigned char **pp, const unsigned char **id, size_t *id_len,
                          size_t cap)
{
    const unsigned char *p = *pp;
    *id = p;
    p = field_end(t, p, 2);
    *id_len = (size_t)(p - *id);
    *pp = p;
    return *id_len != 0 && *id_len < cap;
}

/* gpus at *pp as the table reads it (0..WL_GPUS_MAX): up to seven digits;
 * others decline. */
static inline bool std_gpus(const unsigned char **pp, unsigned *gpus)
{
    const unsigned char *p = *pp, *first = p;
    unsigned g, d;
    if ((g = (unsigned)(*p - '0')) > 9)
        return false;
    if ((d = (unsigned)(*++p - '0')) <= 9) { /* two digits, then any more up to seven */
        g = g * 10 + d;
        while ((d = (unsigned)(*++p - '0')) <= 9 && p - first < 7)
            g = g * 10 + d;
    }
    *pp = p;
    *gpus = g;
    return g <= WL_GPUS_MAX;
}

/* The generated layout's four columns at the head of a longer header, in
 * std_row's straight lines, into row; *pp is left past the comma after
 * gpus. False, having written nothing, for a line they do not read (an
 * empty duration, another notation): the plan's steps read it all then. */
static inline bool std_head(wl_trace *t, const unsigned char **pp, const unsigned char *end, wl_row *row)
{
    const unsigned char *p = *pp, *id;
    size_t id_len;
    gs_time_us submit_us, dur_us;
    unsigned gpus;
    if (!std_id(t, &p, &id, &id_len, sizeof row->id) || *p++ != ',' || !gs_num_seconds_prefix(&p, end, &submit_us) ||
        *p++ != ',' || !gs_num_seconds_prefix(&p, end, &dur_us) || *p++ != ',' || !std_gpus(&p, &gpus) || *p != ',')
        return false;
    if (t->head_sigs) { /* a row the steps read from the first gave them signatures, and a name's length */
        for (int i = 0; i < 4; i++) {
            no_signature(&t->fast[i]);
            t->fast[i].kept_len = 0;
        }
        t->head_sigs = false;
    }
    copy_text(t, row->id, sizeof row->id, id, id_len);
    row->submit_us = submit_us;
    row->dur_us = dur_us;
    row->gpus = (int)gpus;
    *pp = p + 1;
    return true;
}

/* Any header: one step a field, by the column's table entry. A field equal
 * to its column's on the previous row is not parsed again: the row's value
 * is already its value (the reader's row keeps a column's members until the
 * column is read again). */
static bool plan_row(wl_trace *t)
{
    wl_row *row = &t->row;
    const unsigned char *p = (const unsigned char *)t->blk + t->blk_pos;
    const unsigned char *end = (const unsigned char *)t->blk + t->blk_len; /* the block's bytes read */
    /* a line that starts with a blank, a quote, a line end or a NUL may be
     * blank (no row at all): then the row the caller holds stays as it was */
    if (stop_at[*p] & 1 && *p != ',')
        return false;
    if (is_blank(*p))
        return false;
    uint64_t given = 0;
    fast_step *s = t->fast, *s_last = t->fast + t->ncols_header - 1;
    if (t->fast_head) {
        if (std_head(t, &p, end, row)) {
            given = COL_BIT(C_ID) | COL_BIT(C_SUBMIT) | COL_BIT(C_DURATION) | COL_BIT(C_GPUS);
            s += 4;
        } else
            t->head_sigs = true;
    }
    for (;; s++) {
        const unsigned char *a = p;
        if (same_as_before(s, p)) { /* first: most fields of a real trace repeat */
            p += s->sig_len;       /* 0 for a NUL matching no signature: the row ends there */
            s->sig_misses = 0;
            given |= s->bit;
        } else if (fast_field(t, s, &p, end, row, (int)(s - t->fast) + 1)) {
            if (__builtin_expect(s->skip_more, 0)) /* ignored columns skipped as one: never a signature */
                s += s->skip_more;
            else
                remember_field(s, a, (size_t)(p - a));
            given |= s->bit; /* 0 for an ignored column */
        } else {
            no_signature(s);
            s->kept_len = 0;
            if (!(stop_at[*p] & 1) || s->required || !s->col) /* not empty: declined; or a required column's error */
                return false;
            wl_col_default(s->col, row); /* empty: not given */
        }
        if (*p != ',')
            break;
        p++;
        if (s == s_last)
            return false; /* more fields than the header */
    }
    const unsigned char *next = line_end(p);
    if (s != s_last || !next)
        return false;
    t->given = given;
    row->has_duration = (given & COL_BIT(C_DURATION)) != 0;
    if (!job_rules_hold(t, row) && wl_rule_broken(t, row))
        return false;
    take_line(t, row, next);
    return true;
}

/* The generated layout, in straight lines: the row's only members that
 * can change are these four columns' (the others are absent: at their
 * defaults). All four given, on a job row, break no row rule but the
 * submit order. */
static bool std_row(wl_trace *t)
{
    wl_row *row = &t->row;
    const unsigned char *p = (const unsigned char *)t->blk + t->blk_pos;
    const unsigned char *end = (const unsigned char *)t->blk + t->blk_len;
    const unsigned char *id;
    size_t id_len;
    gs_time_us submit_us, dur_us;
    unsigned gpus;
    if (!std_id(t, &p, &id, &id_len, sizeof row->id) || *p++ != ',' || !gs_num_seconds_prefix(&p, end, &submit_us) ||
        *p++ != ',' || !gs_num_seconds_prefix(&p, end, &dur_us) || *p++ != ',' || !std_gpus(&p, &gpus))
        return false;
    if (t->ncols_header > 4 && (*p++ != ',' || !(p = skip_fields(t, p, (unsigned)t->ncols_header - 4))))
        return false;
    const unsigned char *next = line_end(p);
    if (!next || submit_us < t->last_submit_us)
        return false;
    copy_text(t, row->id, sizeof row->id, id, id_len);
    row->submit_us = submit_us;
    row->dur_us = dur_us;
    row->has_duration = true;
    row->gpus = (int)gpus;
    t->given = COL_BIT(C_ID) | COL_BIT(C_SUBMIT) | COL_BIT(C_DURATION) | COL_BIT(C_GPUS);
    take_line(t, row, next);
    return true;
}

wl_trace *wl_trace_open(const char *path, const wl_opts *opts, gs_error *err)
{
    wl_trace *t = wl_open_header(path, opts, err);
    if (t && !(opts && opts->field_by_field))
        fast_plan(t);
    return t;
}

int wl_trace_next(wl_trace *t, const wl_row **row, gs_error *err)
{
    if (t->map_len && t->blk_pos - t->map_done >= MAP_RELEASE_BYTES)
        wl_map_release(t);
    int rc = 1;
    if (!(t->fast_ok && !t->eof && (t->fast_std ? std_row(t) : plan_row(t)))) {
        fast_forget(t); /* the field-by-field record may change any column's value */
        rc = wl_read_slow(t, err);
    }
    if (rc == 1)
        *row = &t->row;
    return rc;
}
