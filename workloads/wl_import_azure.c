/* wl_import_azure.c - Azure LLM inference trace 2023 to trace format v1.
 *
 * Source: workloads/traces/azure-llm-inference-2023/README.md (CC-BY-4.0,
 * Patel et al., Splitwise, ISCA 2024). Rows are sorted by TIMESTAMP, which is
 * a wall-clock string with 7 fractional digits; submit = seconds since the
 * first row, kept to the microsecond. ContextTokens become input_tokens and
 * GeneratedTokens output_tokens. The declared service uses the default
 * performance model (Splitwise Llama2-70B on H100, TP8: 8 GPUs per replica),
 * so its weights are that model's (70e9 parameters x 2 bytes in FP16) and its
 * SLOs are LLM serving's: time to first token and time per output token.
 * The trace samples a service already running: the service row comes
 * warmup_s before the first request, so that its first replicas have loaded
 * their weights when the trace starts (cold starts then come only from
 * scaling out). Defaults and their sources: workloads/README.md.
 * SPDX-License-Identifier: MIT */
#include "wl_import.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_file.h"
#include "../base/gs_num.h"

/* "YYYY-MM-DD HH:MM:SS.fffffff" -> microseconds since the epoch (UTC; the
 * trace states no zone, and only differences matter). */
static bool parse_stamp(const char *s, int64_t *us) { return gs_num_datetime_us(s, true, us); }

typedef struct row_buf {
    char f[3][64];
    int nf;
    bool done, too_long;
} row_buf;

static void cb_field(void *s, size_t len, void *data)
{
    row_buf *r = data;
    if (r->nf < 3) {
        if (len >= sizeof r->f[0])
            r->too_long = true;
        size_t l = len < sizeof r->f[0] - 1 ? len : sizeof r->f[0] - 1;
        memcpy(r->f[r->nf], s, l);
        r->f[r->nf][l] = 0;
    }
    r->nf++;
}

static void cb_row(int c, void *data)
{
    (void)c;
    ((row_buf *)data)->done = true;
}

/* The trace reader's bound on token counts (wl_trace.c). */
static bool parse_tokens(const char *s, long lo, long *out) { return gs_num_long(s, lo, 10000000L, out); }

int wl_import_azure(const char *path, FILE *out, const wl_azure_opts *o, wl_import_counts *counts, gs_error *err)
{
    memset(counts, 0, sizeof *counts);
    FILE *f = gs_open_input(path, "file", err);
    if (!f)
        return GS_EINPUT;
    struct csv_parser p;
    csv_init(&p, CSV_STRICT | CSV_APPEND_NULL);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int64_t t0 = 0, last = 0;
    int rc = 0;
    fprintf(out, "id,submit,gpus,kind,service,input_tokens,output_tokens,replicas_min,replicas_max,weights_gib,"
                 "slo_ttft_ms,slo_tpot_ms,max_batch\n");
    fprintf(out, "%s,0,%d,service,,,,%d,%d,%.6g,%.6g,%.6g,%d\n", o->service, o->gpus, o->replicas_min,
            o->replicas_max, o->weights_gib, o->slo_ttft_ms, o->slo_tpot_ms, o->max_batch);
    int64_t warm_us = (int64_t)llround(o->warmup_s * 1e6);
    ssize_t n;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        row_buf r = {0};
        if (csv_parse(&p, line, (size_t)n, cb_field, cb_row, &r) != (size_t)n) {
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld: malformed CSV", path, lineno);
            break;
        }
        if (!r.done)
            continue; /* blank line */
        if (lineno == 1) {
            if (r.nf != 3 || strcmp(r.f[0], "TIMESTAMP") || strcmp(r.f[1], "ContextTokens") ||
                strcmp(r.f[2], "GeneratedTokens"))
                rc = gs_err(err, GS_EINPUT, "'%s' line 1: expected the header TIMESTAMP,ContextTokens,"
                            "GeneratedTokens", path);
            continue;
        }
        counts->rows_in++;
        int64_t us = 0;
        long in_tok = 0, out_tok = 0;
        if (r.nf != 3)
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld: expected 3 fields, found %d", path, lineno, r.nf);
        else if (r.too_long || !parse_stamp(r.f[0], &us))
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld, column 1 ('TIMESTAMP'): expected YYYY-MM-DD HH:MM:SS.f, "
                        "found '%s'", path, lineno, r.f[0]);
        else if (!parse_tokens(r.f[1], 0, &in_tok))
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld, column 2 ('ContextTokens'): expected an integer 0..10000000, "
                        "found '%s'", path, lineno, r.f[1]);
        else if (!parse_tokens(r.f[2], 1, &out_tok))
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld, column 3 ('GeneratedTokens'): expected an integer 1..10000000, "
                        "found '%s'", path, lineno, r.f[2]);
        if (rc)
            break;
        if (counts->converted == 0)
            t0 = last = us;
        if (us < last) { /* the README says sorted; a row that is not is reported, not reordered */
            counts->skipped++;
            fprintf(stderr, "gpusim: warning: '%s' line %ld: timestamp goes back in time; row skipped\n", path,
                    lineno);
            continue;
        }
        last = us;
        int64_t rel = us - t0 + warm_us;
        fprintf(out, "q%ld,%lld.%06lld,,request,%s,%ld,%ld,,,,,,\n", counts->converted, (long long)(rel / 1000000),
                (long long)(rel % 1000000), o->service, in_tok, out_tok);
        counts->converted++;
        if (o->limit > 0 && counts->converted >= o->limit)
            break;
    }
    free(line);
    csv_free(&p);
    fclose(f);
    if (rc == 0 && lineno == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': empty file (expected the header TIMESTAMP,ContextTokens,"
                    "GeneratedTokens)", path);
    else if (rc == 0 && counts->rows_in == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': no request rows after the header", path);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_err(err, GS_EWRITE, "cannot write the converted trace");
    return rc;
}
