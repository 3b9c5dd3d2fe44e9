/* test_mig_layout.c - the MIG placement engine (policies/mig_layout.c)
 * against the reference tables of reference/gpu-models.md (copied
 * below so the test needs nothing outside the repository), the seed
 * article's fragmentation example, the start-choice strategies, and a
 * randomized create/destroy run checked against an independent slice map.
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_rng.h>
#include <string.h>

#include "../policies/mig_layout.h"
#include "../base/gs_param.h"
#include "check.h"
#include "testutil.h"

typedef struct ref_profile {
    const char *model, *name;
    int compute, size;
    int64_t mib;
    int max, nplace;
    int place[8];
} ref_profile;

/* From reference/gpu-models.json (compiled 2026-11-29). */
static const ref_profile ref[] = {
    {"A100-SXM4-40GB", "1g.5gb", 1, 1, 4864, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"A100-SXM4-40GB", "1g.5gb+me", 1, 1, 4864, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"A100-SXM4-40GB", "1g.10gb", 1, 2, 9856, 4, 4, {0, 2, 4, 6}},
    {"A100-SXM4-40GB", "2g.10gb", 2, 2, 9856, 3, 3, {0, 2, 4}},
    {"A100-SXM4-40GB", "3g.20gb", 3, 4, 19968, 2, 2, {0, 4}},
    {"A100-SXM4-40GB", "4g.20gb", 4, 4, 19968, 1, 1, {0}},
    {"A100-SXM4-40GB", "7g.40gb", 7, 8, 40192, 1, 1, {0}},
    {"A100-SXM4-80GB", "1g.10gb", 1, 1, 9728, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"A100-SXM4-80GB", "1g.10gb+me", 1, 1, 9728, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"A100-SXM4-80GB", "1g.20gb", 1, 2, 19968, 4, 4, {0, 2, 4, 6}},
    {"A100-SXM4-80GB", "2g.20gb", 2, 2, 19968, 3, 3, {0, 2, 4}},
    {"A100-SXM4-80GB", "3g.40gb", 3, 4, 40192, 2, 2, {0, 4}},
    {"A100-SXM4-80GB", "4g.40gb", 4, 4, 40192, 1, 1, {0}},
    {"A100-SXM4-80GB", "7g.80gb", 7, 8, 80896, 1, 1, {0}},
    {"A30-24GB", "1g.6gb", 1, 1, 5952, 4, 4, {0, 1, 2, 3}},
    {"A30-24GB", "1g.6gb+me", 1, 1, 5952, 1, 4, {0, 1, 2, 3}},
    {"A30-24GB", "2g.12gb", 2, 2, 11968, 2, 2, {0, 2}},
    {"A30-24GB", "2g.12gb+me", 2, 2, 11968, 1, 2, {0, 2}},
    {"A30-24GB", "4g.24gb", 4, 4, 24000, 1, 1, {0}},
    {"B200-180GB", "1g.23gb", 1, 1, 20992, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"B200-180GB", "1g.23gb+me", 1, 1, 20992, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"B200-180GB", "1g.45gb", 1, 2, 45312, 4, 4, {0, 2, 4, 6}},
    {"B200-180GB", "2g.45gb", 2, 2, 45312, 3, 3, {0, 2, 4}},
    {"B200-180GB", "3g.90gb", 3, 4, 90624, 2, 2, {0, 4}},
    {"B200-180GB", "4g.90gb", 4, 4, 90624, 1, 1, {0}},
    {"B200-180GB", "7g.180gb", 7, 8, 181248, 1, 1, {0}},
    {"GH200-144GB", "1g.18gb", 1, 1, 17920, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"GH200-144GB", "1g.18gb+me", 1, 1, 17920, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"GH200-144GB", "1g.36gb", 1, 2, 36096, 4, 4, {0, 2, 4, 6}},
    {"GH200-144GB", "2g.36gb", 2, 2, 36096, 3, 3, {0, 2, 4}},
    {"GH200-144GB", "3g.72gb", 3, 4, 71680, 2, 2, {0, 4}},
    {"GH200-144GB", "4g.72gb", 4, 4, 71680, 1, 1, {0}},
    {"GH200-144GB", "7g.144gb", 7, 8, 143360, 1, 1, {0}},
    {"GH200-96GB", "1g.12gb", 1, 1, 12288, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"GH200-96GB", "1g.12gb+me", 1, 1, 12288, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"GH200-96GB", "1g.24gb", 1, 2, 24576, 4, 4, {0, 2, 4, 6}},
    {"GH200-96GB", "2g.24gb", 2, 2, 24576, 3, 3, {0, 2, 4}},
    {"GH200-96GB", "3g.48gb", 3, 4, 49152, 2, 2, {0, 4}},
    {"GH200-96GB", "4g.48gb", 4, 4, 49152, 1, 1, {0}},
    {"GH200-96GB", "7g.96gb", 7, 8, 97871, 1, 1, {0}},
    {"H100-NVL-94GB", "1g.12gb", 1, 1, 11008, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"H100-NVL-94GB", "1g.12gb+me", 1, 1, 11008, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"H100-NVL-94GB", "1g.24gb", 1, 2, 22144, 4, 4, {0, 2, 4, 6}},
    {"H100-NVL-94GB", "2g.24gb", 2, 2, 22144, 3, 3, {0, 2, 4}},
    {"H100-NVL-94GB", "3g.47gb", 3, 4, 47488, 2, 2, {0, 4}},
    {"H100-NVL-94GB", "4g.47gb", 4, 4, 47488, 1, 1, {0}},
    {"H100-NVL-94GB", "7g.94gb", 7, 8, 95360, 1, 1, {0}},
    {"H100-SXM5-80GB", "1g.10gb", 1, 1, 9984, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"H100-SXM5-80GB", "1g.10gb+me", 1, 1, 9984, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"H100-SXM5-80GB", "1g.20gb", 1, 2, 20096, 4, 4, {0, 2, 4, 6}},
    {"H100-SXM5-80GB", "2g.20gb", 2, 2, 20096, 3, 3, {0, 2, 4}},
    {"H100-SXM5-80GB", "3g.40gb", 3, 4, 40448, 2, 2, {0, 4}},
    {"H100-SXM5-80GB", "4g.40gb", 4, 4, 40448, 1, 1, {0}},
    {"H100-SXM5-80GB", "7g.80gb", 7, 8, 81152, 1, 1, {0}},
    {"H200-SXM5-141GB", "1g.18gb", 1, 1, 16384, 7, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"H200-SXM5-141GB", "1g.18gb+me", 1, 1, 16384, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"H200-SXM5-141GB", "1g.35gb", 1, 2, 33024, 4, 4, {0, 2, 4, 6}},
    {"H200-SXM5-141GB", "2g.35gb", 2, 2, 33024, 3, 3, {0, 2, 4}},
    {"H200-SXM5-141GB", "3g.71gb", 3, 4, 71168, 2, 2, {0, 4}},
    {"H200-SXM5-141GB", "4g.71gb", 4, 4, 71168, 1, 1, {0}},
    {"H200-SXM5-141GB", "7g.141gb", 7, 8, 143104, 1, 1, {0}},
    {NULL, NULL, 0, 0, 0, 0, 0, {0}},
};

