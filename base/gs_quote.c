/* gs_quote.c - see gs_quote.h.
 * SPDX-License-Identifier: MIT */
#include "gs_quote.h"

#include <cJSON.h>
#include <string.h>

#include "gs.h"

char *gs_sh_quote(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *o = xmalloc(n), *q = o;
    *q++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            memcpy(q, "'\\''", 4), q += 4;
        else
            *q++ = *p;
    }
    *q++ = '\'';
    *q = 0;
    return o;
}

bool gs_text_vetted(const char *s, const char *extra)
{
    if (!*s)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr(extra, *p)))
            return false;
    return true;
}

char *gs_sh_word(const char *s) { return gs_text_vetted(s, "_./:=@%+,-") ? xstrdup(s) : gs_sh_quote(s); }

char *gs_yaml_str(const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *t = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!t)
        GS_BUG("cJSON could not print a string");
    char *o = xstrdup(t);
    cJSON_free(t);
    return o;
}

bool gs_text_has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return true;
    return false;
}
