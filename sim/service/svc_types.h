/* svc_types.h - the service layer's own records and the calls its files
 * make to each other, bottom up: svc_model.c (a catalog model's serving
 * configuration; profiles and catalog loaded once), svc_req.c (requests
 * slab, events) <-
 * svc_prefix.c (prefix-cache hooks) <- svc_scale.c (replicas, autoscaler)
 * <- svc_batch.c (continuous batching) <- svc.c (the module: rows,
 * routing, event dispatch, replica tasks, actuation); svc_report.c
 * (figures). Private to the layer: only its own files (and its tests)
 * include it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SVC_TYPES_H
#define GPUSIM_SVC_TYPES_H

#include <gsl/gsl_rng.h>

#include "../sim.h"
#include "../sim_module.h"
#include "svc_actuator.h"
#include "svc_hw.h"
#include "svc_prefix_cache.h"
#include "../../workloads/wl_svc_rows.h"

typedef struct svc_layer svc_layer;

enum { EVK_BLOCK = 1, EVK_READY = 2, EVK_TIMEOUT = 3, EVK_TICK = 4, EVK_GEN = 5, EVK_END = 6, EVK_KV = 7 };
/* A service's pool when it runs disaggregated (pd=P:D, svc_pd.c). */
enum { SVC_PD_NONE = 0, SVC_PD_PREFILL = 1, SVC_PD_DECODE = 2 };
/* R_DRAINING: scaled in by the kpa or hpa autoscaler while it held requests:
 * out of routing, it finishes them (no new ones, none from the queue) and
 * is retired when the last ends; it keeps its GPUs until then. */
enum { R_PLACING, R_STARTING, R_READY, R_GONE, R_DRAINING };
/* The autoscaler a run uses (svc_autoscaler): the seed article's threshold
 * rule (svc_scale.c), the Knative Pod Autoscaler or the Kubernetes HPA
 * (svc_autoscale.c). */
enum { SVC_SCALER_THRESHOLD, SVC_SCALER_KPA, SVC_SCALER_HPA };
enum { MODE_UNSET, MODE_TOKENS, MODE_TIME };
#define NONE UINT32_MAX
#define REQ_CHUNK 4096u
#define SVC_SLOTS_INLINE 4
#define REP_CHUNK 256u
#define SVC_SMALL_CHUNKS 4u
/* The load bitsets' bounds (svc_scale.c): loads 0..63 (one word of levels)
 * and 64^4 serial numbers (a bitset's four levels, the top one word). */
#define SVC_LOAD_LEVELS 64
#define SVC_LEVEL_SNS (1u << 24)

/* A request: 128 bytes on a 64-byte boundary (the slab's chunks are), the
 * first line all that the token path reads and writes at a block's end and
 * start, the second what the queue, time mode, an actuator and
 * disaggregation use: with a replica per GPU requests are spread over
 * megabytes, and each line of one a block touches is a cache miss. */
typedef struct svc_req {
    /* line 1: the batching path (tokens mode) */
    _Alignas(64) uint32_t gen;
    bool live, queued;
    bool first_done;
    bool first; /* only with an actuator: a first request (see svc_actuator_ops) */
    int nhash;
    uint32_t next; /* service queue link */
    gs_time_us arrive_us;
    int64_t in_tok, tok_left; /* tokens mode */
    int64_t out_tok;       /* output tokens asked for (TPOT) */
    gs_time_us ttft_at_us; /* when its first token came */
    uint64_t *hash;        /* prefix-block ids (request rows with hash_ids), owned; nhash of them */
    /* line 2 */
    struct service *svc;
    double work_left_us; /* time mode */
    /* only with an actuator: the replica whose activation it waited for (NONE: found one ready) */
    uint32_t first_rep;
    /* disaggregated: waiting in the decode pool's queue for a replica (its
     * KV not sent yet), the decode replica its KV goes to (NONE: none), and
     * when it joined a pool's queue */
    bool pd_wait;
    uint32_t pd_dst;
    gs_time_us queued_at_us;
} svc_req;
_Static_assert(offsetof(svc_req, svc) == 64 && sizeof(svc_req) == 128, "svc_req: the batching path's line");

/* KV-cache tokens request r holds in a batch: input + output (tokens mode;
 * 0 in time mode, whose requests carry no tokens). */
