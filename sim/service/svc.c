/* svc.c - inference services (see svc.h).
 *
 * Continuous batching, event-efficient. A replica runs "blocks" of identical
 * decode iterations: a block starts at t0 with its batch fixed; its first
 * iteration also does the prefill of the requests admitted at t0:
 *     d1 = (sum of new input tokens x prefill_ms_per_token
 *           + decode_ms_base + decode_ms_per_seq x b) / rate
 *     d  = (decode_ms_base + decode_ms_per_seq x b) / rate
 * Every request in the batch gains one output token per iteration (the first
 * one at t0 + d1: its time to first token). The block ends after K = the
 * fewest tokens any request in it still needs, at t0 + d1 + (K - 1) d: one
 * event per block, not per iteration. A request routed to a busy replica
 * joins at the next iteration boundary, so the block is cut there. A change
 * of the replica's rate (contention on a shared card) also cuts the block at
 * the next boundary: the iteration in flight finishes at its old speed.
 *
 * Requests without token counts ("token-less") instead hold one batch slot
 * each for their own service time (duration, or exponential with the
 * service's svc_mean_ms) scaled by the replica's rate: batch slots are then
 * independent servers, and max_batch = 1 makes a replica an M/M/1 server.
 * SPDX-License-Identifier: MIT */
#include "svc.h"
#include "svc_types.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim_policy.h"
#include "../sim.h"
#include "../sim_report.h"
#include "svc_hw.h"
#include "../../base/gs_rng.h"
#include "svc_prefix_cache.h"

/* {==== parameters ====} */

