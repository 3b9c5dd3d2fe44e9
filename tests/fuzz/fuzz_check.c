/* fuzz_check.c - `gpusim check` with any bytes as the baseline against a
 * shipped report (results/baseline/day.whole.json): a verdict (exit 0 or 1)
 * or a refusal with a message (a metric stored as a string, a document
 * that is not a report), never a crash or another exit code.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../../cli/cli.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char now[1024];
    if (!now[0] && !gs_exe_relative(now, sizeof now, "results/baseline/day.whole.json"))
        snprintf(now, sizeof now, "results/baseline/day.whole.json");
    char base[700];
    snprintf(base, sizeof base, "%s", fz_write(data, size, "baseline.json"));
    const char *argv[] = {"check", now, "--baseline", base, "--tolerance", "default=0.01"};
    fz_command(cmd_check, 6, argv);
    return 0;
}
