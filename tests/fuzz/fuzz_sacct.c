/* fuzz_sacct.c - `import sacct` on any bytes: the input as the accounting
 * beside the fixture's nodes, then as a node list (scontrol or sinfo)
 * beside the fixture's accounting. Every refusal must carry a known status
 * and a message, and every job line be accounted for.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../cli/import_gpu.h"
#include "../../workloads/wl_import_slurm.h"
#include "fuzz_util.h"

static void one(const char *nodes, const char *acct)
{
    import_gpu g;
    import_gpu_init(&g, fz_catalog());
    char why[256];
    if (!import_gpu_map(&g, "h100=H100-SXM5-80GB", why, sizeof why))
        abort();
    wl_gpu_names names = import_gpu_names(&g);
    wl_sacct_opts o = {.nodes = nodes, .sort_lines = 16, .names = &names};
    wl_sacct_counts n;
    gs_error err = {0};
    wl_slurm *s = wl_slurm_new(&o, NULL, &n, &err);
    if (!s) {
        fz_check_err(GS_EINPUT, &err);
        return;
    }
    FILE *out = fopen("/dev/null", "w");
    int rc = wl_slurm_write_trace(s, acct, out, &err);
    if (rc == 0)
        rc = wl_slurm_write_cluster(s, out, &err);
    if (rc)
        fz_check_err(rc, &err);
    else if (n.rows_in != n.converted + n.skipped)
        abort();
    fclose(out);
    wl_slurm_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "input.txt");
    one("tests/fixtures/slurm/nodes-scontrol.txt", p);
    one(p, "tests/fixtures/slurm/sacct.txt");
    return 0;
}