const pol_param svc_params[] = {
    {"svc_max_batch", "16", "default max_batch of a service (requests per replica batch); assumption", P_INT(1, 4096)},
    {"svc_slo_ms", "1000", "default latency SLO of a service, ms (for SLO attainment); assumption", P_NUM(0, 1e15, "ms")},
    {"svc_autoscaler", "hpa", "threshold: scale out on busy time, batch slots or P99 and in after svc_idle_s idle "
                                    "(the seed article's rule); kpa: Knative Pod Autoscaler; hpa: Kubernetes HPA on "
                                    "batch-slot occupancy (sim/service/README.md)", P_ENUM("threshold|kpa|hpa")},
    {"svc_scale_period_s", "15", "threshold: evaluation period and metric window, s (assumption); hpa: sync period "
                                 "(kube-controller-manager --horizontal-pod-autoscaler-sync-period 15 s)",
     P_DURATION(0.1, 86400)},
    {"svc_kpa_tick_s", "2", "kpa: evaluation period, s (Knative config-autoscaler tick-interval)", P_DURATION(0.1, 3600)},
    {"svc_kpa_target_pct", "70", "kpa: target concurrency per replica, % of max_batch (Knative "
                                 "container-concurrency-target-percentage)", P_NUM(1, 100, NULL)},
    {"svc_kpa_stable_s", "60", "kpa: stable window, s (Knative stable-window)", P_DURATION(1, 3600)},
    {"svc_kpa_panic_pct", "10", "kpa: panic window, % of the stable window (Knative panic-window-percentage)",
     P_NUM(1, 100, NULL)},
    {"svc_kpa_panic_threshold_pct", "200", "kpa: panic when the panic window asks for this % of the ready "
                                           "replicas (Knative panic-threshold-percentage)", P_NUM(110, 1000, NULL)},
    {"svc_kpa_max_up_rate", "1000", "kpa: at most this x the ready replicas a tick (Knative max-scale-up-rate)",
     P_NUM(1.001, 1e9, NULL)},
    {"svc_kpa_max_down_rate", "2", "kpa: at least the ready replicas / this a tick (Knative max-scale-down-rate)",
     P_NUM(1.001, 1e9, NULL)},
    {"svc_kpa_zero_grace_s", "30", "kpa: the last replica stays this long after a stable window without requests "
                                   "(Knative scale-to-zero-grace-period)", P_DURATION(0, 3600)},
    {"svc_hpa_target", "0.7", "hpa: target batch-slot occupancy per replica (assumption: Knative's 70% target; the "
                              "HPA has no default)", P_NUM(0.01, 1, NULL)},
    {"svc_hpa_tolerance", "0.1", "hpa: no change while metric / target is within this of 1 (kube-controller-manager "
                                 "--horizontal-pod-autoscaler-tolerance)", P_NUM(0, 1, NULL)},
    {"svc_hpa_down_window_s", "300", "hpa: scale-down stabilization window, s (--horizontal-pod-autoscaler-"
                                     "downscale-stabilization 5m)", P_DURATION(0, 3600)},
    {"svc_util_high", "0.85", "scale out when replica busy fraction over the window exceeds this (assumption: a common autoscaling rule of thumb)", P_NUM(0, 1e6, NULL)},
    {"svc_mem_high", "0.9", "scale out when batch-slot (KV cache) occupancy exceeds this (assumption: a common autoscaling rule of thumb)", P_NUM(0, 1e6, NULL)},
    {"svc_p99_high_ms", "200", "scale out when window P99 latency exceeds this, ms (assumption: a common rule of thumb), for a service "
                               "without slo_ms; one with slo_ms scales on its SLO", P_NUM(0, 1e15, "ms")},
    {"svc_idle_s", "90", "scale in a replica idle this long: Knative stable window 60 + grace 30 (reference/mechanics.md 6)", P_DURATION(0, 1e9)},
    {"svc_queue_max", "10000", "requests a service queue holds before dropping: Knative activator (reference/mechanics.md 6)", P_INT(0, 1e9)},
    {"svc_timeout_s", "300", "a queued request is dropped after this: Knative revision timeout (reference/mechanics.md 6)", P_DURATION(0.001, 1e9)},
    {"svc_pod_start_s", "5", "cold start: pod start without image pull, K8s p99 SLO (reference/mechanics.md 4)", P_DURATION(0, 1e6)},
    {"svc_import_s", "10", "cold start: Python imports [U] (reference/mechanics.md 4)", P_DURATION(0, 1e6)},
    {"svc_load_gbps", "2", "cold start: weight load bandwidth GB/s, NVMe (reference/mechanics.md 4)", P_NUM(1e-6, 1e6, "GB/s")},
    {"svc_compile_s", "20", "cold start: torch.compile without cache (reference/mechanics.md 4)", P_DURATION(0, 1e6)},
    {"svc_graph_s", "10", "cold start: CUDA graph capture (reference/mechanics.md 4)", P_DURATION(0, 1e6)},
    {"svc_weights_gib", "16", "default model weights GiB when a service row gives none (an 8B bf16 model); assumption", P_NUM(0, 1e6, "GiB")},
    {"svc_bytes_per_param", "2", "bytes per parameter of a service's weights when the row gives params_b but not "
                                 "weights_gib (bf16/fp16)", P_NUM(0.01, 64, NULL)},
    {"svc_kv_reserve_tokens", "4096", "KV-cache tokens a replica must have room for beside its weights to be "
                                      "placed (one 4k-token request); assumption", P_INT(0, 1e9)},
    {"svc_decode_mem_bound", "0.95", "share of decode time bound by memory bandwidth when a service's times are "
                                     "scaled to another card (fitted on Splitwise H100 figures, models/perf/README.md)",
     P_NUM(0, 1, NULL)},
    {"svc_prefill_mem_bound", "0.1", "share of prefill time bound by memory bandwidth (the rest by tensor "
                                     "throughput), fitted likewise", P_NUM(0, 1, NULL)},
    /* prefix cache (requests with hash_ids; svc_prefix_cache.h) */
    {"prefix_cache", "on", "on: replicas keep the KV-cache blocks of earlier prompts and a request skips the prefill "
                           "of its cached leading blocks, routed to the replica holding most of its prefix; off: "
                           "no reuse (the baseline)", P_ONOFF},
    {"prefix_block_tokens", "512", "tokens per prefix block named by a hash id (Mooncake's traces: 512)", P_INT(1, 1e9)},
    {"svc_kv_kib_per_token", "320", "KV-cache KiB per token when a service row gives none: Llama2-70B, 80 layers x "
                                    "8 KV heads x 128 dims x 2 (K, V) x 2 bytes", P_NUM(1e-9, 1e12, "KiB")},
    {"prefix_route_share", "0.3", "cache-aware routing only when the best replica holds more than this share of the "
                                  "request's blocks, else least-loaded (the cache threshold of the SGLang and vLLM "
                                  "routers' cache_aware policy)", P_NUM(0, 1, NULL)},
    {"svc_demand", "load", "a replica's demand on a shared card (vgpu, timeslice, mps): load: its util (else 1) "
                           "while it serves a batch, nothing while idle; static: its util all the time",
     P_ENUM("load|static")},
    {"svc_tp", "0", "tensor-parallel degree of every service of a catalog model (model=): 0 keeps each row's tp "
                    "(else gpus); what plan --tp tries", P_INT(0, 64)},
    {"svc_dtype", "row", "precision of every service of a catalog model: row keeps each row's dtype (else the "
                         "model's own); what plan --dtype tries", P_ENUM("row|bf16|fp8|fp4")},
    {"svc_pd", "row", "disaggregate every service of a catalog model: P:D prefill and decode replicas, each side "
                      "optionally @MODEL; none: aggregated; row: as each row says (pd); what compare tries",
     P_NAME},
    {"svc_warmup_s", "cold", "a service's generated requests (rate) begin this long after its row: cold: its own "
                             "cold start, so the first find a replica ready (as the importers' --warmup-s)",
     P_DURATION_OR(0, 1e9, "cold")},
    {"svc_net_gbps", "12.5", "GB/s per GPU each way a disaggregated service's KV crosses the network at when a "
                             "card file gives no net_gbps (100 Gb/s Ethernet); assumption", P_NUM(1e-6, 1e6, "GB/s")},
    {"svc_kv_mem_util", "0.9", "share of a replica's GPU memory the engine may use, weights + KV cache (vLLM "
                               "gpu_memory_utilization default)", P_NUM(1e-9, 1, NULL)},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

/* Splitwise measurements, Llama2-70B on DGX-H100 TP8, median of repeats
 * (the SplitwiseSim perf model, github.com/Mutinifni/splitwise-sim
 * data/perf_model.csv, MIT; Patel et al., ISCA '24): token_time 29.8 ms
 * at batch 1 and 50.2 ms at batch 64 -> 29.5 + 0.32 x batch; prompt_time 53 ms for 512
 * tokens at batch 1 and 2914 ms for 64 x 512 -> ~0.1 ms per prompt token. */
#define PERF_PREFILL_MS 0.10
#define PERF_DECODE_BASE_MS 29.5
#define PERF_DECODE_SEQ_MS 0.32

/* Values are typed and range-checked by the core (svc_params' specs, base/gs_param.h). */
static double num_param(const sim *s, const char *name) { return sim_param_number(s, name); }

static svc_layer *svc_of(const sim *s) { return sim_module_state(s, &svc_module); }

static int svc_layer_new(sim *s, int index, void **out, gs_error *err)
{
    svc_layer *L = xcalloc(1, sizeof *L);
    L->index = index;
    L->max_batch_def = (int)sim_param_int(s, "svc_max_batch");
    L->slo_def = num_param(s, "svc_slo_ms");
    L->period_s = num_param(s, "svc_scale_period_s");
    L->max_work = sim_config_of(s)->max_work > 0 ? sim_config_of(s)->max_work : SIM_MAX_WORK;
    L->scaler = sim_param_choice(s, "svc_autoscaler");
    if (L->scaler == SVC_SCALER_KPA)
        L->period_s = num_param(s, "svc_kpa_tick_s");
    L->kpa_target = num_param(s, "svc_kpa_target_pct") / 100.0;
    L->kpa_stable_s = num_param(s, "svc_kpa_stable_s");
    L->kpa_panic_s = L->kpa_stable_s * num_param(s, "svc_kpa_panic_pct") / 100.0;
    L->kpa_panic_thr = num_param(s, "svc_kpa_panic_threshold_pct") / 100.0;
    L->kpa_up_rate = num_param(s, "svc_kpa_max_up_rate");
    L->kpa_down_rate = num_param(s, "svc_kpa_max_down_rate");
    L->kpa_grace_s = num_param(s, "svc_kpa_zero_grace_s");
    L->hpa_target = num_param(s, "svc_hpa_target");
    L->hpa_tol = num_param(s, "svc_hpa_tolerance");
    L->hpa_down_s = num_param(s, "svc_hpa_down_window_s");
    L->util_high = num_param(s, "svc_util_high");
    L->mem_high = num_param(s, "svc_mem_high");
    L->p99_high_ms = num_param(s, "svc_p99_high_ms");
    L->idle_s = num_param(s, "svc_idle_s");
    L->queue_max = (long)sim_param_int(s, "svc_queue_max");
    L->timeout_s = num_param(s, "svc_timeout_s");
    L->pod_s = num_param(s, "svc_pod_start_s");
    L->import_s = num_param(s, "svc_import_s");
    L->load_gbps = num_param(s, "svc_load_gbps");
    L->compile_s = num_param(s, "svc_compile_s");
    L->graph_s = num_param(s, "svc_graph_s");
    L->weights_def = num_param(s, "svc_weights_gib");
    L->pc_on = sim_param_on(s, "prefix_cache");
    L->block_tok = (int)sim_param_int(s, "prefix_block_tokens");
    L->route_share = num_param(s, "prefix_route_share");
    L->kv_kib_def = num_param(s, "svc_kv_kib_per_token");
    L->kv_util = num_param(s, "svc_kv_mem_util");
    L->pd_net_gbps = num_param(s, "svc_net_gbps");
    L->follow_load = sim_param_choice(s, "svc_demand") == 0; /* load|static */
    svc_hw_params_read(s, &L->hw_params);
    sim_sketch_init(&L->all_lat);
    sim_sketch_init(&L->all_ttft);
    *out = L;
    for (int p = 0; p < sim_npolicies(s); p++) /* the core allows at most one */
        if (sim_policy_at(s, p)->actuator) {
            L->act = sim_policy_at(s, p)->actuator;
            L->act_pol = p;
        }
    if (L->max_batch_def < 1 || L->period_s <= 0 || L->queue_max < 0 || L->timeout_s <= 0 || L->load_gbps <= 0 ||
        L->pod_s < 0 || L->import_s < 0 || L->compile_s < 0 || L->graph_s < 0 || L->idle_s < 0)
        return gs_err(err, GS_EUSAGE, "--set svc_*: batch, period, timeout and load bandwidth must be positive, "
                                      "times non-negative");
    if (L->block_tok < 1 || L->kv_kib_def <= 0 || L->kv_util <= 0 ||
        L->kv_util > 1 || L->route_share < 0 || L->route_share > 1)
        return gs_err(err, GS_EUSAGE, "--set prefix_block_tokens >= 1, svc_kv_kib_per_token > 0, "
                                      "0 < svc_kv_mem_util <= 1, 0 <= prefix_route_share <= 1");
    return 0;
}

static void svc_layer_free(void *state)
{
    svc_layer *L = state;
    if (!L)
        return;
    perf_set_free(&L->perf);
    llm_catalog_free(&L->llm);
    for (uint32_t i = 0; i < L->nsvcs; i++) {
        service *v = L->svcs[i];
        gs_rng_free(v->rng);
        svc_as_free(v);
        sim_sketch_free(&v->win_lat);
        sim_sketch_free(&v->lat_s);
        sim_sketch_free(&v->ttft_s);
        sim_sketch_free(&v->tpot_s);
        sim_sketch_free(&v->win_ttft);
        sim_sketch_free(&v->pd_wait_s);
        sim_sketch_free(&v->pd_xfer_s);
        free(v->reps);
        svc_ready_free(v);
        free(v->replica_row);
        svc_hw_shape_free(&v->hw);
        free(v);
    }
    for (uint32_t i = 0; i < L->nreps; i++) {
        replica *p = svc_rep(L, i);
        if (p->active != p->slots_inl) {
            free(p->active);
            free(p->pending);
        }
        svc_prefix_cache_free(p->pc);
    }
    for (uint32_t c = 0; c < (L->nreps + REP_CHUNK - 1) / REP_CHUNK && c < SVC_SMALL_CHUNKS; c++)
        free(L->rep_chunks[c]);
    free(L->rep_chunks);
    for (uint32_t c = 0; c < L->nchunks; c++) {
        for (uint32_t i = 0; i < REQ_CHUNK; i++)
            free(L->chunks[c][i].hash); /* requests in flight at the end */
        if (c < SVC_SMALL_CHUNKS)
            free(L->chunks[c]);
    }
    free(L->chunks);
    gs_arena_free(&L->big_chunks); /* the later chunks of both */
    free(L->free_req);
    free(L->svcs);
    free(L->by_id);
    free(L->hpos);
    free(L->ev_gen);
    sim_sketch_free(&L->all_lat);
    sim_sketch_free(&L->all_ttft);
    free(L);
}

/* {==== replica tasks ====} */

/* One replica's cold start: pod, imports, weights over the load
 * bandwidth, compile, graph capture (reference/mechanics.md section 4). */
static double cold_start_s(const svc_layer *L, const service *v)
{
    return L->pod_s + L->import_s + v->weights_gib * 1.073741824 / L->load_gbps + L->compile_s + L->graph_s;
}

static void svc_task_started(void *state, sim *s, job *j)
{
    (void)state;
    replica *p = job_owner(j);
    service *v = p->svc;
    svc_layer *L = svc_of(s);
    svc_hw_place(s, &v->hw, &v->cfg, &L->perf, j, &p->hw); /* once per placement */
    if (p->state != R_PLACING)
        return; /* a restart after a suspension: cold start again below */
    p->state = R_STARTING;
    v->nstarting++;
    L->nup++;
    p->pc_cap = v->pc_cap = svc_prefix_capacity(L, s, v, j); /* prefix cache hook */
    if (L->pc_on && p->pc_cap > SVC_PREFIX_MAX_BLOCKS && !sim_error(s)->code)
        gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s': service '%s' ('kv_kib_per_token' %g): a replica's prefix cache "
               "would hold more than %ld blocks of KV cache; give the KiB a token really takes (or prefix_cache=off)",
               sim_config_of(s)->trace_path, v->id, v->kv_kib, SVC_PREFIX_MAX_BLOCKS);
    if (v->ended) {
        /* The service ended while this replica waited for its GPUs: no
         * cold start; it is handed back at once, through a zero-delay event
         * (never from inside the space policy's own start). */
        p->unactivated = true;
        svc_emit(s, p->svc, sim_now(s), p->idx, p->gen, EVK_READY);
        return;
    }
    double cold_s = cold_start_s(L, v), ready_s = cold_s;
    if (L->act) /* hot, warm or cold, chosen by the actuator */
        p->path = L->act->activate(svc_act_state(s, L), s, j, (int)v->idx, cold_s, &ready_s);
    if (p->path == SVC_PATH_COLD)
        v->cold_starts++;
    svc_emit(s, p->svc, sim_now(s) + (gs_time_us)llround(ready_s * 1e6), p->idx, p->gen, EVK_READY);
    svc_note_scale(s, v, p->path == SVC_PATH_HOT ? "hot_start" : p->path == SVC_PATH_WARM ? "warm_start" : "cold_start");
}

