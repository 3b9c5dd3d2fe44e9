/* fuzz_plan_slo.c - the SLO terms of `plan` and `compare` (--slo, parsed by
 * cli_batch_slo_parse) on any text: refused with a message, or terms whose
 * metric is looked up in a shipped report and judged, with the flag of an
 * implicit term, as a plan does.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/cli_batch.h"
#include "../../cli/cli_plan_terms.h"
#include "../../cli/metrics.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cJSON *rep;
    if (!rep) {
        char p[1024];
        gs_error e;
        if (!gs_exe_relative(p, sizeof p, "results/baseline/day.whole.json"))
            snprintf(p, sizeof p, "results/baseline/day.whole.json");
        if (!(rep = cli_batch_read_report(p, &e))) {
            fprintf(stderr, "fuzz: no report: %s\n", e.msg);
            abort();
        }
    }
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    cli_batch_slo *t = NULL;
    int n = 0;
    gs_error err = {0};
    int rc = cli_batch_slo_parse(text, &t, &n, &err);
    if (rc) {
        fz_check_err(rc, &err);
    } else {
        for (int i = 0; i < n; i++) {
            double v = 0;
            if (metrics_measured(rep, t[i].path, &v))
                (void)cli_batch_slo_holds(&t[i], v), (void)cli_batch_slo_worse(&t[i], v, v + 1);
            (void)plan_term_flag(t[i].path);
            (void)cli_batch_op_str(t[i].op);
        }
    }
    free(t);
    free(text);
    return 0;
}
