/* trace_facts.c - see trace_facts.h.
 * SPDX-License-Identifier: MIT */
#include "trace_facts.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
#include "../workloads/wl_trace.h"
#include "metrics.h"

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of id: its index + 1, or 0 where it would go. */
static int *find_slot(const trace_facts *f, const char *id)
{
    unsigned m = (unsigned)f->nslot - 1;
    for (unsigned i = hash(id) & m;; i = (i + 1) & m)
        if (!f->slot[i] || !strcmp(f->svc[f->slot[i] - 1].id, id))
            return &f->slot[i];
}

static void rehash(trace_facts *f)
{
    free(f->slot);
    f->nslot = f->nslot ? f->nslot * 2 : 64;
    f->slot = xcalloc((size_t)f->nslot, sizeof *f->slot);
    for (int i = 0; i < f->nsvc; i++)
        *find_slot(f, f->svc[i].id) = i + 1;
}

static trace_service *service_of(trace_facts *f, const char *id)
{
    if (!f->nslot || 2 * (f->nsvc + 1) > f->nslot)
        rehash(f);
    int *s = find_slot(f, id);
    if (!*s) {
        f->svc = xrealloc(f->svc, (size_t)(f->nsvc + 1) * sizeof *f->svc);
        trace_service *v = &f->svc[f->nsvc++];
        memset(v, 0, sizeof *v);
        snprintf(v->id, sizeof v->id, "%s", id);
        *s = f->nsvc;
    }
    return &f->svc[*s - 1];
}

