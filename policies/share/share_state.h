/* share_state.h - the state of the shared-card wing (`vgpu`, `timeslice`,
 * `mps`): the policy's configuration, a card's counters and tenants, a
 * task's record, and the accessors every file of the wing reads them with.
 * Types and inline reads only; the files that change them, bottom-up
 * (each calls only files listed before it; share/README.md):
 *
 *   share_tenants.c  tenant arrays: the allocator of a card's tenant list
 *   share_task.c     the tasks' records by job slot (a slab)
 *   share_fit.c      HAMi's admission test, a task's memory per card
 *   share_rule.c     the contention rule: join, leave, water-filling, swap,
 *                    residency of idle replicas
 *   share_score.c    HAMi's card and node scores
 *   share_paper.c    frag_model=paper: the FGD artifact's integer scores
 *   share_room.c     index: open cards per node (the queue's demand index)
 *   share_host.c     index: every node in HAMi's order with its host room
 *   share_frag.c     index and measure: fragmentation as FGD defines it
 *   share_index.c    sc_index_changed: the indexes above, in their order
 *   share_place.c    gpu_select=hami: HAMi's node and card choice
 *   share_select.c   the other gpu_select strategies (bestfit .. fgdfit)
 *   share_preempt.c  the core's preemption dry run
 *   share_sched.c    the life cycle: place, OOM kill and retry, release, report
 *   pol_vgpu.c, pol_timeslice.c, pol_mps.c  the policies: parameters only
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_STATE_H
#define GPUSIM_SHARE_STATE_H

#include "../../sim/sim.h"

enum sc_throttle {
    SC_THROTTLE_NEVER = 0,   /* timeslice; vgpu core_policy=disable */
    SC_THROTTLE_CONTENDED,   /* vgpu core_policy=default: cap only while another tenant runs */
    SC_THROTTLE_ALWAYS,      /* vgpu core_policy=force */
};

typedef struct sc_config {
    const char *name;       /* policy name, for the report */
    bool hami;              /* vgpu: memory and cores are admission limits; timeslice: slots only */
    int split_count;        /* tenants per card; 0 = unlimited */
    double mem_scaling;     /* vgpu: card registers (admits) physical x this, truncated to MiB */
    int total_cores;        /* vgpu: 100 x core_scaling, truncated */
    /* vgpu: a task asking neither cores nor a memory share (or all the
     * memory) reserves 100 cores, the card (HAMi v2.7.0 on; 0 before) */
    bool exclusive_cores;
    bool node_spread, card_spread;
    int throttle;           /* enum sc_throttle */
    bool swap;              /* memory above physical goes to host (else: OOM kill) */
    double swap_turn_s;     /* compute time a tenant gets per turn while thrashing */
    int oom_retry;          /* times an OOM-killed task is resubmitted */
    gs_time_us oom_backoff_us;
    double switch_cost, eff_floor;
    bool fifo;              /* strict head-of-line queue */
    /* where a task goes (share_select.c) and fragmentation
     * measured against the trace's request shapes (share_frag.c) */
    int select;             /* enum sc_select */
    const char *select_name; /* its gpu_select value, for the report */
    bool frag;              /* measure fragmentation (report, timeseries) */
    bool paper;             /* frag_model=paper: the FGD artifact's measure, scores and ties (share_paper.c) */
    /* mps: a fault of one client (an OOM) takes down every client on its
     * cards; per-client limits split the card in mps_split (0: none):
     * active threads 100 / mps_split percent, memory physical / mps_split */
    bool mps;
    int mps_split;
    /* tenants a card takes: split_count, else SC_CARD_TENANTS_MAX (sc_new) */
    int max_tenants;
} sc_config;

/* The choices of vgpu's gpu_select, in enum sc_select's order: the one
 * list the parameter table, the reader and the report use. */
#define SC_SELECT_CHOICES "hami|bestfit|dotprod|random|fgd|fgdfit|fgdhost"
/* node_policy and card_policy: index 1 is spread. */
#define SC_SPREAD_CHOICES "binpack|spread"

