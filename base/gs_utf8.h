/* gs_utf8.h - UTF-8 validation and repair for text gpusim writes.
 * Identifiers in reports come from other people's traces and files; a stray
 * Latin-1 byte copied raw would make report.json invalid JSON.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_UTF8_H
#define GPUSIM_GS_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0 when
 * the bytes there are not one (overlong forms, surrogates and code points
 * above U+10FFFF are invalid, as RFC 3629 says). */
size_t gs_utf8_seq_len(const unsigned char *s, size_t n);

/* True when the n bytes at s are valid UTF-8. */
bool gs_utf8_valid(const char *s, size_t n);

/* A copy of the n bytes at s with every byte that does not start a valid
 * sequence replaced by U+FFFD; *out_n receives the new length. The copy is
 * NUL-terminated; xfree it with free(). */
char *gs_utf8_sanitize(const char *s, size_t n, size_t *out_n);

#endif