static void svc_task_rate_changed(void *state, sim *s, job *j)
{
    (void)state;
    replica *p = job_owner(j);
    if (p->in_run)
        return; /* caused by its own batch starting or ending: svc_replica_run reads the new rate */
    svc_as_flow(p->svc, sim_now(s));
    if ((p->state == R_READY || p->state == R_DRAINING) && (p->in_block || p->nactive))
        svc_cut_block(s, p);
}

static void svc_task_lost(void *state, sim *s, job *j)
{
    (void)state;
    replica *p = job_owner(j);
    service *v = p->svc;
    svc_layer *L = svc_of(s);
    svc_as_flow(v, sim_now(s));
    if (p->state == R_READY || p->state == R_DRAINING)
        svc_set_busy(s, p, false);
    long lost = p->nactive + p->npending;
    for (int i = 0; i < p->nactive; i++)
        svc_req_free(L, p->active[i]);
    for (int i = 0; i < p->npending; i++)
        svc_req_free(L, p->pending[i]);
    p->nactive = p->npending = 0;
    p->kv_used = 0;
    svc_load_changed(p);
    svc_prefix_drop(p); /* prefix cache hook */
    v->drop_lost += (uint64_t)lost;
    v->in_flight -= lost;
    if (p->state == R_READY) {
        svc_ready_del(v, p);
    } else if (p->state == R_STARTING) {
        v->nstarting--;
        L->nup--;
    } else if (p->state == R_DRAINING) {
        v->ndraining--;
        L->nup--;
    }
    p->state = R_GONE;
    p->gen++;
    svc_ev_bump(p);
    p->task = NULL;
    v->nlive--;
    v->replicas_lost++;
    svc_note_scale(s, v, "lost");
    /* A lost replica is replaced at once, but not without end at one
     * instant: a replacement killed where it lands (an OOM beside the
     * card's other tenants under timeslice) would be placed and lost again
     * forever without time moving. Past 2 x max + 8 losses in an instant,
     * the next arrival or scale decision tries again. */
    if (sim_now(s) != v->lost_at_us || v->lost_then == 0) {
        v->lost_at_us = sim_now(s);
        v->lost_then = 0;
    }
    bool replace = ++v->lost_then <= 2L * v->max + 8;
    if (!v->ended && replace && (v->nlive - v->ndraining < v->min || (v->nlive - v->ndraining == 0 && v->qlen > 0)))
        svc_scale_out(s, v);
    /* the other replicas keep serving; their idle slots take queued requests */
    for (int i = 0; i < v->nreps; i++)
        if (v->reps[i]->state == R_READY && !v->reps[i]->in_block && !v->reps[i]->start_pending)
            svc_replica_run(s, v->reps[i]);
}