const trace_service *trace_facts_service(const trace_facts *f, const char *id)
{
    if (!f->nslot)
        return NULL;
    int s = *find_slot(f, id);
    return s ? &f->svc[s - 1] : NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Row r's class among the trace's, when new. O(1) a row: by its name
 * number (0: the column left empty, "-"). */
static void take_class(trace_facts *f, const wl_row *r)
{
    uint32_t sym = r->class_sym;
    if (sym >= f->ncls_seen) {
        uint32_t n = f->ncls_seen ? f->ncls_seen : 64;
        while (n <= sym)
            n *= 2;
        f->cls_seen = xrealloc(f->cls_seen, n);
        memset(f->cls_seen + f->ncls_seen, 0, n - f->ncls_seen);
        f->ncls_seen = n;
    }
    if (f->cls_seen[sym])
        return;
    f->cls_seen[sym] = 1;
    if (f->ncls == TRACE_FACTS_CLASSES) {
        f->cls_more = true;
        return;
    }
    f->cls = xrealloc(f->cls, (size_t)(f->ncls + 1) * sizeof *f->cls);
    snprintf(f->cls[f->ncls++], sizeof *f->cls, "%s", sym ? r->job_class : "-");
}

static void take_row(trace_facts *f, const wl_row *r, double *durs)
{
    bool work = r->kind == WL_KIND_JOB || r->kind == WL_KIND_SESSION || r->kind == WL_KIND_SERVICE;
    if (work && !r->ref_gpu[0] && f->no_ref++ == 0)
        f->first_no_ref_line = r->line;
    if (r->kind == WL_KIND_JOB || r->kind == WL_KIND_SESSION) {
        f->jobs++;
        if (f->has_class)
            take_class(f, r);
        if (r->kind == WL_KIND_JOB && f->dur_sampled < TRACE_FACTS_SAMPLE)
            durs[f->dur_sampled++] = (double)r->dur_us / 1e6;
    } else if (r->kind == WL_KIND_SERVICE) {
        trace_service *v = service_of(f, r->id);
        if (!v->line)
            v->line = r->line;
        v->tokens |= r->output_tokens >= 1;
        v->token_slo |= r->slo_ttft_ms >= 0 || r->slo_tpot_ms >= 0;
    } else if (r->kind == WL_KIND_REQUEST) {
        service_of(f, r->service)->tokens |= r->output_tokens >= 1;
    }
}

static int read_facts(const char *path, long max_rows, const wl_opts *o, trace_facts *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    out->dur_median_s = NAN;
    wl_trace *t = wl_trace_open(path, o, err);
    if (!t)
        return err->code;
    out->has_class = wl_trace_column(t, "class") > 0;
    double *durs = xmalloc(TRACE_FACTS_SAMPLE * sizeof *durs);
    const wl_row *r;
    int rc = 0;
    while ((max_rows == 0 || out->rows < max_rows) && (rc = wl_trace_next(t, &r, err)) == 1) {
        out->rows++;
        take_row(out, r, durs);
    }
    if (max_rows && out->rows >= max_rows)
        rc = 0;
    wl_trace_close(t);
    if (out->dur_sampled > 0) {
        qsort(durs, (size_t)out->dur_sampled, sizeof *durs, cmp_double);
        long m = out->dur_sampled;
        out->dur_median_s = m % 2 ? durs[m / 2] : (durs[m / 2 - 1] + durs[m / 2]) / 2;
    }
    free(durs);
    if (rc < 0) {
        trace_facts_free(out);
        return err->code;
    }
    return 0;
}

int trace_facts_read(const char *path, long max_rows, bool allow_extra_columns, trace_facts *out, gs_error *err)
{
    return read_facts(path, max_rows, &(wl_opts){.allow_extra_columns = allow_extra_columns}, out, err);
}

int trace_facts_read_durations(const char *path, long max_rows, bool allow_extra_columns, trace_facts *out,
                               gs_error *err)
{
    wl_opts o = {.allow_extra_columns = allow_extra_columns};
    for (int k = 0; k < WL_NKINDS; k++)
        o.unread[k] = wl_cols_but_durations();
    if (read_facts(path, max_rows, &o, out, err) == 0)
        return 0;
    return trace_facts_read(path, max_rows, allow_extra_columns, out, err); /* a row needs more to be read */
}

void trace_facts_free(trace_facts *f)
{
    free(f->svc);
    free(f->slot);
    free(f->cls);
    free(f->cls_seen);
    f->svc = NULL;
    f->slot = NULL;
    f->cls = NULL;
    f->cls_seen = NULL;
    f->ncls = 0;
    f->ncls_seen = 0;
    f->nsvc = f->nslot = 0;
}

void trace_facts_units_hint(const trace_facts *f, const char *trace, char *buf, size_t n)
{
    buf[0] = 0;
    if (!(f->dur_median_s > TRACE_FACTS_MS_HINT_S))
        return;
    snprintf(buf, n, "the median job duration in '%s' is %.1f days (%.0f s, over %ld job rows): if its durations "
             "are milliseconds, divide them by 1000 (durations and times are seconds, workloads/README.md)",
             trace, f->dur_median_s / 86400.0, f->dur_median_s, f->dur_sampled);
}

/* The service a "services.SEG" segment names: an index among the trace's
 * service rows, or an id. NULL: none. */
static const trace_service *named(const trace_facts *f, const char *seg, size_t l)
{
    char id[64];
    if (l == 0 || l >= sizeof id)
        return NULL;
    memcpy(id, seg, l);
    id[l] = 0;
    long k;
    if (strspn(id, "0123456789") == l) {
        if (!gs_num_long(id, 0, INT_MAX, &k)) /* digits past INT_MAX name no service */
            return NULL;
        for (int i = 0; i < f->nsvc; i++)
            if (f->svc[i].line && k-- == 0)
                return &f->svc[i];
        return NULL;
    }
    const trace_service *v = trace_facts_service(f, id);
    return v && v->line ? v : NULL;
}

static int no_tokens(const char *what, const char *path, const trace_service *v, const char *trace, gs_error *err)
{
    return gs_err(err, GS_EINPUT, "%s: '%s' is measured only for requests with token counts, and service '%s' "
                  "(trace '%s' line %ld) has none (no output_tokens on its requests or its row): give them, or "
                  "ask its end-to-end latency (services.%s.latency_s.p99)", what, path, v->id, trace, v->line, v->id);
}

/* "jobs.class.NAME...": NAME among the trace's classes. */
static int check_class(const trace_facts *f, const char *trace, const char *what, const char *path, gs_error *err)
{
    const char *seg = path + 11;
    size_t l = strcspn(seg, ".");
    if (!f->has_class)
        return gs_err(err, GS_EUSAGE, "%s: '%s': trace '%s' has no class column (per-class figures need one: "
                      "workloads/README.md)", what, path, trace);
    for (int i = 0; i < f->ncls; i++)
        if (strlen(f->cls[i]) == l && !strncmp(f->cls[i], seg, l))
            return 0;
    if (f->cls_more) /* past what was kept, the run decides (it refuses that many classes) */
        return 0;
    char names[400] = "";
    int shown = 0;
    for (; shown < f->ncls && strlen(names) + 70 < sizeof names; shown++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", shown ? ", " : "", f->cls[shown]);
    return gs_err(err, GS_EUSAGE, "%s: '%s': trace '%s' has no job class '%.*s' (its classes: %s%s)", what, path,
                  trace, (int)l, seg, f->ncls ? names : "none", shown < f->ncls ? ", ..." : "");
}

int trace_facts_check_path(const trace_facts *f, const char *trace, const char *what, const char *path,
                           gs_error *err)
{
    bool tokens = metrics_needs_tokens(path);
    if (!strncmp(path, "jobs.class.", 11))
        return check_class(f, trace, what, path, err);
    if (!strncmp(path, "services.", 9)) {
        const char *seg = path + 9;
        size_t l = strcspn(seg, ".");
        const trace_service *v = named(f, seg, l);
        if (!v) {
            char ids[400] = "";
            for (int i = 0, k = 0; i < f->nsvc && k < 8; i++)
                if (f->svc[i].line)
                    snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", k++ ? ", " : "", f->svc[i].id);
            return gs_err(err, GS_EUSAGE, "%s: '%s': trace '%s' has no service '%.*s' (its services, by id or "
                          "index from 0: %s)", what, path, trace, (int)l, seg, ids[0] ? ids : "none");
        }
        return tokens && !v->tokens ? no_tokens(what, path, v, trace, err) : 0;
    }
    if (!tokens || strncmp(path, "requests.", 9))
        return 0;
    const trace_service *first = NULL;
    for (int i = 0; i < f->nsvc; i++) {
        if (!f->svc[i].line)
            continue;
        if (f->svc[i].tokens)
            return 0;
        first = first ? first : &f->svc[i];
    }
    if (!first)
        return gs_err(err, GS_EINPUT, "%s: '%s': trace '%s' has no service rows", what, path, trace);
    return no_tokens(what, path, first, trace, err);
}

int trace_facts_check_services(const trace_facts *f, const char *trace, gs_error *err)
{
    for (int i = 0; i < f->nsvc; i++) {
        const trace_service *v = &f->svc[i];
        if (v->line && v->token_slo && !v->tokens)
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld: service '%s' states slo_ttft_ms or slo_tpot_ms, but "
                          "its requests carry no token counts (output_tokens): TTFT and TPOT cannot be measured, and "
                          "its attainment would be that of another SLO; give token counts or an end-to-end slo_ms",
                          trace, v->line, v->id);
    }
    return 0;
}
