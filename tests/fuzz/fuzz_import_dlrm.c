/* fuzz_import_dlrm.c - the importer of the Alibaba DLRM instances (workloads/wl_import_dlrm.c), with a small in-memory sort so the external merge runs on any
 * bytes: it converts or refuses with a message naming the input, and what
 * it converts reads whole through the trace reader.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../workloads/wl_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "dlrm.csv");
    char in[700], conv[700];
    snprintf(in, sizeof in, "%s", p);
    snprintf(conv, sizeof conv, "%s/converted.csv", fz_dir());
    FILE *out = fopen(conv, "w");
    if (!out)
        abort();
    gs_error err = {0};
    wl_dlrm_opts o = {.cn = true, .hn = size == 0 || !(data[0] & 1), .end_s = 0, .sort_lines = 4};
    wl_dlrm_counts n;
    int rc = wl_import_dlrm(in, out, NULL, &o, &n, &err);
    if (fclose(out) != 0)
        abort();
    if (rc)
        fz_check_err(rc, &err);
    else
        fz_trace_reads(conv);
    return 0;
}
