/* mig_conf.c - the cluster file's "mig" key for the `mig` and `dynmig` policies:
 * named and listed layouts checked against the card's placement rule, and
 * time-of-day
 * schedules (see mig_common.h).
 * SPDX-License-Identifier: MIT */
#include "mig_common.h"

#include <stdlib.h>
#include <string.h>

/* Places one instance of p at the start strategy st picks; false if none. */
static bool add_one(mig_card *c, mig_layout_spec *l, int p, mig_strategy st)
{
    int s = mig_choose_start(c, p, st, NULL);
    if (s < 0)
        return false;
    mig_place(c, p, s);
    l->prof[l->n] = (int8_t)p;
    l->start[l->n++] = (int8_t)s;
    return true;
}

/* The first profile (table order) whose name starts with prefix and that is
 * not a +me variant, with the fewest memory slices. */
static int profile_by_prefix(const mig_table *t, const char *prefix)
{
    int best = -1;
    for (int i = 0; i < t->nprofiles; i++)
        if (!strncmp(t->profiles[i].name, prefix, strlen(prefix)) && !strstr(t->profiles[i].name, "+me") &&
            (best < 0 || t->profiles[i].size < t->profiles[best].size))
            best = i;
    return best;
}

static void list_profiles(const mig_table *t, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < t->nprofiles && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", t->profiles[i].name);
}

/* Resolves one layout value: "whole" (the full-card profile), "balanced"
 * (mig-parted's all-balanced mix: one 3g, one 2g, the rest in 1g instances of
 * one slice, placed largest first with the bestfit rule), "all-<profile>"
 * (as many of that profile as fit, lowest starts first) or an explicit list
 * [{"profile": P, "start": S}, ...] checked against the placement rule. */
/* A named layout (whole, balanced, dynamic, all-<profile>) into l, built
 * on card c: 0, or -1 with why. */
static int named_layout(const char *nm, const mig_table *t, mig_card *c, mig_layout_spec *l, char *why, size_t n)
{
    char names[512];
    if (!strcmp(nm, "dynamic")) { /* no instances: dynmig creates them per request */
        return 0;
    }
    if (!strcmp(nm, "whole")) {
        int p = mig_full_profile(t);
        if (p < 0 || !add_one(c, l, p, MIG_BESTFIT))
            return snprintf(why, n, "this model has no full-card profile"), -1;
        return 0;
    }
    if (!strcmp(nm, "balanced")) {
        int p3 = profile_by_prefix(t, "3g."), p2 = profile_by_prefix(t, "2g."), p1 = profile_by_prefix(t, "1g.");
        if (p2 < 0 || p1 < 0)
            return snprintf(why, n, "'balanced' needs 2g and 1g profiles"), -1;
        if (p3 >= 0)
            add_one(c, l, p3, MIG_BESTFIT);
        add_one(c, l, p2, MIG_BESTFIT);
        while (t->profiles[p1].size == 1 && add_one(c, l, p1, MIG_BESTFIT))
            ;
        return 0;
    }
    if (!strncmp(nm, "all-", 4)) {
        int p = mig_profile_find(t, nm + 4);
        if (p < 0) {
            list_profiles(t, names, sizeof names);
            return snprintf(why, n, "unknown profile '%s' (profiles: %s)", nm + 4, names), -1;
        }
        while (l->n < MIG_MAX_SLICES) {
            int st[MIG_MAX_SLICES];
            if (mig_free_starts(c, p, st) == 0)
                break;
            mig_place(c, p, st[0]);
            l->prof[l->n] = (int8_t)p;
            l->start[l->n++] = (int8_t)st[0];
        }
        return 0;
    }
    return snprintf(why, n, "unknown layout '%s' (expected whole, balanced, dynamic, all-<profile> or a list of "
                    "{\"profile\", \"start\"})", nm), -1;
}

/* Why entry k, profile p at slice s, cannot be placed on card c: not a
 * legal start, past the profile's instances, or over an earlier one. -1. */
static int place_refused(const mig_card *c, const mig_table *t, int k, int p, int s, char *why, size_t n)
{
    const mig_profile *pr = &t->profiles[p];
    char legal[64] = "";
    size_t u = 0;
    for (int q = 0; q < pr->nplacements; q++)
        u += (size_t)snprintf(legal + u, sizeof legal - u, "%s%d", q ? "," : "", pr->placements[q]);
    bool is_legal = false;
    for (int q = 0; q < pr->nplacements; q++)
        is_legal |= pr->placements[q] == s;
    if (!is_legal)
        return snprintf(why, n, "[%d]: %s cannot start at slice %d (legal starts: %s)", k, pr->name, s, legal), -1;
    if (c->count[p] >= pr->max_instances)
        return snprintf(why, n, "[%d]: more than %d instance(s) of %s", k, pr->max_instances, pr->name), -1;
    return snprintf(why, n, "[%d]: %s at slice %d overlaps an earlier instance (slices %d..%d taken)", k, pr->name,
                    s, s, s + pr->size - 1), -1;
}

