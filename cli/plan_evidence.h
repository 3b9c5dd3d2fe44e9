/* plan_evidence.h - what plan's evidence says about its answer beyond the
 * bisection: the margin probes run just above the answer, and the smallest
 * count from which every larger probed count met every term.
 *
 * Bisection alone never shows a non-monotone region: every count it runs
 * after the first success lies between the last failure and the last
 * success, so its failures all sit below its successes. A count just above
 * the answer that fails again (179 met, 183 did not: a knife-edge answer)
 * shows only if it is run; plan runs answer+1, +2, +4, ... and reports the
 * answer with its margin.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_PLAN_EVIDENCE_H
#define GPUSIM_PLAN_EVIDENCE_H

#include <stdbool.h>

#define PLAN_MARGIN_MAX 8  /* probes above the answer, at most */
#define PLAN_FAILED_MAX 64 /* failures above the answer listed, at most */

/* The margin probes: answer + 1, + 2, + 4, ... (n of them, at most
 * PLAN_MARGIN_MAX), those <= max_x. Returns how many went to xs. */
int plan_evidence_probes(long answer, long max_x, int n, long *xs);

typedef struct plan_margin {
    long stable_from;  /* smallest probed count from which every larger probed count met; 0: the largest failed */
    int nfailed_above; /* probed counts above the answer that did not meet */
    long failed_above[PLAN_FAILED_MAX]; /* ascending */
} plan_margin;

/* From the probed counts x[0..n) (any order) and whether each met, and the
 * answer (a count that met, 0: none): the margin. O(n^2); n is small. */
void plan_evidence_margin(const long *x, const bool *met, int n, long answer, plan_margin *out);

#endif
