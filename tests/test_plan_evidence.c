/* test_plan_evidence.c - plan's margin (cli/plan_evidence.h) by hand: the
 * probes above an answer, the fewest cards from which every probed count
 * met, and the failures above the answer that flag a non-monotone region.
 * SPDX-License-Identifier: MIT */
#include "../cli/plan_evidence.h"
#include "check.h"

static void probes(void)
{
    long xs[PLAN_MARGIN_MAX];
    CHECK_EQ_INT(plan_evidence_probes(179, 65536, 4, xs), 4);
    CHECK(xs[0] == 180 && xs[1] == 181 && xs[2] == 183 && xs[3] == 187);
    CHECK_EQ_INT(plan_evidence_probes(60, 62, 4, xs), 2); /* not past --max-gpus */
    CHECK(xs[0] == 61 && xs[1] == 62);
    CHECK_EQ_INT(plan_evidence_probes(0, 100, 4, xs), 0); /* no answer, no margin */
    CHECK_EQ_INT(plan_evidence_probes(10, 100, 0, xs), 0);
    CHECK_EQ_INT(plan_evidence_probes(10, 100000, 99, xs), PLAN_MARGIN_MAX);
    CHECK(xs[PLAN_MARGIN_MAX - 1] == 10 + 128);
}

static void margins(void)
{
    plan_margin m;
    /* monotone: the doubling 64 (no), 128 (yes), bisection 96 yes 80 no 88 yes 84 no 86 yes 85 yes;
     * probes 86 87 89 93 all yes: stable from the answer */
    static const long x1[] = {64, 128, 96, 80, 88, 84, 86, 85, 87, 89, 93};
    static const bool m1[] = {false, true, true, false, true, false, true, true, true, true, true};
    plan_evidence_margin(x1, m1, 11, 85, &m);
    CHECK_EQ_INT(m.stable_from, 85);
    CHECK_EQ_INT(m.nfailed_above, 0);
    /* the knife edge: 179 met, 183 failed, 187 and the rest met */
    static const long x2[] = {128, 256, 192, 160, 176, 184, 180, 178, 179, 181, 183, 187};
    static const bool m2[] = {false, true, true, false, false, true, true, false, true, true, false, true};
    plan_evidence_margin(x2, m2, 12, 179, &m);
    CHECK_EQ_INT(m.stable_from, 184);
    CHECK_EQ_INT(m.nfailed_above, 1);
    CHECK_EQ_INT(m.failed_above[0], 183);
    /* a window (queue from 8, utilization up to 10): the largest probe fails, nothing is stable */
    static const long x3[] = {1, 2, 4, 8, 6, 7, 9, 10, 12, 16};
    static const bool m3[] = {false, false, false, true, false, false, true, true, false, false};
    plan_evidence_margin(x3, m3, 10, 8, &m);
    CHECK_EQ_INT(m.stable_from, 0);
    CHECK_EQ_INT(m.nfailed_above, 2);
    CHECK(m.failed_above[0] == 12 && m.failed_above[1] == 16); /* ascending */
    /* no answer: nothing above it to list */
    static const bool m4[] = {false, false, false};
    plan_evidence_margin(x3, m4, 3, 0, &m);
    CHECK_EQ_INT(m.stable_from, 0);
    CHECK_EQ_INT(m.nfailed_above, 0);
}

const test_case tests_plan_evidence[] = {
    {"plan_evidence/probes_above_the_answer", probes},
    {"plan_evidence/margin_and_non_monotone_region", margins},
    {NULL, NULL},
};
