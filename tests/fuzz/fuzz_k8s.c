/* fuzz_k8s.c - `import k8s` on any bytes: the input as a pod List beside
 * the fixture's nodes, then as a node List beside the fixture's pods (the
 * streamed List reader, the node and pod mappings, the sort). Every refusal
 * must carry a known status and a message.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../cli/import_gpu.h"
#include "../../workloads/wl_import_k8s.h"
#include "fuzz_util.h"

static void one(const char *nodes, const char *pods)
{
    import_gpu g;
    import_gpu_init(&g, fz_catalog());
    wl_gpu_names names = import_gpu_names(&g);
    wl_k8s_opts o = {.nodes = nodes, .npods = 1, .sort_lines = 16, .names = &names,
                     .priority_classes = "tests/fixtures/k8s/priorityclasses.json"};
    o.pods[0] = pods;
    wl_k8s_counts n;
    gs_error err = {0};
    wl_k8s *k = wl_k8s_new(&o, NULL, &n, &err);
    if (!k) {
        fz_check_err(GS_EINPUT, &err);
        return;
    }
    FILE *out = fopen("/dev/null", "w");
    int rc = wl_k8s_write_trace(k, out, &err);
    if (rc == 0)
        rc = wl_k8s_write_cluster(k, out, &err);
    if (rc)
        fz_check_err(rc, &err);
    else if (n.pods != n.converted + n.skipped + n.replicas)
        abort(); /* every pod accounted for */
    fclose(out);
    wl_k8s_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "list.json");
    one("tests/fixtures/k8s/nodes.json", p);
    one(p, "tests/fixtures/k8s/pods.json");
    return 0;
}
