/* gs_jsonpos.c - see gs_jsonpos.h. A skipper, not a parser: the text was
 * already accepted by cJSON, so only strings (with their escapes) and
 * bracket nesting need care.
 * SPDX-License-Identifier: MIT */
#include "gs_jsonpos.h"

#include <stdlib.h>
#include <string.h>

void gs_text_linecol(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n')
            l++, c = 1;
        else
            c++;
    }
    *line = l;
    *col = c;
}

static size_t skip_ws(const char *t, size_t i)
{
    while (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')
        i++;
    return i;
}

/* t[i] is the opening quote; returns the offset just past the closing one. */
static size_t skip_string(const char *t, size_t i)
{
    for (i++; t[i] && t[i] != '"'; i++)
        if (t[i] == '\\' && t[i + 1])
            i++;
    return t[i] ? i + 1 : i;
}

/* Offset just past the value starting at t[i]. */
static size_t skip_value(const char *t, size_t i)
{
    if (t[i] == '"')
        return skip_string(t, i);
    if (t[i] == '{' || t[i] == '[') {
        int depth = 0;
        while (t[i]) {
            if (t[i] == '"') {
                i = skip_string(t, i);
                continue;
            }
            if (t[i] == '{' || t[i] == '[')
                depth++;
            else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
                return i + 1;
            i++;
        }
        return i;
    }
    while (t[i] && !strchr(",]} \t\r\n", t[i]))
        i++;
    return i;
}

/* Does the string token at t[i] (quote included) spell key? Keys with
 * escapes never match: spec keys are plain words. */
static int key_is(const char *t, size_t i, const char *key)
{
    size_t l = strlen(key);
    return strncmp(t + i + 1, key, l) == 0 && t[i + 1 + l] == '"';
}

size_t gs_json_locate(const char *text, const char *const *path, int n, size_t *key_off)
{
    size_t i = skip_ws(text, 0);
    for (int k = 0; k < n; k++) {
        if (text[i] == '{' && path[k][0] != '#') {
            i = skip_ws(text, i + 1);
            for (;;) {
                if (text[i] != '"')
                    return (size_t)-1;
                size_t kstart = i;
                int hit = key_is(text, i, path[k]);
                i = skip_ws(text, skip_string(text, i));
                if (text[i] != ':')
                    return (size_t)-1;
                i = skip_ws(text, i + 1);
                if (hit) {
                    if (key_off && k == n - 1)
                        *key_off = kstart;
                    break;
                }
                i = skip_ws(text, skip_value(text, i));
                if (text[i] != ',')
                    return (size_t)-1;
                i = skip_ws(text, i + 1);
            }
        } else if (text[i] == '[' && path[k][0] == '#') {
            long want = strtol(path[k] + 1, NULL, 10);
            i = skip_ws(text, i + 1);
            for (long e = 0; e < want; e++) {
                if (text[i] == ']' || !text[i])
                    return (size_t)-1;
                i = skip_ws(text, skip_value(text, i));
                if (text[i] != ',')
                    return (size_t)-1;
                i = skip_ws(text, i + 1);
            }
            if (text[i] == ']' || !text[i])
                return (size_t)-1;
        } else {
            return (size_t)-1;
        }
    }
    return i;
}
