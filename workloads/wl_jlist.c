/* wl_jlist.c - see wl_jlist.h. The top level is a small state machine over
 * a 64 KiB read buffer; a value is cut out by bracket depth outside strings
 * (the cut text is then parsed strictly, so a mismatched bracket is still
 * an error with its position).
 * SPDX-License-Identifier: MIT */
#include "wl_jlist.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_file.h"
#include "../base/gs_json.h"
#include "../base/gs_jsonpos.h"

enum { ST_START, ST_MEMBER, ST_AFTER_MEMBER, ST_ITEM, ST_AFTER_ITEM, ST_END, ST_DONE };
#define MAX_TOP_KEYS 16

struct wl_jlist {
    const char *path, *what;
    FILE *f;
    unsigned char buf[65536];
    size_t pos, len;
    int line, col;              /* of the next byte */
    char *item;                 /* the value cut out last, NUL-terminated */
    size_t ilen, icap;
    int item_line, item_col;
    int state;
    long count;
    bool saw_items;
    char kind[64];
    char keys[MAX_TOP_KEYS][64]; /* top-level keys seen (a duplicate is an error) */
    int nkeys;
};

static int peek(wl_jlist *l)
{
    if (l->pos == l->len) {
        l->len = fread(l->buf, 1, sizeof l->buf, l->f);
        l->pos = 0;
        if (l->len == 0)
            return -1;
    }
    return l->buf[l->pos];
}

static int get(wl_jlist *l)
{
    int c = peek(l);
    if (c < 0)
        return c;
    l->pos++;
    if (c == '\n')
        l->line++, l->col = 1;
    else
        l->col++;
    return c;
}

static void ws(wl_jlist *l)
{
    for (int c; (c = peek(l)) == ' ' || c == '\t' || c == '\n' || c == '\r';)
        get(l);
}

/* GS_EINPUT at the next byte: what was found there, then why. */
static int fail_here(wl_jlist *l, gs_error *err, const char *why)
{
    int c = peek(l);
    char found[32];
    if (c < 0)
        snprintf(found, sizeof found, "unexpected end of input");
    else if (c >= 0x21 && c < 0x7f)
        snprintf(found, sizeof found, "unexpected '%c'", c);
    else
        snprintf(found, sizeof found, "unexpected byte 0x%02X", c);
    return gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: %s: %s", l->what, l->path, l->line, l->col, found,
                  why);
}

static void put(wl_jlist *l, int c)
{
    if (l->ilen + 1 >= l->icap) {
        l->icap = l->icap ? 2 * l->icap : 4096;
        l->item = xrealloc(l->item, l->icap);
    }
    l->item[l->ilen++] = (char)c;
}

/* The bytes cut_value must look at: quotes, escapes, brackets, newlines. */
static const bool special[256] = {['"'] = true, ['\\'] = true, ['{'] = true, ['}'] = true,
                                  ['['] = true, [']'] = true, ['\n'] = true};

/* Cuts the next value out into l->item (the top level's cursor then just
 * past it). The cut follows brackets and strings only; the parse that
 * follows checks the rest. 0 or GS_EINPUT. */
static int cut_value(wl_jlist *l, gs_error *err)
{
    ws(l);
    l->ilen = 0;
    l->item_line = l->line;
    l->item_col = l->col;
    int c = peek(l);
    if (c < 0)
        return fail_here(l, err, "expected a value");
    bool nested = c == '{' || c == '[', in_str = false, esc = false;
    int depth = 0;
    if (!nested && c != '"') { /* a number, true, false or null: up to a delimiter */
        while ((c = peek(l)) >= 0 && !strchr(",]} \t\r\n", c))
            put(l, get(l));
        put(l, 0); /* the terminator, not counted */
        l->ilen--;
        return 0;
    }
    for (;;) { /* a buffer at a time: scan for the end, then copy the bytes scanned */
        if (peek(l) < 0)
            return gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: unexpected end of input inside the value "
                          "that starts at line %d, column %d", l->what, l->path, l->line, l->col, l->item_line,
                          l->item_col);
        size_t i = l->pos;
        bool done = false;
        for (; i < l->len && !done; i++) {
            while (!esc && i < l->len && !special[l->buf[i]]) /* most bytes: nothing to track */
                i++, l->col++;
            if (i == l->len)
                break;
            unsigned char ch = l->buf[i];
            if (ch == '\n')
                l->line++, l->col = 0;
            l->col++;
            if (in_str) {
                if (esc)
                    esc = false;
                else if (ch == '\\')
                    esc = true;
                else if (ch == '"' && (in_str = false, !nested))
                    done = true; /* the end of a top-level string */
            } else if (ch == '"') {
                in_str = true;
            } else if (ch == '{' || ch == '[') {
                depth++;
            } else if ((ch == '}' || ch == ']') && --depth == 0) {
                done = true;
            }
        }
        size_t n = i - l->pos;
        if (l->ilen + n + 1 > l->icap) {
            while (l->ilen + n + 1 > l->icap)
                l->icap = l->icap ? 2 * l->icap : 4096;
            l->item = xrealloc(l->item, l->icap);
        }
        memcpy(l->item + l->ilen, l->buf + l->pos, n);
        l->ilen += n;
        l->pos = i;
        if (l->ilen > WL_JLIST_MAX_ITEM)
            return gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: a value longer than %u MiB", l->what, l->path,
                          l->item_line, l->item_col, WL_JLIST_MAX_ITEM >> 20);
        if (done)
            break;
    }
    put(l, 0);
    l->ilen--;
    return 0;
}