/* Every MIG model's table as loaded equals the reference, and the engine
 * accepts exactly the legal starts on an empty card. */
static void placements_match_reference(void)
{
    const gpu_catalog *cat = tu_catalog();
    int nmodels = 0, nprof = 0;
    for (int i = 0; ref[i].model; i++) {
        const gpu_model *m = gpu_catalog_find(cat, ref[i].model);
        CHECK(m && m->mig);
        if (!m || !m->mig)
            continue;
        if (i == 0 || strcmp(ref[i - 1].model, ref[i].model))
            nmodels++;
        int p = mig_profile_find(m->mig, ref[i].name);
        CHECK(p >= 0);
        if (p < 0)
            continue;
        nprof++;
        const mig_profile *pr = &m->mig->profiles[p];
        CHECK_EQ_INT(pr->compute_slices, ref[i].compute);
        CHECK_EQ_INT(pr->size, ref[i].size);
        CHECK_EQ_INT(pr->memory_mib, ref[i].mib);
        CHECK_EQ_INT(pr->max_instances, ref[i].max);
        CHECK_EQ_INT(pr->nplacements, ref[i].nplace);
        mig_card c;
        mig_card_init(&c, m->mig);
        for (int s = 0; s < MIG_MAX_SLICES; s++) {
            bool legal = false;
            for (int k = 0; k < ref[i].nplace; k++)
                legal |= ref[i].place[k] == s;
            if (mig_can_place(&c, p, s) != legal) {
                fprintf(stderr, "    %s %s start %d: engine says %d\n", ref[i].model, ref[i].name, s, !legal);
                check_failures++;
            }
        }
        int st[MIG_MAX_SLICES];
        CHECK_EQ_INT(mig_free_starts(&c, p, st), ref[i].nplace);
    }
    CHECK_EQ_INT(nmodels, 9);
    CHECK_EQ_INT(nprof, 61); /* A30 has 5 profiles, the other eight 7 each */
    /* and the catalog holds no MIG model the reference lacks */
    int mig_models = 0;
    for (int i = 0; i < cat->n; i++)
        mig_models += cat->models[i].mig != NULL;
    CHECK_EQ_INT(mig_models, 9);
}

