/* svc_model.c - a service row that names a catalog model (model=, models/llm):
 * its precision and parallelism, and what follows from the shape: the GPUs
 * of a replica (tp x pp), its weights and its KV-cache bytes per token; and
 * the measured profiles and the catalog, each loaded once, when a row first
 * needs them. O(models) per service row.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "svc_types.h"

int svc_perf_load(sim *s, svc_layer *L)
{
    if (L->perf_loaded)
        return 0;
    char dir[600]; /* models/perf beside models/gpu */
    snprintf(dir, sizeof dir, "%s/../perf", sim_catalog(s)->dir);
    L->perf_loaded = true;
    return perf_set_load(&L->perf, dir, sim_catalog(s), sim_error_slot(s));
}

static int llm_load(sim *s, svc_layer *L)
{
    if (L->llm_loaded)
        return 0;
    char dir[600];
    llm_catalog_dir_of(sim_catalog(s)->dir, dir, sizeof dir);
    L->llm_loaded = true;
    return llm_catalog_load(&L->llm, dir, sim_error_slot(s));
}

/* "trace 'F' line N, column C ('name'): what", or without a column
 * "trace 'F' line N: service 'ID': what". */
static int row_err(sim *s, const wl_service *row, int col, const char *name, const char *what)
{
    if (col > 0)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld, column %d ('%s'): %s",
                      sim_config_of(s)->trace_path, row->line, col, name, what);
    return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s': %s", sim_config_of(s)->trace_path,
                  row->line, row->id, what);
}

int svc_model_resolve(sim *s, svc_layer *L, const wl_service *row, svc_model_row *out)
{
    int rc = llm_load(s, L);
    if (rc)
        return rc;
    const llm_model *m = llm_catalog_find(&L->llm, row->model);
    if (!m) {
        char known[512], what[700];
        llm_catalog_names(&L->llm, known, sizeof known);
        snprintf(what, sizeof what, "expected a catalog model (%s), found '%s'",
                 *known ? known : "the catalog models/llm is empty", row->model);
        return row_err(s, row, row->model_col, "model", what);
    }
    perf_cfg *c = &out->cfg;
    *c = (perf_cfg){.llm = m, .dtype = row->dtype ? row->dtype - 1 : m->dtype, .pp = row->pp ? row->pp : 1,
                    .ep = row->ep ? row->ep : 1};
    c->tp = row->tp ? row->tp : row->ask.gpus > 0 ? row->ask.gpus / c->pp : 1;
    /* the run's overrides (what plan tries): they replace the row's tp (and so its gpus) and dtype */
    int tp_all = (int)sim_param_int(s, "svc_tp"), dt_all = sim_param_choice(s, "svc_dtype");
    if (tp_all > 0)
        c->tp = tp_all;
    if (dt_all > 0)
        c->dtype = dt_all - 1;
    if (c->ep > 1 && tp_all > 0)
        c->ep = c->tp;
    char what[300];
    if (row->ask.gpus > 0 && tp_all == 0 && row->ask.gpus != c->tp * c->pp) {
        snprintf(what, sizeof what, "gpus %d per replica, but tp %d x pp %d = %d", row->ask.gpus, c->tp, c->pp,
                 c->tp * c->pp);
        return row_err(s, row, 0, "", what);
    }
    const char *bad = perf_shape_config_error(c);
    if (bad) {
        snprintf(what, sizeof what, "%s at tp %d, pp %d, ep %d: %s", m->name, c->tp, c->pp, c->ep, bad);
        return row_err(s, row, 0, "", what);
    }
    out->gpus = c->tp * c->pp;
    out->weights_gib = row->weights_gib >= 0 ? row->weights_gib
                                             : m->params_b * 1e9 * llm_dtype_bytes(c->dtype) / 1073741824.0;
    /* the replica's KV bytes per token over all its GPUs (heads replicated past the KV heads count twice) */
    out->kv_kib = row->kv_kib_per_token > 0 ? row->kv_kib_per_token : perf_shape_kv_bytes_tok(c) * out->gpus / 1024;
    return svc_perf_load(s, L);
}
