/* svc_scale.c - how many replicas a service runs: scale out (a new
 * replica task handed to the space policy), scale in (an idle replica
 * retired, or handed to an actuator), the autoscaler's evaluation every
 * svc_scale_period_s over the window's busy fraction, batch-slot occupancy
 * and P99 (or TTFT) -- the threshold rule; kpa and hpa are in
 * svc_autoscale.c -- and the busy accounting those read. Below the batching
 * (svc_batch.c), which calls it; it calls nothing above.
 *
 * Costs, n = a service's ready replicas: a request routed, admitted or
 * served flips two bits of the load bitsets, O(1), until KV memory binds;
 * from then it moves one replica in the load heap, O(log n), and routing
 * visits only the heap subtrees with room; so does a replica made ready or
 * retired (its place in the heap is kept in it). The
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

/* {==== the load bitsets ====}
 * While the heap is not needed (service.heap_on), one bitset a load over
 * the replicas' serial numbers: the least loaded is the first serial
 * number of the lowest load with one. A bitset has four levels of 64-bit
 * words, a bit of level k + 1 saying that its word of level k is not zero,
 * the top one word: the first number set costs four loads and four
 * counts of trailing zeros, a bit set or cleared at most a word a level,
 * and 65,536 replicas take 8 KiB a load (the heap: 20 bytes each, and a
 * sift past every replica of equal load). */

enum { BITS_LEVELS = 4 };

/* Word offsets of a bitset's levels for cap serial numbers, off[4] its length. */
static void bits_offsets(uint32_t cap, size_t off[BITS_LEVELS + 1])
{
    size_t n = cap;
    off[0] = 0;
    for (int k = 0; k < BITS_LEVELS; k++) {
        n = (n + 63) / 64; /* words at level k */
        off[k + 1] = off[k] + n;
    }
}

static void bits_set(uint64_t *b, const size_t *off, uint32_t sn)
{
    for (int k = 0; k < BITS_LEVELS; k++, sn >>= 6) {
        uint64_t *w = &b[off[k] + (sn >> 6)], was = *w;
        *w = was | 1ull << (sn & 63);
        if (was)
            return; /* the levels above knew the word was not zero */
    }
}

static void bits_clear(uint64_t *b, const size_t *off, uint32_t sn)
{
    for (int k = 0; k < BITS_LEVELS; k++, sn >>= 6) {
        uint64_t *w = &b[off[k] + (sn >> 6)];
        *w &= ~(1ull << (sn & 63));
        if (*w)
            return;
    }
}

/* The first serial number set (the bitset not empty). */
static uint32_t bits_first(const uint64_t *b, const size_t *off)
{
    uint32_t i = 0;
    for (int k = BITS_LEVELS; k-- > 0;)
        i = i * 64 + (uint32_t)__builtin_ctzll(b[off[k] + i]);
    return i;
}

/* Room in every bitset and in by_sn for serial number sn (< SVC_LEVEL_SNS):
 * doubled, each bitset's leaves copied and its upper levels rebuilt. */
static void levels_room(service *v, uint32_t sn)
{
    if (sn >= v->cap_by_sn) {
        uint32_t cap = v->cap_by_sn ? v->cap_by_sn : 64;
        while (cap <= sn)
            cap *= 2;
        v->by_sn = xrealloc(v->by_sn, cap * sizeof *v->by_sn);
        v->cap_by_sn = cap;
    }
    if (sn < v->cap_sn)
        return;
    uint32_t cap = v->cap_sn ? v->cap_sn : 1024;
    while (cap <= sn)
        cap *= 2;
    size_t off[BITS_LEVELS + 1];
    bits_offsets(cap, off);
    for (int l = 0; l < SVC_LOAD_LEVELS; l++) {
        if (!v->lev[l])
            continue;
        uint64_t *b = xcalloc(off[BITS_LEVELS], sizeof *b);
        memcpy(b, v->lev[l], v->lev_off[1] * sizeof *b);
        for (int k = 1; k < BITS_LEVELS; k++)
            for (size_t j = 0; j < off[k] - off[k - 1]; j++)
                if (b[off[k - 1] + j])
                    b[off[k] + j / 64] |= 1ull << (j & 63);
        free(v->lev[l]);
        v->lev[l] = b;
    }
    memcpy(v->lev_off, off, sizeof off);
    v->cap_sn = cap;
}

