/* check.h - the test framework: a case is a function; CHECK* macros count a
 * failure (and say where) without stopping the case. tests/run.c runs every
 * table and ends with "N passed, N failed".
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CHECK_H
#define GPUSIM_CHECK_H

#include <math.h>
#include <stdio.h>

typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case;

extern int check_failures; /* failures in the current case */

/* The cases the runner (run.c) runs: NULL-terminated array of tables, each
 * ended by a {NULL} case; defined by tests/tables.c (or by a harness
 * check's own table file). */
extern const test_case *const test_tables[];
/* Called after each case, in the case's process, before its exit: frees
 * what the test helpers cached, so LeakSanitizer sees only real leaks. */
void test_cleanup(void);

#define CHECK(cond)                                                                                         \
    do {                                                                                                    \
        if (!(cond)) {                                                                                      \
            check_failures++;                                                                               \
            fprintf(stderr, "    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                   \
        }                                                                                                   \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                                  \
    do {                                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                 \
        if (a_ != b_) {                                                                                     \
            check_failures++;                                                                               \
            fprintf(stderr, "    %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b,   \
                    b_);                                                                                    \
        }                                                                                                   \
    } while (0)

/* |a - b| <= abs_tol + rel_tol * |b| */
#define CHECK_NEAR(a, b, rel_tol, abs_tol)                                                                  \
    do {                                                                                                    \
        double a_ = (double)(a), b_ = (double)(b);                                                          \
        if (!(fabs(a_ - b_) <= (abs_tol) + (rel_tol) * fabs(b_))) {                                         \
            check_failures++;                                                                               \
            fprintf(stderr, "    %s:%d: %s = %.9g, expected %s = %.9g (rel %g, abs %g)\n", __FILE__,         \
                    __LINE__, #a, a_, #b, b_, (double)(rel_tol), (double)(abs_tol));                        \
        }                                                                                                   \
    } while (0)

#define CHECK_STR_HAS(s, sub)                                                                               \
    do {                                                                                                    \
        const char *s_ = (s);                                                                               \
        if (!s_ || !strstr(s_, (sub))) {                                                                    \
            check_failures++;                                                                               \
            fprintf(stderr, "    %s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, s_ ? s_ : "(null)", \
                    (sub));                                                                                 \
        }                                                                                                   \
    } while (0)

#endif
