/* fuzz_sweep_manifest.c - the sweep manifest reader (cli_sweep_manifest.c)
 * on any bytes: every line read (its numbers range-checked before any
 * cast) or refused with a message at its line; for a manifest it reads,
 * each run's state and directory, and the index list of the runs not done.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../cli/cli_sweep.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "manifest.jsonl");
    sw_manifest m;
    gs_error err = {0};
    int rc = sw_manifest_read(&m, p, &err);
    if (rc) {
        fz_check_err(rc, &err);
        return 0;
    }
    bool *want = calloc((size_t)m.n + 1, sizeof *want);
    for (int i = 0; i < m.n; i++) {
        char why[256], dir[1300];
        want[i] = sw_state_of(&m, i, why, sizeof why) != SW_DONE;
        sw_run_dir(&m, i, dir, sizeof dir);
    }
    free(sw_index_list(want, m.n));
    free(want);
    sw_manifest_free(&m);
    return 0;
}
