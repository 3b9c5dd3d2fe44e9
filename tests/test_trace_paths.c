/* test_trace_paths.c - the trace reader's fast path against its reference:
 * random traces of every documented column, in random subsets and orders,
 * read with and without wl_opts.field_by_field, give the same rows member
 * by member and the same first error, with columns left unread
 * (wl_opts.unread) or not; and each row is what its line alone gives
 * (nothing of an earlier row shows through the reader's one row).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_trace_int.h" /* the fast path's count of rows it took */
#include "check.h"
#include "testutil.h"

/* A column and the values a field of it takes: mostly valid ones, and the
 * near misses (blanks, quotes, notations, ranges) each path must judge
 * alike. */
typedef struct {
    const char *name;
    const char *const *values;
} col_pool;

#define POOL(...) (const char *const[]){__VA_ARGS__, NULL}
/* the first SAFE values of each pool go together on a job row; the rest may
 * break a rule or be no value at all */
enum { SAFE = 4 };
/* texts of every copy the fast path makes: under 32 bytes, 32..63, 64 and more */
static const char *const p_text[] = {"a", "team-x", "t0", "a b", "x|y", "", "x||y", "|x", "H100-SXM5-80GB", " lead", "trail ",
                                     "\"q,uoted\"", "\"\"", "A100-SXM4-80GB:1|H100-SXM5-80GB:3.2",
                                     "A100-SXM4-80GB|H100-SXM5-80GB|H200-SXM-141GB|B200-180GB|L4", NULL};
static const char *const p_secs[] = {"0", "1.5", "12.000001", "7.", "", "0.123456", "9.999999", "3.0000005",
                                     "1e3", " 2", "-1", ".5", "1.2.3", NULL};
static const char *const p_int[] = {"1", "8", "2", "4", "0", "", "64", "65", "-1", "100", "+1", "0x1", "007",
                                    "99999999999999999999", "1048576", "1048577", "9999999", NULL};
static const char *const p_num[] = {"0.5", "1", "0.25", "0.1", "0", "-0", "12.25", "5.", ".5", "", "0.3", "1e1",
                                    "nan", "0.333333333333333333", "123456789012345678", "-0.5", "2E-1", NULL};
