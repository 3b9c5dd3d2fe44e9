/* tables.c - every table of test cases the runner runs, in order.
 * Add a test file: export `const test_case tests_<topic>[]` from
 * tests/test_<topic>.c and list it here.
 * SPDX-License-Identifier: MIT */
#include "check.h"
#include "testutil.h"

extern const test_case tests_event[], tests_sketch[], tests_trace[], tests_cluster[], tests_models[],
    tests_whole[], tests_erlang[], tests_determinism[], tests_service[], tests_share[], tests_plan[],
    tests_hibernate[], tests_mig_layout[], tests_mig[], tests_mig_index[], tests_preempt[], tests_preempt_share[], tests_select[],
    tests_dualpod[], tests_ranges[], tests_prefix_cache[], tests_prefix_service[], tests_owner[], tests_paper[],
    tests_plan_cluster[], tests_json[], tests_timeseries[], tests_param[], tests_mps[], tests_load_follow[], tests_hw[],
    tests_svc_hw[], tests_residency[], tests_svc_rows[],
    tests_sweep[], /* sweep: run ids (SHA-256), spec positions */
    tests_queue_index[], tests_job_mem[], tests_fit_index[], tests_svc_route[], tests_preempt_index[],
    tests_share_mem[], tests_num[], tests_import_k8s[], tests_import_slurm[];

const test_case *const test_tables[] = {
    tests_event,     tests_sketch,     tests_trace,   tests_cluster,       tests_models,   tests_whole,
    tests_erlang,    tests_determinism, tests_share,  tests_service,       tests_plan,     tests_hibernate,
    tests_mig_layout, tests_mig, tests_mig_index,     tests_preempt, tests_preempt_share, tests_select,   tests_dualpod, tests_ranges,
    tests_prefix_cache, tests_prefix_service, tests_owner, tests_paper, tests_plan_cluster, tests_json, tests_timeseries,
    tests_param,     tests_mps,        tests_load_follow, tests_hw, tests_svc_hw, tests_residency, tests_svc_rows, tests_sweep,
    tests_queue_index, tests_job_mem, tests_fit_index, tests_svc_route, tests_preempt_index,
    tests_share_mem, tests_num, tests_import_k8s, tests_import_slurm,
    NULL,
};

void test_cleanup(void)
{
    tu_catalog_free();
    tu_tmp_cleanup();
}