static const mig_table *a100_40(void) { return gpu_catalog_find(tu_catalog(), "A100-SXM4-40GB")->mig; }

/* gpu-models.md worked example: 2g.10gb at 0 + 1g.5gb at 4 leave 5 memory
 * slices and 4 compute slices free, yet no 3g.20gb can be created. */
static void a100_fragmentation_example(void)
{
    const mig_table *t = a100_40();
    int p2g = mig_profile_find(t, "2g.10gb"), p1g = mig_profile_find(t, "1g.5gb"),
        p3g = mig_profile_find(t, "3g.20gb");
    mig_card c;
    mig_card_init(&c, t);
    mig_place(&c, p2g, 0);
    mig_place(&c, p1g, 4);
    CHECK_EQ_INT(c.used_mask, 0x13); /* slices {0,1,4} */
    CHECK_EQ_INT(mig_free_slices(&c), 5);
    CHECK_EQ_INT(mig_free_compute(&c), 4);
    CHECK(!mig_can_place(&c, p3g, 0));
    CHECK(!mig_can_place(&c, p3g, 4));
    CHECK(!mig_creatable(&c, p3g));
    CHECK(mig_blocked_by_layout(&c, p3g));
    CHECK_EQ_INT(mig_choose_start(&c, p3g, MIG_FIRST, NULL), -1);
    /* moving the 1g.5gb to slice 2 frees start 4 */
    mig_remove(&c, p1g, 4);
    mig_place(&c, p1g, 2);
    CHECK(mig_can_place(&c, p3g, 4));
    CHECK(!mig_blocked_by_layout(&c, p3g));
    /* the guide's working layouts */
    mig_card g;
    mig_card_init(&g, t);
    mig_place(&g, p3g, 4);
    mig_place(&g, p2g, 2);
    mig_place(&g, p1g, 0);
    mig_place(&g, p1g, 1);
    CHECK_EQ_INT(g.used_compute, 7);
    CHECK_EQ_INT(g.used_mask, 0xff);
    mig_card_init(&g, t);
    mig_place(&g, p2g, 4);
    for (int s = 0; s < 4; s++)
        mig_place(&g, p1g, s);
    mig_place(&g, p1g, 6);
    CHECK_EQ_INT(g.used_compute, 7);
    CHECK(!mig_can_place(&g, p1g, 5)); /* occupied by the 2g at 4 */
    /* not blocked by layout when simply full */
    CHECK(!mig_blocked_by_layout(&g, p3g));
}