static const char *const p_none[] = {"", "", "", "", "x", "1", "user", "scheduled", "0|1", NULL}; /* burst and request columns */
static const col_pool cols[] = {
    {"duration", p_secs}, {"gpus", p_int},
    {"kind", POOL("job", "job", "job", "", "session", "service", "request", "burst", "jobs", " job")},
    {"gpumem", p_int}, {"gpucores", p_int}, {"mig", p_text}, {"priority", p_int},
    {"preemptible", POOL("0", "1", "", "0", "2", "yes")}, {"checkpoint_gib", p_num}, {"tenant", p_text},
    {"gpu_model", p_text}, {"cpu", p_num}, {"mem_gib", p_num}, {"gpumem_pct", p_int}, {"util", p_num},
    {"service", p_text}, {"input_tokens", p_int}, {"output_tokens", p_int}, {"replicas_min", p_int},
    {"replicas_max", p_int}, {"replicas_init", p_int}, {"max_batch", p_int}, {"slo_ms", p_num},
    {"weights_gib", p_num}, {"rate", p_num}, {"pattern", POOL("poisson", "diurnal", "", "", "burst")},
    {"svc_mean_ms", p_num}, {"prefill_ms_per_token", p_num}, {"decode_ms_base", p_num},
    {"decode_ms_per_seq", p_num}, {"session", p_none}, {"wake", p_none}, {"due", p_none}, {"params_b", p_num},
    {"slo_ttft_ms", p_num}, {"slo_tpot_ms", p_num}, {"kv_kib_per_token", p_num},
    {"hash_ids", POOL("", "", "", "", "0|1|2", "5", "1||2", "x", "1234567890123456789")},
    {"ref_gpu", p_text}, {"mem_bound", p_num}, {"speedup", p_text}, {"profile", p_text}, {"note", p_text},
    {"gpus_per_node", POOL("1", "", "2", "", "0", "65", "9")}, {"time_limit", POOL("60", "", "1.5", "7200", "0", "-1")},
    {"comm", p_num}, {"topology", POOL("", "rack", "block", "", "zone")}, {"class", p_text},
    {"tier", POOL("any", "no-spot", "", "", "spot")}, {"observed_start", POOL("", "", "", "", "0", "1e3", "99999")},
};
enum { NPOOLS = sizeof cols / sizeof *cols };

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static unsigned pick(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static unsigned pool_len(const char *const *v)
{
    unsigned n = 0;
    while (v[n])
        n++;
    return n;
}

/* Every member of two rows equal (strings as strings; hash_ids by text). */
static bool same_row(const wl_row *a, const wl_row *b)
{
#define EQ(m) (a->m == b->m)
#define EQS(m) (strcmp(a->m, b->m) == 0)
    bool ids = (a->hash_ids == NULL) == (b->hash_ids == NULL) && (!a->hash_ids || !strcmp(a->hash_ids, b->hash_ids));
    return ids && EQ(line) && EQ(kind) && EQS(id) && EQ(submit_us) && EQ(dur_us) && EQ(gpus) && EQ(gpumem_mib) &&
           EQ(gpucores) && EQS(mig) && EQ(priority) && EQ(preemptible) && EQ(checkpoint_gib) && EQS(tenant) &&
           EQS(gpu_model) && EQ(gpu_model_col) && EQ(cpu) && EQ(mem_gib) && EQ(gpumem_pct) && EQ(util) &&
           EQ(has_duration) && EQS(service) && EQ(input_tokens) && EQ(output_tokens) && EQ(replicas_min) &&
           EQ(replicas_max) && EQ(replicas_init) && EQ(max_batch) && EQ(slo_ms) && EQ(weights_gib) && EQ(rate) &&
           EQS(pattern) && EQ(svc_mean_ms) && EQ(prefill_ms_per_token) && EQ(decode_ms_base) &&
           EQ(decode_ms_per_seq) && EQS(session) && EQ(wake) && EQ(due_us) && EQ(params_b) && EQS(ref_gpu) &&
           EQ(ref_gpu_col) && EQ(mem_bound) && EQS(speedup) && EQ(speedup_col) && EQS(profile) &&
           EQ(slo_ttft_ms) && EQ(slo_tpot_ms) && EQ(kv_kib_per_token) && EQ(nhash) && EQ(mig_col) &&
           EQ(gpus_per_node) && EQ(time_limit_us) && EQ(comm) && EQ(topology) && EQ(tier) &&
           EQ(observed_start_us) && EQS(job_class) &&
           /* -0 and 0 read alike as numbers; the paths must agree on the sign too */
           signbit(a->cpu) == signbit(b->cpu) && signbit(a->mem_bound) == signbit(b->mem_bound);
#undef EQ
#undef EQS
}

/* The names' numbers of two rows equal: two readers of one file number
 * alike (not a row read alone, whose names are its reader's first). */
static bool same_syms(const wl_row *a, const wl_row *b)
{
    return a->tenant_sym == b->tenant_sym && a->mig_sym == b->mig_sym && a->gpu_model_sym == b->gpu_model_sym &&
           a->ref_gpu_sym == b->ref_gpu_sym && a->speedup_sym == b->speedup_sym && a->service_sym == b->service_sym &&
           a->session_sym == b->session_sym && a->class_sym == b->class_sym && a->profile_sym == b->profile_sym;
}

/* random_trace's order: id, submit, duration and gpus first, as the
 * generator writes them, the rest after them (the fast path's straight
 * head, then its steps) */
static bool head_first;

/* A random trace: id, submit and a random subset of the columns in a random
 * order (or head_first); rows mostly valid, so that reading goes on for a
 * while. */
static size_t random_trace(char *out, size_t cap, int nrows)
{
    int order[NPOOLS + 2], n = 0;
    order[n++] = -1; /* id */
    order[n++] = -2; /* submit */
    for (int c = 0; c < NPOOLS; c++)
        if (pick(c < 2 ? 20 : 3) == 0 || (c < 2 && pick(20))) /* duration, gpus: in most traces */
            order[n++] = c;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pick((unsigned)i + 1), x = order[i];
        order[i] = order[j], order[j] = x;
    }
    if (head_first) {
        int rest[NPOOLS + 2], k = 0;
        for (int i = 0; i < n; i++)
            if (order[i] >= 2)
                rest[k++] = order[i];
        order[0] = -1, order[1] = -2, order[2] = 0, order[3] = 1; /* id, submit, duration, gpus */
        memcpy(order + 4, rest, (size_t)k * sizeof *rest);
        n = 4 + k;
    }
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "",
                                order[i] == -1 ? "id" : order[i] == -2 ? "submit" : cols[order[i]].name);
    len += (size_t)snprintf(out + len, cap - len, "\n");
    bool crlf = pick(8) == 0;
    for (int r = 0; r < nrows && len + 4096 < cap; r++) {
        if (pick(40) == 0)
            len += (size_t)snprintf(out + len, cap - len, pick(2) ? "\n" : " \n");
        for (int i = 0; i < n; i++) {
            const char *v;
            char buf[64];
            if (order[i] == -1)
                snprintf(buf, sizeof buf, pick(2000) ? "r%d" : pick(2) ? "" : " r%d", r), v = buf;
            else if (order[i] == -2)
                snprintf(buf, sizeof buf, r % 3 || pick(2) ? "%d.%06u" : "%d", r / 3, (unsigned)(r % 3) * 300000 + pick(300000)),
                    v = buf; /* non-decreasing */
            else {
                const char *const *pool = cols[order[i]].values;
                unsigned k = pool_len(pool);
                v = pool[pick(300) ? pick(SAFE) : pick(k)];
            }
            len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "", v);
        }
        len += (size_t)snprintf(out + len, cap - len, crlf ? "\r\n" : "\n");
    }
    return len;
}

