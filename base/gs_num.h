/* gs_num.h - the one strict parser of numbers, times and dates that come
 * from outside: trace fields, importer fields, manifest and spec values,
 * option values. What the trace reader accepts is what every reader
 * accepts:
 *   integer   plain decimal digits, an optional '-', no blanks, no '+', no
 *             hex (0x20), no exponent, within the caller's [lo, hi]
 *   number    plain decimal notation (-12, 3.5, 1e-3): no hex, inf, nan,
 *             blanks or '+' before it, finite, within [lo, hi]
 *   seconds   digits with at most one '.', to the microsecond (half up)
 *   date      "YYYY-MM-DD HH:MM:SS" (an optional fraction where allowed):
 *             a real calendar day, 00..23 h, 00..59 min, 00..59 s (a
 *             25:00:00 or a 31 February is refused, never normalised)
 *   text      what a trace's text field can carry unquoted: no control
 *             characters (a CR, a newline, a tab), no comma, no quote
 * Each returns false on anything else, the empty string included; the
 * caller names the file, line and column. No function here allocates.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_NUM_H
#define GPUSIM_GS_NUM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gs.h"

/* s is plain decimal notation: an optional '-', digits, and (unless
 * integer) an optional fraction and exponent. */
bool gs_num_is_decimal(const char *s, bool integer);

/* A whole decimal in [lo, hi]. Inline: the trace reader calls it on every
 * field of a row. A magnitude beyond LONG_MAX is refused (no caller's lo
 * reaches LONG_MIN). O(length). */
static inline bool gs_num_long(const char *s, long lo, long hi, long *out)
{
    const unsigned char *p = (const unsigned char *)s;
    bool neg = *p == '-';
    p += neg;
    if ((unsigned)(*p - '0') > 9)
        return false;
    unsigned long v = 0;
    for (unsigned d; (d = (unsigned)(*p - '0')) <= 9; p++) {
        if (v > ((unsigned long)LONG_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (*p)
        return false;
    long x = neg ? -(long)v : (long)v;
    if (x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

/* A finite number in plain decimal notation, in [lo, hi]. */
bool gs_num_double(const char *s, double lo, double hi, double *out);
/* The n bytes at s (not NUL-terminated; at most 64) as a plain decimal
 * number, any finite value. */
bool gs_num_decimal_n(const char *s, size_t n, double *out);
/* The n bytes at s as a whole decimal that fits 64 bits unsigned (no '-':
 * strtoull would wrap "-1" and saturate on overflow without a word). */
bool gs_num_u64(const char *s, size_t n, uint64_t *out);

/* {==== times and dates ====} */

/* Six fraction digits at p (the microseconds a generated trace writes),
 * and no seventh: their value, read eight bytes at once; -1 otherwise.
 * The caller guarantees eight readable bytes from p. */
static inline int64_t gs_num_six_digits(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v);
    uint64_t x = v & 0x0000FFFFFFFFFFFFull; /* the first character in the lowest byte */
    if ((x & 0xF0F0F0F0F0F0ull) != 0x303030303030ull || ((x + 0x060606060606ull) & 0xF0F0F0F0F0F0ull) !=
        0x303030303030ull || (unsigned)(p[6] - '0') <= 9)
        return -1;
    /* "00" then the six digits: pairs, then fours, then the eight (most
     * significant digit first in memory) */
    x = ((x << 16) | 0x3030u) & 0x0F0F0F0F0F0F0F0Full;
    x = (x * 2561) >> 8;
    x = ((x & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    return (int64_t)(((x & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32);
#else
    (void)p;
    return -1;
#endif
}

/* Non-negative decimal seconds at *pp ("12", "0.5", "7.") to microseconds,
 * the seventh fraction digit rounding half up, up to the first byte that
 * is neither a digit nor the one '.': *pp is left there, for the caller to
 * check what ends the field. The whole seconds stay below about 9.2e12, so
 * the result fits int64. end: where the readable bytes end (the fraction
 * may then be read eight bytes at once), or NULL. Inline: the trace
 * reader's fast row path parses every submit and duration with it. */
static inline bool gs_num_seconds_prefix(const unsigned char **pp, const unsigned char *end, gs_time_us *out_us)
{
    /* 10^(6 - digits): the fraction's digits read so far scaled to microseconds */
    static const int64_t scale[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
    const unsigned char *p = *pp;
    if ((unsigned)(*p - '0') > 9)
        return false;
    int64_t whole = 0;
    for (unsigned d; (d = (unsigned)(*p - '0')) <= 9; p++) {
        if (whole > (INT64_MAX / GS_US_PER_S - 10) / 10)
            return false;
        whole = whole * 10 + (int64_t)d;
    }
    int64_t frac = 0;
    int digits = 0;
    bool round_up = false;
    int64_t six;
    if (*p == '.' && end && end - p >= 9 && (six = gs_num_six_digits(p + 1)) >= 0) {
        frac = six;
        digits = 6;
        p += 7;
    } else if (*p == '.') {
        p++;
        for (unsigned d; (d = (unsigned)(*p - '0')) <= 9; p++, digits++) {
            if (digits < 6)
                frac = frac * 10 + (int64_t)d;
            else if (digits == 6)
                round_up = d >= 5;
        }
    }
    *pp = p;
    *out_us = whole * GS_US_PER_S + frac * scale[digits < 6 ? digits : 6] + (round_up ? 1 : 0);
    return true;
}

/* The whole of s as seconds (gs_num_seconds_prefix, nothing after). */
bool gs_num_seconds_us(const char *s, gs_time_us *out_us);
/* "YYYY-MM-DD HH:MM:SS", and when frac_ok an optional ".digits" (kept to
 * the microsecond, the rest cut), to microseconds since 1970-01-01 UTC
 * (years 1970..9999). */
bool gs_num_datetime_us(const char *s, bool frac_ok, int64_t *us);

/* {==== text ====} */

/* s can stand unquoted in a trace field: 1..max_len bytes, no byte below
 * 0x20 or 0x7F, no ',' or '"'. */
bool gs_text_field_ok(const char *s, size_t max_len);

/* s is one or more non-empty items separated by sep ("A|B", not "A||B",
 * "|A" or "|||"). */
bool gs_text_list_ok(const char *s, char sep);

#endif