enum sc_select {
    SC_SEL_HAMI = 0, /* node_policy / card_policy with HAMi's scores (share_place.c) */
    SC_SEL_BESTFIT,  /* least free resources left on the node, tightest card */
    SC_SEL_DOTPROD,  /* Tetris: largest request . free-vector product */
    SC_SEL_RANDOM,   /* uniform among feasible nodes, then cards (seeded) */
    SC_SEL_FGD,      /* least growth of expected fragmentation (FGD, ATC'23) */
    SC_SEL_FGDFIT,   /* gpusim's own: FGD, scarce models last, exact fits first for shares, CPU tasks where no GPU idles (share_select.c) */
    SC_SEL_FGDHOST,  /* fgdfit with host CPU and memory as dimensions: least GPU stranded by a short host (share_select.c) */
};

/* fgdfit and fgdhost: the strategies that keep fgdfit's per-card indexes. */
static inline bool sc_sel_fit(int select) { return select == SC_SEL_FGDFIT || select == SC_SEL_FGDHOST; }
/* fgd, fgdfit, fgdhost: the strategies that score by the fragmentation cache. */
static inline bool sc_sel_frag(int select) { return select == SC_SEL_FGD || sc_sel_fit(select); }

/* Why a task was killed (the report counts failures by cause). */
enum sc_cause { SC_CAUSE_OOM = 0, SC_CAUSE_CO_TENANT = 1 };

struct sc_frag;

/* A task's record (sc_task_of: filed by job slot): 16 bytes in the
 * policy's slab (share_task.c), kept only by a task that has something to
 * keep. A plain task (one card or none, not an internal one, never
 * OOM-killed) has none and costs
 * nothing beyond its job: its rate on its card is computed with the card's
 * (card_update) and handed to the core at once, never read back. A task on
 * several cards keeps its cards' rates (its rate is their minimum), an
 * internal one (a service replica) its residency state, and one doomed or
 * OOM-killed its kill count and flags. Nothing the job already says is
 * kept again: its cards are the job's GPU ids (job_gpu_ids, held from its
 * placement to its release), its card count the request's gpus, its memory
 * per card, reserved cores, demand and cap follow from the request and the
 * card (sc_task_mem, share_fit.c; sc_task_cores). A record lives from the
 * task's placement to its release: a queued job has none, nor a suspended
 * one (preempted, hibernated), except after an OOM kill, so that the kill
 * count carries over to its retry. */
typedef struct sc_task_more {
    gs_time_us last_busy_us; /* residency LRU key: when it last went idle (or joined) */
    double rate[];           /* the rate each of its cards gives it */
} sc_task_more;

typedef struct sc_task {
    /* a task on several cards, or an internal one (a service replica, which
     * needs its residency LRU key), keeps its cards' rates out of line (wide) */
    union {
        sc_task_more *more;     /* wide */
        struct sc_task *next;   /* a free record of the slab */
    } u;
    uint32_t gen;    /* its job's generation: a record left by a job that ended is not its slot's next job's */
    uint16_t ooms;   /* OOM kills so far: at most oom_retry + 1 (SC_OOM_RETRY_MAX) */
    bool doomed : 1; /* OOM: admitted, killed at once by a timer at the same instant */
    /* residency (vgpu oversub=swap, service replicas): an idle replica's
     * memory may be evicted to host; the batch that finds it out waits for
     * it to come back (swapping) before it computes */
    bool evicted : 1, swapping : 1;
    bool wide : 1; /* u.more holds the rates (else it has one card or none: its rate is not kept) */
    bool live : 1; /* in use (not on the slab's free list) */
} sc_task;

/* Cards' tenant arrays of 1 << lg slots (lg 2..SC_ARR_LG_MAX) come from
 * chunks of SC_ARR_CHUNK_BYTES (or one array, when larger), one set per
 * size, and are named by a 32-bit handle (share_tenants.c). */
#define SC_ARR_LG_MAX 17
#define SC_ARR_CHUNK_BYTES 65536

/* Records in a chunk of the policy's task slab (64 KiB). */
#define SC_TASK_CHUNK 4096

/* oom_retry's upper bound: a task's kill count (uint16_t) stays below it + 2. */
#define SC_OOM_RETRY_MAX 1000
_Static_assert(SC_OOM_RETRY_MAX + 1 < UINT16_MAX, "sc_task.ooms is a uint16_t");

/* The tasks' records by job slot (share_task.c): chunks of SC_TREC_CHUNK pointers, one
 * allocated when a task of its slot range first keeps a record, so a run
 * whose tasks keep none pays nothing for them, not even a pointer a job. */