static inline double svc_req_kv_tok(const svc_req *r) { return (double)(r->in_tok + r->out_tok); }

/* A replica: the first SVC_REP_HOT bytes what its events read (the lines
 * svc_prefetch asks for), time mode's and start-up's fields after them.
 * Its record starts a cache line (svc_rep). */
typedef struct replica {
    struct service *svc;
    job *task;
    uint32_t *active, *pending; /* cap_slots each, grown as requests come, up to max_batch */
    uint32_t idx;
    uint32_t sn; /* serial number among its service's replicas (creation order, as idx) */
    int state;
    int nactive, npending, cap_slots;
    int load;     /* while ready: requests held (active + pending) as the heap last saw them */
    int incoming; /* requests whose KV is on its way here (disaggregated decode): slots held */
    /* active and pending while cap_slots <= SVC_SLOTS_INLINE: a batch's
     * requests are then read with the replica, not from an array of their own */
    uint32_t slots_inl[2 * SVC_SLOTS_INLINE];
    /* current block (tokens mode) or last drain (time mode) */
    gs_time_us t0_us, d1_us, d_us, t_end_us;
    long k_iters;
    double kv_used; /* KV tokens held by its active and pending requests */
    gs_time_us idle_since_us, busy_since_us;
    bool in_block;
    bool in_run; /* inside replica_run: a rate change it causes itself (load-following) is read there */
    bool start_pending; /* tokens mode: an idle replica starts its block at this instant, after
                           every arrival of the same instant has joined (a zero-delay event) */
    bool unactivated; /* got its GPUs after the service ended: handed back, the actuator never told */
    svc_place hw;     /* its card: speed factors, measured profile, KV capacity */
    svc_prefix_cache *pc; /* its KV-cache prefix blocks; NULL until a request with hash ids */
    uint32_t gen;
    int path; /* how it was activated (enum svc_path); COLD without an actuator */
    /* past the hot lines */
    gs_time_us last_us, ready_us;
    double rate_used; /* time mode: the rate the active requests drained at since last_us */
    long pc_cap;      /* blocks that fit beside the weights (set when it starts) */
} replica;
/* The bytes of a replica its events read: whole lines, prefetched. */
#define SVC_REP_HOT 256
_Static_assert(offsetof(replica, last_us) <= SVC_REP_HOT, "replica: its hot fields past its first lines");

/* One autoscaler tick's snapshot: the request-second areas up to it and the
 * HPA's recommendation made there. */
typedef struct svc_as_snap {
    gs_time_us t_us;
    double conc_area, held_area;
    int rec;
} svc_as_snap;

/* One recommendation in the hpa's window maximum (svc_as.mx) */
typedef struct svc_as_rec {
    gs_time_us t_us;
    int64_t seq; /* its snapshot's number: the ring keeps the last cap */
    int rec;
} svc_as_rec;

/* A service's kpa/hpa state (svc_autoscale.c); NULL under threshold. The
 * areas integrate, up to last_us, the requests in flight (arrived, not yet
 * served or dropped: Knative's concurrency, queue included) and those held
 * by replicas (in flight minus queued: the HPA's pod metric), so a window's
 * mean is a difference of two snapshots: O(1) per change, O(window / tick)
 * per tick. */
typedef struct svc_as {
    gs_time_us last_us;
    double conc_area, held_area;
    svc_as_snap *ring; /* the last ticks, newest at head */
    int cap, head, n;
    /* hpa: the kept snapshots' recommendations that a newer one does not
     * match or beat, oldest first (a circular array of cap at mx_first), so
     * the stabilization window's highest is its first: O(1) amortized a
     * tick, and a tick touches a line or two rather than the whole ring */
    svc_as_rec *mx;
    int mx_first, mx_n;
    int64_t pushed; /* snapshots pushed */
    bool panicking;               /* kpa panic mode */
    gs_time_us panic_at_us;       /* last tick over the panic threshold */
    gs_time_us panic_from_us;     /* when this panic began */
    int max_panic;                /* the most replicas asked for in this panic (never less while it lasts) */
    gs_time_us zero_at_us;        /* kpa: first tick that asked for zero replicas, -1: none */
    double panic_s;               /* seconds in panic mode, over the run */
    uint64_t drains;              /* scale-ins that waited for the replica's requests */
} svc_as;

