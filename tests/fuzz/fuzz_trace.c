/* fuzz_trace.c - the trace reader (workloads/wl_trace.c) on any bytes:
 * every row is read or refused with a message; nothing else may happen.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "../../workloads/wl_trace.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "trace.csv");
    gs_error err = {0};
    wl_opts o = {.allow_extra_columns = size > 0 && (data[size - 1] & 1)};
    wl_trace *t = wl_trace_open(p, &o, &err);
    if (!t) {
        fz_check_err(GS_EINPUT, &err);
        return 0;
    }
    const wl_row *row;
    int rc;
    while ((rc = wl_trace_next(t, &row, &err)) > 0)
        if (row->line < 2 || row->submit_us < 0)
            abort(); /* a row the reader let through must be well formed */
    if (rc < 0)
        fz_check_err(rc, &err);
    wl_trace_close(t);
    return 0;
}
