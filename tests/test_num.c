/* test_num.c - the one strict number, time and date parser (base/gs_num.h):
 * what it refuses (hex, blanks, '+', inf, nan, overflow, 25:00:00, 31
 * February) and that valid dates give what timegm gives.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/gs_num.h"
#include "check.h"

static void num_integers(void)
{
    long v = 0;
    CHECK(gs_num_long("42", 0, 100, &v) && v == 42);
    CHECK(gs_num_long("-7", -10, 10, &v) && v == -7);
    CHECK(gs_num_long("0", 0, 0, &v) && v == 0);
    static const char *const bad[] = {"", " 5", "5 ", "+5", "0x20", "1e3", "5.0", "--1", "1_000", "101",
                                      "99999999999999999999", "\xef\xbc\x95", "5\r"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = 12345;
        bool ok = gs_num_long(bad[i], 0, 100, &v);
        if (ok)
            fprintf(stderr, "    accepted '%s'\n", bad[i]);
        CHECK(!ok && v == 12345); /* refused, and *out untouched */
    }
    uint64_t u;
    CHECK(gs_num_u64("18446744073709551615", 20, &u) && u == UINT64_MAX);
    CHECK(!gs_num_u64("18446744073709551616", 20, &u));
    CHECK(!gs_num_u64("-1", 2, &u));
    CHECK(!gs_num_u64("", 0, &u));
}

static void num_decimals(void)
{
    double d = 0;
    CHECK(gs_num_double("3.5", 0, 10, &d) && d == 3.5);
    CHECK(gs_num_double("1e-3", 0, 10, &d) && d == 1e-3);
    CHECK(gs_num_double("-2", -5, 5, &d) && d == -2);
    CHECK(gs_num_double("7.", 0, 10, &d) && d == 7);
    static const char *const bad[] = {"",    " 1",   "1 ",   "+1",   "0x20", "0x1p3", "inf", "nan", "NaN",
                                      "1e999", "1e",  "e5",   ".",    "1,5",  "11",    "1.2.3", "\t1", "1\r"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool ok = gs_num_double(bad[i], -10, 10, &d);
        if (ok)
            fprintf(stderr, "    accepted '%s'\n", bad[i]);
        CHECK(!ok);
    }
    CHECK(gs_num_decimal_n("2.5xyz", 3, &d) && d == 2.5);
    CHECK(!gs_num_decimal_n("2\0005", 3, &d));
}

static void num_seconds(void)
{
    gs_time_us us;
    CHECK(gs_num_seconds_us("12", &us) && us == 12000000);
    CHECK(gs_num_seconds_us("3.0000005", &us) && us == 3000001);
    CHECK(gs_num_seconds_us("9223372036849", &us) && us == 9223372036849000000LL);
    CHECK(!gs_num_seconds_us("92233720368500", &us)); /* past int64 microseconds */
    CHECK(!gs_num_seconds_us(" 1", &us));
    CHECK(!gs_num_seconds_us("0x1", &us));
    CHECK(!gs_num_seconds_us("-1", &us));
}

/* Valid dates equal timegm's answer; the rest is refused, never normalised. */
static void num_dates(void)
{
    static const char *const good[] = {"2024-11-15 16:57:50", "1970-01-01 00:00:00", "2000-02-29 23:59:59",
                                       "2023-12-31 00:00:01", "1969-07-20 20:17:40", "2100-03-01 12:00:00"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int64_t us = -1;
        CHECK(gs_num_datetime_us(good[i], false, &us));
        struct tm tm = {0};
        CHECK(sscanf(good[i], "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                     &tm.tm_sec) == 6);
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        CHECK_EQ_INT(us, (int64_t)timegm(&tm) * 1000000);
    }
    int64_t us;
    CHECK(gs_num_datetime_us("2023-11-16 18:15:46.6805900", true, &us));
    CHECK_EQ_INT(us % 1000000, 680590);
    CHECK(!gs_num_datetime_us("2023-11-16 18:15:46.6805900", false, &us)); /* no fraction where none is allowed */
    static const char *const bad[] = {"2024-11-15 25:00:00", "2024-11-15 24:00:00", "2024-11-15 23:60:00",
                                      "2024-11-15 23:59:60", "2024-02-30 00:00:00", "2023-02-29 00:00:00",
                                      "1900-02-29 00:00:00", "2024-13-01 00:00:00", "2024-00-10 00:00:00",
                                      "2024-04-31 00:00:00", "2024-1-15 16:57:50",  " 2024-11-15 16:57:50",
                                      "2024-11-15 16:57:50 ", "2024-11-15T16:57:50", "2024-11-15 16:57:5x",
                                      "2024-11-15 16:57:50.", "0x24-11-15 16:57:50", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool ok = gs_num_datetime_us(bad[i], true, &us);
        if (ok)
            fprintf(stderr, "    accepted '%s'\n", bad[i]);
        CHECK(!ok);
    }
}

static void num_text(void)
{
    CHECK(gs_text_field_ok("M0001", 60));
    CHECK(gs_text_field_ok("caf\xc3\xa9", 60)); /* UTF-8 is text */
    CHECK(!gs_text_field_ok("", 60));
    CHECK(!gs_text_field_ok("a\rb", 60));
    CHECK(!gs_text_field_ok("a\nb", 60));
    CHECK(!gs_text_field_ok("a\tb", 60));
    CHECK(!gs_text_field_ok("a,b", 60));
    CHECK(!gs_text_field_ok("a\"b", 60));
    CHECK(!gs_text_field_ok("a\x7f", 60));
    CHECK(!gs_text_field_ok("abcd", 3));
    CHECK(gs_text_list_ok("A|B", '|'));
    CHECK(gs_text_list_ok("A", '|'));
    CHECK(!gs_text_list_ok("|||", '|'));
    CHECK(!gs_text_list_ok("A||B", '|'));
    CHECK(!gs_text_list_ok("A|", '|'));
    CHECK(!gs_text_list_ok("", '|'));
}

const test_case tests_num[] = {
    {"num/integers_strict", num_integers},
    {"num/decimals_strict", num_decimals},
    {"num/seconds_to_us", num_seconds},
    {"num/dates_strict_equal_timegm", num_dates},
    {"num/text_fields", num_text},
    {0, 0},
};
