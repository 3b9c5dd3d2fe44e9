/* svc_scale.c - how many replicas a service runs: scale out (a new
 * replica task handed to the space policy), scale in (an idle replica
 * retired, or handed to an actuator), the autoscaler's evaluation every
 * svc_scale_period_s over the window's busy fraction, batch-slot occupancy
 * and P99 (or TTFT) -- the threshold rule; kpa and hpa are in
 * svc_autoscale.c -- and the busy accounting those read. Below the batching
 * (svc_batch.c), which calls it; it calls nothing above.
 *
 * Costs, n = a service's ready replicas: a request routed, admitted or
 * served moves one replica in the load heap, O(log n); routing when KV
 * memory binds visits only the heap subtrees with room; so does a replica
 * made ready or retired (its place in the heap is kept in it). The
 * autoscaler's evaluation walks the service's replicas once per
 * period (svc_scale_period_s): its busy and ready seconds are summed per
 * replica in that order, so the figures and every decision taken on them
 * do not depend on the heap's layout; at a fixed load per replica the
 * requests per period grow with n too, so the walk costs a constant per
 * request (bench_infer.sh's routing series measures it).
 * SPDX-License-Identifier: MIT */
#include "svc_types.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {==== the load heap ====}
 * Ready replicas ordered by (requests held, creation order): the top is
 * the replica svc_least_loaded picks, and the order among equals is that
 * of creation, so routing is what a scan in creation order would choose.
 * Beside it, lroom: per subtree, the most KV room of a replica with a free
 * slot, refreshed along the path a change touched (O(log n), stopping early
 * above it once a subtree's figure is unchanged). */

static bool load_less(const replica *a, const replica *b)
{
    return a->load < b->load || (a->load == b->load && a->idx < b->idx);
}

/* load_less as one number: lkey[i] is that of the replica at heap
 * position i, so a sift compares within the key array and reads no
 * replica (with tens of thousands of them, each read would be a cache
 * miss). */
static uint64_t load_key(const replica *p) { return (uint64_t)(uint32_t)p->load << 32 | p->idx; }

/* The ready replica with the fewest requests (the first made among equals)
 * that has room for kv_tok tokens, by a scan of the load heap's array
 * (creation order broken out by idx, so the array's layout does not
 * matter): O(ready replicas). The reference the heap search agrees with,
 * and its fallback when its frontier overflows. */
static replica *svc_least_loaded_scan(const service *v, double kv_tok)
{
    replica *best = NULL;
    for (int i = 0; i < v->nready; i++) {
        replica *p = v->lheap[i];
        if (svc_has_room(p, kv_tok) && (!best || load_less(p, best)))
            best = p;
    }
    return best;
}

/* KV tokens a request may bring to p and still fit (svc_has_room), -inf
 * when its batch slots are full. An empty replica takes any request. */
static double room_of(const replica *p)
{
    int n = p->nactive + p->npending;
    if (n >= p->svc->max_batch)
        return -INFINITY;
    return n == 0 ? INFINITY : p->hw.kv_cap_tok - p->kv_used;
}

static double room_at(const service *v, int i)
{
    double r = room_of(v->lheap[i]);
    for (int c = 2 * i + 1; c <= 2 * i + 2 && c < v->nready; c++)
        if (v->lroom[c] > r)
            r = v->lroom[c];
    return r;
}

/* lroom along the path from heap position lo to the root: positions lo up
 * to hi (an ancestor of lo, or lo) are recomputed, those above hi only
 * until one is unchanged (then so is everything above it). */
static void room_fix(service *v, int lo, int hi)
{
    if (!v->room_on)
        return;
    for (int i = lo;; i = (i - 1) / 2) {
        double r = room_at(v, i);
        if (i < hi && r == v->lroom[i])
            return;
        v->lroom[i] = r;
        if (i == 0)
            return;
    }
}

static void heap_put(service *v, int i, replica *p, uint64_t key)
{
    v->lheap[i] = p;
    v->lkey[i] = key;
    v->L->hpos[(uint32_t)key] = i; /* by the key's idx: a sift writes no replica either */
}

/* Restores the order after position i changed (its key up to date);
 * returns where its replica ended up (every position moved lies between
 * the two, on one path). */
static int heap_sift(service *v, int i)
{
    replica *p = v->lheap[i];
    uint64_t k = v->lkey[i];
    while (i > 0 && k < v->lkey[(i - 1) / 2]) { /* up */
        heap_put(v, i, v->lheap[(i - 1) / 2], v->lkey[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) { /* down */
        int c = 2 * i + 1;
        if (c >= v->nready)
            break;
        if (c + 1 < v->nready && v->lkey[c + 1] < v->lkey[c])
            c++;
        if (!(v->lkey[c] < k))
            break;
        heap_put(v, i, v->lheap[c], v->lkey[c]);
        i = c;
    }
    heap_put(v, i, p, k);
    return i;
}

/* After the replica at heap position i changed (load or KV room): its
 * key, its place, then the room figures of the path it moved along and
 * above. */
static void heap_changed(service *v, int i)
{
    v->lkey[i] = load_key(v->lheap[i]);
    int f = heap_sift(v, i);
    room_fix(v, f > i ? f : i, f > i ? i : f);
}

void svc_load_changed(replica *p)
{
    service *v = p->svc;
    int l = p->nactive + p->npending;
    int h = v->L->hpos[p->idx];
    if (p->state != R_READY || h < 0)
        return;
    if (l != p->load) {
        v->slots_used += l - p->load;
        p->load = l;
    } else if (!v->room_on) {
        return; /* same place in the heap, no room figures kept */
    }
    heap_changed(v, h); /* its KV room changes with every request, even at the same load */
}

void svc_ready_add(service *v, replica *p)
{
    if (v->nready == v->cap_heap) {
        v->cap_heap = v->cap_heap ? 2 * v->cap_heap : 8;
        v->lheap = xrealloc(v->lheap, (size_t)v->cap_heap * sizeof *v->lheap);
        v->lroom = xrealloc(v->lroom, (size_t)v->cap_heap * sizeof *v->lroom);
        v->lkey = xrealloc(v->lkey, (size_t)v->cap_heap * sizeof *v->lkey);
    }
    p->load = p->nactive + p->npending;
    v->slots_used += p->load;
    heap_put(v, v->nready, p, load_key(p));
    v->lroom[v->nready] = -INFINITY; /* a leaf for now: heap_changed sets it */
    v->nready++;
    v->L->nup++;
    heap_changed(v, v->L->hpos[p->idx]);
}

void svc_ready_del(service *v, replica *p)
{
    int h = v->L->hpos[p->idx], last = v->nready - 1;
    if (h < 0 || h > last || v->lheap[h] != p)
        GS_BUG("ready_del: replica not in the load heap");
    v->slots_used -= p->load;
    v->nready--;
    v->L->nup--;
    v->L->hpos[p->idx] = -1;
    if (h < last) { /* the last leaf takes its place */
        heap_put(v, h, v->lheap[last], v->lkey[last]);
        heap_changed(v, h);
    }
    if (last > 0) /* the position that lost its last leaf */
        room_fix(v, (last - 1) / 2, (last - 1) / 2);
}

void svc_set_busy(sim *s, replica *p, bool busy)
{
    service *v = p->svc;
    sim_gauge_set(&v->g_slots, sim_now(s), (double)v->slots_used);
    if (busy && !p->in_block) {
        p->busy_since_us = sim_now(s);
    } else if (!busy && p->in_block) {
        gs_time_us from = p->busy_since_us > v->win_start_us ? p->busy_since_us : v->win_start_us;
        v->win_busy_s += gs_us_to_s(sim_now(s) - from);
        if (v->pd_role)
            v->pd_busy_s += gs_us_to_s(sim_now(s) - p->busy_since_us);
        p->idle_since_us = sim_now(s);
    }
    p->in_block = busy;
    /* load-following: the card learns at batch starts and ends, not per iteration */
    if (v->L->follow_load && p->task)
        sim_task_set_busy(s, p->task, busy);
}

replica *svc_least_loaded(service *v, double kv_tok)
{
    if (v->nready == 0)
        return NULL;
    replica *top = v->lheap[0];
    if (svc_has_room(top, kv_tok))
        return top;
    if (top->load >= v->max_batch)
        return NULL; /* the least loaded is full: every ready replica is */
    /* KV memory binds on the least loaded: the first in heap order that
     * has room, found best first over the subtrees whose figure admits the
     * request. The figure is only a filter (one token of slack against
     * rounding); svc_has_room decides, as a scan in creation order would. */
    if (!v->room_on) { /* the first time KV binds: every figure, bottom up, O(ready) once */
        v->room_on = true;
        for (int i = v->nready; i-- > 0;)
            v->lroom[i] = room_at(v, i);
    }
    if (v->lroom[0] + 1.0 < kv_tok)
        return NULL; /* no replica with a free slot has the room */
    enum { FRONT = 64 };
    int front[FRONT], nf = 0; /* heap positions to visit, a min-heap on their replicas' order */
    replica *best = NULL;
    front[nf++] = 0;
    while (nf > 0) {
        int i = front[0]; /* pop the best-ranked position */
        front[0] = front[--nf];
        for (int j = 0;;) {
            int c = 2 * j + 1;
            if (c >= nf)
                break;
            if (c + 1 < nf && v->lkey[front[c + 1]] < v->lkey[front[c]])
                c++;
            if (!(v->lkey[front[c]] < v->lkey[front[j]]))
                break;
            int t = front[c];
            front[c] = front[j];
            front[j] = t;
            j = c;
        }
        replica *p = v->lheap[i];
        if (svc_has_room(p, kv_tok)) { /* every position left ranks after it */
            best = p;
            break;
        }
        for (int c = 2 * i + 1; c <= 2 * i + 2 && c < v->nready; c++) {
            if (v->lroom[c] + 1.0 < kv_tok)
                continue; /* nothing in that subtree fits the request */
            if (nf == FRONT)
                return svc_least_loaded_scan(v, kv_tok);
            int j = nf++;
            front[j] = c;
            while (j > 0 && v->lkey[front[j]] < v->lkey[front[(j - 1) / 2]]) {
                int t = front[j];
                front[j] = front[(j - 1) / 2];
                front[(j - 1) / 2] = t;
                j = (j - 1) / 2;
            }
        }
    }
    return best;
}


void svc_note_scale(sim *s, service *v, const char *what)
{
    sim_gauge_set(&v->g_reps, sim_now(s), (double)(v->nready + v->nstarting + v->ndraining));
    const sim_observer *o = sim_observer_of(s);
    if (o && o->svc_scale)
        o->svc_scale(o->svc_scale_ud, v->id, gs_us_to_s(sim_now(s)), what, v->nlive);
}

void svc_scale_out(sim *s, service *v)
{
    svc_layer *L = v->L;
    if (v->hw.reason[0]) /* fits no card of the cluster: no replica is ever placed */
        return;
    replica *p = xcalloc(1, sizeof *p);
    p->idx = L->nreps;
    p->svc = v;
    p->state = R_PLACING;
    p->path = SVC_PATH_COLD;
    if (L->nreps == L->cap_reps) {
        L->cap_reps = L->cap_reps ? L->cap_reps * 2 : 16;
        L->reps = xrealloc(L->reps, L->cap_reps * sizeof *L->reps);
        L->hpos = xrealloc(L->hpos, L->cap_reps * sizeof *L->hpos);
    }
    L->hpos[p->idx] = -1;
    L->reps[L->nreps++] = p;
    if (v->nreps == v->cap_reps) {
        v->cap_reps = v->cap_reps ? v->cap_reps * 2 : 4;
        v->reps = xrealloc(v->reps, (size_t)v->cap_reps * sizeof *v->reps);
    }
    v->reps[v->nreps++] = p;
    v->nlive++;
    v->scale_outs++;
    job *t = sim_task_new(s, SIM_OWNER_MODULE(L->index));
    wl_row row; /* a job row: the core places tasks by their row (and keeps its job_req) */
    wl_service_replica_row(&v->cfg, &row);
    snprintf(row.id, sizeof row.id, "%.50s#%u", v->id, p->idx);
    row.submit_us = sim_now(s);
    row.gpu_model[0] = '\0'; /* its pools were resolved when the service was read */
    sim_task_set_row(s, t, &row);
    sim_task_cost_holder(s, t, "service", v->id); /* the service pays for its replicas' cards */
    t->pools = v->task_pools;
    t->more->owner = p;
    t->idle = L->follow_load; /* serves nothing until its first batch */
    p->task = t;
    if (L->act) /* a preferred node */
        L->act->placing(svc_act_state(s, L), s, t, (int)v->idx);
    sim_task_submit(s, t); /* may start (svc_task_started), queue, or reject */
}

void svc_replica_remove(sim *s, replica *p)
{
    service *v = p->svc;
    svc_layer *L = p->svc->L;
    bool drained = p->state == R_DRAINING;
    if ((p->state != R_READY && !drained) || p->nactive || p->npending)
        GS_BUG("replica_remove: replica busy or not ready");
    svc_set_busy(s, p, false);
    svc_prefix_drop(p); /* prefix cache hook */
    p->state = R_GONE;
    p->gen++;
    if (drained) { /* out of the load heap already (svc_drain) */
        v->ndraining--;
        L->nup--;
    } else {
        svc_ready_del(v, p);
    }
    v->nlive--;
    v->scale_ins++;
    job *t = p->task;
    p->task = NULL;
    /* an actuator may keep the task (its GPU) until the instance slept */
    if (p->unactivated || !L->act || !L->act->retire(svc_act_state(s, L), s, t, (int)v->idx, v->ended))
        sim_task_end(s, t);
    svc_note_scale(s, v, "scale_in");
}

/* Replicas that are gone stay in v->reps until they are more than half of
 * it; then the live ones are packed, in order (the order decides ties, so
 * results do not change). Without this every loop over a service's
 * replicas grew with every replica it ever had. */
void svc_compact_reps(service *v)
{
    if ((v->nreps - v->nlive) * 2 <= v->nreps)
        return;
    int k = 0;
    for (int i = 0; i < v->nreps; i++)
        if (v->reps[i]->state != R_GONE)
            v->reps[k++] = v->reps[i];
    v->nreps = k;
}

void svc_tick(sim *s, service *v)
{
    svc_layer *L = v->L;
    v->tick_pending = false;
    svc_compact_reps(v);
    double window_s = gs_us_to_s(sim_now(s) - v->win_start_us);
    double busy = v->win_busy_s, ready_s = 0;
    int slots_used = 0;
    for (int i = 0; i < v->nreps; i++) {
        replica *p = v->reps[i];
        if (p->state != R_READY)
            continue;
        gs_time_us from = p->ready_us > v->win_start_us ? p->ready_us : v->win_start_us;
        ready_s += gs_us_to_s(sim_now(s) - from);
        if (p->in_block) {
            gs_time_us bf = p->busy_since_us > v->win_start_us ? p->busy_since_us : v->win_start_us;
            busy += gs_us_to_s(sim_now(s) - bf);
        }
        slots_used += p->nactive + p->npending;
    }
    double util = ready_s > 0 ? busy / ready_s : 0;
    double slot_s = sim_gauge_area(&v->g_slots, sim_now(s)) - v->win_slots_area0;
    double mem = ready_s > 0 ? slot_s / (ready_s * v->max_batch) : 0;
    (void)slots_used;
    /* A service with token SLOs (TTFT/TPOT) scales on them and on batch-slot
     * (KV-cache) occupancy, not on busy time: a continuous-batching replica is
     * "busy" whenever one sequence decodes, which says nothing of its headroom
     * (the Azure trace kept 4 replicas busy at a 0.2 s P50 TTFT). */
    bool tok_slo = v->mode == MODE_TOKENS && (v->slo_ttft_ms >= 0 || v->slo_tpot_ms >= 0);
    /* the P99 rule: over end-to-end latency, or over TTFT for a service with a TTFT SLO */
    const sim_sketch *w = v->slo_ttft_ms >= 0 && v->cfg.slo_ms < 0 ? &v->win_ttft : &v->win_lat;
    double p99_ms = w->n ? sim_sketch_quantile(w, 0.99) * 1000.0 : 0;
    v->last_p99_ms = p99_ms;
    (void)window_s;
    if (!v->ended && v->nstarting == 0 && v->nlive < v->max && v->nready > 0 &&
        ((util > L->util_high && !tok_slo) || mem > L->mem_high || p99_ms > v->p99_high_ms)) {
        svc_scale_out(s, v);
    } else if (v->nlive > v->min) {
        replica *idle = NULL;
        for (int i = 0; i < v->nreps; i++) {
            replica *p = v->reps[i];
            if (p->state == R_READY && !p->in_block && !p->npending &&
                gs_us_to_s(sim_now(s) - p->idle_since_us) >= L->idle_s - 1e-9 &&
                (!idle || p->idle_since_us < idle->idle_since_us))
                idle = p;
        }
        if (idle)
            svc_replica_remove(s, idle);
    }
    /* new window */
    v->win_start_us = sim_now(s);
    v->win_busy_s = 0;
    v->win_slots_area0 = sim_gauge_area(&v->g_slots, sim_now(s));
    /* a window that saw no request left its sketches as reset (only adds
     * touch them): most windows of a long-tail service see none */
    if (v->win_lat.n)
        sim_sketch_reset(&v->win_lat);
    if (v->win_ttft.n)
        sim_sketch_reset(&v->win_ttft);
    if (svc_tick_needed(v))
        svc_schedule_tick(s, v);
}
