/* plan_evidence.c - see plan_evidence.h.
 * SPDX-License-Identifier: MIT */
#include "plan_evidence.h"

int plan_evidence_probes(long answer, long max_x, int n, long *xs)
{
    int k = 0;
    if (n > PLAN_MARGIN_MAX)
        n = PLAN_MARGIN_MAX;
    for (long step = 1; k < n && answer > 0 && answer <= max_x - step; step *= 2)
        xs[k++] = answer + step;
    return k;
}

void plan_evidence_margin(const long *x, const bool *met, int n, long answer, plan_margin *out)
{
    out->stable_from = 0;
    out->nfailed_above = 0;
    long top_fail = -1; /* the largest count that failed */
    for (int i = 0; i < n; i++)
        if (!met[i] && x[i] > top_fail)
            top_fail = x[i];
    for (int i = 0; i < n; i++) /* the smallest met count above every failure */
        if (met[i] && x[i] > top_fail && (out->stable_from == 0 || x[i] < out->stable_from))
            out->stable_from = x[i];
    for (int i = 0; i < n && answer > 0; i++) /* kept ascending: n is small */
        if (!met[i] && x[i] > answer && out->nfailed_above < PLAN_FAILED_MAX) {
            int at = out->nfailed_above++;
            while (at > 0 && out->failed_above[at - 1] > x[i]) {
                out->failed_above[at] = out->failed_above[at - 1];
                at--;
            }
            out->failed_above[at] = x[i];
        }
}
