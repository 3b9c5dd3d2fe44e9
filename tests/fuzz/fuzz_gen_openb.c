/* fuzz_gen_openb.c - `gen openb-variant` (workloads/wl_gen_openb.c) on any
 * bytes as its base pod list: the first byte picks the family and the
 * percentage; it writes a variant or refuses with a message naming the
 * input, and the variant it writes must import (wl_import_openb_pods)
 * into a trace that reads whole through the trace reader.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../workloads/wl_gen.h"
#include "../../workloads/wl_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double pcts[4] = {0, 33, 50, 99};
    int pick = size ? data[0] : 0;
    const char *p = fz_write(size ? data + 1 : data, size ? size - 1 : 0, "base.csv");
    char in[700], var[700], conv[700];
    snprintf(in, sizeof in, "%s", p);
    snprintf(var, sizeof var, "%s/variant.csv", fz_dir());
    snprintf(conv, sizeof conv, "%s/converted.csv", fz_dir());
    wl_openb_variant_opts o = {.pods_path = in, .family = pick & 3, .pct = pcts[(pick >> 2) & 3], .seed = 1};
    FILE *out = fopen(var, "w");
    if (!out)
        abort();
    gs_error err = {0};
    int rc = wl_gen_openb_variant(out, &o, &err);
    if (fclose(out) != 0)
        abort();
    if (rc) {
        fz_check_err(rc, &err);
        return 0;
    }
    if (!(out = fopen(conv, "w")))
        abort();
    wl_openb_counts n = {0};
    rc = wl_import_openb_pods(var, out, NULL, &n, &err);
    if (fclose(out) != 0)
        abort();
    if (rc) {
        fprintf(stderr, "fuzz: the variant does not import: %s\n", err.msg);
        abort();
    }
    fz_trace_reads(conv);
    return 0;
}
