/* cli_import_opts.c - option values of the trace importers, checked.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_opt_num(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d) || d < lo || d > hi) {
        fprintf(stderr, "gpusim: error: %s: expected a number from %g to %g, found '%s'\n", opt, lo, hi, v);
        return false;
    }
    *out = d;
    return true;
}

bool cli_opt_range(const char *opt, const char *v, int *lo, int *hi)
{
    int a, b, n = 0;
    if (sscanf(v, "%d:%d%n", &a, &b, &n) != 2 || v[n] || a < 0 || b < 1 || a > b || b > 100000) {
        fprintf(stderr, "gpusim: error: %s: expected MIN:MAX with 0 <= MIN <= MAX, MAX >= 1, found '%s'\n", opt, v);
        return false;
    }
    *lo = a;
    *hi = b;
    return true;
}
