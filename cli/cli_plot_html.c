/* cli_plot_html.c - report.html's buffer: text always escaped, numbers and
 * dollars formatted once, tables inside frames that scroll sideways (CSS
 * .frame in cli_plot.c) so a wide table is never cut off.
 * SPDX-License-Identifier: MIT */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_plot.h"

void h_put(html *h, const char *s, size_t n)
{
    if (h->len + n + 1 > h->cap) {
        h->cap = (h->len + n + 1) * 2;
        h->buf = xrealloc(h->buf, h->cap);
    }
    memcpy(h->buf + h->len, s, n);
    h->len += n;
    h->buf[h->len] = 0;
}

void h_raw(html *h, const char *s) { h_put(h, s, strlen(s)); }

void h_esc(html *h, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': h_raw(h, "&lt;"); break;
        case '>': h_raw(h, "&gt;"); break;
        case '&': h_raw(h, "&amp;"); break;
        case '"': h_raw(h, "&quot;"); break;
        case '\'': h_raw(h, "&#39;"); break;
        default: h_put(h, s, 1);
        }
    }
}

void h_fmt(html *h, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    h_esc(h, b);
}

void h_rawf(html *h, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    h_raw(h, b);
}

void h_attr(html *h, const char *name, const char *value)
{
    h_raw(h, " ");
    h_raw(h, name);
    h_raw(h, "=\"");
    h_esc(h, value);
    h_raw(h, "\"");
}

void h_num(html *h, double v)
{
    if (isnan(v))
        h_raw(h, "-");
    else
        h_fmt(h, "%.6g", v);
}

void h_usd(html *h, double v)
{
    if (!isfinite(v)) {
        h_raw(h, "-");
        return;
    }
    if (fabs(v) < 10000) { /* cents while they are read: $/hour */
        h_fmt(h, "$%.2f", v);
        return;
    }
    char digits[64], out[96];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t n = strlen(digits), k = 0;
    if (v < 0)
        out[k++] = '-';
    out[k++] = '$';
    for (size_t i = 0; i < n && k + 2 < sizeof out; i++) {
        if (i && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = 0;
    h_raw(h, out);
}

void h_table_open(html *h, const char *id, const char *cls)
{
    h_raw(h, "<div class=\"frame\"><table");
    if (id) {
        h_raw(h, " id=\"");
        h_esc(h, id);
        h_raw(h, "\"");
    }
    if (cls) {
        h_raw(h, " class=\"");
        h_esc(h, cls);
        h_raw(h, "\"");
    }
    h_raw(h, ">\n");
}

void h_table_close(html *h) { h_raw(h, "</table></div>\n"); }

void h_head_row(html *h, const char *const *cells)
{
    h_raw(h, "<tr>");
    for (; *cells; cells++) {
        h_raw(h, "<th>");
        h_esc(h, *cells);
        h_raw(h, "</th>");
    }
    h_raw(h, "</tr>\n");
}

void h_td(html *h, const char *text)
{
    h_raw(h, "<td>");
    h_esc(h, text);
    h_raw(h, "</td>");
}

void h_td_num(html *h, double v)
{
    h_raw(h, "<td class=\"n\">");
    h_num(h, v);
    h_raw(h, "</td>");
}

void h_td_usd(html *h, double v)
{
    h_raw(h, "<td class=\"n\">");
    h_usd(h, v);
    h_raw(h, "</td>");
}

void h_href(html *h, const char *page_dir, const char *target)
{
    char from[PATH_MAX], to[PATH_MAX];
    if (!realpath(page_dir, from) || !realpath(target, to)) {
        h_esc(h, target);
        return;
    }
    size_t i = 0, cut = 0; /* cut: past the last directory both share */
    while (from[i] && from[i] == to[i])
        if (from[i++] == '/')
            cut = i;
    if (!from[i] && to[i] == '/')
        cut = i + 1; /* target inside the page's directory */
    if (from[cut])
        h_raw(h, "../");
    for (const char *p = from + cut; *p; p++)
        if (*p == '/')
            h_raw(h, "../");
    h_esc(h, to + cut);
}

void h_json(html *h, const char *caption, const cJSON *j, bool open)
{
    if (!j)
        return; /* an optional member the document does not have */
    char *t = cJSON_Print(j);
    h_raw(h, open ? "<details open><summary>" : "<details><summary>");
    h_esc(h, caption);
    h_raw(h, "</summary><pre>");
    h_esc(h, t);
    h_raw(h, "</pre></details>\n");
    free(t);
}

const char *j_str(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? s : dflt;
}