static void svc_task_rejected(void *state, sim *s, job *j)
{
    (void)state;
    replica *p = job_owner(j);
    service *v = p->svc;
    (void)s;
    p->state = R_GONE;
    p->task = NULL;
    v->nlive--;
    v->unplaceable++;
}

static int svc_replicas(const void *state)
{
    const svc_layer *L = state;
    return L ? (int)L->nup : 0; /* kept as replicas start and stop: a timeseries row costs no walk of the services */
}

/* {==== arrivals, ticks, generator ====} */

/* Whether some replica of v is ready. */
static bool ready_replica(const service *v) { return v->nready > 0; }

/* At the service's end the requests still queued are dropped (counted with
 * those that arrive after the end): no replica starts to serve them. */
static void drop_queue(service *v, svc_layer *L)
{
    while (v->qhead != NONE) {
        uint32_t ri = v->qhead;
        svc_req *r = svc_req_at(L, ri);
        v->qhead = r->next;
        if (r->queued) {
            v->qlen--;
            v->drop_ended++;
            v->in_flight--;
        }
        svc_req_free(L, ri);
    }
    v->qtail = NONE;
}

static void route(sim *s, service *v, uint32_t ri)
{
    svc_layer *L = svc_of(s);
    svc_req *r = svc_req_at(L, ri);
    svc_compact_reps(v);
    svc_as_flow(v, sim_now(s));
    v->arrived++;
    v->in_flight++;
    if (v->ended) {
        v->drop_ended++;
        v->in_flight--;
        svc_req_free(L, ri);
        return;
    }
    if (v->hw.reason[0]) { /* fits no card: never served */
        v->drop_unplaceable++;
        v->in_flight--;
        svc_req_free(L, ri);
        return;
    }
    replica *p = svc_prefix_route(L, v, r); /* prefix cache hook: cache-aware first */
    if (!p)
        p = svc_least_loaded(v, svc_req_kv_tok(r));
    /* a first request (see svc_actuator_ops), tracked only for an actuator */
    r->first_rep = NONE;
    if (L->act)
        r->first = v->last_arrival_us < 0 || gs_us_to_s(sim_now(s) - v->last_arrival_us) >= L->idle_s - 1e-9;
    v->last_arrival_us = sim_now(s);
    if (p) {
        svc_assign(s, p, ri);
    } else {
        if (v->nlive - v->ndraining == 0)
            svc_scale_out(s, v); /* scale from zero: the request waits for the cold start */
        if (r->first && !ready_replica(v)) /* the newest activation in flight (O(replicas)) */
            for (int i = v->nreps; i-- > 0 && r->first_rep == NONE;)
                if (v->reps[i]->state == R_PLACING || v->reps[i]->state == R_STARTING)
                    r->first_rep = v->reps[i]->idx;
        if (v->qlen >= L->queue_max) {
            v->drop_full++;
            v->in_flight--;
            svc_req_free(L, ri);
        } else {
            r->queued = true;
            r->queued_at_us = sim_now(s);
            if (v->qtail == NONE)
                v->qhead = ri;
            else
                svc_req_at(L, v->qtail)->next = ri;
            v->qtail = ri;
            v->qlen++;
            if (v->qlen > v->pd_queue_peak)
                v->pd_queue_peak = v->qlen;
            svc_emit(s, v, sim_now(s) + (gs_time_us)llround(L->timeout_s * 1e6), ri, r->gen, EVK_TIMEOUT);
        }
    }
    svc_schedule_tick(s, v);
}

/* The service's random stream, made at its first draw: most services of a
 * long tail draw nothing (their requests carry their own sizes), and an
 * mt19937 state is 5 KB. Seeded by the service's index alone, so the
 * stream is the same whenever it is made. */
static gsl_rng *rng_of(const sim *s, service *v)
{
    if (!v->rng)
        v->rng = gs_rng_new(sim_seed(s), RNG_POLICY + 1000 + v->idx);
    return v->rng;
}

/* A request to v now: from its row, or generated (row NULL). 0, or
 * GS_EINPUT with the message in the run's error. */
/* v's first replica is ready: the requests that came before it waited out
 * the start-up, and a figure they decide says so (report, stderr, plan). */
static void first_ready(sim *s, service *v)
{
    v->ever_ready = true;
    v->before_ready = v->arrived;
    if (v->arrived)
        sim_warn(s, "service '%s': %llu requests arrived before its first replica was ready (%.0f s after its row): "
                 "their latency is the start-up's, not capacity's; submit the service earlier or give it a warm-up "
                 "(svc_warmup_s)", v->id, (unsigned long long)v->arrived, gs_us_to_s(sim_now(s) - v->start_us));
}

