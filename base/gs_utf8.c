/* gs_utf8.c - see gs_utf8.h.
 * SPDX-License-Identifier: MIT */
#include "gs_utf8.h"

#include <string.h>

#include "gs.h"

size_t gs_utf8_seq_len(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong below U+0800 */
        if (c == 0xED)
            hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong below U+10000 */
        if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0; /* continuation byte, C0/C1 overlong, F5..FF */
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return len;
}

bool gs_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = gs_utf8_seq_len(p + i, n - i);
        if (!l)
            return false;
        i += l;
    }
    return true;
}

char *gs_utf8_sanitize(const char *s, size_t n, size_t *out_n)
{
    static const char repl[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)s;
    /* at most every byte becomes three */
    char *out = xmalloc(n * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t l = gs_utf8_seq_len(p + i, n - i);
        if (l) {
            memcpy(out + o, p + i, l);
            o += l;
            i += l;
        } else {
            memcpy(out + o, repl, 3);
            o += 3;
            i++;
        }
    }
    out[o] = 0;
    if (out_n)
        *out_n = o;
    return out;
}
