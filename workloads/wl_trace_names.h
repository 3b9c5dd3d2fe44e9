/* wl_trace_names.h - the trace reader's numbered names (wl_trace_names.c):
 * a column's name text to its number, the recent ones first. Private to
 * the reader's files.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_TRACE_NAMES_H
#define GPUSIM_WL_TRACE_NAMES_H

#include "wl_trace_int.h"

uint32_t wl_name_find_slow(wl_trace *t, int col, const char *s, size_t len);
uint32_t wl_name_add(wl_trace *t, int col, const char *s, size_t len);
void wl_names_free(wl_names *n);

/* The len bytes at a and b are equal (no call, no byte past len read; a
 * word is read only where the words before it were equal, and the last,
 * overlapping one only after every whole word was). */
static inline bool wl_same_text(const char *a, const char *b, size_t len)
{
    uint64_t x, y;
    if (len < sizeof x) {
        for (; len; a++, b++, len--)
            if (*a != *b)
                return false;
        return true;
    }
    for (size_t i = 0; i + sizeof x <= len; i += sizeof x) {
        memcpy(&x, a + i, sizeof x);
        memcpy(&y, b + i, sizeof y);
        if (x != y)
            return false;
    }
    memcpy(&x, a + len - sizeof x, sizeof x);
    memcpy(&y, b + len - sizeof y, sizeof y);
    return x == y;
}

static inline unsigned wl_name_recent_key(const char *s, size_t len)
{
    return (unsigned)(len + (unsigned char)s[0] * 3u + (unsigned char)s[len - 1] * 7u) % NAME_RECENT;
}

/* The number of column col's name s (len >= 1 bytes, no NUL inside), or 0
 * if it has none yet (wl_name_add gives it one). A name among the
 * column's recent ones costs a comparison, any other one a hash probe.
 * O(len). */
static inline uint32_t wl_name_find(wl_trace *t, int col, const char *s, size_t len)
{
    unsigned k = wl_name_recent_key(s, len);
    const char *r = t->names.recent[col][k].text;
    if (r && t->names.recent[col][k].len == len && wl_same_text(r, s, len))
        return t->names.recent[col][k].sym;
    return wl_name_find_slow(t, col, s, len);
}

#endif