typedef struct service {
    struct svc_layer *L; /* the layer it belongs to (so the layer's lower files need no lookup) */
    uint32_t idx;
    /* what every autoscaler tick and request reads, together on the
     * struct's first lines: with a service per few nodes the services
     * outgrow the cache, and a tick reaching all over one cost a miss a field */
    int min, max, max_batch; /* min: the autoscaler's floor now (0 once the service ended) */
    int nlive, nready, nstarting; /* live = placing + starting + ready + draining */
    int ndraining;
    int pd_role; /* disaggregated (svc_pd.c): this pool's role */
    bool ended, tick_pending;
    long qlen;
    long in_flight; /* requests arrived and not yet served or dropped */
    svc_as *as;     /* kpa/hpa state; NULL under the threshold rule */
    replica **reps;
    int nreps, cap_reps;
    char id[64];
    wl_service cfg; /* its row (ask.gpu_model narrowed to the models a replica fits) */
    uint64_t task_pools; /* cfg.ask.gpu_model as pools, resolved once: a scale-out does not parse it again */
    wl_row *replica_row; /* its replicas' job row but id and submit time, made at its first scale-out */
    int mode;
    int min_cfg;             /* the configured minimum (the row's, or a time policy's floor): reported */
    double slo_ms, weights_gib, prefill_ms, dec_base_ms, dec_seq_ms, svc_mean_ms;
    double p99_high_ms; /* autoscaler P99 threshold: the service's slo_ms, else svc_p99_high_ms */
    double last_p99_ms; /* the P99 of the latest closed scaling window (svc_p99_ms_last), 0: none yet */
    gs_time_us start_us, end_us;
    gs_time_us last_arrival_us; /* -1 before the first request */
    /* queue: FIFO with lazy removal of timed-out requests */
    uint32_t qhead, qtail;
    /* the nready ready replicas (cap_heap allocated), once heap_on (below)
     * a min-heap on (load, creation order): the per-request loops (routing, slot gauge)
     * see only these, at most what the cluster can hold, never the replicas
     * still waiting for GPUs; a replica's place is L->hpos[idx], so least-loaded
     * routing, the slot gauge and a replica made ready or retired cost
     * O(log n);
     * lroom[i] is the most KV-cache room (tokens) any replica with a free
     * batch slot has in the heap's subtree at i (-inf: none), so a request
     * that fits beside none is turned away at the root and a search for one
     * that fits skips every subtree without room; kept only from the first
     * time KV memory binds on the least-loaded replica (room_on), so a
     * service whose batches never fill the cache never pays for it */
    replica **lheap;
    uint64_t *lkey; /* lheap[i]'s (load, creation order) as one key (svc_scale.c) */
    double *lroom;
    int cap_heap;
    bool room_on;
    /* Until the heap is needed (heap_on: KV memory binds, a replica holds
     * SVC_LOAD_LEVELS requests or more, or the service made more than
     * SVC_LEVEL_SNS replicas), lheap is the ready replicas in no order
     * (L->hpos their places) and the least loaded comes from per-load
     * bitsets over the replicas' serial numbers (svc_scale.c): a request
     * routed or served flips two bits, where a heap moves its replica past
     * every one of equal load (its sift goes the heap's whole depth). */
    bool heap_on;
    uint64_t lev_mask;                /* bit l: some ready replica holds l requests */
    uint64_t *lev[SVC_LOAD_LEVELS];   /* per load: the bitset (NULL until a replica holds that many) */
    uint32_t cap_sn;                  /* serial numbers each bitset holds (0: none allocated) */
    size_t lev_off[5];                /* word offsets of a bitset's four levels at cap_sn, and its length */
    replica **by_sn;                  /* the replicas by serial number (made, in order); nsn of them */
    uint32_t nsn, cap_by_sn;
    long slots_used; /* sum of the ready replicas' loads */
    gs_time_us lost_at_us;        /* the instant of the latest replica lost, and how many were lost then */
    long lost_then;
    gsl_rng *rng;
    /* autoscaler window */
    gs_time_us win_start_us;
    double win_busy_s;
    sim_gauge g_slots;      /* batch slots in use over all replicas (KV-cache occupancy proxy) */
    double win_slots_area0; /* g_slots area at the window start */
    sim_sketch win_lat;
    /* figures */
    uint64_t arrived, generated, served, drop_full, drop_timeout, drop_ended, slo_ok;
    uint64_t cold_starts, scale_outs, scale_ins, unplaceable, replicas_lost, drop_lost;
    sim_sketch lat_s, ttft_s;
    sim_sketch tpot_s; /* token services: per request, (end - first token) / (output tokens - 1) */
    sim_gauge g_reps; /* replicas holding resources (starting + ready) */
    /* token SLOs: slo_ok then counts requests meeting every token SLO given */
    double slo_ttft_ms, slo_tpot_ms; /* < 0: not given */
    uint64_t ok_ttft, ok_tpot;
    sim_sketch win_ttft; /* the autoscaler's window, when slo_ttft_ms is given */
    /* prefix cache figures, over requests with hash ids */
    double kv_kib;
    long pc_cap;
    uint64_t pc_reqs, pc_reqs_hit, pc_blocks, pc_hit_blocks, pc_tokens, pc_saved, pc_evicted;
    svc_shape hw;               /* fit over the cluster's cards, KV bytes per token, reference card */
    uint64_t drop_unplaceable;  /* requests to a service whose replica fits no card */
    /* disaggregated (svc_pd.c): this pool's role and the other pool; the
     * pool's busy card time and queue; on the prefill pool (the service the
     * requests name) the KV moved between them */
    /* start-up: when its generated requests begin and after how long a
     * warm-up; whether a replica was ever ready, and the requests that came
     * before one was */
    gs_time_us gen_from_us;
    double warmup_s;
    bool ever_ready;
    uint64_t before_ready;
    struct service *pd_peer;
    double pd_busy_s;
    long pd_queue_peak;
    sim_sketch pd_wait_s;
    double pd_kv_bytes;
    uint64_t pd_kv_nvlink, pd_kv_net;
    sim_sketch pd_xfer_s;
} service;