/* Resolves one layout value: "whole" (the full-card profile), "balanced"
 * (mig-parted's all-balanced mix: one 3g, one 2g, the rest in 1g instances of
 * one slice, placed largest first with the bestfit rule), "all-<profile>"
 * (as many of that profile as fit, lowest starts first) or an explicit list
 * [{"profile": P, "start": S}, ...] checked against the placement rule. */
static int parse_layout(const cJSON *v, const mig_table *t, mig_layout_spec *l, char *why, size_t n)
{
    mig_card c;
    mig_card_init(&c, t);
    memset(l, 0, sizeof *l);
    char names[512];
    if (cJSON_IsString(v))
        return named_layout(v->valuestring, t, &c, l, why, n);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > MIG_MAX_SLICES)
        return snprintf(why, n, "expected a layout name or a list of at most 8 {\"profile\", \"start\"}"), -1;
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, v)
    {
        const cJSON *pn = cJSON_GetObjectItemCaseSensitive(it, "profile"),
                    *ps = cJSON_GetObjectItemCaseSensitive(it, "start");
        if (!cJSON_IsString(pn) || !cJSON_IsNumber(ps) || ps->valuedouble < 0 || ps->valuedouble > 7 ||
            ps->valuedouble != (int)ps->valuedouble || cJSON_GetArraySize(it) != 2)
            return snprintf(why, n, "[%d]: expected {\"profile\": NAME, \"start\": SLICE}", k), -1;
        int p = mig_profile_find(t, pn->valuestring), s = (int)ps->valuedouble;
        if (p < 0) {
            list_profiles(t, names, sizeof names);
            return snprintf(why, n, "[%d]: unknown profile '%s' (profiles: %s)", k, pn->valuestring, names), -1;
        }
        if (!mig_can_place(&c, p, s))
            return place_refused(&c, t, k, p, s, why, n);
        mig_place(&c, p, s);
        l->prof[l->n] = (int8_t)p;
        l->start[l->n++] = (int8_t)s;
        k++;
    }
    return 0;
}

static bool parse_hhmm(const char *s, gs_time_us *out)
{
    int h, m;
    char tail;
    if (sscanf(s, "%d:%d%c", &h, &m, &tail) != 2 || h < 0 || h > 23 || m < 0 || m > 59 || strlen(s) != 5)
        return false;
    *out = ((gs_time_us)h * 3600 + m * 60) * GS_US_PER_S;
    return true;
}

/* The group's "mig" value: a layout, or {"schedule": [{"at": "HH:MM",
 * "layout": L}, ...]} with "at" strictly increasing. */
int mig_group_parse(mig_group *gr, const char *text, char *why, size_t n)
{
    cJSON *v = cJSON_Parse(text);
    int rc = 0;
    const cJSON *sch = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "schedule") : NULL;
    if (cJSON_IsObject(v)) {
        int ns = cJSON_GetArraySize(sch);
        if (!cJSON_IsArray(sch) || ns < 1 || ns > MIG_MAX_SCHED || cJSON_GetArraySize(v) != 1) {
            snprintf(why, n, "expected a layout or {\"schedule\": [{\"at\": \"HH:MM\", \"layout\": L}, ...]} "
                     "with 1..%d entries", MIG_MAX_SCHED);
            rc = -1;
            goto out;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, sch)
        {
            const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "at"),
                        *lay = cJSON_GetObjectItemCaseSensitive(e, "layout");
            int k = gr->nsched;
            if (!cJSON_IsString(at) || !parse_hhmm(at->valuestring, &gr->at_us[k]) || !lay) {
                snprintf(why, n, "schedule[%d]: expected {\"at\": \"HH:MM\", \"layout\": L}", k);
                rc = -1;
                goto out;
            }
            if (k > 0 && gr->at_us[k] <= gr->at_us[k - 1]) {
                snprintf(why, n, "schedule[%d]: \"at\" must be later than the entry before", k);
                rc = -1;
                goto out;
            }
            char sub[400];
            if (parse_layout(lay, gr->model->mig, &gr->layout[k], sub, sizeof sub) != 0) {
                snprintf(why, n, "schedule[%d].layout: %s", k, sub);
                rc = -1;
                goto out;
            }
            gr->nsched++;
        }
    } else {
        gr->nsched = 1;
        gr->at_us[0] = 0;
        rc = parse_layout(v, gr->model->mig, &gr->layout[0], why, n);
    }
out:
    cJSON_Delete(v);
    return rc;
}

int mig_sched_entry(const mig_group *gr, gs_time_us t_us)
{
    gs_time_us tod = t_us % (24 * 3600 * GS_US_PER_S);
    int e = gr->nsched - 1; /* before the first "at": the last entry, from the day before */
    for (int k = 0; k < gr->nsched; k++)
        if (gr->at_us[k] <= tod)
            e = k;
    return e;
}
