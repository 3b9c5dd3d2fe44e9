/* bad_cases.c - deliberately broken test cases for tests/test_harness.sh:
 * built with tests/run.c in place of tests/tables.c, each must be counted
 * as failed (and only the first as passed), whatever way it breaks.
 * SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static void passes(void) { CHECK(1 + 1 == 2); }
static void check_fails(void) { CHECK(1 + 1 == 3); }

static void segfault(void)
{
    int *volatile p = NULL;
    *p = 1;
}

static void heap_overflow(void)
{
    char *p = malloc(4);
    volatile size_t i = 4;
    p[i] = 1; /* AddressSanitizer: one past the end */
    free(p);
}

static __attribute__((noinline)) void lose(void)
{
    char *volatile p = malloc(64);
    memset(p, 1, 64);
}

static __attribute__((noinline)) void scrub_stack(void)
{
    volatile char pad[256];
    memset((char *)pad, 0, sizeof pad);
}

static void leaks(void)
{
    lose();
    scrub_stack(); /* no stale copy of the pointer keeps it reachable */
}

static void aborts(void) { abort(); }

static void signed_overflow(void)
{
    volatile int x = INT_MAX;
    x = x + 1; /* UBSan */
}

static void float_cast_overflow(void)
{
    volatile double d = 1e300;
    volatile int i = (int)d; /* UBSan float-cast-overflow */
    (void)i;
}

static const test_case bad[] = {
    {"harness/passes", passes},
    {"harness/check_fails", check_fails},
    {"harness/segfault", segfault},
    {"harness/heap_overflow", heap_overflow},
    {"harness/leaks", leaks},
    {"harness/aborts", aborts},
    {"harness/signed_overflow", signed_overflow},
    {"harness/float_cast_overflow", float_cast_overflow},
    {NULL, NULL},
};

const test_case *const test_tables[] = {bad, NULL};

void test_cleanup(void) {}