struct svc_layer {
    service **svcs;
    uint32_t nsvcs, cap_svcs;
    /* services by id: open addressing, linear probing, index + 1 (0: empty),
     * at most half full, so a request row finds its service in O(1) however
     * many services the trace declares */
    uint32_t *by_id, cap_by_id;
    /* every replica ever made, by idx (events name them; svc_rep): REP_CHUNK
     * records a chunk, each on a cache line of its own, never freed before
     * the layer. Found by arithmetic, not through an array of pointers: at
     * 65,536 replicas such an array (512 KiB) stays out of the second-level
     * cache, and each event waited on a load of it before its replica's. */
    char **rep_chunks;
    /* chunks past the first SVC_SMALL_CHUNKS (replicas', requests') come
     * from huge pages: tens of thousands of records read at random */
    gs_arena big_chunks;
    int *hpos;      /* by idx: its place in its service's load heap, -1 when not in it */
    /* by idx: the generation of its block end (svc_ev_gen): an event of
     * another is void. Beside the replicas, not in them, so that the heap's
     * pass over its void events (sim_event_voided) and a popped void event
     * read 4 bytes a replica from one array, not a replica each. */
    uint32_t *ev_gen;
    uint32_t nreps, cap_reps;
    long nup; /* replicas holding resources over every service (starting + ready): each timeseries row */
    svc_req **chunks;
    uint32_t nchunks, nslots, *free_req, nfree, cap_free;
    int index; /* the layer's place among the run's modules (its events) */
    sim_sketch all_lat, all_ttft;
    int max_batch_def;
    double max_work, work_planned; /* sim_config.max_work and the estimate of the services declared so far */
    double slo_def, period_s, util_high, mem_high, p99_high_ms, idle_s, timeout_s, weights_def;
    long queue_max;
    double pod_s, import_s, load_gbps, compile_s, graph_s;
    /* the run's service actuator (svc_actuator.h), NULL without
     * one; its state is that of the policy at act_pol (svc_act_state) */
    const svc_actuator_ops *act;
    int act_pol;
    bool pc_on;
    int block_tok;
    double route_share;
    double kv_kib_def, kv_util;
    /* the autoscaler (svc_autoscaler) and its parameters */
    int scaler;
    double kpa_target, kpa_stable_s, kpa_panic_s, kpa_panic_thr, kpa_up_rate, kpa_down_rate, kpa_grace_s;
    double hpa_target, hpa_tol, hpa_down_s;
    double pd_net_gbps; /* svc_net_gbps: a disaggregated KV transfer's network without a card figure */
    svc_hw_params hw_params; /* the run's parameters of a replica's shape, read once */
    bool follow_load; /* svc_demand=load: a replica's demand on a shared card follows its batches */
    perf_set perf;    /* measured profiles (models/perf), loaded when a service names one */
    bool perf_loaded;
    llm_catalog llm;  /* the LLM catalog (models/llm), loaded when a service names a model */
    bool llm_loaded;
};

