/* sim_class.c - see sim_class.h.
 * SPDX-License-Identifier: MIT */
#include "sim_class.h"

#include <stdlib.h>
#include <string.h>

void sim_classes_init(sim_classes *k, int col)
{
    memset(k, 0, sizeof *k);
    k->on = col > 0;
    k->col = col;
    k->none = -1;
}

void sim_classes_free(sim_classes *k)
{
    for (uint32_t i = 0; i < k->n; i++) {
        sim_sketch_free(&k->c[i].queue_s);
        sim_sketch_free(&k->c[i].jct_s);
    }
    free(k->c);
    free(k->by_sym);
    memset(k, 0, sizeof *k);
}

/* The index of the class named name (interned), added when new: -1 past
 * SIM_CLASS_MAX. O(classes): once per name (the map keeps the answer). */
static int class_index(sim_classes *k, const char *name)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (k->c[i].name == name)
            return (int)i;
    if (k->n == SIM_CLASS_MAX)
        return -1;
    k->c = xrealloc(k->c, (k->n + 1) * sizeof *k->c);
    sim_class_fig *f = &k->c[k->n];
    memset(f, 0, sizeof *f);
    f->name = name;
    sim_sketch_init_wide(&f->queue_s); /* counted by sim_sketch_count_wide */
    sim_sketch_init_wide(&f->jct_s);
    return (int)k->n++;
}

/* Class index i kept for name number sym (0: nothing kept). */
static void by_sym_put(sim_classes *k, uint32_t sym, int i)
{
    if (sym == 0)
        return;
    if (sym >= k->nsym) {
        uint32_t n = k->nsym ? k->nsym : 16;
        while (n <= sym)
            n = n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
        k->by_sym = xrealloc(k->by_sym, (size_t)n * sizeof *k->by_sym);
        for (uint32_t s = k->nsym; s < n; s++)
            k->by_sym[s] = SIM_CLASS_UNSEEN;
        k->nsym = n;
    }
    k->by_sym[sym] = (uint16_t)i;
}

/* The index of row r's class, added when new: -1 past SIM_CLASS_MAX. */
static int class_of_row(sim_classes *k, sim_strtab *strs, const wl_row *r)
{
    if (r->class_sym < k->nsym && k->by_sym[r->class_sym] != SIM_CLASS_UNSEEN)
        return k->by_sym[r->class_sym];
    if (!r->job_class[0] && k->none >= 0) /* no class: its index kept apart (name number 0 has no entry) */
        return k->none;
    /* a name's first job, or a row built by hand (no name number) */
    int i = class_index(k, sim_str_intern(strs, r->job_class[0] ? r->job_class : SIM_CLASS_NONE));
    if (i >= 0 && !r->job_class[0])
        k->none = i;
    if (i >= 0)
        by_sym_put(k, r->class_sym, i);
    return i;
}

/* sim_class_arrived for any row */
int sim_class_arrived_new(sim_classes *k, sim_strtab *strs, job *j, const wl_row *r, const char *trace,
                          gs_error *err)
{
    int i = class_of_row(k, strs, r);
    if (i < 0)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d (class): more than %d classes; a class "
                      "names a kind of work (training, notebook, ...) for per-class figures, not a job",
                      trace, r->line, k->col, SIM_CLASS_MAX);
    j->req.cls = (uint16_t)i;
    k->c[i].arrived++;
    return 0;
}

void sim_classes_report(const sim_classes *k, cJSON *jobs)
{
    if (!k->on)
        return;
    cJSON *o = cJSON_AddObjectToObject(jobs, "class");
    for (uint32_t i = 0; i < k->n; i++) {
        cJSON *c = cJSON_AddObjectToObject(o, k->c[i].name);
        cJSON_AddNumberToObject(c, "arrivals", (double)k->c[i].arrived);
        cJSON_AddNumberToObject(c, "completed", (double)k->c[i].jct_s.n);
        sim_report_add_stats(c, "queue_s", &k->c[i].queue_s);
        sim_report_add_stats(c, "jct_s", &k->c[i].jct_s);
    }
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
    return cJSON_IsNumber(x) ? x->valuedouble : 0.0;
}

/* "mean M p99 P s" of statistic object key, or "-" when its sample is empty. */
static void stat_pair(FILE *out, const cJSON *c, const char *key)
{
    if (num(c, key, "count") > 0)
        fprintf(out, "mean %.1f p99 %.1f s", num(c, key, "mean"), num(c, key, "p99"));
    else
        fputs("-", out);
}

void sim_classes_print(const cJSON *jobs, FILE *out)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(jobs, "class"), *c;
    int shown = 0, n = cJSON_GetArraySize(o);
    cJSON_ArrayForEach(c, o)
    {
        if (shown++ == SIM_CLASS_PRINT) {
            fprintf(out, "  class     ... %d more in the report (jobs.class)\n", n - SIM_CLASS_PRINT);
            break;
        }
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arrivals"),
                    *d = cJSON_GetObjectItemCaseSensitive(c, "completed");
        fprintf(out, "  class %-12s queue ", c->string);
        stat_pair(out, c, "queue_s");
        fputs(", jct ", out);
        stat_pair(out, c, "jct_s");
        fprintf(out, " (%.0f jobs, %.0f completed)\n", cJSON_GetNumberValue(a), cJSON_GetNumberValue(d));
    }
}
