/* svc_pd.c - disaggregated prefill and decode (Splitwise, ISCA '24;
 * DistServe, OSDI '24): a service row with pd=P:D runs two pools, P prefill
 * replicas and D decode replicas, each on its own card model if the row
 * says so (pd=2@H100-SXM5-80GB:6@A100-SXM4-80GB). A request is prefilled
 * on a prefill replica (one pass over the batch's new prompts, which makes
 * its first token), then its KV cache, KV bytes per token x prompt tokens,
 * moves to a decode replica with a free slot and room: over NVLink when the
 * two replicas share a node and the card has it, else over the network
 * (the card's net_gbps, else svc_net_gbps), each of the replica's GPUs
 * sending its share in parallel. Its first token reaches the user when the
 * KV lands (TTFT includes the transfer); the decode replica makes the rest.
 * With no decode replica free the request waits in the decode pool's queue
 * and its KV leaves when one takes it. The prefill pool is the service the
 * requests name and keeps its figures; the decode pool ("ID:decode") only
 * its replicas, reported inside the service's "pd" object. O(1) per
 * request besides routing.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc_types.h"

/* "N" or "N@MODEL" of pd at text p (n bytes): the count and the model. */
static bool pd_side(const char *p, size_t n, int *count, char *model, size_t cap)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, p, n);
    buf[n] = 0;
    char *at = strchr(buf, '@'), *end;
    if (at)
        *at++ = 0;
    long c = strtol(buf, &end, 10);
    if (end == buf || *end || c < 1 || c > 100000 || (at && (!*at || strlen(at) >= cap)))
        return false;
    *count = (int)c;
    snprintf(model, cap, "%s", at ? at : "");
    return true;
}

int svc_pd_rows(sim *s, const wl_service *row, wl_service *pre, wl_service *dec)
{
    const char *colon = strchr(row->pd, ':');
    int np = 0, nd = 0;
    char mp[48], md[48];
    if (!colon || !pd_side(row->pd, (size_t)(colon - row->pd), &np, mp, sizeof mp) ||
        !pd_side(colon + 1, strlen(colon + 1), &nd, md, sizeof md)) {
        static const char want[] = "expected prefill:decode replica counts, each optionally @MODEL (e.g. 2:6 or "
                                   "2@H100-SXM5-80GB:6@A100-SXM4-80GB)";
        if (!row->pd_col) /* --set svc_pd */
            return gs_err(sim_error_slot(s), GS_EUSAGE, "--set svc_pd='%s': %s", row->pd, want);
        return gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld, column %d ('pd'): %s, found '%s'",
                      sim_config_of(s)->trace_path, row->line, row->pd_col, want, row->pd);
    }
    *pre = *dec = *row;
    pre->replicas_min = pre->replicas_max = pre->replicas_init = np;
    dec->replicas_min = dec->replicas_max = dec->replicas_init = nd;
    if (*mp)
        snprintf(pre->ask.gpu_model, sizeof pre->ask.gpu_model, "%s", mp);
    if (*md)
        snprintf(dec->ask.gpu_model, sizeof dec->ask.gpu_model, "%s", md);
    snprintf(dec->id, sizeof dec->id, "%.100s:decode", row->id);
    dec->rate = 0; /* its requests come from the prefill pool */
    pre->pd[0] = dec->pd[0] = 0;
    return 0;
}

/* GB/s each GPU of the pair sends the KV at: NVLink within one node (half
 * of nvlink_gbps each way), else the slower card's network, else the run's
 * svc_net_gbps; *nvlink says which. */
static double link_gbps(const sim *s, const replica *from, const replica *to, bool *nvlink)
{
    const sim_cluster *cl = sim_cluster_of(s);
    const gpu_model *a = cl->pools[cl->nodes[from->task->node].pool].model;
    const gpu_model *b = cl->pools[cl->nodes[to->task->node].pool].model;
    *nvlink = from->task->node == to->task->node && a->nvlink_gbps > 0;
    if (*nvlink)
        return a->nvlink_gbps / 2;
    double net = a->net_gbps > 0 && b->net_gbps > 0 ? fmin(a->net_gbps, b->net_gbps) : -1;
    return net > 0 ? net : from->svc->L->pd_net_gbps;
}

