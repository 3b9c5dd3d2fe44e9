/* gs_json.c - see gs_json.h.
 * SPDX-License-Identifier: MIT */
#include "gs_json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_utf8.h"

char *gs_read_file(const char *path, const char *what, size_t max, size_t *n, gs_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        gs_err(err, GS_EINPUT, "cannot open %s '%s': %s", what, path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        gs_err(err, GS_EINPUT, "%s '%s' is a directory, expected a file", what, path);
        close(fd);
        return NULL;
    }
    /* The size is checked while reading too: a pipe or /dev/zero has no
     * size to stat, and must not grow the buffer without bound. */
    size_t cap = 65536, len = 0;
    if (S_ISREG(st.st_mode) && (size_t)st.st_size < max)
        cap = (size_t)st.st_size + 1;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            if (cap > max)
                break;
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            gs_err(err, GS_EINPUT, "cannot read %s '%s': %s", what, path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (len > max) {
        gs_err(err, GS_EINPUT, "%s '%s' is larger than the limit of %zu MiB", what, path, max >> 20);
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    *n = len;
    return buf;
}

/* 1-based line and byte column of offset off in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    int l = 1;
    size_t start = 0;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *col = (int)(off - start) + 1;
}

/* Where text[0] sits in its file: line 1, column 1 for a whole file. */
typedef struct text_origin {
    int line, col;
} text_origin;

static int pos_err(gs_error *err, const char *what, const char *name, text_origin o, const char *text, size_t off,
                   const char *msg)
{
    int line, col;
    line_col(text, off, &line, &col);
    return gs_err(err, GS_EINPUT, "%s%s'%s' line %d, column %d: %s", what, *what ? " " : "", name,
                  line + o.line - 1, line == 1 ? col + o.col - 1 : col, msg);
}

/* {==== syntax check ====}
 * cJSON says only roughly where a parse failed, and not why. This scanner
 * walks the grammar of RFC 8259 first and stops at the first byte that
 * cannot continue the text, with what was expected there; cJSON then builds
 * the tree from text known to be well formed. */

typedef struct scan {
    const unsigned char *s;
    size_t n, i;
    const char *why; /* set at the first error; i is its offset */
    int depth;
} scan;

/* Deeper nesting than cJSON accepts (its limit is 1000) is an error here
 * first, with a position. */
#define SCAN_MAX_DEPTH 512

static bool fail(scan *c, const char *why)
{
    c->why = why;
    return false;
}

static void ws(scan *c)
{
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        c->i++;
}

static bool is_digit(scan *c)
{
    return c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9';
}

static bool is_hex(unsigned char h)
{
    return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
}

static bool scan_string(scan *c)
{
    c->i++; /* opening quote */
    while (c->i < c->n) {
        unsigned char ch = c->s[c->i];
        if (ch == '"') {
            c->i++;
            return true;
        }
        if (ch < 0x20)
            return fail(c, "control character in a string (escape it, e.g. \\n)");
        if (ch == '\\') {
            c->i++;
            if (c->i >= c->n)
                break;
            ch = c->s[c->i];
            if (ch == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (c->i + (size_t)k >= c->n || !is_hex(c->s[c->i + (size_t)k])) {
                        c->i += (size_t)k;
                        return fail(c, "expected 4 hex digits after \\u");
                    }
                c->i += 5;
                continue;
            }
            if (!strchr("\"\\/bfnrt", ch) || !ch)
                return fail(c, "invalid escape in a string");
            c->i++;
            continue;
        }
        size_t l = gs_utf8_seq_len(c->s + c->i, c->n - c->i);
        if (!l)
            return fail(c, "invalid UTF-8 in a string");
        c->i += l;
    }
    return fail(c, "unterminated string");
}

static bool scan_number_syntax(scan *c);

/* A number must also fit a double: 1e999 would read as infinity and print
 * back as null. */
static bool scan_number(scan *c)
{
    size_t start = c->i;
    if (!scan_number_syntax(c))
        return false;
    char buf[64];
    size_t l = c->i - start;
    if (l >= 64) { /* cJSON reads at most 63 characters of a number: a longer one would change silently */
        c->i = start;
        return fail(c, "number longer than 63 characters");
    }
    memcpy(buf, c->s + start, l);
    buf[l] = 0;
    if (!isfinite(strtod(buf, NULL))) {
        c->i = start;
        return fail(c, "number out of range (beyond what a double holds)");
    }
    return true;
}

static bool scan_number_syntax(scan *c)
{
    if (c->s[c->i] == '-')
        c->i++;
    if (!is_digit(c))
        return fail(c, "expected a digit");
    if (c->s[c->i] == '0')
        c->i++;
    else
        while (is_digit(c))
            c->i++;
    if (c->i < c->n && c->s[c->i] == '.') {
        c->i++;
        if (!is_digit(c))
            return fail(c, "expected a digit after '.'");
        while (is_digit(c))
            c->i++;
    }
    if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
        c->i++;
        if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
            c->i++;
        if (!is_digit(c))
            return fail(c, "expected a digit in the exponent");
        while (is_digit(c))
            c->i++;
    }
    return true;
}

static bool scan_word(scan *c, const char *w)
{
    size_t l = strlen(w);
    if (c->n - c->i < l || memcmp(c->s + c->i, w, l))
        return fail(c, "expected a value (object, array, string, number, true, false or null)");
    c->i += l;
    return true;
}

static bool scan_value(scan *c);

/* An object or an array: open and close are the brackets. */
static bool scan_members(scan *c, bool object)
{
    if (++c->depth > SCAN_MAX_DEPTH)
        return fail(c, "nested too deeply");
    c->i++;
    ws(c);
    char close = object ? '}' : ']';
    if (c->i < c->n && c->s[c->i] == close) {
        c->i++;
        c->depth--;
        return true;
    }
    for (;;) {
        if (object) {
            ws(c);
            if (c->i >= c->n || c->s[c->i] != '"')
                return fail(c, "expected a string key");
            if (!scan_string(c))
                return false;
            ws(c);
            if (c->i >= c->n || c->s[c->i] != ':')
                return fail(c, "expected ':'");
            c->i++;
        }
        if (!scan_value(c))
            return false;
        if (c->i < c->n && c->s[c->i] == ',') {
            c->i++;
            continue;
        }
        if (c->i < c->n && c->s[c->i] == close) {
            c->i++;
            c->depth--;
            return true;
        }
        return fail(c, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool scan_value(scan *c)
{
    ws(c);
    if (c->i >= c->n)
        return fail(c, "expected a value");
    bool ok;
    switch (c->s[c->i]) {
    case '{': ok = scan_members(c, true); break;
    case '[': ok = scan_members(c, false); break;
    case '"': ok = scan_string(c); break;
    case 't': ok = scan_word(c, "true"); break;
    case 'f': ok = scan_word(c, "false"); break;
    case 'n': ok = scan_word(c, "null"); break;
    default:
        if (c->s[c->i] == '-' || is_digit(c))
            ok = scan_number(c);
        else
            ok = fail(c, "expected a value (object, array, string, number, true, false or null)");
    }
    if (ok)
        ws(c);
    return ok;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends ".key" or "[i]" to the path in buf (length *l) for a message. */
static void path_push(char *buf, size_t cap, size_t *l, const cJSON *parent, const cJSON *child, int idx)
{
    int w;
    if (cJSON_IsObject(parent))
        w = snprintf(buf + *l, cap - *l, "%s%s", *l ? "." : "", child->string);
    else
        w = snprintf(buf + *l, cap - *l, "[%d]", idx);
    if (w > 0)
        *l = *l + (size_t)w < cap ? *l + (size_t)w : cap - 1;
}

/* The first duplicate key anywhere in the tree: its path written into buf
 * (buf NULL: no path made), true. cJSON keeps both members and every lookup
 * finds the first, so a second value would be silently ignored otherwise. */
static bool find_dup(const cJSON *v, char *buf, size_t cap, size_t l)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return false;
    if (cJSON_IsObject(v)) {
        int n = cJSON_GetArraySize(v);
        if (n > 1) {
            const char **names = xmalloc((size_t)n * sizeof *names);
            int k = 0;
            for (const cJSON *c = v->child; c; c = c->next)
                names[k++] = c->string;
            qsort(names, (size_t)n, sizeof *names, cmp_names);
            for (int i = 1; i < n; i++)
                if (!strcmp(names[i - 1], names[i])) {
                    if (buf)
                        snprintf(buf + l, cap - l, "%s%s", l ? "." : "", names[i]);
                    free(names);
                    return true;
                }
            free(names);
        }
    }
    int idx = 0;
    for (const cJSON *c = v->child; c; c = c->next, idx++) {
        size_t l2 = l;
        if (buf)
            path_push(buf, cap, &l2, v, c, idx);
        if (find_dup(c, buf, cap, l2))
            return true;
        if (buf)
            buf[l] = 0;
    }
    return false;
}

/* A message's subject: "WHAT 'NAME'" for a whole file, "'NAME' line L" (no
 * kind when what is "") for a record of a JSON Lines file. */
static const char *where(char *buf, size_t n, const char *what, const char *name, int first_line)
{
    if (first_line > 1 || !*what)
        snprintf(buf, n, "%s%s'%s' line %d", what, *what ? " " : "", name, first_line);
    else
        snprintf(buf, n, "%s '%s'", what, name);
    return buf;
}

cJSON *gs_json_parse(const char *text, size_t n, const char *what, const char *name, gs_error *err)
{
    return gs_json_parse_at(text, n, what, name, 1, err);
}

cJSON *gs_json_parse_at(const char *text, size_t n, const char *what, const char *name, int first_line,
                        gs_error *err)
{
    return gs_json_parse_cut(text, n, what, name, first_line, 1, err);
}

cJSON *gs_json_parse_cut(const char *text, size_t n, const char *what, const char *name, int first_line,
                         int first_col, gs_error *err)
{
    text_origin o = {first_line, first_col};
    size_t skip = 0;
    if (n >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        skip = 3; /* a byte-order mark some editors write: not part of the value */
    const char *nul = memchr(text, 0, n);
    if (nul) {
        pos_err(err, what, name, o, text, (size_t)(nul - text), "NUL byte (not a text file?)");
        return NULL;
    }
    scan c = {.s = (const unsigned char *)text, .n = n, .i = skip};
    if (!scan_value(&c)) {
        char msg[160];
        if (c.i >= n)
            snprintf(msg, sizeof msg, "unexpected end of input: %s", c.why);
        else if (c.s[c.i] >= 0x21 && c.s[c.i] < 0x7f)
            snprintf(msg, sizeof msg, "unexpected '%c': %s", c.s[c.i], c.why);
        else
            snprintf(msg, sizeof msg, "unexpected byte 0x%02X: %s", c.s[c.i], c.why);
        pos_err(err, what, name, o, text, c.i, msg);
        return NULL;
    }
    if (c.i < n) {
        char msg[96];
        snprintf(msg, sizeof msg, "unexpected %s%c%s after the JSON value (only one value is allowed)",
                 c.s[c.i] >= 0x21 && c.s[c.i] < 0x7f ? "'" : "byte ", c.s[c.i] >= 0x21 && c.s[c.i] < 0x7f ? c.s[c.i] : '?',
                 c.s[c.i] >= 0x21 && c.s[c.i] < 0x7f ? "'" : "");
        pos_err(err, what, name, o, text, c.i, msg);
        return NULL;
    }
    cJSON *j = cJSON_ParseWithLengthOpts(text + skip, n - skip, NULL, 0);
    if (!j) { /* well formed by the scan, refused by cJSON: a \u escape naming a lone surrogate */
        char at[1200];
        gs_err(err, GS_EINPUT, "%s: invalid \\u escape (a lone UTF-16 surrogate)",
               where(at, sizeof at, what, name, first_line));
        return NULL;
    }
    /* first without paths (a path per member is most of a model file's
     * load, at every start), then again for the one found */
    char path[512] = "";
    if (find_dup(j, NULL, 0, 0) && find_dup(j, path, sizeof path, 0)) {
        char at[1200];
        gs_err(err, GS_EINPUT, "%s: duplicate key '%s'", where(at, sizeof at, what, name, first_line), path);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

cJSON *gs_json_read(const char *path, const char *what, gs_error *err)
{
    size_t n;
    char *text = gs_read_file(path, what, GS_JSON_MAX_BYTES, &n, err);
    if (!text)
        return NULL;
    cJSON *j = gs_json_parse(text, n, what, path, err);
    free(text);
    return j;
}

char *gs_json_print(const cJSON *j, size_t *n)
{
    char *raw = cJSON_Print(j);
    if (!raw)
        GS_BUG("cJSON_Print failed");
    size_t len = strlen(raw);
    raw = xrealloc(raw, len + 2);
    raw[len++] = '\n';
    raw[len] = 0;
    if (gs_utf8_valid(raw, len)) {
        if (n)
            *n = len;
        return raw;
    }
    char *clean = gs_utf8_sanitize(raw, len, n);
    free(raw);
    return clean;
}
