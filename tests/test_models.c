/* test_models.c - GPU catalog: the shipped files load and match the
 * reference; bad files are clear errors.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../models/gpu/gpu_model.h"
#include "check.h"
#include "testutil.h"

static void shipped_catalog(void)
{
    const gpu_catalog *cat = tu_catalog();
    CHECK_EQ_INT(cat->n, 19); /* 13 from the reference + 6 for openb */
    const gpu_model *a = gpu_catalog_find(cat, "a100-40gb"); /* alias, any case */
    CHECK(a && strcmp(a->name, "A100-SXM4-40GB") == 0);
    CHECK(a && a->mig); /* losing the A100's MIG table is a failure, not a pass */
    if (!a || !a->mig)
        return;
    CHECK_EQ_INT(a->memory_mib, 40960);
    CHECK_EQ_INT(a->sms, 108);
    CHECK_NEAR(a->price_per_hour_usd, 2.745, 1e-9, 0);
    CHECK_EQ_INT(a->mig->memory_slices, 8);
    const mig_profile *p3 = NULL;
    for (int i = 0; i < a->mig->nprofiles; i++)
        if (!strcmp(a->mig->profiles[i].name, "3g.20gb"))
            p3 = &a->mig->profiles[i];
    CHECK(p3 && p3->size == 4 && p3->nplacements == 2 && p3->placements[0] == 0 && p3->placements[1] == 4);
    const gpu_model *h = gpu_catalog_find(cat, "H200-SXM5-141GB");
    CHECK(h && h->memory_mib == 143771 && h->host_link_gbps_per_dir == 64);
    const gpu_model *l4 = gpu_catalog_find(cat, "L4-24GB");
    CHECK(l4 && l4->mig == NULL && strstr(l4->unverified, "sms"));
    CHECK(gpu_catalog_find(cat, "V100") == NULL);
    /* speed figures as the reference gives them (NVIDIA datasheets) */
    const gpu_model *h100 = gpu_catalog_find(cat, "H100-SXM5-80GB"), *a80 = gpu_catalog_find(cat, "A100-80GB");
    CHECK(h100 && h100->tensor_tflops == 989.4 && h100->mem_bw_gbps == 3350);
    CHECK(a80 && a80->tensor_tflops == 312 && a80->mem_bw_gbps == 2039);
    CHECK(a && a->mem_bw_gbps == 1555);
    const gpu_model *t4 = gpu_catalog_find(cat, "T4"), *nvl = gpu_catalog_find(cat, "H100-NVL-94GB");
    CHECK(t4 && t4->tensor_tflops == 65 && gpu_model_unverified(t4, "mem_bw_gbps")); /* FP16: no BF16 */
    CHECK(nvl && gpu_model_unverified(nvl, "tensor_tflops") && gpu_model_unverified(nvl, "mem_bw_gbps"));
    CHECK(h100 && !gpu_model_unverified(h100, "mem_bw_gbps") && !gpu_model_unverified(h100, "mem"));
    for (int i = 0; i < cat->n; i++) /* every shipped card has both figures (estimates are marked) */
        CHECK(cat->models[i].tensor_tflops > 0 && cat->models[i].mem_bw_gbps > 0);
}

static void bad_model_file(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/models", tu_tmp_dir());
    CHECK(mkdir(dir, 0700) == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/X.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"name\":\"X\",\"memory_mib\":1000,\"sms\":10,\"host_link\":{\"gbps_per_dir\":16},"
          "\"mig\":{\"memory_slices\":8,\"compute_slices\":7,\"profiles\":[{\"name\":\"4g\",\"compute_slices\":4,"
          "\"size\":4,\"memory_mib\":500,\"max_instances\":1,\"placements\":[6]}]}}",
          f);
    fclose(f);
    gpu_catalog cat;
    gs_error err;
    CHECK_EQ_INT(gpu_catalog_load(&cat, dir, &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "X.json");
    CHECK_STR_HAS(err.msg, "placement start must lie in 0..4");
    f = fopen(path, "w");
    fputs("{\"name\":\"X\",\"memory_mib\":-5}", f);
    fclose(f);
    CHECK_EQ_INT(gpu_catalog_load(&cat, dir, &err), GS_EINPUT);
    CHECK_STR_HAS(err.msg, "field 'memory_mib'");
    unlink(path);
    rmdir(dir);
}

const test_case tests_models[] = {
    {"models/shipped_catalog_matches_reference", shipped_catalog},
    {"models/bad_file_is_clear_error", bad_model_file},
    {NULL, NULL},
};