/* Ready replica p into the bitset of load l (< SVC_LOAD_LEVELS). */
static void levels_put(service *v, replica *p, int l)
{
    if (!v->lev[l])
        v->lev[l] = xcalloc(v->lev_off[BITS_LEVELS], sizeof *v->lev[l]);
    bits_set(v->lev[l], v->lev_off, p->sn);
    v->lev_mask |= 1ull << l;
}

static void levels_take(service *v, const replica *p, int l)
{
    bits_clear(v->lev[l], v->lev_off, p->sn);
    if (!v->lev[l][v->lev_off[BITS_LEVELS - 1]])
        v->lev_mask &= ~(1ull << l);
}

/* The ready replica with the fewest requests, the first made among equals. */
static replica *levels_min(const service *v)
{
    int l = __builtin_ctzll(v->lev_mask);
    return v->by_sn[bits_first(v->lev[l], v->lev_off)];
}

static void levels_free(service *v)
{
    for (int l = 0; l < SVC_LOAD_LEVELS; l++) {
        free(v->lev[l]);
        v->lev[l] = NULL;
    }
    free(v->by_sn);
    v->by_sn = NULL;
    v->lev_mask = 0;
    v->cap_sn = v->cap_by_sn = 0;
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

/* Moves the hole at position i down, past every child key below k;
 * returns where it stops. */
static int heap_hole_down(service *v, int i, uint64_t k)
{
    for (;;) {
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
    return i;
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
    i = heap_hole_down(v, i, k);
    heap_put(v, i, p, k);
    return i;
}

/* From the bitsets to the heap, for good (service.heap_on): every ready
 * replica's key, the heap order made bottom up, the bitsets freed. */
static void heap_build(service *v)
{
    v->heap_on = true;
    for (int i = 0; i < v->nready; i++)
        v->lkey[i] = load_key(v->lheap[i]);
    for (int i = v->nready / 2; i-- > 0;) {
        replica *p = v->lheap[i];
        uint64_t k = v->lkey[i];
        heap_put(v, heap_hole_down(v, i, k), p, k);
    }
    levels_free(v);
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
    if (!v->heap_on) { /* two bits, no room figures (they start with the heap) */
        if (l == p->load)
            return;
        int was = p->load;
        v->slots_used += l - was;
        p->load = l;
        if (l >= SVC_LOAD_LEVELS) {
            heap_build(v);
            return;
        }
        levels_take(v, p, was);
        levels_put(v, p, l);
        return;
    }
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
    if (!v->heap_on && (p->load >= SVC_LOAD_LEVELS || p->sn >= SVC_LEVEL_SNS))
        heap_build(v); /* past the bitsets' bounds */
    heap_put(v, v->nready, p, load_key(p)); /* the key's idx names its place (hpos) in either order */
    v->lroom[v->nready] = -INFINITY; /* a leaf for now: heap_changed sets it */
    v->nready++;
    v->L->nup++;
    if (v->heap_on) {
        heap_changed(v, v->L->hpos[p->idx]);
        return;
    }
    levels_room(v, p->sn);
    v->by_sn[p->sn] = p;
    levels_put(v, p, p->load);
}

void svc_ready_free(service *v)
{
    free(v->lheap);
    free(v->lkey);
    free(v->lroom);
    v->lheap = NULL;
    v->lkey = NULL;
    v->lroom = NULL;
    levels_free(v);
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
    if (!v->heap_on) { /* the last takes its place in the array */
        levels_take(v, p, p->load);
        if (h < last)
            heap_put(v, h, v->lheap[last], v->lkey[last]);
        return;
    }
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
    /* load-following: the card learns at batch starts and ends, not per
     * iteration. The task's idle flag is !in_block from its start (both set
     * here alone), so an unchanged state leaves the task unread: with a
     * replica per GPU each read of it is a cache miss. */
    bool changed = p->in_block != busy;
    p->in_block = busy;
    if (changed && v->L->follow_load && p->task)
        sim_task_set_busy(s, p->task, busy);
}

const replica *svc_least_loaded_now(const service *v)
{
    if (v->nready == 0)
        return NULL;
    return v->heap_on ? v->lheap[0] : levels_min(v);
}

replica *svc_least_loaded(service *v, double kv_tok)
{
    if (v->nready == 0)
        return NULL;
    replica *top = v->heap_on ? v->lheap[0] : levels_min(v);
    if (svc_has_room(top, kv_tok))
        return top;
    if (top->load >= v->max_batch)
        return NULL; /* the least loaded is full: every ready replica is */
    if (!v->heap_on) /* the room figures below live in the heap */
        heap_build(v);
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

/* A replica task's id, "ID#N" as snprintf's "%.50s#%u" writes it, without
 * a format parsed for each of tens of thousands of replicas. */
static void replica_id(char out[WL_ID_MAX], const char *id, uint32_t n)
{
    size_t l = strnlen(id, 50);
    memcpy(out, id, l);
    out[l++] = '#';
    char d[10];
    int k = 0;
    do {
        d[k++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    while (k)
        out[l++] = d[--k];
    out[l] = '\0';
}

/* A zeroed record for replica L->nreps, from the layer's chunks: each
 * record starts a cache line, so the lines svc_prefetch asks for are all of
 * it and no more. */
static replica *replica_new(svc_layer *L)
{
    uint32_t c = L->nreps / REP_CHUNK;
    if (L->nreps % REP_CHUNK == 0) {
        L->rep_chunks = xrealloc(L->rep_chunks, (c + 1) * sizeof *L->rep_chunks);
        L->rep_chunks[c] = c < SVC_SMALL_CHUNKS ? xcalloc_lines(REP_CHUNK, SVC_REP_STRIDE)
                                                : gs_arena_take(&L->big_chunks, REP_CHUNK * SVC_REP_STRIDE);
    }
    return svc_rep(L, L->nreps);
}

void svc_scale_out(sim *s, service *v)
{
    svc_layer *L = v->L;
    if (v->hw.reason[0]) /* fits no card of the cluster: no replica is ever placed */
        return;
    replica *p = replica_new(L);
    p->idx = L->nreps;
    p->sn = v->nsn++;
    p->svc = v;
    p->state = R_PLACING;
    p->path = SVC_PATH_COLD;
    if (L->nreps == L->cap_reps) {
        L->cap_reps = L->cap_reps ? L->cap_reps * 2 : 16;
        L->hpos = xrealloc(L->hpos, L->cap_reps * sizeof *L->hpos);
        L->ev_gen = xrealloc(L->ev_gen, L->cap_reps * sizeof *L->ev_gen);
    }
    L->hpos[p->idx] = -1;
    L->ev_gen[p->idx] = 0;
    L->nreps++; /* p is svc_rep(L, p->idx) */
    if (v->nreps == v->cap_reps) {
        v->cap_reps = v->cap_reps ? v->cap_reps * 2 : 4;
        v->reps = xrealloc(v->reps, (size_t)v->cap_reps * sizeof *v->reps);
    }
    v->reps[v->nreps++] = p;
    v->nlive++;
    v->scale_outs++;
    job *t = sim_task_new(s, SIM_OWNER_MODULE(L->index));
    if (!v->replica_row) { /* its row is fixed once declared: one job row for every replica */
        v->replica_row = xmalloc(sizeof *v->replica_row);
        wl_service_replica_row(&v->cfg, v->replica_row);
        v->replica_row->gpu_model[0] = '\0'; /* its pools were resolved when the service was read */
    }
    wl_row row = *v->replica_row; /* a job row: the core places tasks by their row (and keeps its job_req) */
    replica_id(row.id, v->id, p->idx);
    row.submit_us = sim_now(s);
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
