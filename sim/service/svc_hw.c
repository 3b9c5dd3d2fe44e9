/* svc_hw.c - fit, KV capacity and speed of a service's replicas on the
 * card they get (see svc_hw.h).
 * SPDX-License-Identifier: MIT */
#include "svc_hw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim_hw.h"


static double num(const sim *s, const char *name) { return sim_param_number(s, name); }


double svc_hw_mem_given_mib(const sim *s, const gpu_model *m, const wl_replica_ask *ask)
{
    /* the replica's request as the space policy reads it: its card fields */
    job_req r = {.id = "", .tenant = "", .mig = ask->mig, .gpumem_mib = ask->gpumem_mib,
                 .gpus = (uint8_t)ask->gpus, .gpucores = (uint8_t)ask->gpucores,
                 .gpumem_pct = (uint8_t)ask->gpumem_pct};
    const pol_space *sp = sim_policy_at(s, 0)->space;
    double per = sp->mem_per_card_mib ? sp->mem_per_card_mib(sim_policy_state(s, 0), m, &r) : (double)m->memory_mib;
    return per * (ask->gpus > 0 ? ask->gpus : 1);
}

void svc_hw_params_read(const sim *s, svc_hw_params *hp)
{
    hp->bpp = num(s, "svc_bytes_per_param");
    hp->reserve_tok = num(s, "svc_kv_reserve_tokens");
    hp->mem_util = num(s, "svc_kv_mem_util");
    hp->decode_share = num(s, "svc_decode_mem_bound");
    hp->prefill_share = num(s, "svc_prefill_mem_bound");
}

/* The measured profile a service's times may come from: its row's; else its
 * catalog model's when it runs as measured (bf16, no pipeline or expert
 * parallelism). */
static void profile_of(const wl_service *row, const perf_cfg *model, char *out, size_t n)
{
    const char *p = row->profile;
    if (!*p && model && model->llm && model->dtype == LLM_BF16 && model->pp == 1 && model->ep == 1)
        p = model->llm->profile;
    snprintf(out, n, "%s", p);
}

/* The replica's memory knobs from the run's parameters, range-checked. */
static int shape_knobs(const svc_hw_params *hp, double weights_gib, double kv_kib_per_token, svc_shape *out,
                       gs_error *err)
{
    out->weights_gib = weights_gib;
    out->kv_bytes_tok = kv_kib_per_token * 1024;
    out->reserve_tok = hp->reserve_tok;
    out->mem_util = hp->mem_util;
    out->decode_share = hp->decode_share;
    out->prefill_share = hp->prefill_share;
    if (!(hp->bpp > 0) || !(out->mem_util > 0 && out->mem_util <= 1) || !(out->reserve_tok >= 0) ||
        !(out->decode_share >= 0 && out->decode_share <= 1) || !(out->prefill_share >= 0 && out->prefill_share <= 1))
        return gs_err(err, GS_EUSAGE, "--set svc_bytes_per_param must be > 0, svc_kv_mem_util in (0, 1], "
                                      "svc_kv_reserve_tokens >= 0, svc_*_mem_bound in 0..1");
    return 0;
}

/* The card the row's times are stated on and its measured profile, if named. */
static int shape_ref(sim *s, const wl_service *row, const perf_set *perf, svc_shape *out, gs_error *err)
{
    out->ref = sim_hw_ref(s);
    if (row->ask.ref_gpu[0])
        out->ref = gpu_catalog_find(sim_catalog(s), row->ask.ref_gpu);
    if (row->ask.ref_gpu[0] && !out->ref)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('ref_gpu'): expected a known GPU model, "
                      "found '%s'", sim_config_of(s)->trace_path, row->line, row->ask.ref_gpu_col, row->ask.ref_gpu);
    if (row->profile[0] && (!perf || !perf_known(perf, row->profile)))
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld ('profile'): no measured profile '%s' in models/perf "
                      "(known: llama2-70b, bloom-176b)", sim_config_of(s)->trace_path, row->line, row->profile);
    return 0;
}

/* What the scan of the pools found: the models that fit, and for a reason
 * when none does, the most memory given, a precision refusal, the widest pool. */
typedef struct {
    char fit[256]; /* built at the bound it always had, then kept at its length */
    size_t used;
    double best_gib;
    const char *best, *refused;
    int widest;
} shape_scan;