/* The columns compare_paths' readers leave unread, per row kind
 * (wl_opts.unread); all zero: every column read. */
static uint64_t unread_by_kind[WL_NKINDS];

/* Reads path both ways: the same rows, the same end or the same error. */
static long compare_paths(const char *path, long *rows_read, long *fast_rows)
{
    gs_error ea = {0}, eb = {0};
    wl_opts oa = {.allow_extra_columns = true}, ob = {.allow_extra_columns = true, .field_by_field = true};
    memcpy(oa.unread, unread_by_kind, sizeof oa.unread);
    memcpy(ob.unread, unread_by_kind, sizeof ob.unread);
    wl_trace *a = wl_trace_open(path, &oa, &ea);
    wl_trace *b = wl_trace_open(path, &ob, &eb);
    long differ = 0;
    if (!a || !b) {
        differ += (a == NULL) != (b == NULL) || strcmp(ea.msg, eb.msg);
        wl_trace_close(a);
        wl_trace_close(b);
        return differ;
    }
    const wl_row *ra, *rb;
    int rca, rcb;
    do {
        rca = wl_trace_next(a, &ra, &ea);
        rcb = wl_trace_next(b, &rb, &eb);
        differ += rca != rcb || (rca == 1 && (!same_row(ra, rb) || !same_syms(ra, rb)));
        *rows_read += rca == 1;
    } while (rca == 1 && rcb == 1);
    if (rca < 0 && rcb < 0)
        differ += strcmp(ea.msg, eb.msg) != 0;
    *fast_rows += a->fast_rows;
    differ += b->fast_rows != 0 || wl_trace_unread(a) != wl_trace_unread(b);
    if (differ)
        fprintf(stderr, "paths differ on %s: %d/%d, '%s' / '%s'\n", path, rca, rcb, ea.msg, eb.msg);
    wl_trace_close(a);
    wl_trace_close(b);
    return differ;
}

/* Columns left unread at random (on): each column in each kind's mask with
 * probability 1/3, so that a header with `kind` leaves fewer unread; off:
 * every column read. */
static void random_unread(bool on)
{
    for (int k = 0; k < WL_NKINDS; k++) {
        unread_by_kind[k] = 0;
        for (int c = 0; on && c < C_NCOLS; c++)
            unread_by_kind[k] |= pick(3) == 0 ? COL_BIT(c) : 0;
    }
}

/* The columns a reader of path with unread_by_kind leaves unread. */
static uint64_t header_unread(const char *path)
{
    gs_error e = {0};
    wl_opts o = {.allow_extra_columns = true};
    memcpy(o.unread, unread_by_kind, sizeof o.unread);
    wl_trace *t = wl_trace_open(path, &o, &e);
    uint64_t u = t ? wl_trace_unread(t) : 0;
    wl_trace_close(t);
    return u;
}

