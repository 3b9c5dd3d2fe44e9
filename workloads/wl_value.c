/* wl_value.c - see wl_value.h. Sources: RFC 3339 section 5.6 (the
 * date-time grammar); Kubernetes apimachinery resource.Quantity (the
 * quantity grammar, pkg/api/resource/quantity.go); Slurm parse_time.c
 * (its "%FT%T" output).
 * SPDX-License-Identifier: MIT */
#include "wl_value.h"

#include "../base/gs_num.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n digits at s into *v; false unless all are digits. */
static bool digits(const char *s, int n, int *v)
{
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return true;
}

/* The zone at p ("Z", "+hh:mm", "-hh:mm") in seconds east of UTC. */
static bool zone_at(const char *p, int *east_s)
{
    if ((p[0] == 'Z' || p[0] == 'z') && !p[1]) {
        *east_s = 0;
        return true;
    }
    int h, m;
    if ((p[0] != '+' && p[0] != '-') || !digits(p + 1, 2, &h) || p[3] != ':' || !digits(p + 4, 2, &m) || p[6] ||
        h > 23 || m > 59)
        return false;
    *east_s = (p[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return true;
}

/* The date and time (with 'T' as ' ') go to the one strict date parser,
 * gs_num_datetime_us, which refuses 25:00 and 30 February; the zone is
 * applied here. */
bool wl_value_time(const char *s, int zone, int64_t *us)
{
    size_t n = strlen(s);
    if (n < 19 || (s[10] != 'T' && s[10] != 't'))
        return false;
    size_t dt = 19;
    if (s[19] == '.')
        for (dt = 20; s[dt] >= '0' && s[dt] <= '9'; dt++)
            ;
    if (dt - 20 > 9 && s[19] == '.') /* more than nanoseconds */
        return false;
    char buf[40];
    if (dt >= sizeof buf)
        return false;
    memcpy(buf, s, dt);
    buf[dt] = 0;
    buf[10] = ' ';
    int east = 0;
    const char *z = s + dt;
    if (*z ? zone == 0 || !zone_at(z, &east) : zone == 1)
        return false;
    int64_t t;
    if (!gs_num_datetime_us(buf, true, &t))
        return false;
    *us = t - (int64_t)east * 1000000;
    return true;
}

void wl_value_time_format(int64_t us, char *buf, size_t n)
{
    int64_t t = us / 1000000 - (us % 1000000 < 0), z = t / 86400 - (t % 86400 < 0), sod = t - z * 86400;
    z += 719468; /* civil from days: the inverse of days_from_civil */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, (int)m, (int)d, (int)(sod / 3600),
             (int)(sod / 60 % 60), (int)(sod % 60));
}

void wl_value_seconds(int64_t us, char *buf, size_t n)
{
    if (us % 1000000 == 0)
        snprintf(buf, n, "%" PRId64, us / 1000000);
    else
        snprintf(buf, n, "%s%" PRId64 ".%06" PRId64, us < 0 && us > -1000000 ? "-" : "", us / 1000000,
                 (us < 0 ? -us : us) % 1000000);
}

bool wl_value_quantity(const char *s, double *v)
{
    const char *p = s;
    int nd = 0;
    while (*p >= '0' && *p <= '9')
        p++, nd++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            nd++;
    if (nd == 0 || p - s > 40)
        return false;
    char num[48];
    memcpy(num, s, (size_t)(p - s));
    num[p - s] = 0;
    double x = strtod(num, NULL);
    static const struct {
        const char *suf;
        double mul;
    } sufs[] = {{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
                {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}, {"m", 1e-3}, {"", 1}, {"k", 1e3},
                {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}};
    for (size_t i = 0; i < sizeof sufs / sizeof *sufs; i++)
        if (!strcmp(p, sufs[i].suf)) {
            *v = x * sufs[i].mul;
            return isfinite(*v);
        }
    if (*p == 'e' || *p == 'E') { /* decimalExponent: e<signed integer> */
        const char *q = p + 1 + (p[1] == '-' || p[1] == '+');
        int ex = 0, n = 0;
        for (; *q >= '0' && *q <= '9' && n < 4; q++, n++)
            ex = ex * 10 + (*q - '0');
        if (n == 0 || *q)
            return false;
        *v = x * pow(10.0, p[1] == '-' ? -ex : ex);
        return isfinite(*v);
    }
    return false;
}

bool wl_value_quantity_int(const char *s, long *v)
{
    double x;
    if (!wl_value_quantity(s, &x) || x != floor(x) || x > 2147483648.0)
        return false;
    *v = (long)x;
    return true;
}

const cJSON *wl_value_json_at(const cJSON *o, const char *const *path, int n)
{
    for (int i = 0; i < n && o; i++)
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, path[i]) : NULL;
    return o;
}

const char *wl_value_json_str(const cJSON *o, const char *const *path, int n)
{
    const cJSON *v = wl_value_json_at(o, path, n);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
