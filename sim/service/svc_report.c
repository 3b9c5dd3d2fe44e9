/* svc_report.c - the service layer's figures: "services" (per
 * service: requests, latency and its CDF, time to first token, SLO
 * attainment, replicas, GPU-hours) and "requests" (the same over all).
 * Computed from the layer's counters, gauges and sketches only.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "svc_types.h"

/* A finer latency distribution than the p50/p95/p99 of the stats object,
 * for CDF plots: quantile key "pQ" -> seconds (sketch: <= 0.99% error), the
 * decimal point of Q written '_' ("p99_9") so that report paths, which use
 * '.', stay unambiguous for `gpusim check` and `compare`. */
static void add_cdf(cJSON *o, const char *key, const sim_sketch *sk)
{
    static const double qs[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 97.5, 99, 99.5, 99.9};
    cJSON *c = cJSON_AddObjectToObject(o, key);
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%g", qs[i]);
        for (char *c2 = name; *c2; c2++)
            if (*c2 == '.')
                *c2 = '_';
        cJSON_AddNumberToObject(c, name, sim_sketch_quantile(sk, qs[i] / 100.0));
    }
}

static void add_counts(cJSON *o, uint64_t arrived, uint64_t generated, uint64_t served, uint64_t full,
                       uint64_t timeout, uint64_t ended, uint64_t lost, uint64_t unplaceable, long in_service,
                       long queued)
{
    cJSON_AddNumberToObject(o, "dropped_unplaceable", (double)unplaceable);
    cJSON_AddNumberToObject(o, "dropped_replica_lost", (double)lost);
    cJSON_AddNumberToObject(o, "arrived", (double)arrived);
    cJSON_AddNumberToObject(o, "generated", (double)generated);
    cJSON_AddNumberToObject(o, "served", (double)served);
    cJSON_AddNumberToObject(o, "dropped_queue_full", (double)full);
    cJSON_AddNumberToObject(o, "dropped_timeout", (double)timeout);
    cJSON_AddNumberToObject(o, "dropped_after_end", (double)ended);
    cJSON_AddNumberToObject(o, "in_service", (double)in_service);
    cJSON_AddNumberToObject(o, "queued", (double)queued);
}

/* Prefix cache figures of one service (requests with hash ids). */
static void add_prefix_cache(cJSON *o, const svc_layer *L, const service *v)
{
    uint64_t ev = v->pc_evicted;
    for (int k = 0; k < v->nreps; k++)
        ev += v->reps[k]->pc ? svc_prefix_cache_evictions(v->reps[k]->pc) : 0;
    cJSON *pc = cJSON_AddObjectToObject(o, "prefix_cache");
    cJSON_AddBoolToObject(pc, "enabled", L->pc_on);
    cJSON_AddNumberToObject(pc, "block_tokens", L->block_tok);
    cJSON_AddNumberToObject(pc, "capacity_blocks_per_replica", (double)v->pc_cap);
    cJSON_AddNumberToObject(pc, "requests", (double)v->pc_reqs);
    cJSON_AddNumberToObject(pc, "requests_with_hits", (double)v->pc_reqs_hit);
    cJSON_AddNumberToObject(pc, "blocks", (double)v->pc_blocks);
    cJSON_AddNumberToObject(pc, "hit_blocks", (double)v->pc_hit_blocks);
    cJSON_AddNumberToObject(pc, "block_hit_rate", (double)v->pc_hit_blocks / (double)v->pc_blocks);
    cJSON_AddNumberToObject(pc, "prompt_tokens", (double)v->pc_tokens);
    cJSON_AddNumberToObject(pc, "prefill_tokens_saved", (double)v->pc_saved);
    cJSON_AddNumberToObject(pc, "token_hit_rate", v->pc_tokens ? (double)v->pc_saved / (double)v->pc_tokens : 0.0);
    cJSON_AddNumberToObject(pc, "evictions", (double)ev);
}

/* The model it serves (model rows) and, per card a replica fits on, where
 * its speed there comes from (svc_hw_source): "speed": [{gpu_model,
 * source, why}]. */
