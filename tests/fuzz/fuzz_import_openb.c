/* fuzz_import_openb.c - the Alibaba openb importers
 * (workloads/wl_import_openb.c) on any bytes: the first byte picks the pod
 * list (its trace must read whole through the trace reader) or the node
 * list (its cluster must be JSON the one reader takes); each converts or
 * refuses with a message naming the input.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../base/gs_json.h"
#include "../../workloads/wl_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool nodes = size > 0 && (data[0] & 1);
    const char *p = fz_write(size ? data + 1 : data, size ? size - 1 : 0, "openb.csv");
    char in[700], conv[700];
    snprintf(in, sizeof in, "%s", p);
    snprintf(conv, sizeof conv, "%s/converted.%s", fz_dir(), nodes ? "json" : "csv");
    FILE *out = fopen(conv, "w");
    if (!out)
        abort();
    gs_error err = {0};
    wl_openb_counts n = {0};
    int rc = nodes ? wl_import_openb_nodes(in, out, NULL, &n, &err) : wl_import_openb_pods(in, out, NULL, &n, &err);
    if (fclose(out) != 0)
        abort();
    if (rc) {
        fz_check_err(rc, &err);
    } else if (nodes) {
        cJSON *j = gs_json_read(conv, "cluster", &err);
        if (!j) {
            fprintf(stderr, "fuzz: the converted cluster is not JSON the reader takes: %s\n", err.msg);
            abort();
        }
        cJSON_Delete(j);
    } else {
        fz_trace_reads(conv);
    }
    return 0;
}
