/* svc_req.c - the service layer's requests slab and its events:
 * requests live in fixed chunks reused through a free list (memory follows
 * the requests in flight), and every event of the layer goes through
 * svc_emit. The bottom of the layer's files.
 * SPDX-License-Identifier: MIT */
#include "svc_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t svc_req_new(svc_layer *L)
{
    if (L->nfree == 0) {
        L->chunks = xrealloc(L->chunks, (L->nchunks + 1) * sizeof *L->chunks);
        L->chunks[L->nchunks] = L->nchunks < SVC_SMALL_CHUNKS ? xcalloc_lines(REQ_CHUNK, sizeof(svc_req))
                                                             : gs_arena_take(&L->big_chunks, REQ_CHUNK * sizeof(svc_req));
        L->nchunks++;
        if (L->cap_free < L->nslots + REQ_CHUNK) {
            L->cap_free = L->nslots + REQ_CHUNK;
            L->free_req = xrealloc(L->free_req, L->cap_free * sizeof *L->free_req);
        }
        for (uint32_t i = REQ_CHUNK; i-- > 0;)
            L->free_req[L->nfree++] = L->nslots + i;
        L->nslots += REQ_CHUNK;
    }
    uint32_t i = L->free_req[--L->nfree];
    svc_req *r = svc_req_at(L, i);
    uint32_t gen = r->gen;
    memset(r, 0, sizeof *r);
    r->gen = gen;
    r->live = true;
    r->next = NONE;
    return i;
}

void svc_req_free(svc_layer *L, uint32_t i)
{
    svc_req *r = svc_req_at(L, i);
    free(r->hash);
    r->hash = NULL;
    r->nhash = 0;
    r->live = false;
    r->gen++;
    L->free_req[L->nfree++] = i;
}

void svc_emit(sim *s, const service *v, gs_time_us at, uint32_t slot, uint32_t gen, int kind)
{
    sim_module_event(s, v->L->index, at, slot, gen, (uint32_t)kind);
}

/* A tick matters while something can still change: requests in flight,
 * replicas above the minimum, or replicas starting. */
bool svc_tick_needed(const service *v) { return v->in_flight > 0 || v->nlive > v->min || v->nstarting > 0; }

void svc_schedule_tick(sim *s, service *v)
{
    if (v->tick_pending)
        return;
    /* the declared floor (0.1 s) keeps the period a positive number of microseconds */
    gs_time_us period = (gs_time_us)llround(v->L->period_s * 1e6);
    if (period < 1)
        GS_BUG("schedule_tick: autoscaler period below a microsecond");
    gs_time_us k = (sim_now(s) - v->start_us) / period + 1;
    v->tick_pending = true;
    svc_emit(s, v, v->start_us + k * period, v->idx, 0, EVK_TICK);
}