/* One pool: fits when the card runs the model in its precision, the pool is
 * wide enough and the policy gives the replica weights + KV reserve. */
static void scan_pool(sim *s, const wl_service *row, const perf_cfg *model, const sim_pool *pool, int gpus,
                      double need_gib, double mem_util, shape_scan *sc)
{
    const gpu_model *m = pool->model;
    if (model) {
        perf_cfg c = *model;
        c.gpu = m;
        const char *no = perf_shape_refuse(&c);
        if (no) {
            sc->refused = no;
            return;
        }
    }
    if (pool->ngpus < gpus) {
        sc->widest = pool->ngpus > sc->widest ? pool->ngpus : sc->widest;
        return;
    }
    double give_gib = svc_hw_mem_given_mib(s, m, &row->ask) / 1024.0 * mem_util;
    if (give_gib > sc->best_gib) {
        sc->best_gib = give_gib;
        sc->best = m->name;
    }
    if (give_gib + 1e-9 < need_gib)
        return;
    int w = snprintf(sc->fit + sc->used, sizeof sc->fit - sc->used, "%s%s", sc->used ? "|" : "", m->name);
    if (w > 0 && (size_t)w < sizeof sc->fit - sc->used)
        sc->used += (size_t)w;
}

/* Why no allowed card fits, in the order the causes are checked. */
static void shape_why(const sim *s, const wl_service *row, const perf_cfg *model, const svc_shape *out,
                      uint64_t allowed, int gpus, double need_gib, const shape_scan *sc, char *why, size_t n)
{
    if (sc->used)
        return;
    if (sc->refused && !*sc->best)
        snprintf(why, n, "%s %s on every allowed card: %s", model->llm->name, llm_dtype_name(model->dtype),
                 sc->refused);
    else if (sc->widest && !*sc->best)
        snprintf(why, n, "a replica takes %d GPUs; the largest allowed pool of the cluster has %d", gpus, sc->widest);
    else if (allowed && !*sc->best) /* every allowed model gives it nothing */
        snprintf(why, n, "under %s a replica asking gpumem %lld MiB, gpumem_pct %d, mig '%.31s' is given "
                 "no memory on any allowed card (its ask is above what the policy gives a task per card)",
                 sim_policy_at(s, 0)->name, (long long)row->ask.gpumem_mib, row->ask.gpumem_pct, row->ask.mig);
    else
        snprintf(why, n,
                 "needs %.1f GiB (weights %.1f + KV reserve %.0f tokens x %.0f KiB) in %.0f%% of its memory; the "
                 "most any allowed card gives under %s is %.1f GiB (%s)",
                 need_gib, out->weights_gib, out->reserve_tok, out->kv_bytes_tok / 1024, out->mem_util * 100,
                 sim_policy_at(s, 0)->name, sc->best_gib, *sc->best ? sc->best : "no card of the cluster is allowed");
}

int svc_hw_shape(sim *s, const svc_hw_params *hp, const wl_service *row, double weights_gib, double kv_kib_per_token,
                 const perf_set *perf, const perf_cfg *model, svc_shape *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (model)
        out->model = *model;
    profile_of(row, model, out->profile, sizeof out->profile);
    int rc = shape_knobs(hp, weights_gib, kv_kib_per_token, out, err);
    if (!rc)
        rc = shape_ref(s, row, perf, out, err);
    if (rc)
        return rc;
    /* the models this row may use (its gpu_model list, else all) where weights + reserve fit */
    const sim_cluster *cl = sim_cluster_of(s);
    uint64_t allowed = sim_cluster_model_mask(cl, sim_catalog(s), row->ask.gpu_model[0] ? row->ask.gpu_model : NULL, NULL);
    double need_gib = weights_gib + out->reserve_tok * out->kv_bytes_tok / 1073741824.0;
    int gpus = row->ask.gpus > 0 ? row->ask.gpus : 1; /* a replica spans nodes of one pool at most */
    shape_scan sc = {.best = ""};
    for (int p = 0; p < cl->npools; p++)
        if (allowed >> p & 1)
            scan_pool(s, row, model, &cl->pools[p], gpus, need_gib, out->mem_util, &sc);
    char why[200] = "";
    shape_why(s, row, model, out, allowed, gpus, need_gib, &sc, why, sizeof why);
    out->fit_models = xstrdup(sc.fit);
    out->reason = xstrdup(why);
    return 0;
}

