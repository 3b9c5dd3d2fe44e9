/* gs_num.c - see gs_num.h.
 * SPDX-License-Identifier: MIT */
#include "gs_num.h"

#include <math.h>
#include <stdlib.h>

bool gs_num_is_decimal(const char *s, bool integer)
{
    const char *p = s;
    if (*p == '-')
        p++;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    if (!integer && *p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return false;
    if (!integer && (*p == 'e' || *p == 'E')) {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == 0;
}

bool gs_num_double(const char *s, double lo, double hi, double *out)
{
    if (!gs_num_is_decimal(s, false))
        return false;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool gs_num_decimal_n(const char *s, size_t n, double *out)
{
    if (n > 64)
        return false;
    char buf[72];
    memcpy(buf, s, n);
    buf[n] = 0;
    if (memchr(buf, 0, n)) /* a NUL inside the n bytes */
        return false;
    return gs_num_double(buf, -HUGE_VAL, HUGE_VAL, out);
}

bool gs_num_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool gs_num_seconds_us(const char *s, gs_time_us *out_us)
{
    const unsigned char *p = (const unsigned char *)s;
    gs_time_us v;
    if (!gs_num_seconds_prefix(&p, NULL, &v) || *p)
        return false;
    *out_us = v;
    return true;
}

/* n digits at s as a number; -1 if any is not a digit. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
 * days_from_civil): what timegm computes for a valid date, without its
 * normalisation of a 25th hour or a 31 February. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool gs_num_datetime_us(const char *s, bool frac_ok, int64_t *us)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (strlen(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
        return false;
    int Y = digits(s, 4), M = digits(s + 5, 2), D = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
    if (Y < 1 || M < 1 || M > 12 || D < 1 || D > mdays[M - 1] || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        sec < 0 || sec > 59)
        return false;
    bool leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    if (M == 2 && D == 29 && !leap)
        return false;
    const char *p = s + 19;
    int64_t frac = 0;
    if (*p == '.' && frac_ok) {
        int n = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, n++)
            if (n < 6)
                frac = frac * 10 + (*p - '0');
        if (n == 0)
            return false;
        for (; n < 6; n++)
            frac *= 10;
    }
    if (*p)
        return false;
    int64_t t = days_from_civil(Y, M, D) * 86400 + h * 3600 + mi * 60 + sec;
    *us = t * GS_US_PER_S + frac;
    return true;
}

bool gs_text_field_ok(const char *s, size_t max_len)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++)
        if (*p < 0x20 || *p == 0x7f || *p == ',' || *p == '"')
            return false;
    return n >= 1 && n <= max_len;
}

bool gs_text_list_ok(const char *s, char sep)
{
    size_t item = 0;
    for (; *s; s++) {
        if (*s != sep)
            item++;
        else if (item == 0)
            return false;
        else
            item = 0;
    }
    return item > 0;
}
