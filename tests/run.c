/* run.c - the unit and validation test runner: runs every case of every
 * table (or those whose name contains argv[1]), prints [ok]/[FAIL] per case
 * and ends with "N passed, N failed"; exits 1 on any failure.
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "testutil.h"

int check_failures;

extern const test_case tests_event[], tests_sketch[], tests_trace[], tests_cluster[], tests_models[],
    tests_whole[], tests_erlang[], tests_determinism[], tests_service[];
extern const test_case tests_share[];                   /* issue 3: vgpu, timeslice */
extern const test_case tests_plan[];                    /* issue 6: plan vs Erlang C */
extern const test_case tests_hibernate[];               /* issue 8: agent sessions */
extern const test_case tests_mig_layout[], tests_mig[]; /* issue 4: MIG */
extern const test_case tests_preempt[];                 /* issue 10: priorities, quotas, preemption */
extern const test_case tests_preempt_share[];           /* issue 10: the same under vgpu, timeslice, MIG */
extern const test_case tests_select[];                  /* issue 7: gpu_select strategies, fragmentation, fill-up */
extern const test_case tests_dualpod[];                 /* issue 9: dual-pod actuation */
extern const test_case tests_sweep[];                   /* sweep: run ids (SHA-256), spec positions */

static const test_case *const tables[] = {
    tests_event, tests_sketch, tests_trace, tests_cluster, tests_models, tests_whole, tests_erlang,
    tests_determinism, tests_share, tests_service, tests_plan, tests_hibernate, tests_mig_layout, tests_mig,
    tests_preempt, tests_preempt_share, tests_select, tests_dualpod, tests_sweep, NULL,
};

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int passed = 0, failed = 0;
    for (int t = 0; tables[t]; t++) {
        for (const test_case *c = tables[t]; c->name; c++) {
            if (argc > 1 && !strstr(c->name, argv[1]))
                continue;
            check_failures = 0;
            c->fn();
            if (check_failures) {
                failed++;
                printf("[FAIL] %s\n", c->name);
            } else {
                passed++;
                printf("[ok]   %s\n", c->name);
            }
            fflush(stdout);
        }
    }
    tu_catalog_free();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