static void fast_matches_reference(void)
{
    enum { TRACES = 400, ROWS = 60 };
    size_t cap = 1 << 20;
    char *text = xmalloc(cap);
    long differ = 0, rows = 0, errors = 0, fast = 0, head_rows = 0, head_fast = 0;
    long unread_traces = 0;
    for (int i = 0; i < TRACES; i++) {
        head_first = i % 4 == 0;
        random_unread(i % 3 == 2);
        random_trace(text, cap, ROWS);
        long before = rows, fast_before = fast;
        const char *path = tu_write_tmp(text);
        differ += compare_paths(path, &rows, &fast);
        unread_traces += header_unread(path) != 0;
        errors += rows - before < ROWS;
        head_rows += head_first ? rows - before : 0;
        head_fast += head_first ? fast - fast_before : 0;
    }
    random_unread(false);
    CHECK(head_fast > head_rows / 2); /* the straight head's layouts too */
    CHECK_EQ_INT(differ, 0);
    CHECK(unread_traces > TRACES / 10); /* some traces were read with columns left unread */
    /* the traces reach far: most rows read, some traces end in an error */
    CHECK(rows > TRACES * ROWS / 4);
    CHECK(errors > TRACES / 10);
    CHECK(fast > rows / 2); /* and the fast path took most of them */
    head_first = false;
    free(text);
}

/* Long texts (no 16-byte signature) repeated, changed, emptied and quoted
 * (a line the fast path declines) from row to row, in name columns and
 * not: the fast path's rows and names as the field-by-field path's. */
static void long_texts_repeat(void)
{
    static const char *const v[] = {
        "A100-SXM4-80GB|H100-SXM5-80GB", "A100-SXM4-80GB|H100-SXM5-80GC", "",
        "\"A100-SXM4-80GB|H100-SXM5-80GB\"", "A100-SXM4-80GB|H100-SXM5-80GB|H200-SXM-141GB|B200-180GB|L4",
        "A100-SXM4-80GB|H100-SXM5-80G", "A100-SXM4-80GB|H100-SXM5-80GB|H200-SXM-141GB|B200-180GB|L40S-48GB-PCIE"};
    static const int pattern[] = {0, 0, 0, 1, 0, 0, 2, 0, 3, 0, 0, 4, 4, 5, 0, 6, 6, 0};
    enum { NP = sizeof pattern / sizeof *pattern };
    size_t cap = 1 << 20, len = 0;
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "id,submit,duration,gpus,gpu_model,speedup,tenant,class\n");
    for (int r = 0; r < 300; r++) {
        const char *g = v[pattern[r % NP]], *sp = v[pattern[(r / 2) % NP]];
        len += (size_t)snprintf(text + len, cap - len, "r%d,%d,1,1,%s,%s,%s,%s\n", r, r, g, sp,
                                r % 5 ? "a-tenant-of-twenty-bytes" : "b-tenant-of-twenty-bytes",
                                r % 7 < 3 ? "training-jobs-of-team-a" : r % 7 < 6 ? "training-jobs-of-team-b" : "");
    }
    long rows = 0, fast = 0;
    CHECK_EQ_INT(compare_paths(tu_write_tmp(text), &rows, &fast), 0);
    CHECK_EQ_INT(rows, 300);
    CHECK(fast > 250);
    free(text);
}

/* Each row read from a trace against its line read alone, by a reader of
 * its own (the header and that line): the same members, its line number
 * aside, on either path. Lines end with a newline. */
static long rows_alone(const char *text, bool fbf, long *compared)
{
    const char *nl = strchr(text, '\n');
    size_t hlen = (size_t)(nl - text) + 1;
    gs_error err = {0}, e1 = {0};
    wl_opts o = {.allow_extra_columns = true, .field_by_field = fbf};
    wl_trace *t = wl_trace_open(tu_write_tmp(text), &o, &err);
    long differ = 0;
    const wl_row *r;
    const char *line = nl + 1;
    char one[8192];
    while (t && wl_trace_next(t, &r, &err) == 1) {
        while (line[strspn(line, " \t\r")] == '\n') /* the blank lines before the row */
            line = strchr(line, '\n') + 1;
        const char *end = strchr(line, '\n') + 1;
        snprintf(one, sizeof one, "%.*s%.*s", (int)hlen, text, (int)(end - line), line);
        line = end;
        wl_trace *u = wl_trace_open(tu_write_tmp(one), &o, &e1);
        const wl_row *alone;
        if (!u || wl_trace_next(u, &alone, &e1) != 1) {
            differ++;
        } else {
            wl_row a = *alone;
            a.line = r->line;
            differ += !same_row(&a, r);
            (*compared)++;
        }
        wl_trace_close(u);
    }
    wl_trace_close(t);
    return differ;
}