static int new_request(sim *s, service *v, const wl_request *row)
{
    svc_layer *L = svc_of(s);
    int mode = row && row->output_tokens >= 1 ? MODE_TOKENS : MODE_TIME;
    if (!row && v->cfg.output_tokens >= 1)
        mode = MODE_TOKENS;
    if (mode == MODE_TIME && (v->slo_ttft_ms >= 0 || v->slo_tpot_ms >= 0)) /* never another SLO's attainment */
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: a request to service '%s' carries no "
                      "output_tokens, but the service (line %ld) states slo_ttft_ms or slo_tpot_ms: TTFT and TPOT "
                      "need token counts", sim_config_of(s)->trace_path, row ? row->line : v->cfg.line, v->id,
                      v->cfg.line);
    if (v->mode == MODE_UNSET)
        v->mode = mode;
    else if (v->mode != mode && row)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' mixes requests with and without "
                      "output_tokens", sim_config_of(s)->trace_path, row->line, v->id);
    if (v->pd_role && mode == MODE_TIME)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' runs disaggregated (pd): its "
                      "requests need output_tokens", sim_config_of(s)->trace_path, row ? row->line : 0L, v->id);
    uint32_t ri = svc_req_new(L);
    svc_req *r = svc_req_at(L, ri);
    r->svc = v;
    r->arrive_us = sim_now(s);
    if (mode == MODE_TOKENS) {
        if (row) { /* a request row: its own token counts */
            r->in_tok = row->input_tokens > 0 ? row->input_tokens : 0;
            r->tok_left = row->output_tokens;
            if (row->nhash > 0) { /* prefix cache hook: the ids, checked by the reader */
                r->hash = xmalloc((size_t)row->nhash * sizeof *r->hash);
                const char *h = row->hash_ids;
                for (int i = 0; i < row->nhash; i++) {
                    char *end;
                    r->hash[i] = strtoull(h, &end, 10);
                    h = end + 1; /* past the '|' */
                }
                r->nhash = row->nhash;
            }
        } else { /* generated: exponential token counts with the service row's means
                  * (real prompt and output lengths are skewed: the Azure trace's output
                  * p50 is 129 against a mean of 211) -- a modeling assumption */
            double in_mean = v->cfg.input_tokens > 0 ? (double)v->cfg.input_tokens : 0;
            r->in_tok = in_mean > 0 ? llround(gs_rng_exp(rng_of(s, v), in_mean)) : 0;
            r->tok_left = llround(gs_rng_exp(rng_of(s, v), (double)v->cfg.output_tokens));
            if (r->tok_left < 1)
                r->tok_left = 1;
        }
        r->out_tok = r->tok_left;
    } else if (row && row->has_duration) {
        r->work_left_us = (double)row->dur_us;
    } else if (v->svc_mean_ms > 0) {
        r->work_left_us = gs_rng_exp(rng_of(s, v), v->svc_mean_ms * 1000.0);
    } else {
        svc_req_free(L, ri);
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: a request to service '%s' needs output_tokens or "
                      "duration, or the service needs svc_mean_ms", sim_config_of(s)->trace_path, row ? row->line : 0L,
                      v->id);
    }
    route(s, v, ri);
    return 0;
}

static double diurnal(double t_s) { return 1.0 + 0.6 * sin(2 * M_PI * (t_s / 86400.0 - 8.0 / 24.0)); }

/* Next generated arrival after now (thinning for the diurnal pattern, whose
 * intensity peaks at 1.6 x rate at 14:00 and bottoms at 0.4 x at 02:00). */
static void schedule_gen(sim *s, service *v)
{
    double rate = v->cfg.rate, t = gs_us_to_s(sim_now(s) > v->gen_from_us ? sim_now(s) : v->gen_from_us);
    bool di = v->cfg.diurnal;
    double lmax = di ? 1.6 * rate : rate;
    for (;;) {
        t += gs_rng_exp(rng_of(s, v), 1.0 / lmax);
        if (!di)
            break;
        /* the intensity never falls below 0.4 (1 - 0.6): a draw under that
         * is accepted without the sine, as the full test would */
        double u = gsl_rng_uniform(rng_of(s, v)) * 1.6;
        if (u < 0.39 || u <= diurnal(t))
            break;
    }
    gs_time_us at = (gs_time_us)llround(t * 1e6);
    if (at <= sim_now(s))
        at = sim_now(s) + 1;
    if (at < v->end_us)
        svc_emit(s, v, at, v->idx, 0, EVK_GEN);
}

static uint64_t id_hash(const char *id)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)id; *c; c++)
        h = (h ^ *c) * 1099511628211ULL;
    return h;
}

static service *find_service(const svc_layer *L, const char *id)
{
    if (!L->cap_by_id)
        return NULL;
    for (uint64_t i = id_hash(id);; i++) {
        uint32_t k = L->by_id[i & (L->cap_by_id - 1)];
        if (!k)
            return NULL;
        if (!strcmp(L->svcs[k - 1]->id, id) && L->svcs[k - 1]->pd_role != SVC_PD_DECODE)
            return L->svcs[k - 1]; /* a decode pool is reached only through its service */
    }
}

static void by_id_put(uint32_t *tab, uint32_t cap, const service *v)
{
    uint64_t i = id_hash(v->id);
    while (tab[i & (cap - 1)])
        i++;
    tab[i & (cap - 1)] = v->idx + 1;
}

/* Adds the newest service (L->svcs[L->nsvcs - 1]) to the id table,
 * doubling it past half full. */
static void by_id_add(svc_layer *L)
{
    if (2 * L->nsvcs > L->cap_by_id) {
        L->cap_by_id = L->cap_by_id ? 2 * L->cap_by_id : 16;
        free(L->by_id);
        L->by_id = xcalloc(L->cap_by_id, sizeof *L->by_id);
        for (uint32_t i = 0; i + 1 < L->nsvcs; i++)
            by_id_put(L->by_id, L->cap_by_id, L->svcs[i]);
    }
    by_id_put(L->by_id, L->cap_by_id, L->svcs[L->nsvcs - 1]);
}

/* Every card a replica of v fits where its speed is an extrapolation: one
 * warning each (report "warnings", stderr from run). */
static void warn_extrapolated(sim *s, const service *v)
{
    const sim_cluster *cl = sim_cluster_of(s);
    uint64_t fit = v->hw.fit_models[0] ? sim_cluster_model_mask(cl, sim_catalog(s), v->hw.fit_models, NULL) : 0;
    for (int p = 0; p < cl->npools; p++) {
        const char *why;
        if (fit >> p & 1 && svc_hw_source(&v->hw, &v->L->perf, cl->pools[p].model, &why) == SVC_SPEED_EXTRAP)
            sim_warn(s, "service '%s' on %s: its speed is an extrapolation (%s)", v->id, cl->pools[p].model->name, why);
    }
}

