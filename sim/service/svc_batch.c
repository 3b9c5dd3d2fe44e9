/* svc_batch.c - continuous batching on one replica (the model in
 * svc.c's header): blocks of identical decode iterations, requests
 * joining at iteration boundaries, token-less requests holding a slot for
 * their own service time, and a request served (latency, token SLOs). Calls
 * the scaling below it (a drained replica retired, a replica started for a
 * request).
 * SPDX-License-Identifier: MIT */
#include "svc_types.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void svc_serve(sim *s, service *v, uint32_t ri, gs_time_us t)
{
    if (v->pd_role == SVC_PD_DECODE) /* a disaggregated service keeps its figures on its prefill pool */
        v = v->pd_peer;
    svc_layer *L = v->L;
    svc_req *r = svc_req_at(L, ri);
    double lat = gs_us_to_s(t - r->arrive_us);
    int bk = sim_sketch_bucket(lat); /* placed once for the three sketches */
    sim_sketch_add_at(&v->lat_s, lat, bk);
    sim_sketch_add_at(&v->win_lat, lat, bk);
    sim_sketch_add_at(&L->all_lat, lat, bk);
    v->served++;
    v->in_flight--;
    if (v->mode == MODE_TOKENS && r->out_tok > 1) /* the distribution report.html draws */
        sim_sketch_add(&v->tpot_s, gs_us_to_s(t - r->ttft_at_us) / (double)(r->out_tok - 1));
    if (v->mode == MODE_TOKENS && (v->slo_ttft_ms >= 0 || v->slo_tpot_ms >= 0)) { /* token SLOs: TTFT and TPOT */
        double ttft_ms = (double)(r->ttft_at_us - r->arrive_us) / 1000.0;
        double tpot_ms = r->out_tok > 1 ? (double)(t - r->ttft_at_us) / 1000.0 / (double)(r->out_tok - 1) : 0;
        bool a = v->slo_ttft_ms < 0 || ttft_ms <= v->slo_ttft_ms + 1e-9;
        bool b = v->slo_tpot_ms < 0 || tpot_ms <= v->slo_tpot_ms + 1e-9;
        v->ok_ttft += a;
        v->ok_tpot += b;
        v->slo_ok += a && b;
    } else if (lat * 1000.0 <= v->slo_ms + 1e-9) {
        v->slo_ok++;
    }
    const sim_observer *o = sim_observer_of(s);
    if (o && o->request_done)
        o->request_done(o->request_ud, v->id, lat);
    if (r->first && L->act)
        L->act->first_served(svc_act_state(s, L), s, (int)v->idx,
                            r->first_rep == NONE ? SVC_PATH_AWAKE : svc_rep(L, r->first_rep)->path, lat);
    svc_req_free(L, ri);
}

/* Room for one request more in p's slot arrays. A replica holds at most
 * max_batch requests (active + pending: svc_has_room), and moving pending
 * to active keeps the total, so one capacity serves both; it doubles as
 * batches grow, so a replica never holds max_batch slots it has not used. */
static void slot_room(replica *p)
{
    int n = p->nactive + p->npending;
    if (n < p->cap_slots)
        return;
    int cap = p->cap_slots ? 2 * p->cap_slots : SVC_SLOTS_INLINE;
    if (cap > p->svc->max_batch)
        cap = p->svc->max_batch > n ? p->svc->max_batch : n + 1;
    if (cap <= SVC_SLOTS_INLINE) {
        p->active = p->slots_inl;
        p->pending = p->slots_inl + SVC_SLOTS_INLINE;
    } else if (p->active == p->slots_inl) { /* out of the replica: what it holds moves along */
        p->active = xmalloc((size_t)cap * sizeof *p->active);
        p->pending = xmalloc((size_t)cap * sizeof *p->pending);
        memcpy(p->active, p->slots_inl, (size_t)p->nactive * sizeof *p->active);
        memcpy(p->pending, p->slots_inl + SVC_SLOTS_INLINE, (size_t)p->npending * sizeof *p->pending);
    } else {
        p->active = xrealloc(p->active, (size_t)cap * sizeof *p->active);
        p->pending = xrealloc(p->pending, (size_t)cap * sizeof *p->pending);
    }
    p->cap_slots = cap;
}