#define SC_TREC_CHUNK 1024

/* A task needs a record from its placement: on several cards, or internal. */
static inline bool sc_task_wide(const job *j) { return j->req.gpus > 1 || j->internal; }

/* A card's memory counters are MiB in 32 bits: a model has at most 16 TiB
 * (2^24 MiB, checked when its file is read) and vgpu admits at most
 * mem_scaling (<= 100) x that, so committed memory stays below 2^31 MiB;
 * memory in use stays at or below physical without swap (a task that would
 * cross it is OOM-killed without adding to it) and below committed with it
 * (swap is vgpu's). Timeslice and mps admit no memory: they keep no
 * committed count (nothing reads it there). */
#define SC_CARD_MEM_MAX_MIB ((int64_t)16 * 1024 * 1024 * 100)
_Static_assert(SC_CARD_MEM_MAX_MIB < INT32_MAX, "sc_card memory counters are int32_t");
/* vgpu's cores (100 x core_scaling, core_scaling <= 100) fit cores_used. */
#define SC_CARD_CORES_MAX 10000
_Static_assert(SC_CARD_CORES_MAX < (1 << 14), "sc_card.cores_used is 14 bits");
/* Tenants a card takes at most, whatever the policy's limit: its count is 17
 * bits. vgpu's split_count (<= 1000), mps's replicas (<= 48) and
 * timeslice's (<= 100,000) are below it; timeslice's replicas=0 (no limit)
 * closes a card there (sc_config.max_tenants). */
#define SC_CARD_TENANTS_MAX ((1 << 17) - 1)
_Static_assert(((int64_t)1 << SC_ARR_LG_MAX) > SC_CARD_TENANTS_MAX, "the largest tenant array holds a full card");
/* sc_card.t: a tenant's job slot (below 2^31: SIM_MAX_SLOTS), or, with the
 * top bit set, a tenant array: its size's log2 in 5 bits and its index
 * among the arrays of that size in the other 26 (a card holds at most one
 * array, and a cluster at most CL_MAX_GPUS cards). */
#define SC_T_ARRAY 0x80000000u
#define SC_T_LG_SHIFT 26
#define SC_T_INDEX_MASK ((1u << SC_T_LG_SHIFT) - 1)
_Static_assert(SC_ARR_LG_MAX < 32 && CL_MAX_GPUS <= (1 << SC_T_LG_SHIFT), "a tenant array's handle");
_Static_assert(SIM_MAX_SLOTS <= SC_T_ARRAY, "a job slot leaves sc_card.t's top bit clear");

/* One per GPU of the cluster, used or not: 24 bytes, zero for an empty card,
 * so that the pages of the cards no task ever joined are never written
 * (sc_new) and cost no memory. Nothing that follows from the rest is kept:
 * the card's model (its physical memory) is its pool's, found from its
 * index (sc_card_pool), its share of allocated cards (alloc) is recomputed
 * from its counters (card_alloc in share_rule.c), its tenants about to be
 * OOM-killed are counted from their records when its rates are. */
typedef struct sc_card {
    /* its tenants, as their jobs' slots (sc_card_tenants, sc_card_tenant):
     * one in the card's record, more in an array named by a handle (the top
     * bit set: SC_T_ARRAY), so a card with one tenant costs it nothing, and
     * four tenants' array is 16 bytes */
    uint32_t t;
    int32_t mem_used; /* MiB the running tenants use (may exceed physical under swap) */
    /* its current contribution to the busy gauge, so a change adds a delta */
    double busy;
    int32_t mem_committed;  /* MiB asked by the tenants (admission; vgpu only) */
    /* the count in the low bits and the cores in the high ones: each is
     * read with one instruction after the load (a mask, a shift) */
    uint32_t n : 17;          /* tenants, at most SC_CARD_TENANTS_MAX */
    uint32_t closed : 1;      /* could take no task (share_room.c); 0, as calloc'd, for an empty card */
    uint32_t cores_used : 14; /* gpucores reserved (vgpu), at most SC_CARD_CORES_MAX */
} sc_card;
_Static_assert(sizeof(sc_card) == 24, "a card's record is 24 bytes (tests/test_share_mem.c)");
/* A card a job across nodes holds whole (pol_space.gang_cards, sc_room_hold)
 * has no tenant and this many cores reserved, more than a card admits: the
 * mark travels with a copy of the card (the preemption dry run's). */
