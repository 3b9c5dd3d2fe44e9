/* svc_prefix.c - the service layer's prefix-cache hooks
 * (svc_prefix_cache.h holds the cache itself): the prefill a request still
 * needs on a replica, cache-aware routing, the blocks that fit beside the
 * weights, and a cache dropped with its replica. Below scaling and batching,
 * which call it.
 * SPDX-License-Identifier: MIT */
#include "svc_types.h"

#include <math.h>

/* The prefill a request needs on p: its input tokens less those of its
 * leading blocks cached there (they are then cached, most recent first).
 * Counts the service's cache figures. */
int64_t svc_prefix_prefill(svc_layer *L, replica *p, svc_req *r)
{
    service *v = p->svc;
    if (!r->nhash)
        return r->in_tok;
    int hit = 0;
    if (L->pc_on) {
        if (!p->pc)
            p->pc = svc_prefix_cache_new(p->pc_cap);
        hit = svc_prefix_cache_admit(p->pc, r->hash, r->nhash);
    }
    int64_t saved = (int64_t)hit * L->block_tok;
    if (saved > r->in_tok)
        saved = r->in_tok;
    v->pc_reqs++;
    v->pc_reqs_hit += hit > 0;
    v->pc_blocks += (uint64_t)r->nhash;
    v->pc_hit_blocks += (uint64_t)hit;
    v->pc_tokens += (uint64_t)r->in_tok;
    v->pc_saved += (uint64_t)saved;
    return r->in_tok - saved;
}

/* Cache-aware routing: the ready replica holding the longest prefix of r,
 * if that prefix is more than prefix_route_share of r's blocks and the
 * replica has a free batch slot; NULL (least-loaded routing) otherwise. Ties
 * go to the less loaded. Without the share threshold, a block every prompt
 * shares (a system prompt) would pull all traffic to one replica. O(replicas
 * x prefix). */
replica *svc_prefix_route(const svc_layer *L, const service *v, const svc_req *r)
{
    if (!L->pc_on || !r->nhash)
        return NULL;
    replica *best = NULL;
    int best_m = 0;
    for (int i = 0; i < v->nready; i++) { /* the ready replicas, in heap order: ties broken by idx */
        replica *p = v->lheap[i];
        if (!p->pc)
            continue;
        int m = svc_prefix_cache_match(p->pc, r->hash, r->nhash);
        int load = p->nactive + p->npending, best_load = best ? best->nactive + best->npending : 0;
        if (m > best_m || (m == best_m && best && (load < best_load || (load == best_load && p->idx < best->idx)))) {
            best = p;
            best_m = m;
        }
    }
    if (!best || (double)best_m <= L->route_share * r->nhash)
        return NULL;
    return svc_has_room(best, svc_req_kv_tok(r)) ? best : NULL; /* a slot and KV room */
}

/* Blocks of KV cache beside the weights on the replica's cards: GPUs x
 * (gpumem, else the card's memory) x svc_kv_mem_util - weights, over the
 * bytes of one block. */
long svc_prefix_capacity(const svc_layer *L, const sim *s, const service *v, const job *j)
{
    if (j->node < 0)
        return 0;
    const sim_cluster *cl = sim_cluster_of(s);
    double card_gib = j->req.gpumem_mib > 0 ? (double)j->req.gpumem_mib / 1024.0
                                            : (double)cl->pools[cl->nodes[j->node].pool].model->memory_mib / 1024.0;
    double kv_gib = (double)v->cfg.ask.gpus * card_gib * L->kv_util - v->weights_gib;
    double block_kib = v->kv_kib * L->block_tok;
    double blocks = kv_gib > 0 ? floor(kv_gib * 1024.0 * 1024.0 / block_kib) : 0;
    /* a tiny kv_kib_per_token asks for more blocks than a long holds: held past the limit (then refused) */
    return blocks <= (double)SVC_PREFIX_MAX_BLOCKS ? (long)blocks : SVC_PREFIX_MAX_BLOCKS + 1;
}

/* A replica that stops serving drops its cache (its evictions counted). */
void svc_prefix_drop(replica *p)
{
    if (p->pc) {
        p->svc->pc_evicted += svc_prefix_cache_evictions(p->pc);
        svc_prefix_cache_free(p->pc);
        p->pc = NULL;
    }
}
