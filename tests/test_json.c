/* test_json.c - the JSON reader (base/gs_json.c) and the UTF-8 repair
 * (base/gs_utf8.c): every malformed input is refused with its line and
 * column, and what gpusim writes is always valid UTF-8.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "../base/gs_utf8.h"
#include "check.h"
#include "testutil.h"

/* Parses text (length n) and returns the error message, or "" when it
 * parsed (the tree is freed). */
static const char *parse_msg(const char *text, size_t n)
{
    static gs_error err;
    memset(&err, 0, sizeof err);
    cJSON *j = gs_json_parse(text, n, "cluster", "c.json", &err);
    cJSON_Delete(j);
    return j ? "" : err.msg;
}
#define MSG(lit) parse_msg(lit, sizeof(lit) - 1)

static void test_json_accepts_well_formed(void)
{
    CHECK(!strcmp(MSG("{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\"]}"), ""));
    CHECK(!strcmp(MSG("  {\"a\": {}}\n\n"), ""));
    /* a UTF-8 byte-order mark before the value is accepted */
    CHECK(!strcmp(MSG("\xEF\xBB\xBF{\"a\": 1}"), ""));
}

static void test_json_syntax_errors_have_line_and_column(void)
{
    CHECK_STR_HAS(MSG("{\n  \"a\": 1,\n}"), "cluster 'c.json' line 3, column 1: unexpected '}': expected a string key");
    CHECK_STR_HAS(MSG("{\"a\": "), "line 1, column 7: unexpected end of input");
    CHECK_STR_HAS(MSG("{\"a\" 1}"), "line 1, column 6: unexpected '1': expected ':'");
    CHECK_STR_HAS(MSG("[01]"), "column 3");
    CHECK_STR_HAS(MSG("[1.]"), "expected a digit after '.'");
    CHECK_STR_HAS(MSG("[nan]"), "line 1, column 2");
    CHECK_STR_HAS(MSG("[0x10]"), "line 1, column 3");
    CHECK_STR_HAS(MSG("\"a\tb\""), "control character");
    CHECK_STR_HAS(MSG("\"\\q\""), "invalid escape");
    CHECK_STR_HAS(MSG("\"\\u12\""), "4 hex digits");
    CHECK_STR_HAS(MSG("\"\\ud800\""), "lone UTF-16 surrogate");
    CHECK_STR_HAS(MSG("\"\xff\""), "line 1, column 2: unexpected byte 0xFF: invalid UTF-8");
    CHECK_STR_HAS(MSG(""), "unexpected end of input: expected a value");
    CHECK_STR_HAS(MSG("[1,\n 1e999]"), "line 2, column 2: unexpected '1': number out of range");
    CHECK_STR_HAS(MSG("[10000000000000000000000000000000000000000000000000000000000000000000]"), "longer than 63");
}

static void test_json_trailing_and_nul(void)
{
    CHECK_STR_HAS(MSG("{\"a\": 1}\n{\"b\": 2}"), "line 2, column 1: unexpected '{' after the JSON value");
    CHECK_STR_HAS(MSG("{\"a\": 1} x"), "after the JSON value");
    CHECK_STR_HAS(MSG("{\"a\": \"b\0c\"}"), "line 1, column 9: NUL byte");
}

static void test_json_duplicate_keys_named_by_path(void)
{
    CHECK_STR_HAS(MSG("{\"a\": 1, \"a\": 2}"), "duplicate key 'a'");
    CHECK_STR_HAS(MSG("{\"nodes\": [{\"count\": 1}, {\"count\": 1, \"gpus\": 8, \"count\": 2}]}"),
                  "duplicate key 'nodes[1].count'");
    CHECK(!strcmp(MSG("{\"a\": {\"x\": 1}, \"b\": {\"x\": 1}}"), ""));
}

static void test_json_deep_nesting_is_refused(void)
{
    char buf[4001];
    memset(buf, '[', 4000);
    buf[4000] = 0;
    CHECK_STR_HAS(parse_msg(buf, 4000), "nested too deeply");
}

static void test_json_read_file_errors(void)
{
    gs_error err = {0};
    CHECK(!gs_json_read(tu_tmp_dir(), "cluster", &err));
    CHECK_STR_HAS(err.msg, "is a directory");
    CHECK(!gs_json_read("/nonexistent/x.json", "cluster", &err));
    CHECK_STR_HAS(err.msg, "cannot open cluster '/nonexistent/x.json'");
    const char *p = tu_write_tmp("{\"a\":\n  [1,, 2]}");
    CHECK(!gs_json_read(p, "cluster", &err));
    CHECK_STR_HAS(err.msg, "line 2, column 6: unexpected ','");
    CHECK_EQ_INT(err.code, GS_EINPUT);
}

static void test_utf8_validation(void)
{
    CHECK(gs_utf8_valid("abc \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 15));
    CHECK(!gs_utf8_valid("\xC0\xAF", 2));         /* overlong '/' */
    CHECK(!gs_utf8_valid("\xED\xA0\x80", 3));     /* surrogate */
    CHECK(!gs_utf8_valid("\xF4\x90\x80\x80", 4)); /* above U+10FFFF */
    CHECK(!gs_utf8_valid("\xE2\x82", 2));         /* truncated */
    CHECK(!gs_utf8_valid("\xFF", 1));
}

static void test_utf8_sanitize_replaces_bad_bytes(void)
{
    size_t n;
    char *s = gs_utf8_sanitize("a\xFF" "b\xC3\xA9\xE2\x82", 7, &n);
    CHECK(!strcmp(s, "a\xEF\xBF\xBD" "b\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD"));
    CHECK_EQ_INT(n, strlen(s));
    CHECK(gs_utf8_valid(s, n));
    free(s);
}

static void test_json_print_is_valid_utf8(void)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "id", "job-\xE9\xFF"); /* Latin-1 from a trace */
    size_t n;
    char *t = gs_json_print(j, &n);
    CHECK(gs_utf8_valid(t, n));
    CHECK(t[n - 1] == '\n');
    gs_error err = {0};
    cJSON *back = gs_json_parse(t, n, "report", "r.json", &err);
    CHECK(back != NULL);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(back, "id")), "job-\xEF\xBF\xBD\xEF\xBF\xBD"));
    cJSON_Delete(back);
    cJSON_Delete(j);
    free(t);
}

const test_case tests_json[] = {
    {"json_accepts_well_formed", test_json_accepts_well_formed},
    {"json_syntax_errors_have_line_and_column", test_json_syntax_errors_have_line_and_column},
    {"json_trailing_and_nul", test_json_trailing_and_nul},
    {"json_duplicate_keys_named_by_path", test_json_duplicate_keys_named_by_path},
    {"json_deep_nesting_is_refused", test_json_deep_nesting_is_refused},
    {"json_read_file_errors", test_json_read_file_errors},
    {"utf8_validation", test_utf8_validation},
    {"utf8_sanitize_replaces_bad_bytes", test_utf8_sanitize_replaces_bad_bytes},
    {"json_print_is_valid_utf8", test_json_print_is_valid_utf8},
    {NULL, NULL},
};