/* Service v's weights, KV bytes per token (*kv_kib) and fit over the
 * cluster's cards: from its catalog model (svc_model.c) or its own columns.
 * On failure v is freed. */
static int pool_shape(sim *s, svc_layer *L, service *v, const wl_service *row, double *kv_kib)
{
    v->weights_gib = row->weights_gib >= 0 ? row->weights_gib
                     : row->params_b > 0 ? row->params_b * sim_param_number(s, "svc_bytes_per_param") / 1.073741824
                                         : L->weights_def;
    *kv_kib = row->kv_kib_per_token > 0 ? row->kv_kib_per_token : L->kv_kib_def;
    svc_model_row mr = {0};
    int hrc = row->model[0] ? svc_model_resolve(s, L, row, &mr) : row->profile[0] ? svc_perf_load(s, L) : 0;
    if (row->model[0] && !hrc) { /* the shape decides the replica's GPUs, weights and KV bytes */
        v->cfg.ask.gpus = mr.gpus;
        v->weights_gib = mr.weights_gib;
        *kv_kib = mr.kv_kib;
    }
    if (!hrc)
        hrc = svc_hw_shape(s, &L->hw_params, &v->cfg, v->weights_gib, *kv_kib, &L->perf, row->model[0] ? &mr.cfg : NULL,
                           &v->hw, sim_error_slot(s));
    if (hrc) {
        svc_hw_shape_free(&v->hw);
        free(v);
        return hrc;
    }
    warn_extrapolated(s, v);
    return 0;
}

/* Declares one service (or one pool of a disaggregated one: role). */
/* The checks of service row `row` before it is declared: its end within
 * the clock (*end_us), a first declaration, a duration when it generates,
 * its work within the limit (counted into L's), what its requests need. */
static int check_row(sim *s, svc_layer *L, const wl_service *row, gs_time_us *end_us)
{
    *end_us = GS_TIME_MAX;
    if (row->has_duration && !gs_time_add_us(sim_now(s), row->dur_us, end_us))
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld ('duration'): service '%s' declared at %.6f s for "
                      "%.6f s ends past the simulator's clock (int64 microseconds, %.4g s)", sim_config_of(s)->trace_path,
                      row->line, row->id, gs_us_to_s(sim_now(s)), gs_us_to_s(row->dur_us), gs_us_to_s(GS_TIME_MAX));
    if (find_service(L, row->id))
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' declared twice", sim_config_of(s)->trace_path,
                      row->line, row->id);
    if (row->rate > 0 && !row->has_duration)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' generates requests (rate) and so "
                      "needs a duration (how long it runs)", sim_config_of(s)->trace_path, row->line, row->id);
    /* bounded work: what the row asks for, before any of it is generated */
    double dur_s = row->has_duration ? gs_us_to_s(row->dur_us) : 0;
    double work = (row->rate > 0 ? row->rate * dur_s : 0) + dur_s / L->period_s;
    L->work_planned += work;
    if (L->work_planned > L->max_work)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' (rate %g/s for %.6g s) asks "
                      "for about %.4g generated requests and autoscaler ticks, %.4g with the services before it: past "
                      "the limit of %.4g events (run --max-work %.4g, or GPUSIM_MAX_WORK for the runs compare, plan "
                      "and sweep start, lifts it)", sim_config_of(s)->trace_path,
                      row->line, row->id, row->rate, dur_s, work, L->work_planned, L->max_work, L->work_planned);
    if (row->rate > 0 && row->output_tokens < 1 && row->svc_mean_ms <= 0)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' generates requests: give "
                      "output_tokens (and input_tokens) or svc_mean_ms", sim_config_of(s)->trace_path, row->line, row->id);
    if (row->rate > 0 && row->output_tokens < 1 && (row->slo_ttft_ms >= 0 || row->slo_tpot_ms >= 0))
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s' states slo_ttft_ms or "
                      "slo_tpot_ms, but the requests it generates carry no token counts: give output_tokens (and "
                      "input_tokens), or an end-to-end slo_ms", sim_config_of(s)->trace_path, row->line, row->id);
    return 0;
}

/* v's replica bounds from its row (an always-on actuator's floor beside
 * them) into v->min, v->max and *init: 0, or the error when they are out
 * of order. */
static int replica_counts(sim *s, svc_layer *L, service *v, const wl_service *row, int *init_out)
{
    v->min = row->replicas_min >= 0 ? row->replicas_min : 1;
    int act_min = L->act ? L->act->min_replicas(svc_act_state(s, L)) : 0;
    bool floor = act_min > v->min;
    if (floor) /* always-on keeps one awake from the start */
        v->min = act_min;
    int init = row->replicas_init >= 0 ? row->replicas_init : v->min;
    if (floor && init < v->min)
        init = v->min;
    v->max = row->replicas_max >= 0 ? row->replicas_max : (init > v->min ? init : (v->min > 1 ? v->min : 1));
    v->min_cfg = v->min;
    if (init > v->max || v->min > v->max)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: service '%s': need replicas_min <= replicas_init "
                      "<= replicas_max", sim_config_of(s)->trace_path, row->line, row->id);
    *init_out = init;
    return 0;
}

/* v's per-token times (the row's, else the defaults), token SLOs, KV and
 * the start of its figures. */
static void pool_times(sim *s, service *v, const wl_service *row, double kv_kib, gs_time_us end_us)
{
    v->prefill_ms = row->prefill_ms_per_token >= 0 ? row->prefill_ms_per_token : PERF_PREFILL_MS;
    v->dec_base_ms = row->decode_ms_base >= 0 ? row->decode_ms_base : PERF_DECODE_BASE_MS;
    v->dec_seq_ms = row->decode_ms_per_seq >= 0 ? row->decode_ms_per_seq : PERF_DECODE_SEQ_MS;
    v->slo_ttft_ms = row->slo_ttft_ms;
    v->slo_tpot_ms = row->slo_tpot_ms;
    if (row->slo_ttft_ms >= 0 && row->slo_ms < 0) /* a service with a TTFT SLO scales on it (tick) */
        v->p99_high_ms = row->slo_ttft_ms;
    v->kv_kib = kv_kib;
    v->svc_mean_ms = row->svc_mean_ms;
    v->start_us = sim_now(s);
    v->end_us = end_us;
    v->qhead = v->qtail = NONE;
    v->last_arrival_us = -1;
    v->win_start_us = sim_now(s);
    sim_sketch_init(&v->win_lat);
    sim_sketch_init(&v->lat_s);
    sim_sketch_init(&v->ttft_s);
    sim_sketch_init(&v->tpot_s);
    sim_sketch_init(&v->win_ttft);
    v->g_reps.since = sim_now(s);
    v->g_slots.since = sim_now(s);
}

