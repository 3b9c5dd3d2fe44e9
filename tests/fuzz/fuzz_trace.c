/* fuzz_trace.c - the trace reader (workloads/wl_trace.c) on any bytes:
 * every row is read or refused with a message; nothing else may happen.
 * Its fast path and its field-by-field path (wl_opts.field_by_field, the
 * reference) must agree on every row and on the first error.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../../workloads/wl_trace.h"
#include "fuzz_util.h"

static bool same(const wl_row *a, const wl_row *b)
{
    return a->line == b->line && a->kind == b->kind && a->submit_us == b->submit_us && a->dur_us == b->dur_us &&
           a->gpus == b->gpus && a->has_duration == b->has_duration && a->cpu == b->cpu && a->priority == b->priority &&
           a->time_limit_us == b->time_limit_us && a->tenant_sym == b->tenant_sym && a->nhash == b->nhash &&
           !strcmp(a->id, b->id) && !strcmp(a->tenant, b->tenant) && !strcmp(a->gpu_model, b->gpu_model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "trace.csv");
    gs_error err = {0}, err2 = {0};
    bool extra = size > 0 && (data[size - 1] & 1);
    wl_trace *t = wl_trace_open(p, &(wl_opts){.allow_extra_columns = extra}, &err);
    if (!t) {
        fz_check_err(GS_EINPUT, &err);
        return 0;
    }
    wl_trace *u = wl_trace_open(p, &(wl_opts){.allow_extra_columns = extra, .field_by_field = true}, &err2);
    if (!u)
        abort(); /* the header reads alike either way */
    const wl_row *row, *ref;
    int rc, rc2;
    while ((rc = wl_trace_next(t, &row, &err)) > 0) {
        if (row->line < 2 || row->submit_us < 0)
            abort(); /* a row the reader let through must be well formed */
        if (wl_trace_next(u, &ref, &err2) != 1 || !same(row, ref))
            abort(); /* the fast path read a row otherwise than its reference */
    }
    rc2 = wl_trace_next(u, &ref, &err2);
    if (rc2 != rc || (rc < 0 && strcmp(err.msg, err2.msg)))
        abort(); /* the end or the first error differs */
    if (rc < 0)
        fz_check_err(rc, &err);
    wl_trace_close(t);
    wl_trace_close(u);
    return 0;
}