/* The actuator policy's state, for its hooks (L->act set). Read at each
 * call: the layer is made before the policies' init() makes that state. */
static inline void *svc_act_state(const sim *s, const svc_layer *L) { return sim_policy_state(s, L->act_pol); }

/* Integrates v's request flows (svc_as) up to now: called before anything
 * of the service's in_flight or qlen changes at a later instant than the
 * last call (at the entry of each of the layer's events and callbacks). */
static inline void svc_as_flow(service *v, gs_time_us now)
{
    svc_as *a = v->as;
    if (!a || now <= a->last_us)
        return;
    double dt = gs_us_to_s(now - a->last_us);
    a->conc_area += (double)v->in_flight * dt;
    a->held_area += (double)(v->in_flight - v->qlen) * dt;
    a->last_us = now;
}

/* The bytes between two replicas' records in a chunk: whole cache lines. */
#define SVC_REP_STRIDE ((sizeof(replica) + 63) / 64 * 64)

/* Replica idx (< L->nreps). */
static inline replica *svc_rep(const svc_layer *L, uint32_t idx)
{
    return (replica *)(L->rep_chunks[idx / REP_CHUNK] + (size_t)(idx % REP_CHUNK) * SVC_REP_STRIDE);
}

/* Replica p's block-end generation, and a new one (voiding its pending
 * block end). */
static inline uint32_t svc_ev_gen(const replica *p) { return p->svc->L->ev_gen[p->idx]; }
static inline uint32_t svc_ev_bump(replica *p) { return ++p->svc->L->ev_gen[p->idx]; }

static inline svc_req *svc_req_at(const svc_layer *L, uint32_t i) { return &L->chunks[i / REQ_CHUNK][i % REQ_CHUNK]; }

/* Whether replica p has a batch slot and KV-cache room for a request of
 * kv_tok tokens, as vLLM admits: an empty replica always takes one (a
 * request longer than the cache then runs alone). */
static inline bool svc_has_room(const replica *p, double kv_tok)
{
    int n = p->nactive + p->npending + p->incoming;
    return n < p->svc->max_batch && (n == 0 || p->kv_used + kv_tok <= p->hw.kv_cap_tok);
}

/* svc_pd.c: disaggregated prefill and decode */
/* Row `row` with pd=P:D[@MODEL]: its prefill pool's and decode pool's rows
 * (replica counts, card models, the decode pool's id "ID:decode", no
 * generated requests of its own). 0, or GS_EINPUT naming the column. */
int svc_pd_rows(sim *s, const wl_service *row, wl_service *pre, wl_service *dec);
/* The prefill of request ri on prefill replica p is done (now): its first
 * token made, its KV sent to a decode replica with room (or it waits in the
 * decode pool's queue). True for a one-token request: the caller serves it
 * now (svc_serve). */
bool svc_pd_handoff(sim *s, replica *p, uint32_t ri);
/* Decode replica p takes request ri from its pool's queue: the KV leaves
 * for p now (p's slot and KV room held until it lands). */
void svc_pd_send(sim *s, replica *p, uint32_t ri);
/* EVK_KV: request ri's KV landed on its decode replica, its first token
 * made: that replica, which the caller gives ri (svc_assign_held), or NULL
 * when the request is gone. */
replica *svc_pd_landed(sim *s, svc_layer *L, uint32_t ri, uint32_t gen);
/* The prefill pool's "pd" report object (both pools, the KV moved). */
void svc_pd_report(cJSON *o, const service *v, const sim *s);

/* svc_model.c: a service of a catalog model; the profiles and the catalog, loaded once */
typedef struct svc_model_row {
    perf_cfg cfg;     /* its model, precision, tp, pp, ep (cfg.gpu unset) */
    int gpus;         /* per replica: tp x pp */
    double weights_gib, kv_kib; /* per replica: all its GPUs */
} svc_model_row;
/* Row `row` names a model (row->model): 0, or GS_EINPUT in the run's error
 * naming the line (and column) at fault. Loads the catalog and profiles. */