static int declare_pool(sim *s, const wl_service *row, int role, service **out)
{
    svc_layer *L = svc_of(s);
    gs_time_us end_us;
    int rc = check_row(s, L, row, &end_us);
    if (rc)
        return rc;
    service *v = xcalloc(1, sizeof *v);
    v->L = L;
    v->idx = L->nsvcs;
    v->pd_role = role;
    snprintf(v->id, sizeof v->id, "%.63s", row->id);
    v->cfg = *row;
    int init = 0;
    if ((rc = replica_counts(s, L, v, row, &init))) {
        free(v);
        return rc;
    }
    v->max_batch = row->max_batch > 0 ? row->max_batch : L->max_batch_def;
    v->slo_ms = row->slo_ms >= 0 ? row->slo_ms : L->slo_def;
    /* the 200 ms P99 rule suits short requests; a service that states
     * its own SLO (a 7 s chat completion) scales on that instead */
    v->p99_high_ms = row->slo_ms >= 0 ? row->slo_ms : L->p99_high_ms;
    double kv_kib;
    int hrc = pool_shape(s, L, v, row, &kv_kib);
    if (hrc)
        return hrc;
    if (!v->hw.reason[0]) /* replicas go only where they fit */
        snprintf(v->cfg.ask.gpu_model, sizeof v->cfg.ask.gpu_model, "%s", v->hw.fit_models);
    const sim_cluster *cl = sim_cluster_of(s);
    v->task_pools = v->cfg.ask.gpu_model[0] ? sim_cluster_model_mask(cl, sim_catalog(s), v->cfg.ask.gpu_model, NULL)
                                            : sim_cluster_all_pools(cl);
    pool_times(s, v, row, kv_kib, end_us);
    svc_as_init(s, v);
    if (L->nsvcs == L->cap_svcs) {
        L->cap_svcs = L->cap_svcs ? L->cap_svcs * 2 : 8;
        L->svcs = xrealloc(L->svcs, L->cap_svcs * sizeof *L->svcs);
    }
    L->svcs[L->nsvcs++] = v;
    by_id_add(L);
    for (int i = 0; i < init; i++)
        svc_scale_out(s, v);
    if (row->rate > 0) { /* its traffic begins after the warm-up (svc_warmup_s) */
        double w = sim_param_choice(s, "svc_warmup_s") == 0 ? cold_start_s(L, v) : sim_param_number(s, "svc_warmup_s");
        v->warmup_s = w;
        v->gen_from_us = sim_now(s) + (gs_time_us)llround(w * 1e6);
        schedule_gen(s, v);
    }
    if (v->end_us != GS_TIME_MAX)
        svc_emit(s, v, v->end_us, v->idx, 0, EVK_END);
    if (out)
        *out = v;
    return 0;
}

/* A service row: one pool, or with pd its prefill and decode pools, each
 * the other's peer (svc_pd.c). */
static int declare(sim *s, const wl_service *row)
{
    const char *pd_all = sim_param(s, "svc_pd");
    wl_service over;
    if (row->model[0] && strcmp(pd_all, "row")) { /* the run's override (--set svc_pd) */
        over = *row;
        snprintf(over.pd, sizeof over.pd, "%s", strcmp(pd_all, "none") ? pd_all : "");
        over.pd_col = 0;
        row = &over;
    }
    if (!row->pd[0])
        return declare_pool(s, row, SVC_PD_NONE, NULL);
    wl_service pre, dec;
    service *vp, *vd;
    int rc = svc_pd_rows(s, row, &pre, &dec);
    if (!rc)
        rc = declare_pool(s, &pre, SVC_PD_PREFILL, &vp);
    if (!rc)
        rc = declare_pool(s, &dec, SVC_PD_DECODE, &vd);
    if (!rc) {
        vp->pd_peer = vd;
        vd->pd_peer = vp;
    }
    return rc;
}

/* The row is converted here, once, into the record of its kind: the layer
 * keeps no all-kinds row. */
static int svc_on_row(void *state, sim *s, const wl_row *row)
{
    (void)state;
    svc_layer *L = svc_of(s);
    if (row->kind == WL_KIND_SERVICE) {
        wl_service sv;
        wl_service_of(row, &sv);
        return declare(s, &sv);
    }
    wl_request rq;
    wl_request_of(row, &rq);
    service *v = find_service(L, rq.service);
    if (!v)
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld: request '%s' names service '%s', which no "
                      "earlier service row declares", sim_config_of(s)->trace_path, rq.line, rq.id, rq.service);
    return new_request(s, v, &rq);
}

/* The next event's replica, every line of it: a block's end's or a cold
 * start's, or for a generated request the least-loaded one now (where it
 * goes unless a load changes first). With tens of thousands of replicas
 * each line is a cache miss that the current event's handling hides. */
static void svc_prefetch(const void *state, uint32_t slot, uint32_t aux, int stage)
{
    const svc_layer *L = state;
    const replica *p = NULL;
    if (stage == 1) { /* a block's end: its replica read in, what it points to */
        if (aux == EVK_BLOCK && slot < L->nreps) {
            p = svc_rep(L, slot);
            if (p->task)
                __builtin_prefetch(&p->task->rate);
            for (int i = 0; i < p->nactive; i++)
                __builtin_prefetch(svc_req_at(L, p->active[i]));
        }
        return;
    }
    if ((aux == EVK_BLOCK || aux == EVK_READY) && slot < L->nreps)
        p = svc_rep(L, slot);
    else if (aux == EVK_GEN && slot < L->nsvcs)
        p = svc_least_loaded_now(L->svcs[slot]);
    if (p)
        for (size_t off = 0; off < SVC_REP_HOT; off += 64)
            __builtin_prefetch((const char *)p + off);
}

/* A block end whose replica has moved its end since (svc_cut_block). */
static bool svc_event_void(const void *state, uint32_t slot, uint32_t gen, uint32_t aux)
{
    const svc_layer *L = state;
    return aux == EVK_BLOCK && slot < L->nreps && L->ev_gen[slot] != gen;
}

