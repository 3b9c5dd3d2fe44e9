/* fuzz_cluster.c - the cluster file loader (sim/sim_cluster*.c, with tenant
 * quotas) on any bytes.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "../../sim/sim_cluster_file.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gpu_catalog *cat = fz_catalog();
    const char *p = fz_write(data, size, "cluster.json");
    sim_cluster c;
    gs_error err = {0};
    int rc = sim_cluster_load(&c, p, cat, &err);
    if (rc) {
        fz_check_err(rc, &err);
        return 0;
    }
    if (c.ngpus < 0 || c.nnodes < 1)
        abort(); /* a loaded cluster has nodes and a sane GPU total */
    sim_cluster_free(&c);
    return 0;
}