static void svc_pull_queue(sim *s, replica *p)
{
    service *v = p->svc;
    svc_layer *L = p->svc->L;
    while (v->qhead != NONE) {
        uint32_t ri = v->qhead;
        svc_req *r = svc_req_at(L, ri);
        if (r->queued && !svc_has_room(p, svc_req_kv_tok(r)))
            break; /* FIFO: the head waits for room */
        v->qhead = r->next;
        if (v->qhead == NONE)
            v->qtail = NONE;
        if (!r->queued) { /* timed out while queued: dropped then, freed now */
            svc_req_free(L, ri);
            continue;
        }
        r->queued = false;
        v->qlen--;
        if (v->pd_role)
            sim_sketch_add(&v->pd_wait_s, gs_us_to_s(sim_now(s) - r->queued_at_us));
        if (r->pd_wait) { /* a prefilled request: its KV leaves for p now and joins when it lands */
            svc_pd_send(s, p, ri);
            continue;
        }
        slot_room(p);
        p->pending[p->npending++] = ri;
        p->kv_used += svc_req_kv_tok(r);
        svc_load_changed(p);
    }
}

static double svc_rate_of(const replica *p) { return p->task ? p->task->rate : 0.0; }

/* A prefill replica's pass over tok new prompt tokens of its batch
 * (disaggregated: no decode token in it), from the replica's own source. */
static double prefill_pass_ms(const replica *p, double tok, double prompt_sq)
{
    if (p->hw.prof)
        return tok > 0 ? perf_eval(&p->hw.prof->prefill, tok) * p->hw.prefill_x : 0;
    if (p->hw.shape)
        return 1e3 * perf_shape_iter_s(&p->hw.cfg, &perf_shape_default, tok, prompt_sq, 0, p->nactive, 0) *
               p->hw.prefill_x;
    return tok * p->svc->prefill_ms * p->hw.prefill_x;
}

/* The shape model's block on replica p (perf_shape.h): the first pass holds
 * the new prompts (tok tokens, prompt_sq their squares) and a token of each
 * of the b sequences; each of the k iterations reads every sequence's
 * context, which grows by one token a step, so the later ones are timed at
 * the block's midpoint context. O(b). */
static void shape_times(const replica *p, double tok, double prompt_sq, long k, double *first_ms, double *step_ms)
{
    const svc_layer *L = p->svc->L;
    double b = p->nactive, ctx = 0;
    for (int i = 0; i < p->nactive; i++) {
        const svc_req *r = svc_req_at(L, p->active[i]);
        ctx += (double)(r->in_tok + r->out_tok - r->tok_left);
    }
    *first_ms = 1e3 * perf_shape_iter_s(&p->hw.cfg, &perf_shape_default, tok, prompt_sq, b, b, ctx) * p->hw.prefill_x;
    *step_ms = 1e3 * perf_shape_iter_s(&p->hw.cfg, &perf_shape_default, 0, 0, b, b, ctx + b * (double)k / 2) *
               p->hw.decode_x;
}

/* A time-mode replica (token-less requests): drains every active
 * request's work up to now, serves the finished, admits from the queue and
 * schedules the next completion. */
static void run_time(sim *s, replica *p)
{
    service *v = p->svc;
    svc_layer *L = p->svc->L;
    double rate;
    /* drain the work of every active request up to now, finish the done */
    double dt = (double)(sim_now(s) - p->last_us);
    for (int i = 0; i < p->nactive;) {
        svc_req *r = svc_req_at(L, p->active[i]);
        r->work_left_us -= dt * p->rate_used;
        if (r->work_left_us <= 0.5) { /* within half a tick: done */
            p->kv_used -= svc_req_kv_tok(r);
            svc_serve(s, v, p->active[i], sim_now(s));
            p->active[i] = p->active[--p->nactive];
            svc_load_changed(p);
        } else {
            i++;
        }
    }
    p->last_us = sim_now(s);
    if (p->state == R_READY) /* a draining replica takes nothing new */
        svc_pull_queue(s, p);
    for (int i = 0; i < p->npending; i++)
        p->active[p->nactive++] = p->pending[i];
    p->npending = 0;
    p->in_run = true;
    svc_set_busy(s, p, p->nactive > 0); /* load-following: may change this replica's rate */
    p->in_run = false;
    rate = svc_rate_of(p) / p->hw.decode_x; /* token-less work runs at the decode pace of its card */
    p->rate_used = rate;
    svc_ev_bump(p);
    if (p->nactive == 0 || rate <= 0) {
        if (p->nactive == 0 && (v->ended || p->state == R_DRAINING))
            svc_replica_remove(s, p);
        return;
    }
    double min_w = INFINITY;
    for (int i = 0; i < p->nactive; i++)
        if (svc_req_at(L, p->active[i])->work_left_us < min_w)
            min_w = svc_req_at(L, p->active[i])->work_left_us;
    if (!gs_time_add(sim_now(s), ceil(min_w / rate - 1e-6), &p->t_end_us))
        p->t_end_us = sim_time_after(s, ceil(min_w / rate - 1e-6), v->id, "a request's service time at its rate");
    svc_emit(s, p->svc, p->t_end_us, p->idx, svc_ev_gen(p), EVK_BLOCK);
}

