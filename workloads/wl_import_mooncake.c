/* wl_import_mooncake.c - Mooncake (Moonshot AI's Kimi) request traces, FAST
 * '25 (github.com/kvcache-ai/Mooncake, FAST25-release/traces; Apache-2.0;
 * Qin et al., "Mooncake: A KVCache-centric Disaggregated Architecture for
 * LLM Serving") to trace format v1.
 *
 * A line is one request: timestamp (ms from the first request),
 * input_length, output_length and hash_ids, one id per 512-token block of
 * the prompt, equal ids meaning an equal prefix up to that block. They become
 * request rows with input_tokens, output_tokens and hash_ids ("1|2|3") for
 * the service layer's prefix cache. The timestamps are rounded to ~3 s
 * buckets (the trace's README); by default the requests of one bucket are
 * spread uniformly over it, in file order, from a seeded stream (a burst
 * of 20 requests at one instant is an artifact of the rounding, not load).
 * SPDX-License-Identifier: MIT */
#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_file.h"
#include "../base/gs_json.h"
#include "wl_import.h"

const char *const wl_mc_reason[WL_MC_NREASONS] = {
    "timestamp earlier than the line before",
    "hash_ids count is not ceil(input_length / block tokens)",
};

typedef struct pending_row {
    long line;
    char *tail; /* ",,request,SVC,in,out,ids" after id and submit */
} pending_row;

typedef struct bucket {
    int64_t t_ms;
    pending_row *rows;
    long n, cap;
    double *u;
} bucket;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Writes the bucket's rows: submit t (bursts) or t + sorted uniform offsets
 * in [0, width), in microseconds. */
static void flush(bucket *b, FILE *out, gsl_rng *rng, double width_ms, bool bursts, int64_t warm_us)
{
    if (b->n == 0)
        return;
    b->u = xrealloc(b->u, (size_t)b->n * sizeof *b->u);
    for (long i = 0; i < b->n; i++)
        b->u[i] = bursts ? 0 : gsl_rng_uniform(rng) * width_ms * 1000.0;
    qsort(b->u, (size_t)b->n, sizeof *b->u, cmp_double);
    for (long i = 0; i < b->n; i++) {
        int64_t us = warm_us + b->t_ms * 1000 + (int64_t)floor(b->u[i]);
        fprintf(out, "mc%ld,%lld.%06lld%s\n", b->rows[i].line, (long long)(us / 1000000), (long long)(us % 1000000),
                b->rows[i].tail);
        free(b->rows[i].tail);
    }
    b->n = 0;
}

/* The trace reader's bounds (wl_trace.c): tokens per request, and block
 * ids per request. */
#define MAX_TOKENS 1e7
#define MAX_IDS (1 << 20)

/* "'path' line L, column C ('field'): expected WHAT" */
static int bad(gs_error *err, const char *path, long line, long col, const char *field, const char *what)
{
    return gs_err(err, GS_EINPUT, "'%s' line %ld, column %ld ('%s'): expected %s", path, line, col, field, what);
}

/* Column (1-based) of a key's value in the raw line, for messages. */
static long col_of(const char *line, const char *key)
{
    char pat[40];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(line, pat);
    return p ? (long)(p - line) + 1 : 1;
}

static bool get_int(const cJSON *o, const char *key, double lo, double hi, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return false;
    *out = (int64_t)v->valuedouble;
    return true;
}

/* One request line, checked: its fields and its block ids '|'-joined in
 * *ids (grown as needed). */
typedef struct mc_req {
    int64_t ts, in, out;
    int nids;
    size_t ids_len;
} mc_req;

/* The block ids of h joined by '|' into *ids. Returns 0, or GS_EINPUT for
 * an id that is not a non-negative integer. */
static int join_ids(const cJSON *h, const char *path, long lineno, const char *line, char **ids, size_t *ids_cap,
                    mc_req *r, gs_error *err)
{
    size_t il = 0;
    int nids = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, h)
    {
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble != floor(e->valuedouble) ||
            e->valuedouble >= 9e15)
            return bad(err, path, lineno, col_of(line, "hash_ids"), "hash_ids", "non-negative integer block ids");
        if (*ids_cap < il + 24) {
            *ids_cap = (il + 24) * 2;
            *ids = xrealloc(*ids, *ids_cap);
        }
        il += (size_t)snprintf(*ids + il, *ids_cap - il, "%s%lld", nids ? "|" : "", (long long)e->valuedouble);
        nids++;
    }
    r->nids = nids;
    r->ids_len = il;
    return 0;
}

/* A request line (no line end) into *r. The one JSON reader: nothing after
 * the object (a second object on the line is an error, not dropped),
 * duplicate keys refused. Returns 0 or GS_EINPUT naming line and column. */