void svc_pd_send(sim *s, replica *p, uint32_t ri)
{
    svc_layer *L = p->svc->L;
    svc_req *r = svc_req_at(L, ri);
    service *pre = p->svc->pd_peer;
    replica *src = svc_rep(L, r->pd_dst); /* the prefill replica it came from */
    bool nvlink;
    double gbps = src->task && src->task->node >= 0 && p->task && p->task->node >= 0 ? link_gbps(s, src, p, &nvlink)
                                                                                    : (nvlink = false, L->pd_net_gbps);
    double gpus = p->svc->cfg.ask.gpus > 0 ? p->svc->cfg.ask.gpus : 1;
    double bytes = pre->hw.kv_bytes_tok * (double)r->in_tok;
    double secs = bytes / (gpus * gbps * 1e9);
    pre->pd_kv_bytes += bytes;
    pre->pd_kv_nvlink += nvlink;
    pre->pd_kv_net += !nvlink;
    sim_sketch_add(&pre->pd_xfer_s, secs);
    r->pd_wait = false;
    r->pd_dst = p->idx;
    p->incoming++;
    p->kv_used += svc_req_kv_tok(r);
    svc_load_changed(p);
    svc_emit(s, p->svc, sim_now(s) + (gs_time_us)llround(secs * 1e6), ri, r->gen, EVK_KV);
}

/* The first token reaches the user now (TTFT), in the prefill pool's
 * figures. */
static void first_token(sim *s, service *pre, svc_req *r)
{
    r->first_done = true;
    r->ttft_at_us = sim_now(s);
    double ttft = gs_us_to_s(r->ttft_at_us - r->arrive_us);
    int b = sim_sketch_bucket(ttft);
    if (pre->slo_ttft_ms >= 0)
        sim_sketch_add_at(&pre->win_ttft, ttft, b);
    sim_sketch_add_at(&pre->ttft_s, ttft, b);
    sim_sketch_add_at(&pre->L->all_ttft, ttft, b);
}

bool svc_pd_handoff(sim *s, replica *p, uint32_t ri)
{
    svc_layer *L = p->svc->L;
    svc_req *r = svc_req_at(L, ri);
    service *pre = p->svc, *dec = pre->pd_peer;
    r->tok_left--; /* the prefill pass made the first token */
    if (r->tok_left <= 0) { /* nothing left to decode: served, no KV to move */
        first_token(s, pre, r);
        return true;
    }
    dec->mode = MODE_TOKENS;
    r->pd_dst = p->idx;
    replica *q = svc_least_loaded(dec, svc_req_kv_tok(r));
    if (q) {
        svc_pd_send(s, q, ri);
        return false;
    }
    r->pd_wait = r->queued = true; /* its KV waits on the prefill replica until a decode replica takes it */
    r->queued_at_us = sim_now(s);
    r->next = NONE;
    if (dec->qtail == NONE)
        dec->qhead = ri;
    else
        svc_req_at(L, dec->qtail)->next = ri;
    dec->qtail = ri;
    dec->qlen++;
    if (dec->qlen > dec->pd_queue_peak)
        dec->pd_queue_peak = dec->qlen;
    return false;
}

replica *svc_pd_landed(sim *s, svc_layer *L, uint32_t ri, uint32_t gen)
{
    svc_req *r = svc_req_at(L, ri);
    if (!r->live || r->gen != gen)
        return NULL;
    replica *q = svc_rep(L, r->pd_dst);
    q->incoming--;
    first_token(s, q->svc->pd_peer, r);
    return q;
}

/* One pool's figures: replicas, GPU-hours, busy share of its card time,
 * queue peak and wait. */
static void add_pool(cJSON *o, const char *name, const service *v, const sim *s)
{
    cJSON *p = cJSON_AddObjectToObject(o, name);
    double rh = sim_gauge_area(&v->g_reps, sim_now(s)) / 3600.0, busy = v->pd_busy_s;
    for (int i = 0; i < v->nreps; i++) /* a batch still running at the end */
        if (v->reps[i]->state == R_READY && v->reps[i]->in_block)
            busy += gs_us_to_s(sim_now(s) - v->reps[i]->busy_since_us);
    cJSON_AddNumberToObject(p, "replicas", v->max);
    if (v->cfg.ask.gpu_model[0])
        cJSON_AddStringToObject(p, "gpu_model", v->cfg.ask.gpu_model);
    cJSON_AddNumberToObject(p, "gpu_hours", rh * (v->cfg.ask.gpus > 0 ? v->cfg.ask.gpus : 1));
    cJSON_AddNumberToObject(p, "busy_ratio", rh > 0 ? busy / (rh * 3600.0) : 0);
    cJSON_AddNumberToObject(p, "queue_peak", (double)v->pd_queue_peak);
    sim_report_add_stats(p, "queue_wait_s", &v->pd_wait_s);
}

void svc_pd_report(cJSON *o, const service *v, const sim *s)
{
    cJSON *pd = cJSON_AddObjectToObject(o, "pd");
    add_pool(pd, "prefill", v, s);
    add_pool(pd, "decode", v->pd_peer, s);
    cJSON_AddNumberToObject(pd, "kv_transferred_gib", v->pd_kv_bytes / 1073741824.0);
    cJSON_AddNumberToObject(pd, "kv_transfers_nvlink", (double)v->pd_kv_nvlink);
    cJSON_AddNumberToObject(pd, "kv_transfers_network", (double)v->pd_kv_net);
    sim_report_add_stats(pd, "kv_transfer_s", &v->pd_xfer_s);
}
