/* fuzz_import_sd.c - the importer of the Alibaba GenAI Stable Diffusion log (workloads/wl_import_sd.c) on any
 * bytes: it converts or refuses with a message naming the input, and what
 * it converts reads whole through the trace reader.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../workloads/wl_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "sd.csv");
    char in[700], conv[700];
    snprintf(in, sizeof in, "%s", p);
    snprintf(conv, sizeof conv, "%s/converted.csv", fz_dir());
    FILE *out = fopen(conv, "w");
    if (!out)
        abort();
    gs_error err = {0};
    wl_sd_opts o = {.gpus = 1, .replicas_min = 0, .replicas_max = 4, .weights_gib = 4, .lora_load_s = 3,
                    .slo_ms = 120000, .limit = size > 0 && (data[0] & 1) ? 3 : 0};
    wl_sd_counts n;
    int rc = wl_import_sd(in, out, NULL, &o, &n, &err);
    if (fclose(out) != 0)
        abort();
    if (rc)
        fz_check_err(rc, &err);
    else
        fz_trace_reads(conv);
    return 0;
}