static void add_speed(cJSON *o, const sim *s, const svc_layer *L, const service *v)
{
    const perf_cfg *c = &v->hw.model;
    if (c->llm) {
        cJSON *m = cJSON_AddObjectToObject(o, "model");
        cJSON_AddStringToObject(m, "name", c->llm->name);
        cJSON_AddStringToObject(m, "dtype", llm_dtype_name(c->dtype));
        cJSON_AddNumberToObject(m, "tp", c->tp);
        cJSON_AddNumberToObject(m, "pp", c->pp);
        cJSON_AddNumberToObject(m, "ep", c->ep);
    }
    const sim_cluster *cl = sim_cluster_of(s);
    uint64_t fit = v->hw.fit_models[0] ? sim_cluster_model_mask(cl, sim_catalog(s), v->hw.fit_models, NULL) : 0;
    cJSON *arr = cJSON_AddArrayToObject(o, "speed");
    for (int p = 0; p < cl->npools; p++) {
        if (!(fit >> p & 1))
            continue;
        const char *why;
        int src = svc_hw_source(&v->hw, &L->perf, cl->pools[p].model, &why);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "gpu_model", cl->pools[p].model->name);
        cJSON_AddStringToObject(e, "source", svc_speed_name(src));
        if (why)
            cJSON_AddStringToObject(e, "why", why);
        cJSON_AddItemToArray(arr, e);
    }
}

/* A service's latency figures (TTFT and TPOT in token mode, with their
 * quantile curves) and its SLO attainment. */
static void add_latency_slo(cJSON *o, const service *v)
{
    sim_report_add_stats(o, "latency_s", &v->lat_s);
    if (v->lat_s.n)
        add_cdf(o, "latency_cdf_s", &v->lat_s);
    if (v->mode == MODE_TOKENS) {
        sim_report_add_stats(o, "ttft_s", &v->ttft_s);
        sim_report_add_stats(o, "tpot_s", &v->tpot_s);
        if (v->ttft_s.n) /* the quantiles report.html draws the curves through */
            add_cdf(o, "ttft_cdf_s", &v->ttft_s);
        if (v->tpot_s.n)
            add_cdf(o, "tpot_cdf_s", &v->tpot_s);
    }
    double sv_n = v->served ? (double)v->served : 1.0;
    if (v->mode == MODE_TOKENS && (v->slo_ttft_ms >= 0 || v->slo_tpot_ms >= 0)) { /* token SLOs */
        if (v->slo_ttft_ms >= 0)
            cJSON_AddNumberToObject(o, "slo_ttft_ms", v->slo_ttft_ms);
        if (v->slo_tpot_ms >= 0)
            cJSON_AddNumberToObject(o, "slo_tpot_ms", v->slo_tpot_ms);
        cJSON_AddNumberToObject(o, "slo_attainment_ttft", (double)v->ok_ttft / sv_n);
        cJSON_AddNumberToObject(o, "slo_attainment_tpot", (double)v->ok_tpot / sv_n);
        cJSON_AddNumberToObject(o, "slo_attainment_both", (double)v->slo_ok / sv_n);
    } else {
        cJSON_AddNumberToObject(o, "slo_ms", v->slo_ms);
    }
    cJSON_AddNumberToObject(o, "slo_attainment", v->served ? (double)v->slo_ok / (double)v->served : 0.0);
}

/* A service's "replicas": bounds, peak, starts and scaling, its
 * autoscaler's figures. */
static void add_replicas(cJSON *o, const svc_layer *L, const sim *s, const service *v, uint64_t cold_v)
{
    cJSON *rp = cJSON_AddObjectToObject(o, "replicas");
    cJSON_AddNumberToObject(rp, "min", v->min_cfg);
    cJSON_AddNumberToObject(rp, "max", v->max);
    cJSON_AddNumberToObject(rp, "peak", v->g_reps.peak);
    cJSON_AddNumberToObject(rp, "at_end", v->nready + v->nstarting + v->ndraining);
    cJSON_AddNumberToObject(rp, "cold_starts", (double)cold_v);
    cJSON_AddNumberToObject(rp, "scale_outs", (double)v->scale_outs);
    cJSON_AddNumberToObject(rp, "scale_ins", (double)v->scale_ins);
    cJSON_AddNumberToObject(rp, "unplaceable", (double)v->unplaceable);
    cJSON_AddNumberToObject(rp, "lost", (double)v->replicas_lost);
    if (v->as) { /* kpa or hpa (svc_autoscale.c) */
        static const char *const names[] = {"threshold", "kpa", "hpa"};
        cJSON_AddStringToObject(rp, "autoscaler", names[L->scaler]);
        cJSON_AddNumberToObject(rp, "drains", (double)v->as->drains);
        double panic_s = v->as->panic_s + (v->as->panicking ? gs_us_to_s(sim_now(s) - v->as->panic_from_us) : 0);
        if (L->scaler == SVC_SCALER_KPA)
            cJSON_AddNumberToObject(rp, "panic_s", panic_s);
    }
}

/* One service's report entry; its replica-hours, GPU-hours and cold starts
 * (both pools' when disaggregated) for the totals. */
