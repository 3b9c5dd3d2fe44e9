/* cli_plan_serving.c - plan's serving configurations (--tp, --dtype): each
 * policy entry becomes one per (TP degree, precision), carrying --set
 * svc_tp and svc_dtype, so the buyer's table ranks every (card, TP,
 * precision) by cost, the cheapest first with the runners-up below; and
 * before an entry is searched, each service of a catalog model in the trace
 * must fit a replica of the candidate card in that configuration
 * (perf_shape_fits: weights and the KV reserve per GPU, the precision's
 * tensor cores, TP dividing the heads, tp x pp GPUs on one node), else the
 * entry is impossible with the reason and never run. One pass over the
 * trace per check.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/perf/perf_shape.h"
#include "../sim/service/svc.h"
#include "../workloads/wl_trace.h"
#include "cli_plan.h"

/* Appends "name[sets,extra]" for one entry written as `e` (len bytes). */
static void add_entry(char *out, size_t n, const char *e, size_t len, const char *extra)
{
    size_t used = strlen(out);
    const char *br = memchr(e, '[', len);
    if (br) /* NAME[a=b] -> NAME[a=b,extra] */
        snprintf(out + used, n - used, "%s%.*s,%s]", used ? "," : "", (int)(len - 1), e, extra);
    else
        snprintf(out + used, n - used, "%s%.*s[%s]", used ? "," : "", (int)len, e, extra);
}

int cli_plan_serving_expand(const char *policies, const char *tps, const char *dtypes, char **out, gs_error *err)
{
    static const char *const tp_auto = "1,2,4,8";
    const char *tl = tps && !strcmp(tps, "auto") ? tp_auto : tps;
    size_t cap = 64 * 1024;
    *out = xcalloc(cap, 1);
    const char *start = policies;
    int depth = 0;
    for (const char *c = policies;; c++) {
        depth += *c == '[' ? 1 : *c == ']' ? -1 : 0;
        if (!((*c == ',' && depth == 0) || *c == 0))
            continue;
        char *tcopy = xstrdup(tl ? tl : "0"), *ts = NULL;
        for (char *t = strtok_r(tcopy, ",", &ts); t; t = strtok_r(NULL, ",", &ts)) {
            long tp = strtol(t, NULL, 10);
            if (tl && (tp < 1 || tp > 64 || strspn(t, "0123456789") != strlen(t))) {
                gs_err(err, GS_EUSAGE, "--tp: expected auto or TP degrees 1..64, comma separated, found '%s'", t);
                free(tcopy);
                return GS_EUSAGE;
            }
            char *dcopy = xstrdup(dtypes ? dtypes : "row"), *ds = NULL;
            for (char *d = strtok_r(dcopy, ",", &ds); d; d = strtok_r(NULL, ",", &ds)) {
                if (dtypes && llm_dtype_parse(d) < 0) {
                    gs_err(err, GS_EUSAGE, "--dtype: expected bf16, fp8 or fp4, comma separated, found '%s'", d);
                    free(dcopy);
                    free(tcopy);
                    return GS_EUSAGE;
                }
                char extra[64];
                snprintf(extra, sizeof extra, "svc_tp=%ld,svc_dtype=%s", tl ? tp : 0L, d);
                add_entry(*out, cap, start, (size_t)(c - start), extra);
            }
            free(dcopy);
        }
        free(tcopy);
        if (*c == 0)
            break;
        start = c + 1;
    }
    return 0;
}

/* The value of `key` in p's sets, else the plan's --set, else the core
 * parameter's default (svc_params). */
static const char *set_of(const cli_batch_policy *p, const cli_opts *com, const char *key)
{
    size_t kl = strlen(key);
    for (int i = 0; i < p->nsets; i++)
        if (!strncmp(p->sets[i], key, kl) && p->sets[i][kl] == '=')
            return p->sets[i] + kl + 1;
    for (int i = 0; i < com->nsets; i++)
        if (!strncmp(com->sets[i], key, kl) && com->sets[i][kl] == '=')
            return com->sets[i] + kl + 1;
    for (const pol_param *pp = svc_params; pp->name; pp++)
        if (!strcmp(pp->name, key))
            return pp->def;
    return "";
}

/* Service row r of a catalog model on card g under p's overrides: false
 * with the reason when no replica of it fits there. */
static bool row_fits(const wl_row *r, const llm_model *m, const gpu_model *g, const cli_batch_policy *p,
                     const cli_opts *com, char *why, size_t n)
{
    long tp_all = strtol(set_of(p, com, "svc_tp"), NULL, 10);
    int dt_all = llm_dtype_parse(set_of(p, com, "svc_dtype"));
    perf_cfg c = {.llm = m, .gpu = g, .dtype = dt_all >= 0 ? dt_all : r->dtype ? r->dtype - 1 : m->dtype,
                  .pp = r->pp ? r->pp : 1, .ep = r->ep ? r->ep : 1};
    c.tp = tp_all > 0 ? (int)tp_all : r->tp ? r->tp : r->gpus > 0 ? r->gpus / c.pp : 1;
    if (c.ep > 1 && tp_all > 0)
        c.ep = c.tp;
    char what[300];
    if (c.tp * c.pp > com->gpus_per_node)
        snprintf(what, sizeof what, "tp %d x pp %d GPUs exceed a node's %ld", c.tp, c.pp, com->gpus_per_node);
    else if (perf_shape_fits(&c, strtod(set_of(p, com, "svc_kv_reserve_tokens"), NULL),
                             strtod(set_of(p, com, "svc_kv_mem_util"), NULL), what, sizeof what))
        return true;
    snprintf(why, n, "service '%.60s' (%s %s, tp %d): %s", r->id, m->name, llm_dtype_name(c.dtype), c.tp, what);
    return false;
}

int cli_plan_serving_check(const plan_ctx *cx, const candidate *cd, const cli_batch_policy *p, char *why, size_t n,
                           gs_error *err)
{
    *why = 0;
    if (!cd->model)
        return 0; /* a template mixes cards: the runs say where replicas fit */
    char dir[600];
    llm_catalog lc;
    llm_catalog_dir_of(cx->cat->dir, dir, sizeof dir);
    int rc = llm_catalog_load(&lc, dir, err);
    if (rc)
        return rc;
    wl_opts o = {0};
    wl_trace *t = wl_trace_open(cx->com->trace, &o, err);
    if (!t) {
        llm_catalog_free(&lc);
        return err->code;
    }
    const wl_row *r;
    while (!*why && (rc = wl_trace_next(t, &r, err)) == 1) {
        const llm_model *m = r->kind == WL_KIND_SERVICE && r->model[0] ? llm_catalog_find(&lc, r->model) : NULL;
        if (m)
            row_fits(r, m, cd->model, p, cx->com, why, n);
    }
    wl_trace_close(t);
    llm_catalog_free(&lc);
    return rc < 0 ? err->code : 0;
}