static cJSON *parse_cut(wl_jlist *l, gs_error *err)
{
    return gs_json_parse_cut(l->item, l->ilen, l->what, l->path, l->item_line, l->item_col, err);
}

wl_jlist *wl_jlist_open(const char *path, const char *what, gs_error *err)
{
    FILE *f = gs_open_input(path, what, err);
    if (!f)
        return NULL;
    wl_jlist *l = xcalloc(1, sizeof *l);
    l->path = path;
    l->what = what;
    l->f = f;
    l->line = l->col = 1;
    return l;
}

/* A top-level key: the raw bytes between its quotes (keys here carry no
 * escapes worth decoding). */
static int read_key(wl_jlist *l, char *key, size_t cap, gs_error *err)
{
    if (peek(l) != '"')
        return fail_here(l, err, "expected a string key");
    get(l);
    size_t n = 0;
    int c;
    while ((c = peek(l)) != '"') {
        if (c < 0x20)
            return fail_here(l, err, "expected the end of the key");
        get(l);
        if (n + 1 < cap)
            key[n++] = (char)c;
    }
    get(l);
    key[n] = 0;
    return 0;
}

/* One top-level member other than "items": cut, checked, and kept when it
 * is "kind". */
static int other_member(wl_jlist *l, const char *key, gs_error *err)
{
    int rc = cut_value(l, err);
    cJSON *v = rc ? NULL : parse_cut(l, err);
    if (!v)
        return GS_EINPUT;
    if (!strcmp(key, "kind")) {
        if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof l->kind)
            rc = gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: kind: expected a kind name such as \"List\"",
                        l->what, l->path, l->item_line, l->item_col);
        else
            snprintf(l->kind, sizeof l->kind, "%s", v->valuestring);
    }
    cJSON_Delete(v);
    return rc;
}

static int member(wl_jlist *l, gs_error *err)
{
    char key[64];
    ws(l);
    int kl = l->line, kc = l->col;
    if (read_key(l, key, sizeof key, err))
        return GS_EINPUT;
    for (int i = 0; i < l->nkeys; i++)
        if (!strcmp(l->keys[i], key))
            return gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: duplicate key '%s'", l->what, l->path, kl, kc,
                          key);
    if (l->nkeys < MAX_TOP_KEYS)
        snprintf(l->keys[l->nkeys++], sizeof l->keys[0], "%s", key);
    ws(l);
    if (peek(l) != ':')
        return fail_here(l, err, "expected ':' after a key");
    get(l);
    if (strcmp(key, "items")) {
        l->state = ST_AFTER_MEMBER;
        return other_member(l, key, err);
    }
    l->saw_items = true;
    ws(l);
    if (peek(l) != '[')
        return fail_here(l, err, "items: expected an array of objects");
    get(l);
    ws(l);
    l->state = ST_ITEM;
    if (peek(l) == ']') {
        get(l);
        l->state = ST_AFTER_MEMBER;
    }
    return 0;
}

static int item(wl_jlist *l, cJSON **out, gs_error *err)
{
    if (cut_value(l, err))
        return GS_EINPUT;
    cJSON *v = parse_cut(l, err);
    if (!v)
        return GS_EINPUT;
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        return gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: items[%ld]: expected an object", l->what, l->path,
                      l->item_line, l->item_col, l->count);
    }
    l->count++;
    l->state = ST_AFTER_ITEM;
    *out = v;
    return 1;
}