static cJSON *service_entry(const svc_layer *L, const sim *s, const service *v, double *rh_out, double *gh_out,
                            uint64_t *cold_out)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", v->id);
    long queued = v->qlen, in_service = v->in_flight - v->qlen;
    add_counts(o, v->arrived, v->generated, v->served, v->drop_full, v->drop_timeout, v->drop_ended,
               v->drop_lost, v->drop_unplaceable, in_service, queued);
    if (v->hw.reason[0])
        cJSON_AddStringToObject(o, "unplaceable_reason", v->hw.reason);
    else
        cJSON_AddNullToObject(o, "unplaceable_reason");
    cJSON_AddStringToObject(o, "fits_on", v->hw.fit_models);
    cJSON_AddNumberToObject(o, "kv_kib_per_token", v->hw.kv_bytes_tok / 1024);
    cJSON_AddNumberToObject(o, "weights_gib", v->weights_gib);
    add_speed(o, s, L, v);
    if (v->cfg.rate > 0)
        cJSON_AddNumberToObject(o, "warmup_s", v->warmup_s);
    cJSON_AddNumberToObject(o, "arrived_before_ready", (double)(v->ever_ready ? v->before_ready : v->arrived));
    add_latency_slo(o, v);
    if (v->pc_reqs)
        add_prefix_cache(o, L, v);
    double rh = sim_gauge_area(&v->g_reps, sim_now(s)) / 3600.0, gh = rh * v->cfg.ask.gpus;
    uint64_t cold_v = v->cold_starts;
    if (v->pd_role == SVC_PD_PREFILL) { /* both pools' replicas */
        const service *d = v->pd_peer;
        double drh = sim_gauge_area(&d->g_reps, sim_now(s)) / 3600.0;
        rh += drh;
        gh += drh * d->cfg.ask.gpus;
        cold_v += d->cold_starts;
        svc_pd_report(o, v, s);
    }
    add_replicas(o, L, s, v, cold_v);
    cJSON_AddNumberToObject(o, "replica_hours", rh);
    cJSON_AddNumberToObject(o, "gpu_hours", gh);
    cJSON_AddNumberToObject(o, "gpu_hours_per_million_requests", v->served ? gh / (double)v->served * 1e6 : 0);
    *rh_out = rh;
    *gh_out = gh;
    *cold_out = cold_v;
    return o;
}

void svc_report(const void *state, const sim *s, cJSON *root, int section)
{
    const svc_layer *L = state;
    if (section != SIM_REPORT_GPU || L->nsvcs == 0)
        return;
    cJSON *arr = cJSON_AddArrayToObject(root, "services");
    uint64_t a = 0, g = 0, sv = 0, f = 0, to = 0, en = 0, lo = 0, ok = 0, cold = 0, un = 0, nun = 0;
    long ins = 0, q = 0;
    double rep_h = 0, gpu_h = 0;
    for (uint32_t i = 0; i < L->nsvcs; i++) {
        const service *v = L->svcs[i];
        if (v->pd_role == SVC_PD_DECODE)
            continue; /* inside its service's "pd" */
        long queued = v->qlen, in_service = v->in_flight - v->qlen;
        double rh, gh;
        uint64_t cold_v;
        cJSON *o = service_entry(L, s, v, &rh, &gh, &cold_v);
        cJSON_AddItemToArray(arr, o);
        a += v->arrived, g += v->generated, sv += v->served, f += v->drop_full, to += v->drop_timeout;
        en += v->drop_ended, lo += v->drop_lost, ok += v->slo_ok, cold += cold_v, ins += in_service, q += queued;
        un += v->drop_unplaceable, nun += v->hw.reason[0] != 0;
        rep_h += rh, gpu_h += gh;
    }
    cJSON *o = cJSON_AddObjectToObject(root, "requests");
    add_counts(o, a, g, sv, f, to, en, lo, un, ins, q);
    cJSON_AddNumberToObject(o, "services_unplaceable", (double)nun);
    sim_report_add_stats(o, "latency_s", &L->all_lat);
    if (L->all_ttft.n)
        sim_report_add_stats(o, "ttft_s", &L->all_ttft);
    cJSON_AddNumberToObject(o, "slo_attainment", sv ? (double)ok / (double)sv : 0.0);
    cJSON_AddNumberToObject(o, "replica_hours", rep_h);
    cJSON_AddNumberToObject(o, "gpu_hours", gpu_h);
    cJSON_AddNumberToObject(o, "gpu_hours_per_million_requests", sv ? gpu_h / (double)sv * 1e6 : 0);
    cJSON_AddNumberToObject(o, "cold_starts", (double)cold);
}