#define SC_CORES_HELD 0x3fffu
_Static_assert(SC_CORES_HELD > SC_CARD_CORES_MAX, "a held card's mark is no real reservation");
static inline bool sc_card_held(const sc_card *c) { return c->cores_used == SC_CORES_HELD; }
_Static_assert(CL_MAX_POOLS <= 256, "sc_state.range_pool is a uint8_t");
_Static_assert(CL_MAX_NODE_GPUS <= UINT8_MAX, "sc_state.node_open counts a node's cards in a uint8_t");

/* A card's swap state (oversub=swap only, sc_state.swap): its host link and
 * its contributions to the swap gauges. Other runs keep none: the card's
 * contributions there stay 0. */
typedef struct sc_card_swap {
    double link_bps;   /* host link bytes/s per direction */
    double swapin_bps; /* what a swap-in achieves: link_bps x the measured fraction of its kind */
    double host_mib, swap_bps, thrash, wait;
} sc_card_swap;

/* The tenant arrays of one size (1 << lg slots): chunks of arrays, a free
 * list threaded through the free ones (their first slot), the next never
 * used. */
typedef struct sc_arrays {
    uint32_t **chunk;
    uint32_t nchunk;
    uint32_t free; /* an array's index, UINT32_MAX: none */
    uint32_t used; /* arrays handed out from the chunks so far */
    uint8_t clog;  /* arrays per chunk: 1 << clog */
} sc_arrays;

typedef struct sc_state {
    sim *s;
    sc_config cfg;
    int pol_index;
    sc_card *cards; /* one per GPU of the cluster */
    /* each card's pool, by ranges of card indices in cluster order (a node
     * group's cards are consecutive): pool1 when one range covers every
     * card, else -1 and the ranges' first cards and pools (sc_card_pool) */
    int pool1;
    int nrange;
    int *range_first;
    uint8_t *range_pool;
    sc_card_swap *swap; /* one per GPU under oversub=swap, else NULL */
    int ncards;
    double total_phys_mib;
    int64_t pool_phys_mib[CL_MAX_POOLS]; /* each pool's model's memory (sc_card_phys_mib) */
    /* each pool's card memory under the run's scaling (sc_card_total_mem):
     * one load where admission tests a card */
    double pool_total_mib[CL_MAX_POOLS]; /* vgpu: HAMi's registered memory, physical x mem_scaling truncated */
    /* the tasks' records: chunks of fixed-size slots, free ones linked
     * (share_task.c): no allocator header a task, pointers stable while
     * the slab grows */
    sc_task **tchunks;
    int ntchunks;
    sc_task *tfree;
    sc_task ***trec; /* records by job slot (sc_task_of) */
    uint32_t ntrec;  /* chunks of it */
    /* the cards' tenant arrays by size (share_tenants.c) */
    sc_arrays arr[SC_ARR_LG_MAX + 1];
    /* the cards a placement chose (sc_place), before the job holds them */
    int pick[CL_MAX_NODE_GPUS];
    /* time integrals: committed and used MiB, busy card-time, MiB in host
     * memory, swap bytes/s each way, card-seconds swapping, task-seconds
     * waiting on swap */
    sim_gauge g_mem_alloc, g_mem_used, g_busy, g_host_mib, g_swap_bps, g_thrash, g_wait;
    uint64_t oom_killed, placements;
    uint64_t fault_killed;      /* mps: co-tenants taken down by a client's fault */
    uint64_t failed_by[2];      /* jobs failed for good, by cause (enum sc_cause) */
    /* residency: swap-ins of evicted replicas, their waits, evictions */
    uint64_t swap_ins, evictions;
    double swapped_in_mib, freed_mib;
    sim_sketch swapin_wait_s;
    int peak_tenants;
    void *scratch_bounds; /* water-filling scratch, grown as needed */
    double *scratch_rates; /* a card's tenants' rates there, as computed (card_update, share_rule.c) */
    int scratch_cap;
    job *joiner;      /* the task sc_join adds, while it does */
    double join_rate; /* its rate, as card_update found it */
    struct sc_frag *frag;  /* shapes, per-node fragmentation (NULL: not measured) */
    void *rng;             /* gsl_rng for gpu_select=random (NULL otherwise) */
    int *rank;             /* frag_model=paper: per-seed node order that breaks ties (NULL otherwise) */
    uint8_t *node_open;    /* per node: its open cards (share_room.c), at most CL_MAX_NODE_GPUS */
    int *open_hist;        /* [0..CL_MAX_NODE_GPUS]: nodes with that many open cards */
    struct sc_horder *horder; /* gpu_select=hami: every node in HAMi's order with its host room (share_host.c) */
} sc_state;