static void rows_independent(void)
{
    size_t cap = 1 << 20;
    char *text = xmalloc(cap);
    long differ = 0, compared = 0;
    for (int i = 0; i < 60; i++) {
        head_first = i % 4 == 0;
        random_trace(text, cap, 30);
        differ += rows_alone(text, i & 1, &compared);
    }
    CHECK_EQ_INT(differ, 0);
    CHECK(compared > 500);
    free(text);
}

/* A trace in the generator's order with a column after gpus: rows the
 * straight head reads (id, submit, duration, gpus) between rows it
 * declines (a blank inside the id, eight digits of gpus), which the steps
 * read from the first field, keeping signatures of their values; a row the
 * head wrote in between must not make those stale. */
static void head_between_steps(void)
{
    size_t cap = 1 << 16, len = 0;
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "id,submit,duration,gpus,tenant\n");
    for (int r = 0; r < 240; r++) {
        bool steps = r % 3 != 1; /* rows 0, 2, 3, 5, ...: declined by the head */
        len += (size_t)snprintf(text + len, cap - len, steps && r % 2 ? "r %d,%d,5,1,t\n" : steps ? "r%d,%d,5,00000002,t\n"
                                                                                     : "r%d,%d,7,3,t\n", r, r);
    }
    long rows = 0, fast = 0, compared = 0;
    CHECK_EQ_INT(compare_paths(tu_write_tmp(text), &rows, &fast), 0);
    CHECK_EQ_INT(rows, 240);
    CHECK(fast > 200);
    CHECK_EQ_INT(rows_alone(text, false, &compared), 0);
    CHECK_EQ_INT(compared, 240);
    free(text);
}

/* Ignored columns (--allow-extra-columns) before, between and after the
 * columns read, empty or not: the fast path reads every row, as the
 * field-by-field path does. */
static void ignored_columns_fast(void)
{
    size_t cap = 1 << 16, len = 0;
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "note,id,submit,kind,x,duration,gpus,tenant,y\n");
    for (int r = 0; r < 200; r++)
        len += (size_t)snprintf(text + len, cap - len, "%s,r%d,%d,job,%d,5,%d,t%d,%s\n", r % 3 ? "n" : "", r, r, r % 7,
                                1 + r % 4, r % 5, r % 2 ? "" : "free text");
    long rows = 0, fast = 0;
    CHECK_EQ_INT(compare_paths(tu_write_tmp(text), &rows, &fast), 0);
    CHECK_EQ_INT(rows, 200);
    CHECK_EQ_INT(fast, 200);
    free(text);
}

/* Columns left unread (wl_opts.unread) read as ignored extra columns: a
 * bad value there stops nothing, the row keeps the column's default and
 * does not give it; with a kind column only the columns unread for every
 * kind are; required columns are always read. */
static void unread_columns_left_alone(void)
{
    const char *jobs = "id,submit,duration,gpus,tier,preemptible,tenant\n"
                       "a,0,5,1,spot,yes,t\n"
                       "b,1,5,2,any,1,u\n";
    const char *kinds = "id,submit,duration,gpus,kind,tier,preemptible\n"
                        "a,0,5,1,job,spot,yes\n";
    uint64_t skip = WL_COL_BIT(WL_COL_TIER) | WL_COL_BIT(WL_COL_PREEMPTIBLE) | COL_BIT(C_ID);
    for (int fbf = 0; fbf < 2; fbf++) {
        wl_opts o = {.field_by_field = fbf};
        o.unread[WL_KIND_JOB] = o.unread[WL_KIND_SESSION] = skip;
        gs_error err = {0};
        wl_trace *t = wl_trace_open(tu_write_tmp(jobs), &o, &err);
        CHECK(t != NULL);
        if (!t)
            continue;
        CHECK(wl_trace_unread(t) == (WL_COL_BIT(WL_COL_TIER) | WL_COL_BIT(WL_COL_PREEMPTIBLE))); /* id: required */
        CHECK_EQ_INT(wl_trace_column(t, "tier"), 0);
        const wl_row *r;
        int n = 0;
        while (wl_trace_next(t, &r, &err) == 1) {
            n++;
            CHECK_EQ_INT(r->tier, -1);
            CHECK_EQ_INT(r->preemptible, 0);
            CHECK(!(t->given & (COL_BIT(C_TIER) | COL_BIT(C_PREEMPTIBLE))));
            CHECK(!strcmp(r->tenant, n == 1 ? "t" : "u"));
        }
        CHECK_EQ_INT(n, 2);
        wl_trace_close(t);
        /* a kind column: service rows may come, whose mask keeps tier */
        o.unread[WL_KIND_SERVICE] = o.unread[WL_KIND_REQUEST] = o.unread[WL_KIND_BURST] =
            WL_COL_BIT(WL_COL_PREEMPTIBLE);
        t = wl_trace_open(tu_write_tmp(kinds), &o, &err);
        CHECK(t != NULL && wl_trace_unread(t) == WL_COL_BIT(WL_COL_PREEMPTIBLE));
        CHECK(t && wl_trace_next(t, &r, &err) < 0 && strstr(err.msg, "column 6 ('tier')"));
        wl_trace_close(t);
    }
    wl_trace *t = wl_trace_open(tu_write_tmp(jobs), &(wl_opts){0}, &(gs_error){0}); /* all read: the error */
    gs_error err = {0};
    const wl_row *r;
    CHECK(t && wl_trace_next(t, &r, &err) < 0 && strstr(err.msg, "line 2, column 5 ('tier')"));
    wl_trace_close(t);
}

