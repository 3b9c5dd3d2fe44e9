/* cli_plan_cands.c - plan's candidates (--gpu models, --cluster-template
 * files) and what a count of one costs: cards, nodes, the price per
 * GPU-hour of each model and where it comes from (--price, the template's
 * node group, the model file).
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_cluster_file.h"
#include "cli_plan.h"

/* The price of one GPU-hour of model m and where it comes from: --price,
 * else the node group's price in the template (group >= 0), else the model
 * file's list price. NAN when none is known. */
static double price_of(const plan_ctx *cx, const candidate *c, int group, const gpu_model *m, const char **src)
{
    for (int i = 0; i < cx->nprices; i++)
        if (cx->prices[i].model == m) {
            *src = "--price";
            return cx->prices[i].usd;
        }
    if (c->model == NULL && group >= 0) {
        const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c->tpl.doc, "nodes"), group);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "price_per_gpu_hour_usd");
        if (cJSON_IsNumber(p)) {
            *src = "cluster template";
            return p->valuedouble;
        }
    }
    *src = "model file";
    return m->price_per_hour_usd >= 0 ? m->price_per_hour_usd : NAN;
}

void cli_plan_cands_size(const plan_ctx *cx, const candidate *c, long x, long *cards, long *nodes, double *usd_h,
                   cJSON *sources)
{
    *cards = *nodes = 0;
    *usd_h = 0;
    if (c->model) {
        long gpn = cx->com->gpus_per_node;
        const char *src;
        double p = price_of(cx, c, -1, c->model, &src);
        *cards = x;
        *nodes = (x + gpn - 1) / gpn;
        *usd_h = p * (double)x;
        if (sources) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "model", c->model->name);
            cJSON_AddNumberToObject(o, "gpus", (double)x);
            isnan(p) ? cJSON_AddNullToObject(o, "price_per_gpu_hour_usd")
                     : cJSON_AddNumberToObject(o, "price_per_gpu_hour_usd", p);
            cJSON_AddStringToObject(o, "source", src);
            cJSON_AddItemToArray(sources, o);
        }
        return;
    }
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(c->tpl.doc, "nodes");
    for (int g = 0; g < c->tpl.ngroups; g++) {
        const cJSON *gr = cJSON_GetArrayItem(groups, g);
        const gpu_model *m =
            gpu_catalog_find(cx->cat, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(gr, "model")));
        long n = cluster_template_count(&c->tpl, g, x);
        long per = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(gr, "gpus"));
        const char *src;
        double p = m ? price_of(cx, c, g, m, &src) : NAN;
        *nodes += n;
        *cards += n * per;
        *usd_h += p * (double)(n * per);
        if (sources && m) {
            cJSON *o = cJSON_CreateObject();
            const char *gn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(gr, "name"));
            cJSON_AddStringToObject(o, "group", gn ? gn : "");
            cJSON_AddStringToObject(o, "model", m->name);
            cJSON_AddNumberToObject(o, "gpus", (double)(n * per));
            isnan(p) ? cJSON_AddNullToObject(o, "price_per_gpu_hour_usd")
                     : cJSON_AddNumberToObject(o, "price_per_gpu_hour_usd", p);
            cJSON_AddStringToObject(o, "source", src);
            cJSON_AddItemToArray(sources, o);
        }
    }
}


int cli_plan_cands_price(plan_ctx *cx, const gpu_catalog *cat, const char *arg, gs_error *err)
{
    const gpu_model *m;
    double usd;
    int rc = sim_price_parse(cat, arg, &m, &usd, err);
    if (rc)
        return rc;
    if (cx->nprices == PLAN_MAX_PRICES)
        return gs_err(err, GS_EUSAGE, "--price: at most %d models", PLAN_MAX_PRICES);
    cx->prices[cx->nprices++] = (price_override){m, usd};
    return 0;
}

static void slugify(char *dst, size_t n, const char *src)
{
    size_t l = 0;
    for (; *src && l + 1 < n; src++) {
        unsigned char ch = (unsigned char)*src;
        dst[l++] = (char)(isalnum(ch) || ch == '-' || ch == '.' ? ch : '_');
    }
    dst[l] = 0;
}


/* The --gpu candidates: each model at one node of --gpus-per-node cards. */
int cli_plan_cands_gpus(const char *gpu_list, long gpus_per_node, const char *mig, const gpu_catalog *cat,
                        candidate *cands, int *ncands, gs_error *err)
{
    int rc = 0;
    char *mcopy = gpu_list ? xstrdup(gpu_list) : NULL, *save = NULL;
    for (char *tok = mcopy ? strtok_r(mcopy, ",", &save) : NULL; tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        if (*ncands == PLAN_MAX_CANDS) {
            rc = gs_err(err, GS_EUSAGE, "plan: at most %d candidates", PLAN_MAX_CANDS);
            break;
        }
        candidate *cd = &cands[*ncands];
        cd->model = gpu_catalog_find(cat, tok);
        if (!cd->model) {
            char names[2048];
            gpu_catalog_names(cat, names, sizeof names);
            rc = gs_err(err, GS_EUSAGE, "--gpu: unknown GPU model '%s' (known: %s)", tok, names);
            break;
        }
        snprintf(cd->label, sizeof cd->label, "%s", cd->model->name);
        slugify(cd->slug, sizeof cd->slug, cd->model->name);
        cd->gpus_per_node = gpus_per_node;
        cd->mig = mig;
        if ((rc = cli_plan_cands_unit(cd, cat, &cd->unit, err)) != 0)
            break;
        (*ncands)++;
    }
    free(mcopy);
    return rc;
}

/* The --cluster-template candidates, each checked at scale 1. */
int cli_plan_cands_templates(const char *const *templates, int ntemplates, const gpu_catalog *cat, candidate *cands,
                             int *ncands, gs_error *err)
{
    int rc = 0;
    for (int i = 0; i < ntemplates && rc == 0; i++) {
        if (*ncands == PLAN_MAX_CANDS)
            return gs_err(err, GS_EUSAGE, "plan: at most %d candidates", PLAN_MAX_CANDS);
        candidate *cd = &cands[*ncands];
        if ((rc = cluster_template_load(&cd->tpl, templates[i], err)) != 0) {
            cluster_template_free(&cd->tpl);
            break;
        }
        (*ncands)++;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cd->tpl.doc, "name");
        const char *base = strrchr(templates[i], '/');
        snprintf(cd->label, sizeof cd->label, "%s",
                 cJSON_IsString(nm) ? nm->valuestring : base ? base + 1 : templates[i]);
        char sl[160];
        slugify(sl, sizeof sl, cd->label);
        snprintf(cd->slug, sizeof cd->slug, "t%d-%.100s", i, sl);
        cd->path = templates[i];
        rc = cli_plan_cands_unit(cd, cat, &cd->unit, err); /* checks every group's keys */
    }
    return rc;
}

int cli_plan_cands_unit(const candidate *c, const gpu_catalog *cat, sim_cluster *out, gs_error *err)
{
    if (!c->model) {
        cJSON *inst = cluster_template_instance(&c->tpl, 1);
        int rc = sim_cluster_from_json(out, inst, c->path, cat, err);
        cJSON_Delete(inst);
        return rc;
    }
    char spec[200];
    snprintf(spec, sizeof spec, "%s:%ld", c->model->name, c->gpus_per_node);
    int rc = sim_cluster_from_spec(out, spec, (int)c->gpus_per_node, cat, err);
    if (rc == 0 && c->mig && (rc = sim_cluster_set_mig(out, c->mig, err)) != 0)
        sim_cluster_free(out);
    return rc;
}