/* Starts the next block (tokens) or reschedules the next completion (time)
 * at the current instant, admitting pending requests. */
void svc_replica_run(sim *s, replica *p)
{
    service *v = p->svc;
    svc_layer *L = p->svc->L;
    double rate;
    if (v->mode == MODE_TIME) {
        run_time(s, p);
        return;
    }
    if (p->state == R_READY) /* a draining replica takes nothing new */
        svc_pull_queue(s, p);
    int64_t new_tok = 0;
    double prompt_sq = 0; /* the new prompts' self-attention (shape model) */
    for (int i = 0; i < p->npending; i++) {
        /* prefix cache hook; a disaggregated decode pool's requests come prefilled */
        int64_t t = v->pd_role == SVC_PD_DECODE ? 0 : svc_prefix_prefill(L, p, svc_req_at(L, p->pending[i]));
        new_tok += t;
        prompt_sq += (double)t * (double)t;
        p->active[p->nactive++] = p->pending[i];
    }
    p->npending = 0;
    p->in_run = true;
    svc_set_busy(s, p, p->nactive > 0); /* load-following: may change this replica's rate */
    p->in_run = false;
    rate = svc_rate_of(p);
    svc_ev_bump(p);
    if (p->nactive == 0) {
        if (v->ended || p->state == R_DRAINING)
            svc_replica_remove(s, p);
        return;
    }
    long k = LONG_MAX;
    for (int i = 0; i < p->nactive; i++)
        if (svc_req_at(L, p->active[i])->tok_left < k)
            k = (long)svc_req_at(L, p->active[i])->tok_left;
    /* per-iteration times on this card: a measured profile (prefill over
     * the batch's new prompt tokens, decode over its sequences), else the
     * shape model (one pass: the new prompts and a token of every
     * sequence), else the service's stated times; each x the card's factor
     * (svc_hw.c) */
    double step_ms, first_ms;
    if (v->pd_role == SVC_PD_PREFILL) { /* a prefill pass alone, then the requests leave */
        k = 1;
        step_ms = 0;
        first_ms = prefill_pass_ms(p, (double)new_tok, prompt_sq);
    } else if (p->hw.prof) {
        step_ms = perf_eval(&p->hw.prof->decode, p->nactive) * p->hw.decode_x;
        first_ms = step_ms + (new_tok > 0 ? perf_eval(&p->hw.prof->prefill, (double)new_tok) * p->hw.prefill_x : 0);
    } else if (p->hw.shape) {
        shape_times(p, (double)new_tok, prompt_sq, k, &first_ms, &step_ms);
    } else {
        step_ms = (v->dec_base_ms + v->dec_seq_ms * p->nactive) * p->hw.decode_x;
        first_ms = step_ms + (double)new_tok * v->prefill_ms * p->hw.prefill_x;
    }
    p->t0_us = sim_now(s);
    p->k_iters = k;
    if (rate <= 0) { /* stalled until the rate rises: no event */
        p->d1_us = p->d_us = 0;
        p->t_end_us = GS_TIME_MAX;
        return;
    }
    /* the block's length from the row's token counts and per-token times,
     * checked against the clock before any cast (1e7 tokens at 1e11 ms a
     * step is 1e24 us) */
    double d1 = round(first_ms * 1000.0 / rate), d = round(step_ms * 1000.0 / rate);
    double span = d1 + (double)(k - 1) * d;
    if (!gs_time_add(sim_now(s), span, &p->t_end_us)) {
        char cause[200];
        snprintf(cause, sizeof cause, "a batch of %ld tokens at %.6g ms a step (decode_ms_base, decode_ms_per_seq, "
                 "output_tokens)", k, step_ms);
        p->t_end_us = sim_time_after(s, span, v->id, cause);
        p->d1_us = p->d_us = 0;
        return;
    }
    p->d1_us = (gs_time_us)d1;
    p->d_us = (gs_time_us)d;
    p->t_end_us = p->t0_us + p->d1_us + (gs_time_us)(k - 1) * p->d_us;
    svc_emit(s, p->svc, p->t_end_us, p->idx, svc_ev_gen(p), EVK_BLOCK);
}

