/* gs_param.c - see gs_param.h.
 * SPDX-License-Identifier: MIT */
#include "gs_param.h"

#include "gs_num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gs_parse_decimal(const char *s, size_t n, double *out) { return gs_num_decimal_n(s, n, out); }

/* The numeric prefix of s: its length (the rest is a unit). */
static size_t num_len(const char *s)
{
    size_t i = 0;
    while (s[i] && (strchr("0123456789.-+", s[i]) || ((s[i] == 'e' || s[i] == 'E') && i > 0 &&
                                                      (s[i + 1] == '-' || s[i + 1] == '+' ||
                                                       (s[i + 1] >= '0' && s[i + 1] <= '9')))))
        i++;
    return i;
}

static bool choice_of(const char *choices, const char *v, int *idx)
{
    size_t l = strlen(v);
    int k = 0;
    for (const char *p = choices; p && *p; k++) {
        const char *bar = strchr(p, '|');
        size_t pl = bar ? (size_t)(bar - p) : strlen(p);
        if (pl == l && !strncmp(p, v, l)) {
            *idx = k;
            return true;
        }
        p = bar ? bar + 1 : p + pl;
    }
    return false;
}

/* "a|b|c" as "a, b or c" */
static void words(const char *choices, char *buf, size_t n)
{
    size_t used = 0, total = 1;
    for (const char *p = choices; *p; p++)
        total += *p == '|';
    size_t k = 0;
    for (const char *p = choices; *p && used < n; k++) {
        const char *bar = strchr(p, '|');
        int pl = (int)(bar ? (size_t)(bar - p) : strlen(p));
        used += (size_t)snprintf(buf + used, n - used, "%s%.*s", k == 0 ? "" : k + 1 == total ? " or " : ", ", pl, p);
        p = bar ? bar + 1 : p + pl;
    }
}

void gs_param_describe(const gs_param_spec *sp, char *buf, size_t n)
{
    if (n)
        buf[0] = 0;
    if (sp->type != GS_P_ENUM && sp->type != GS_P_TEXT && sp->choices && n > 32) {
        gs_param_spec plain = *sp;
        plain.choices = NULL;
        gs_param_describe(&plain, buf, n / 2);
        size_t b = strlen(buf);
        snprintf(buf + b, n - b, " or ");
        words(sp->choices, buf + strlen(buf), n - strlen(buf));
        return;
    }
    switch (sp->type) {
    case GS_P_NUM:
        snprintf(buf, n, "number %g..%g%s%s", sp->lo, sp->hi, sp->unit ? " " : "", sp->unit ? sp->unit : "");
        break;
    case GS_P_INT: snprintf(buf, n, "integer %.0f..%.0f", sp->lo, sp->hi); break;
    case GS_P_ENUM: words(sp->choices, buf, n); break;
    case GS_P_ONOFF: snprintf(buf, n, "on or off"); break;
    case GS_P_DURATION: snprintf(buf, n, "duration %g..%g s (units us, ms, s, m, h)", sp->lo, sp->hi); break;
    case GS_P_NAME: snprintf(buf, n, "a name"); break;
    default: buf[0] = 0;
    }
}

int gs_param_parse(const char *name, const char *value, const gs_param_spec *sp, gs_param_value *out,
                   gs_error *err)
{
    memset(out, 0, sizeof *out);
    out->choice = -1;
    bool ok = false;
    double v = 0;
    if (sp->type != GS_P_ENUM && sp->type != GS_P_TEXT && sp->choices && choice_of(sp->choices, value, &out->choice))
        return 0; /* a word the parameter also takes ("off", "none") */
    switch (sp->type) {
    case GS_P_TEXT: return 0;
    case GS_P_NUM: {
        size_t l = num_len(value);
        const char *unit = value + l;
        ok = gs_parse_decimal(value, l, &v) && (!*unit || (sp->unit && !strcmp(unit, sp->unit))) && v >= sp->lo &&
             v <= sp->hi;
        out->num = v;
        break;
    }
    case GS_P_INT: {
        ok = gs_parse_decimal(value, strlen(value), &v) && !strpbrk(value, ".eE") && v >= sp->lo && v <= sp->hi;
        out->num = v;
        out->i = (long long)(ok ? v : 0);
        break;
    }
    case GS_P_ENUM: ok = choice_of(sp->choices, value, &out->choice); break;
    case GS_P_ONOFF: ok = choice_of("off|on", value, &out->choice); break;
    case GS_P_DURATION: {
        size_t l = num_len(value);
        const char *unit = value + l;
        static const struct {
            const char *name;
            double s;
        } units[] = {{"", 1}, {"s", 1}, {"us", 1e-6}, {"ms", 1e-3}, {"m", 60}, {"h", 3600}};
        double mul = -1;
        for (size_t u = 0; u < sizeof units / sizeof *units; u++)
            if (!strcmp(unit, units[u].name))
                mul = units[u].s;
        ok = mul > 0 && gs_parse_decimal(value, l, &v);
        v *= mul;
        ok = ok && v >= sp->lo && v <= sp->hi;
        out->num = v;
        break;
    }
    case GS_P_NAME: ok = *value && !strpbrk(value, " \t\n="); break;
    default: GS_BUG("gs_param_parse: unknown type");
    }
    if (ok)
        return 0;
    char want[160];
    gs_param_describe(sp, want, sizeof want);
    return gs_err(err, GS_EUSAGE, "--set %s='%s': expected %s", name, value, want);
}