static bool svc_event_live(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    (void)s;
    svc_layer *L = state; /* the layer: the loop hands each module its own state */
    switch (aux) {
    case EVK_BLOCK:
        return L->ev_gen[slot] == gen && (svc_rep(L, slot)->state == R_READY || svc_rep(L, slot)->state == R_DRAINING);
    case EVK_READY: return svc_rep(L, slot)->gen == gen && svc_rep(L, slot)->state == R_STARTING;
    case EVK_TIMEOUT: {
        const svc_req *r = svc_req_at(L, slot);
        return r->live && r->gen == gen && r->queued;
    }
    case EVK_GEN: return !L->svcs[slot]->ended;
    case EVK_TICK:
        if (svc_tick_needed(L->svcs[slot]))
            return true;
        L->svcs[slot]->tick_pending = false; /* nothing to evaluate: the run may end without it */
        return false;
    default: return true;
    }
}

/* EVK_READY: replica p's cold start is over (unless its generation moved
 * on): it serves from now. */
static void on_ready(sim *s, svc_layer *L, replica *p, uint32_t gen)
{
    if (p->gen != gen || p->state != R_STARTING)
        return;
    svc_as_flow(p->svc, sim_now(s));
    p->state = R_READY;
    p->ready_us = sim_now(s);
    p->idle_since_us = sim_now(s);
    p->last_us = sim_now(s);
    p->svc->nstarting--;
    L->nup--;
    if (!p->svc->ever_ready)
        first_ready(s, p->svc);
    svc_ready_add(p->svc, p);
    svc_note_scale(s, p->svc, "ready");
    svc_replica_run(s, p);
    svc_schedule_tick(s, p->svc);
}

/* EVK_END: service v's rows end: its queue dropped, idle replicas removed,
 * starting ones made ready now (then removed as idle). */
static void on_end(sim *s, svc_layer *L, service *v)
{
    svc_as_flow(v, sim_now(s));
    v->ended = true;
    v->min = 0;
    drop_queue(v, L);
    svc_compact_reps(v);
    for (int i = 0; i < v->nreps; i++) {
        replica *p = v->reps[i];
        if (p->state == R_READY && !p->in_block && !p->npending && !p->nactive) {
            svc_replica_remove(s, p);
        } else if (p->state == R_STARTING) {
            /* its cold start is cut short: ready now (a new generation
             * drops the pending READY), then removed as idle */
            p->gen++;
            svc_emit(s, p->svc, sim_now(s), p->idx, p->gen, EVK_READY);
        }
    }
    /* replicas still waiting for GPUs are handed back when they get
     * them (svc_task_started); busy ones finish their batch and go */
}

static void svc_on_event(void *state, sim *s, uint32_t slot, uint32_t gen, uint32_t aux)
{
    svc_layer *L = state; /* the layer: the loop hands each module its own state */
    switch (aux) {
    case EVK_BLOCK: {
        replica *p = svc_rep(L, slot);
        if (svc_ev_gen(p) != gen || (p->state != R_READY && p->state != R_DRAINING))
            return;
        /* what the block's end reads beyond p, asked for together before
         * its requests are walked: its task's rate and its requests (a line
         * each). Inline: GCC drops a call to a function of prefetches alone
         * as one without effect. */
        if (p->task)
            __builtin_prefetch(&p->task->rate);
        for (int i = 0; i < p->nactive; i++)
            __builtin_prefetch(svc_req_at(L, p->active[i]));
        for (int i = 0; i < p->npending; i++)
            __builtin_prefetch(svc_req_at(L, p->pending[i]));
        svc_as_flow(p->svc, sim_now(s));
        svc_block_end(s, p);
        return;
    }
    case EVK_READY:
        on_ready(s, L, svc_rep(L, slot), gen);
        return;
    case EVK_TIMEOUT: {
        svc_req *r = svc_req_at(L, slot);
        if (!r->live || r->gen != gen || !r->queued)
            return;
        service *v = r->svc;
        svc_as_flow(v, sim_now(s));
        r->queued = false; /* stays linked until pull_queue passes it and frees it */
        v->qlen--;
        v->drop_timeout++;
        v->in_flight--;
        return;
    }
    case EVK_TICK:
        if (L->scaler == SVC_SCALER_THRESHOLD)
            svc_tick(s, L->svcs[slot]);
        else
            svc_as_tick(s, L->svcs[slot]);
        return;
    case EVK_KV: {
        replica *q = svc_pd_landed(s, L, slot, gen);
        if (q)
            svc_assign_held(s, q, slot);
        return;
    }
    case EVK_GEN: {
        service *v = L->svcs[slot];
        if (v->ended)
            return;
        v->generated++;
        new_request(s, v, NULL);
        schedule_gen(s, v);
        return;
    }
    case EVK_END:
        on_end(s, L, L->svcs[slot]);
        return;
    default:
        GS_BUG("svc_on_event: unknown kind");
    }
}

/* {==== what an actuator may ask ====} */

int svc_count(const sim *s)
{
    const svc_layer *L = svc_of(s);
    return L ? (int)L->nsvcs : 0;
}

double svc_p99_ms_last(const sim *s)
{
    const svc_layer *L = svc_of(s);
    double worst = 0;
    for (size_t i = 0; L && i < L->nsvcs; i++)
        if (L->svcs[i]->last_p99_ms > worst)
            worst = L->svcs[i]->last_p99_ms;
    return worst;
}

void svc_describe(const sim *s, int svc, svc_desc *out)
{
    const service *v = svc_of(s)->svcs[svc];
    out->id = v->id;
    out->weights_gib = v->weights_gib;
    out->gpus = v->cfg.ask.gpus;
    out->start_us = v->start_us;
    out->end_us = v->end_us;
}

/* Of a service row: the card asks a replica is sized by (the memory each
 * card gives it, its prefix cache) and params_b (the weights' size). The
 * rest of its replica ask is read by the layers that place, charge or
 * stop replicas, as of jobs (sim_kind_placed); a request row's columns
 * are none of the optional ones. */
static uint64_t svc_columns(const void *state, int kind)
{
    (void)state;
    if (kind != WL_KIND_SERVICE)
        return 0;
    return WL_COL_BIT(WL_COL_GPUMEM) | WL_COL_BIT(WL_COL_GPUCORES) | WL_COL_BIT(WL_COL_GPUMEM_PCT) |
           WL_COL_BIT(WL_COL_PARAMS_B);
}

const sim_module svc_module = {
    .name = "services",
    .params = svc_params,
    .init = svc_layer_new,
    .fini = svc_layer_free,
    .row_kinds = 1u << WL_KIND_SERVICE | 1u << WL_KIND_REQUEST,
    .row = svc_on_row,
    .task_started = svc_task_started,
    .task_rate_changed = svc_task_rate_changed,
    .task_rejected = svc_task_rejected,
    .task_lost = svc_task_lost,
    .event_live = svc_event_live,
    .event_void = svc_event_void,
    .event = svc_on_event,
    .prefetch = svc_prefetch,
    .replicas = svc_replicas,
    .report = svc_report,
    .columns_read = svc_columns,
};