int svc_model_resolve(sim *s, svc_layer *L, const wl_service *row, svc_model_row *out);
int svc_perf_load(sim *s, svc_layer *L);

/* svc_req.c: the requests slab and the layer's events */
uint32_t svc_req_new(svc_layer *L);
void svc_req_free(svc_layer *L, uint32_t i);
void svc_emit(sim *s, const service *v, gs_time_us at, uint32_t slot, uint32_t gen, int kind);
bool svc_tick_needed(const service *v);
void svc_schedule_tick(sim *s, service *v);

/* svc_prefix.c: prefix-cache hooks */
int64_t svc_prefix_prefill(svc_layer *L, replica *p, svc_req *r);
replica *svc_prefix_route(const svc_layer *L, const service *v, const svc_req *r);
long svc_prefix_capacity(const svc_layer *L, const sim *s, const service *v, const job *j);
/* The most blocks one replica's prefix cache may hold: its node table is
 * allocated whole (svc_prefix_cache.c). 2^26 is 30 times the largest real
 * case (8 cards of 141 GB at 512 tokens of 1 KiB a block); a tiny
 * kv_kib_per_token asking more, with the prefix cache on, is an input
 * error, never an allocation of terabytes. */
#define SVC_PREFIX_MAX_BLOCKS (1L << 26)
void svc_prefix_drop(replica *p);

/* svc_scale.c: replicas in and out, the autoscaler */
void svc_ready_add(service *v, replica *p);
/* Frees v's ready set (load heap, bitsets). */
void svc_ready_free(service *v);
void svc_ready_del(service *v, replica *p);
void svc_set_busy(sim *s, replica *p, bool busy);
/* After a ready replica's requests changed: its place in the load heap and
 * the service's slot total. O(log ready replicas). */
void svc_load_changed(replica *p);
/* The ready replica with the fewest requests (the first made among equals)
 * that has a batch slot and KV-cache room for kv_tok tokens: the top of the
 * load heap, O(1), whenever the top has room; when KV memory binds on the
 * least-loaded replica, NULL at once if no replica with a free slot has the
 * room (the root's figure), else a best-first walk of the heap that enters
 * only subtrees with room: the replicas it visits are those ranked before
 * the answer on its path, not every ready replica. The same pick as a scan
 * of the ready replicas in creation order (the heap's order among equals). */
replica *svc_least_loaded(service *v, double kv_tok);
/* The ready replica with the fewest requests (the first made among equals),
 * NULL when none: what svc_least_loaded tries first. O(1), no change. */
const replica *svc_least_loaded_now(const service *v);
void svc_note_scale(sim *s, service *v, const char *what);
void svc_scale_out(sim *s, service *v);
void svc_replica_remove(sim *s, replica *p);
void svc_compact_reps(service *v);
void svc_tick(sim *s, service *v);

/* svc_autoscale.c: the Knative Pod Autoscaler and the Kubernetes HPA */
/* v's kpa/hpa state from now (nothing under threshold). */
void svc_as_init(sim *s, service *v);
void svc_as_free(service *v);
/* EVK_TICK under kpa or hpa: the desired replica count from the windows,
 * replicas started or scaled in (drained) to it. O(window / tick), plus
 * O(replicas) for each scale-in. */
void svc_as_tick(sim *s, service *v);
/* Scales ready replica p in: retired now if it holds nothing, else drained
 * (R_DRAINING). */
void svc_drain(sim *s, replica *p);

/* svc_batch.c: continuous batching on a replica */
void svc_replica_run(sim *s, replica *p);
void svc_block_end(sim *s, replica *p);
void svc_cut_block(sim *s, replica *p);
void svc_assign(sim *s, replica *p, uint32_t ri);
/* svc_assign of a request whose KV room p already holds (a landed transfer). */
void svc_assign_held(sim *s, replica *p, uint32_t ri);
/* Request ri served at t: latency, token SLOs, freed (a decode pool's in
 * its service's figures). */
void svc_serve(sim *s, service *v, uint32_t ri, gs_time_us t);

/* Adds "services" (per service) and "requests" (over all) to the report
 * (svc_report.c); the module's report member. */
void svc_report(const void *state, const sim *s, cJSON *root, int section);

#endif