/* A block ends (or was cut) at t_end after k_iters iterations. */
void svc_block_end(sim *s, replica *p)
{
    service *v = p->svc;
    svc_layer *L = p->svc->L;
    if (v->mode == MODE_TIME) {
        svc_replica_run(s, p);
        return;
    }
    if (p->start_pending) {
        if (sim_rows_pending_at(s, sim_now(s))) {
            /* more rows arrive at this instant: their arrival event is already
             * queued, so going to the back of the instant lets them join */
            svc_emit(s, p->svc, sim_now(s), p->idx, svc_ev_gen(p), EVK_BLOCK);
            return;
        }
        p->start_pending = false;
        svc_replica_run(s, p);
        return;
    }
    if (v->pd_role == SVC_PD_PREFILL) { /* every request of the pass is prefilled: on to a decode replica */
        while (p->nactive > 0) {
            uint32_t ri = p->active[--p->nactive];
            p->kv_used -= svc_req_kv_tok(svc_req_at(L, ri));
            svc_load_changed(p);
            if (svc_pd_handoff(s, p, ri))
                svc_serve(s, v, ri, sim_now(s));
        }
        svc_replica_run(s, p);
        return;
    }
    for (int i = 0; i < p->nactive;) {
        svc_req *r = svc_req_at(L, p->active[i]);
        r->tok_left -= p->k_iters;
        if (!r->first_done) {
            r->first_done = true;
            r->ttft_at_us = p->t0_us + p->d1_us;
            double ttft = gs_us_to_s(p->t0_us + p->d1_us - r->arrive_us);
            int b = sim_sketch_bucket(ttft);
            if (v->slo_ttft_ms >= 0)
                sim_sketch_add_at(&v->win_ttft, ttft, b);
            sim_sketch_add_at(&v->ttft_s, ttft, b);
            sim_sketch_add_at(&L->all_ttft, ttft, b);
        }
        if (r->tok_left <= 0) {
            p->kv_used -= svc_req_kv_tok(r);
            svc_serve(s, v, p->active[i], sim_now(s));
            p->active[i] = p->active[--p->nactive];
            svc_load_changed(p);
        } else {
            i++;
        }
    }
    svc_replica_run(s, p);
}

/* Cuts a running block at the first iteration boundary after now, so that
 * pending requests (or a new rate) take effect there. */
void svc_cut_block(sim *s, replica *p)
{
    if (p->svc->mode == MODE_TIME) {
        svc_replica_run(s, p); /* drains at the old rate up to now, then reschedules */
        return;
    }
    if (p->t_end_us == GS_TIME_MAX) { /* stalled (rate 0): restart now */
        p->k_iters = 0;
        svc_replica_run(s, p);
        return;
    }
    gs_time_us first_end = p->t0_us + p->d1_us, b;
    long n;
    if (sim_now(s) < first_end) {
        b = first_end;
        n = 1;
    } else if (p->d_us == 0) {
        return; /* steps of no time: the block ends at first_end, which is now */
    } else {
        long m = (long)((sim_now(s) - first_end) / p->d_us) + 1;
        b = first_end + (gs_time_us)m * p->d_us;
        n = m + 1;
    }
    if (b >= p->t_end_us)
        return; /* the block ends there anyway */
    svc_ev_bump(p);
    sim_event_voided(s); /* the block's later end, still in the heap */
    p->t_end_us = b;
    p->k_iters = n;
    svc_emit(s, p->svc, b, p->idx, svc_ev_gen(p), EVK_BLOCK);
}

void svc_assign(sim *s, replica *p, uint32_t ri)
{
    p->kv_used += svc_req_kv_tok(svc_req_at(p->svc->L, ri));
    svc_assign_held(s, p, ri);
}

void svc_assign_held(sim *s, replica *p, uint32_t ri)
{
    slot_room(p);
    p->pending[p->npending++] = ri;
    svc_load_changed(p);
    if (p->svc->mode == MODE_TIME) {
        svc_replica_run(s, p);
    } else if (p->start_pending) {
        /* joins the block that starts at this instant */
    } else if (!p->in_block) {
        p->start_pending = true;
        svc_ev_bump(p);
        svc_emit(s, p->svc, sim_now(s), p->idx, svc_ev_gen(p), EVK_BLOCK);
    } else {
        svc_cut_block(s, p);
    }
}