/* The generated layout with ignored columns after it (the straight path's
 * count of their commas), or with kind between (the plan's steps, the
 * ignored ones skipped as one run): fields empty, short, longer than
 * sixteen bytes, quoted, with a CR or a stray byte after gpus, one field
 * too many or too few, lines ending at the file's end: rows, ends and
 * errors as the field-by-field path's, most rows by the fast path. */
static void generated_layout_ignored_rest(void)
{
    static const char *const v[] = {"", "x", "a b", "0.5", "a-field-longer-than-sixteen-bytes", "\"q,uoted\"", "c\rr",
                                    "y,z", "0123456789abcdef", "0123456789abcde", "0123456789abcdefg"};
    enum { NV = sizeof v / sizeof *v, TRACES = 400 };
    size_t cap = 1 << 16;
    char *text = xmalloc(cap);
    long differ = 0, rows = 0, fast = 0;
    for (int i = 0; i < TRACES; i++) {
        int extra = 1 + (int)pick(9), nrows = 1 + (int)pick(40);
        bool kind = i % 2; /* the plan's steps, not the straight path */
        size_t len = (size_t)snprintf(text, cap, "id,submit,duration,gpus%s", kind ? ",kind" : "");
        for (int c = 0; c < extra; c++)
            len += (size_t)snprintf(text + len, cap - len, ",x%d", c);
        len += (size_t)snprintf(text + len, cap - len, "\n");
        for (int r = 0; r < nrows; r++) {
            bool odd = pick(12) == 0; /* a stray byte after gpus, or no field at all */
            len += (size_t)snprintf(text + len, cap - len, "r%d,%d,5,%d%s%s", r, r, 1 + r % 4, odd ? "x" : "",
                                    kind ? ",job" : "");
            int fields = extra + (pick(10) ? 0 : pick(2) ? 1 : -1); /* one too many or too few */
            for (int c = 0; c < fields; c++)
                len += (size_t)snprintf(text + len, cap - len, ",%s", v[pick(20) ? pick(5) : pick(NV)]);
            bool last = r == nrows - 1 && pick(2);
            len += (size_t)snprintf(text + len, cap - len, "%s", last ? "" : pick(8) ? "\n" : "\r\n");
        }
        differ += compare_paths(tu_write_tmp(text), &rows, &fast);
    }
    CHECK_EQ_INT(differ, 0);
    CHECK(rows > TRACES * 3);
    CHECK(fast > rows / 2);
    free(text);
}

const test_case tests_trace_paths[] = {
    {"trace_paths/unread_columns_read_as_ignored_ones", unread_columns_left_alone},
    {"trace_paths/fast_path_matches_field_by_field_on_random_traces", fast_matches_reference},
    {"trace_paths/each_row_is_its_line_alone", rows_independent},
    {"trace_paths/long_texts_repeated_as_the_reference_reads_them", long_texts_repeat},
    {"trace_paths/straight_head_between_rows_the_steps_read", head_between_steps},
    {"trace_paths/ignored_columns_on_the_fast_path", ignored_columns_fast},
    {"trace_paths/generated_layout_then_ignored_columns", generated_layout_ignored_rest},
    {NULL, NULL},
};