/* The policy's record of job j (NULL while it is not placed or has nothing
 * to keep, unless an OOM kill's count waits in it). */
static inline sc_task *sc_task_of(const sc_state *st, const job *j)
{
    uint32_t c = j->slot / SC_TREC_CHUNK;
    sc_task *t = c < st->ntrec && st->trec[c] ? st->trec[c][j->slot % SC_TREC_CHUNK] : NULL;
    return t && t->gen == j->gen ? t : NULL;
}
/* Its flags: a task without a record has none set. */
static inline bool sc_task_doomed(const sc_state *st, const job *j)
{
    const sc_task *t = sc_task_of(st, j);
    return t && t->doomed;
}
static inline bool sc_task_swapping(const sc_state *st, const job *j)
{
    const sc_task *t = sc_task_of(st, j);
    return t && t->swapping;
}
static inline bool sc_task_evicted(const sc_state *st, const job *j)
{
    const sc_task *t = sc_task_of(st, j);
    return t && t->evicted;
}

/* The tenant array handle h names (SC_T_ARRAY set). */
static inline uint32_t *sc_arr_at(const sc_state *st, uint32_t h)
{
    unsigned lg = h >> SC_T_LG_SHIFT & 31;
    uint32_t i = h & SC_T_INDEX_MASK;
    const sc_arrays *a = &st->arr[lg];
    return a->chunk[i >> a->clog] + ((size_t)(i & ((1u << a->clog) - 1)) << lg);
}
/* The tenants of card c (c->n of them). */
static inline const uint32_t *sc_card_tenants(const sc_state *st, const sc_card *c)
{
    return c->t & SC_T_ARRAY ? sc_arr_at(st, c->t) : &c->t;
}
/* Its k-th tenant's job. */
static inline job *sc_card_tenant(const sc_state *st, const sc_card *c, int k)
{
    return sim_job_in_slot(st->s, sc_card_tenants(st, c)[k]);
}
/* The size of card c's tenant array (1: the card's own slot). */
static inline int sc_card_cap(const sc_card *c) { return c->t & SC_T_ARRAY ? 1 << (c->t >> SC_T_LG_SHIFT & 31) : 1; }
/* The pool (model) of card g: one load in a cluster of one range, else the
 * last range whose first card is at most g (O(log ranges)). */
static inline int sc_card_pool(const sc_state *st, int g)
{
    if (st->pool1 >= 0)
        return st->pool1;
    int lo = 0, hi = st->nrange - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (st->range_first[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return st->range_pool[lo];
}
/* Card g's physical memory: its pool's model's. */
static inline int64_t sc_card_phys_mib(const sc_state *st, int g) { return st->pool_phys_mib[sc_card_pool(st, g)]; }
/* Card g's memory under the run's scaling (vgpu's mem_scaling; physical
 * elsewhere), MiB; the same for every card of node n (a node's cards share
 * its model): read once where a loop visits a node's cards. */
static inline double sc_card_total_mem(const sc_state *st, int g) { return st->pool_total_mib[sc_card_pool(st, g)]; }
static inline double sc_node_total_mem(const sc_state *st, const sim_node *n) { return st->pool_total_mib[n->pool]; }
/* Cores j reserves on each of its cards (vgpu admission; 0 elsewhere): its
 * gpucores, else, with exclusive_cores, 100 for a task that asks no memory
 * share or all of it (HAMi's admission webhook, pkg/device/nvidia/device.go
 * defaultExclusiveCoreIfNeeded), else 0. */
static inline int sc_task_cores(const sc_state *st, const job *j)
{
    if (!st->cfg.hami || j->req.gpucores > 0)
        return st->cfg.hami ? j->req.gpucores : 0;
    bool whole = j->req.gpumem_pct == 100 || (j->req.gpumem_pct == 0 && j->req.gpumem_mib == 0);
    return st->cfg.exclusive_cores && whole ? 100 : 0;
}


#endif