/* The strategies on the example's sequence: a 2g.10gb, then a 1g.5gb, then
 * a 3g.20gb. first (HAMi) puts the 2g at 0 and the 1g at the highest free
 * start, 6, which blocks the 3g. bestfit puts the 2g at 4 (keeping the
 * 4g.20gb at 0 creatable) and the 1g at 6, so the 3g fits at 0. demand, told
 * that only 3g.20gb is asked for, puts the 2g at 0 (all starts tie: one 3g
 * start left each) and the 1g at 2, keeping the 3g at 4. */
static void strategies_on_example(void)
{
    const mig_table *t = a100_40();
    int p2g = mig_profile_find(t, "2g.10gb"), p1g = mig_profile_find(t, "1g.5gb"),
        p3g = mig_profile_find(t, "3g.20gb"), p1g10 = mig_profile_find(t, "1g.10gb");
    double w[MIG_MAX_PROFILES] = {0};
    w[p3g] = 1; /* the demand seen: 3g.20gb only */
    const mig_strategy sts[] = {MIG_FIRST, MIG_BESTFIT, MIG_DEMAND};
    const int want_2g[] = {0, 4, 0}, want_1g[] = {6, 6, 2};
    for (int k = 0; k < 3; k++) {
        mig_card c;
        mig_card_init(&c, t);
        int s2 = mig_choose_start(&c, p2g, sts[k], w);
        CHECK_EQ_INT(s2, want_2g[k]);
        mig_place(&c, p2g, s2);
        int s1 = mig_choose_start(&c, p1g, sts[k], w);
        CHECK_EQ_INT(s1, want_1g[k]);
        mig_place(&c, p1g, s1);
        CHECK_EQ_INT(mig_creatable(&c, p3g), sts[k] != MIG_FIRST);
        CHECK_EQ_INT(mig_blocked_by_layout(&c, p3g), sts[k] == MIG_FIRST);
    }
    /* first: a 1g.10gb on an empty card goes to the highest start (6), a
     * 2g.10gb to the lowest (0); 3g.20gb to 4 */
    mig_card e;
    mig_card_init(&e, t);
    CHECK_EQ_INT(mig_choose_start(&e, p1g10, MIG_FIRST, NULL), 6);
    CHECK_EQ_INT(mig_choose_start(&e, p3g, MIG_FIRST, NULL), 4);
    CHECK_EQ_INT(mig_choose_start(&e, p2g, MIG_FIRST, NULL), 0);
    /* bestfit: a 3g.20gb at 0 leaves a 4g.20gb impossible (4g only at 0) but
     * at 4 keeps it: size 4 creatable either way, so more free starts decide */
    CHECK_EQ_INT(mig_choose_start(&e, p3g, MIG_BESTFIT, NULL), 4);
    /* dynmig's strategy parameter names the enum in its order */
    const gs_param_spec sp = {GS_P_ENUM, 0, 0, NULL, MIG_STRATEGY_CHOICES};
    gs_param_value v;
    gs_error err;
    CHECK_EQ_INT(gs_param_parse("strategy", "first", &sp, &v, &err), 0);
    CHECK_EQ_INT(v.choice, MIG_FIRST);
    CHECK_EQ_INT(gs_param_parse("strategy", "bestfit", &sp, &v, &err), 0);
    CHECK_EQ_INT(v.choice, MIG_BESTFIT);
    CHECK_EQ_INT(gs_param_parse("strategy", "demand", &sp, &v, &err), 0);
    CHECK_EQ_INT(v.choice, MIG_DEMAND);
    CHECK_EQ_INT(gs_param_parse("strategy", "worst", &sp, &v, &err), GS_EUSAGE);
}

/* Thousands of random creates (random profile, random free legal start or a
 * strategy's choice) and destroys on every MIG model, checked against an
 * independent map of which instance owns each slice. */