static int parse_request(const char *path, long lineno, const char *line, size_t len, char **ids, size_t *ids_cap,
                         mc_req *r, gs_error *err)
{
    cJSON *j = lineno > INT_MAX ? NULL : gs_json_parse_at(line, len, "", path, (int)lineno, err);
    const cJSON *h = j ? cJSON_GetObjectItemCaseSensitive(j, "hash_ids") : NULL;
    int rc = 0;
    if (!j)
        rc = lineno > INT_MAX ? gs_err(err, GS_EINPUT, "'%s': more than %d lines", path, INT_MAX) : GS_EINPUT;
    else if (!cJSON_IsObject(j))
        rc = gs_err(err, GS_EINPUT, "'%s' line %ld, column 1: expected a JSON object (one request per line)", path,
                    lineno);
    else if (!get_int(j, "timestamp", 0, 1e15, &r->ts))
        rc = bad(err, path, lineno, col_of(line, "timestamp"), "timestamp", "an integer number of ms >= 0");
    else if (!get_int(j, "input_length", 0, MAX_TOKENS, &r->in))
        rc = bad(err, path, lineno, col_of(line, "input_length"), "input_length",
                 "an integer number of tokens 0..10000000");
    else if (!get_int(j, "output_length", 1, MAX_TOKENS, &r->out))
        rc = bad(err, path, lineno, col_of(line, "output_length"), "output_length",
                 "an integer number of tokens 1..10000000");
    else if (!cJSON_IsArray(h))
        rc = bad(err, path, lineno, col_of(line, "hash_ids"), "hash_ids", "an array of block ids");
    else if (cJSON_GetArraySize(h) > MAX_IDS)
        rc = bad(err, path, lineno, col_of(line, "hash_ids"), "hash_ids", "at most 1048576 block ids");
    else
        rc = join_ids(h, path, lineno, line, ids, ids_cap, r, err);
    cJSON_Delete(j);
    return rc;
}

/* Appends a request row (its line and the tail after id and submit) to the
 * bucket. */
static void bucket_add(bucket *b, long lineno, const wl_mc_opts *o, const mc_req *r, const char *ids)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->rows = xrealloc(b->rows, (size_t)b->cap * sizeof *b->rows);
    }
    size_t tl = r->ids_len + strlen(o->service) + 64;
    char *tail = xmalloc(tl);
    snprintf(tail, tl, ",,request,%s,%lld,%lld,,,,,,,%s", o->service, (long long)r->in, (long long)r->out,
             r->nids ? ids : "");
    b->rows[b->n++] = (pending_row){lineno, tail};
}

/* Why a well-formed request is skipped (a WL_MC_SKIP_*), or -1. */
static int skip_reason(const mc_req *r, int64_t last, const wl_mc_opts *o)
{
    if (r->ts < last)
        return WL_MC_SKIP_BACKWARDS;
    if (r->nids != (int)((r->in + o->block_tokens - 1) / o->block_tokens))
        return WL_MC_SKIP_HASH_COUNT;
    return -1;
}

static void write_header(FILE *out, const wl_mc_opts *o)
{
    fprintf(out, "id,submit,gpus,kind,service,input_tokens,output_tokens,replicas_min,replicas_max,weights_gib,"
                 "slo_ttft_ms,slo_tpot_ms,kv_kib_per_token,hash_ids\n");
    fprintf(out, "%s,0,%d,service,,,,%d,%d,%g,%g,%g,%g,\n", o->service, o->gpus, o->replicas_min, o->replicas_max,
            o->weights_gib, o->slo_ttft_ms, o->slo_tpot_ms, o->kv_kib_per_token);
}

int wl_import_mooncake(const char *path, FILE *out, FILE *warn, const wl_mc_opts *o, wl_mc_counts *n, gs_error *err)
{
    memset(n, 0, sizeof *n);
    FILE *f = gs_open_input(path, "file", err); /* a directory is named as such */
    if (!f)
        return GS_EINPUT;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, o->seed ? o->seed : 1);
    write_header(out, o);
    bucket b = {.t_ms = -1};
    int64_t warm_us = (int64_t)llround(o->warmup_s * 1e6); /* as for Azure: the first replicas are ready */
    char *line = NULL, *ids = NULL;
    size_t cap = 0, ids_cap = 0;
    ssize_t len;
    long lineno = 0;
    int64_t last = -1;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0 && (o->limit <= 0 || n->converted < o->limit)) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (strspn(line, " \t") == (size_t)len)
            continue; /* a blank line */
        n->rows_in++;
        mc_req r = {0};
        if ((rc = parse_request(path, lineno, line, (size_t)len, &ids, &ids_cap, &r, err)))
            break;
        int reason = skip_reason(&r, last, o);
        if (reason >= 0) {
            n->skipped++;
            n->skipped_by[reason]++;
            if (warn)
                fprintf(warn, "gpusim: warning: '%s' line %ld: %s; row skipped\n", path, lineno, wl_mc_reason[reason]);
            continue;
        }
        last = r.ts;
        if (r.ts != b.t_ms) { /* a new bucket: the last one spreads up to here at most */
            if (b.n)
                flush(&b, out, rng, fmin(o->bucket_ms, (double)(r.ts - b.t_ms)), o->bursts, warm_us);
            b.t_ms = r.ts;
            n->buckets++;
        }
        bucket_add(&b, lineno, o, &r, ids);
        if (b.n > n->largest_bucket)
            n->largest_bucket = b.n;
        n->blocks += r.nids;
        n->converted++;
    }
    if (rc == 0 && ferror(f))
        rc = gs_err(err, GS_EINPUT, "'%s': read error: %s", path, strerror(errno));
    if (rc == 0)
        flush(&b, out, rng, o->bucket_ms, o->bursts, warm_us);
    for (long i = 0; i < b.n; i++)
        free(b.rows[i].tail);
    free(b.rows);
    free(b.u);
    free(line);
    free(ids);
    gsl_rng_free(rng);
    fclose(f);
    if (rc == 0 && n->rows_in == 0) /* nothing to convert is an error, never an empty success */
        rc = gs_err(err, GS_EINPUT, "'%s': no request lines (expected one JSON object per line)", path);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_err(err, GS_EWRITE, "cannot write the converted trace");
    return rc;
}
