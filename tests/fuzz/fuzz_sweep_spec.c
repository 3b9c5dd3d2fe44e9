/* fuzz_sweep_spec.c - `gpusim sweep init` on any spec: it writes the
 * manifest or refuses with a message at the spec's line and column (its
 * checks of every cluster and policy entry included: cli_sweep_check.c).
 * The spec's trace is a small file beside it. Specs asking more than 200
 * runs are skipped: their size is large by design, not a bug.
 * SPDX-License-Identifier: MIT */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../cli/cli_sweep.h"
#include "fuzz_util.h"

/* The runs a spec asks for, as far as its shape says (a bound, not a parse). */
static double runs_of(const uint8_t *data, size_t size)
{
    cJSON *j = cJSON_ParseWithLength((const char *)data, size);
    double n = 1;
    static const char *const axes[] = {"traces", "clusters", "policies", "seeds"};
    for (int i = 0; i < 4 && j; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, axes[i]);
        n *= cJSON_IsArray(a) ? cJSON_GetArraySize(a) : cJSON_IsNumber(a) ? a->valuedouble : 1;
    }
    cJSON_Delete(j);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (runs_of(data, size) > 200)
        return 0;
    static const char trace[] = "id,submit,duration,gpus\nj1,0,10,1\nj2,5,10,2\n";
    fz_write((const uint8_t *)trace, sizeof trace - 1, "t.csv");
    char spec[700], out[700];
    snprintf(spec, sizeof spec, "%s", fz_write(data, size, "spec.json"));
    snprintf(out, sizeof out, "%s/sweep", fz_dir());
    const char *argv[] = {"init", spec, "--out", out};
    fz_command(sw_cmd_init, 4, argv);
    return 0;
}