static void randomized_create_destroy(void)
{
    const gpu_catalog *cat = tu_catalog();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 4242);
    long creates = 0, destroys = 0, refused = 0;
    for (int mi = 0; mi < cat->n; mi++) {
        const mig_table *t = cat->models[mi].mig;
        if (!t)
            continue;
        mig_card c;
        mig_card_init(&c, t);
        int owner[MIG_MAX_SLICES];
        for (int s = 0; s < MIG_MAX_SLICES; s++)
            owner[s] = -1;
        struct { int p, start; } inst[MIG_MAX_SLICES];
        int ninst = 0;
        for (int op = 0; op < 1500; op++) {
            if (ninst > 0 && gsl_rng_uniform(r) < 0.4) {
                int k = (int)gsl_rng_uniform_int(r, (unsigned long)ninst);
                mig_remove(&c, inst[k].p, inst[k].start);
                for (int s = 0; s < MIG_MAX_SLICES; s++)
                    if (owner[s] == inst[k].p * 16 + inst[k].start)
                        owner[s] = -1;
                inst[k] = inst[--ninst];
                destroys++;
                continue;
            }
            int p = (int)gsl_rng_uniform_int(r, (unsigned long)t->nprofiles);
            const mig_profile *pr = &t->profiles[p];
            /* the independent answer: some legal start whose slices are free */
            int cnt = 0, used_c = 0;
            for (int k = 0; k < ninst; k++) {
                cnt += inst[k].p == p;
                used_c += t->profiles[inst[k].p].compute_slices;
            }
            bool any = false;
            for (int k = 0; k < pr->nplacements; k++) {
                bool free_ = true;
                for (int s = pr->placements[k]; s < pr->placements[k] + pr->size; s++)
                    free_ &= owner[s] < 0;
                any |= free_;
            }
            bool expect = any && cnt < pr->max_instances && used_c + pr->compute_slices <= t->compute_slices;
            int start = mig_choose_start(&c, p, (mig_strategy)(op % 3), NULL);
            if (op % 3 == MIG_DEMAND) { /* demand with no weights: fall back to a random free start */
                int st[MIG_MAX_SLICES];
                int n = mig_free_starts(&c, p, st);
                start = n ? st[gsl_rng_uniform_int(r, (unsigned long)n)] : -1;
            }
            CHECK_EQ_INT(start >= 0, expect);
            if (start < 0) {
                refused++;
                continue;
            }
            bool legal = false;
            for (int k = 0; k < pr->nplacements; k++)
                legal |= pr->placements[k] == start;
            CHECK(legal);
            for (int s = start; s < start + pr->size; s++) {
                CHECK_EQ_INT(owner[s], -1); /* never overlap */
                owner[s] = p * 16 + start;
            }
            CHECK(start + pr->size <= t->memory_slices);
            mig_place(&c, p, start);
            inst[ninst].p = p;
            inst[ninst++].start = start;
            creates++;
            CHECK(c.used_compute <= t->compute_slices);
            for (int q = 0; q < t->nprofiles; q++)
                CHECK(c.count[q] <= t->profiles[q].max_instances);
            uint32_t mask = 0;
            for (int s = 0; s < MIG_MAX_SLICES; s++)
                mask |= (uint32_t)(owner[s] >= 0) << s;
            CHECK_EQ_INT(c.used_mask, mask);
        }
        while (ninst > 0) {
            ninst--;
            mig_remove(&c, inst[ninst].p, inst[ninst].start);
            destroys++;
        }
        CHECK_EQ_INT(c.used_mask, 0); /* everything freed */
        CHECK_EQ_INT(c.used_compute, 0);
        for (int q = 0; q < t->nprofiles; q++)
            CHECK_EQ_INT(c.count[q], 0);
    }
    gsl_rng_free(r);
    CHECK(creates > 3000 && destroys == creates && refused > 1000);
}

const test_case tests_mig_layout[] = {
    {"mig_layout/placements_match_reference", placements_match_reference},
    {"mig_layout/a100_fragmentation_example", a100_fragmentation_example},
    {"mig_layout/strategies_on_example", strategies_on_example},
    {"mig_layout/randomized_create_destroy", randomized_create_destroy},
    {NULL, NULL},
};