void svc_hw_shape_free(svc_shape *sh)
{
    free(sh->fit_models);
    free(sh->reason);
    sh->fit_models = sh->reason = NULL;
}

void svc_hw_place(sim *s, const svc_shape *sh, const wl_service *row, const perf_set *perf, const job *t,
                  svc_place *out)
{
    memset(out, 0, sizeof *out);
    out->prefill_x = out->decode_x = 1;
    out->kv_cap_tok = INFINITY;
    if (t->node < 0)
        return;
    const sim_cluster *cl = sim_cluster_of(s);
    const gpu_model *m = cl->pools[cl->nodes[t->node].pool].model;
    bool share = sim_hw_slice_share(s);
    double c = share ? job_slice_c(t) : 1, mb = share ? job_slice_m(t) : 1;
    int tp = row->ask.gpus > 0 ? row->ask.gpus : 1;
    /* KV capacity in the memory this placement gives (a MIG instance: its
     * share of the card's memory slices) */
    double mem_mib = svc_hw_mem_given_mib(s, m, &row->ask);
    if (job_slice_m(t) < 1 && !row->ask.mig[0]) /* an instance chosen by the policy: its memory slices' share */
        mem_mib = (double)m->memory_mib * job_slice_m(t) * tp;
    double kv = mem_mib / 1024.0 * sh->mem_util - sh->weights_gib;
    out->kv_cap_tok = kv > 0 ? kv * 1073741824.0 / sh->kv_bytes_tok : 0;
    int tp_prof = sh->model.llm ? sh->model.tp : tp;
    const perf_entry *own = perf && sh->profile[0] ? perf_find(perf, sh->profile, m, tp_prof) : NULL;
    const perf_entry *refp = perf && sh->profile[0] && sh->ref ? perf_find(perf, sh->profile, sh->ref, tp) : NULL;
    if (own || sh->model.llm) { /* measured on this card, or the shape model: only a MIG instance's share scales it */
        out->prof = own;
        out->shape = !own;
        out->cfg = sh->model;
        out->cfg.gpu = m;
        out->prefill_x = sim_hw_time_ratio(m, m, sh->prefill_share, c, mb);
        out->decode_x = sim_hw_time_ratio(m, m, sh->decode_share, c, mb);
        return;
    }
    const gpu_model *ref = sh->ref ? sh->ref : m;
    out->prof = refp; /* measured on the reference card, else the row's stated times */
    if (ref == m && c == 1 && mb == 1)
        return;
    out->prefill_x = sim_hw_time_ratio(ref, m, sh->prefill_share, c, mb);
    out->decode_x = sim_hw_time_ratio(ref, m, sh->decode_share, c, mb);
    sim_hw_note(s, m, true, true);
    sim_hw_note(s, ref, true, true);
}

const char *svc_speed_name(int src)
{
    static const char *const names[] = {"stated", "measured", "model", "extrapolated"};
    return src >= 0 && src <= SVC_SPEED_EXTRAP ? names[src] : "?";
}

int svc_hw_source(const svc_shape *sh, const perf_set *perf, const gpu_model *m, const char **why)
{
    *why = NULL;
    int tp = sh->model.llm ? sh->model.tp : 0;
    if (sh->profile[0] && perf) {
        for (int i = 0; i < perf->n; i++)
            if (perf->e[i].model == m && gs_streq_ci(perf->e[i].profile, sh->profile) && (!tp || perf->e[i].tp == tp))
                return SVC_SPEED_MEASURED;
    }
    if (sh->model.llm) {
        perf_cfg c = sh->model;
        c.gpu = m;
        if (perf && perf_shape_validated(&c, perf, why))
            return SVC_SPEED_MODEL;
        if (!*why)
            *why = "no measured profiles to validate against (models/perf)";
        return SVC_SPEED_EXTRAP;
    }
    if (!sh->ref || sh->ref == m)
        return SVC_SPEED_STATED;
    *why = "the row's times are scaled from its reference card by the roofline";
    return SVC_SPEED_EXTRAP;
}
