/* tables.c - every table of test cases the runner runs, in file order.
 * Add a test file: export `const test_case tests_<topic>[]` from
 * tests/test_<topic>.c; the Makefile lists every such table in
 * build/test/test_list.h (one TEST_TABLE(name) line each, made from the
 * test files themselves), so no list is kept by hand.
 * SPDX-License-Identifier: MIT */
#include "check.h"
#include "testutil.h"

#define TEST_TABLE(t) extern const test_case t[];
#include "test_list.h"
#undef TEST_TABLE

const test_case *const test_tables[] = {
#define TEST_TABLE(t) t,
#include "test_list.h"
#undef TEST_TABLE
    NULL,
};

void test_cleanup(void)
{
    tu_catalog_free();
    tu_tmp_cleanup();
}
