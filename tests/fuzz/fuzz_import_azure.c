/* fuzz_import_azure.c - the importer of the Azure LLM inference 2023 (workloads/wl_import_azure.c) on any
 * bytes: it converts or refuses with a message naming the input, and what
 * it converts reads whole through the trace reader.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../workloads/wl_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "az.csv");
    char in[700], conv[700];
    snprintf(in, sizeof in, "%s", p);
    snprintf(conv, sizeof conv, "%s/converted.csv", fz_dir());
    FILE *out = fopen(conv, "w");
    if (!out)
        abort();
    gs_error err = {0};
    wl_azure_opts o = {.service = "llm", .gpus = 8, .replicas_min = 2, .replicas_max = 4, .weights_gib = 130,
                       .slo_ttft_ms = 2000, .slo_tpot_ms = 200, .max_batch = 64, .warmup_s = 180};
    wl_import_counts n;
    int rc = wl_import_azure(in, out, &o, &n, &err);
    if (fclose(out) != 0)
        abort();
    if (rc)
        fz_check_err(rc, &err);
    else
        fz_trace_reads(conv);
    return 0;
}