/* The closing checks: nothing after the object, and an "items" array. */
static int end(wl_jlist *l, gs_error *err)
{
    ws(l);
    if (peek(l) >= 0)
        return fail_here(l, err, "only one JSON value is allowed");
    if (!l->saw_items)
        return gs_err(err, GS_EINPUT, "%s '%s': no \"items\" array: expected a List, as `kubectl get ... -o json` "
                      "prints it", l->what, l->path);
    l->state = ST_DONE;
    return 0;
}

int wl_jlist_next(wl_jlist *l, cJSON **out, gs_error *err)
{
    *out = NULL;
    for (;;) {
        int c;
        switch (l->state) {
        case ST_START:
            if (peek(l) == 0xEF && l->len >= 3 && !memcmp(l->buf, "\xEF\xBB\xBF", 3))
                l->pos += 3; /* a byte-order mark */
            ws(l);
            if (peek(l) != '{')
                return fail_here(l, err, "expected a JSON object (a List, as `kubectl get ... -o json` prints it)");
            get(l);
            ws(l);
            l->state = ST_MEMBER;
            if (peek(l) == '}') {
                get(l);
                l->state = ST_END;
            }
            break;
        case ST_MEMBER:
            if (member(l, err))
                return GS_EINPUT;
            break;
        case ST_AFTER_MEMBER:
            ws(l);
            c = peek(l);
            if (c != ',' && c != '}')
                return fail_here(l, err, "expected ',' or '}'");
            get(l);
            l->state = c == ',' ? ST_MEMBER : ST_END;
            break;
        case ST_ITEM: return item(l, out, err);
        case ST_AFTER_ITEM:
            ws(l);
            c = peek(l);
            if (c != ',' && c != ']')
                return fail_here(l, err, "expected ',' or ']' after an element of items");
            get(l);
            l->state = c == ',' ? ST_ITEM : ST_AFTER_MEMBER;
            break;
        case ST_END:
            if (end(l, err))
                return GS_EINPUT;
            return 0;
        default: return 0;
        }
    }
}

const char *wl_jlist_kind(const wl_jlist *l) { return l->kind; }

int wl_jlist_expect_kind(const wl_jlist *l, const char *item_kind, gs_error *err)
{
    size_t n = strlen(item_kind);
    if (!l->kind[0] || !strcmp(l->kind, "List") || (!strncmp(l->kind, item_kind, n) && !strcmp(l->kind + n, "List")))
        return 0;
    return gs_err(err, GS_EINPUT, "%s '%s': kind '%s': expected a List of %s objects (List or %sList)", l->what,
                  l->path, l->kind, item_kind, item_kind);
}
long wl_jlist_count(const wl_jlist *l) { return l->count; }
const char *wl_jlist_path(const wl_jlist *l) { return l->path; }

void wl_jlist_where(const wl_jlist *l, const char *const *path, int n, int *line, int *col)
{
    size_t off = l->item ? gs_json_locate(l->item, path, n, NULL) : (size_t)-1;
    if (off == (size_t)-1)
        off = 0;
    gs_text_linecol(l->item ? l->item : "", off, line, col);
    if (*line == 1)
        *col += l->item_col - 1;
    *line += l->item_line - 1;
}

int wl_jlist_fail(const wl_jlist *l, gs_error *err, const char *label, const char *const *path, int n,
                  const char *fmt, ...)
{
    char where[256] = "";
    size_t w = 0;
    for (int i = 0; i < n && w < sizeof where - 1; i++) {
        int k = path[i][0] == '#' ? snprintf(where + w, sizeof where - w, "[%s]", path[i] + 1)
                                  : snprintf(where + w, sizeof where - w, "%s%s", w ? "." : "", path[i]);
        if (k > 0)
            w += (size_t)k;
    }
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    wl_jlist_where(l, path, n, &line, &col);
    return gs_err(err, GS_EINPUT, "%s '%s' line %d, column %d: items[%ld]%s%s%s: %s%s%s", l->what, l->path, line, col,
                  l->count - 1, label ? " (" : "", label ? label : "", label ? ")" : "", where, n ? ": " : "", msg);
}

void wl_jlist_close(wl_jlist *l)
{
    if (!l)
        return;
    fclose(l->f);
    free(l->item);
    free(l);
}
