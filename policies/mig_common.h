/* mig_common.h - what the `mig` (static partitions) and `dynmig` (HAMi
 * dynamic MIG) policies share: the MIG cards of the cluster and their
 * instances, the cluster file's "mig" key (layouts and schedules), the
 * request-to-profile mapping, placement over the nodes, whole-card requests on
 * cards without MIG, the pending queue and the report figures.
 *
 * Cards. A node group of the cluster file with a "mig" key is MIG-enabled:
 * its GPUs are taken out of the core's whole-card ledger at init, so the
 * ledger only ever offers cards without MIG; the policies place MIG work on
 * those cards themselves (a job's CPU and memory still go through the ledger).
 *
 * Requests (a job's job_req): `mig` names a profile; else `gpumem` (or `gpumem_pct`
 * of the card) maps to profiles
 * that hold it (memory_mib >= gpumem) and whose compute covers `gpucores`
 * when given, smallest memory first, then fewest compute slices (+me
 * profiles only when named); else the request is for whole cards: a card
 * without MIG, or the full-card profile (e.g. 7g.80gb) on a MIG card.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_MIG_COMMON_H
#define GPUSIM_MIG_COMMON_H

#include <cJSON.h>
#include <stddef.h>

#include "../sim/sim.h"
#include "../sim/sim_queue.h"
#include "mig_index.h"
#include "mig_layout.h"

#define MIG_MAX_SCHED 16

/* An instance slot on a card. IDLE: exists, no job (static layouts). HELD:
 * a job holds it (dynmig: being created or running). DESTROYING: the job
 * left; its slices return when the reconcile loop has destroyed it. Two
 * bytes: a card's eight slots sit in its first cache line (mig_gpu). */
enum { MI_NONE = 0, MI_IDLE, MI_HELD, MI_DESTROYING };

typedef struct mig_inst {
    int8_t prof;
    uint8_t start : 4, state : 4; /* start < MIG_MAX_SLICES */
} mig_inst;
_Static_assert(MIG_MAX_SLICES <= 16, "mig_inst.start: 4 bits");

/* A layout resolved against a model's table: n instances (profile, start). */
typedef struct mig_layout_spec {
    int n;
    int8_t prof[MIG_MAX_SLICES], start[MIG_MAX_SLICES];
} mig_layout_spec;

/* One node group of the cluster file. */
typedef struct mig_group {
    const gpu_model *model;
    int pool, ngpus;
    double cpu, mem_gib; /* per node; < 0 unlimited */
    bool mig;            /* has a "mig" key */
    int nsched;          /* layouts in force by time of day (1: all day) */
    gs_time_us at_us[MIG_MAX_SCHED]; /* start time of day of each */
    mig_layout_spec layout[MIG_MAX_SCHED];
} mig_group;

/* A job of at most this many cards keeps its instance slots packed in its
 * record (3 bits a card); a larger one in an array of its own. */
#define MIG_SLOT_BITS 3
#define MIG_SLOTS_PACKED 21 /* 21 x 3 bits in a uint64_t */

/* A card: what every placement and release reads and writes, in one
 * aligned cache line (layout, instance slots, state, and the index's record
 * of it: node, group and what it was last indexed with); the rest, read at
 * layout switches and dynmig creations, apart (mig_gpu_cold). At 65,536
 * cards the array far exceeds the caches, so the lines a job's start and end
 * touch are what the event loop's cost grows with. */
typedef struct mig_gpu {
    _Alignas(64) mig_card lay;
    mig_inst inst[MIG_MAX_SLICES];
    mig_index_card ix;           /* ix.node, ix.group: the card's node and node group */
    uint8_t nheld;               /* instances held by jobs */
    int8_t layout_cur;           /* static: schedule entry (-1: none, while reconfiguring) */
    bool draining, reconfiguring;
} mig_gpu;
_Static_assert(sizeof(mig_gpu) == 64, "mig_gpu: one cache line");

/* The rest of a card, by card index beside mig_base.gpus. */
typedef struct mig_gpu_cold {
    gs_time_us create_free_us; /* dynmig: creations on a card are serialized */
    gs_time_us drain_since_us; /* static: draining since */
    int layout_want;           /* static: schedule entry to apply next */
} mig_gpu_cold;

/* Per-job facts, indexed by job slot (no allocation per job): 32 bytes,
 * aligned, so a release reads one cache line of them. */
typedef struct mig_jobinfo {
    uint64_t cards; /* bit i: card card0 + i holds an instance of this job */
    /* the instance slot it holds on its r-th card (ascending): bits
     * [3r, 3r + 3) of packed, or many[r] when it asks more than
     * MIG_SLOTS_PACKED cards (its own array, freed as it is released); a
     * release goes straight to its slots, no card is scanned */
    union {
        uint64_t packed;
        uint8_t *many;
    } slots;
    gs_time_us ready_us; /* dynmig: when its last instance is created */
    /* -1: none; else the job's GPUs are MIG cards of one node, whose first
     * card is gpus[card0] (its node: the job's node) */
    int32_t card0;
    bool on_ledger : 1;  /* placed on whole cards through the ledger */
    bool blocked : 1, other_idle : 1; /* counted once: blocked by layout / waited beside idle instances */
    bool many : 1;       /* slots.many is in use */
    bool watching : 1;   /* it has watches (mig_base.watches) */
    uint8_t routes;      /* MIG_ROUTE_* bits: where it may ever go, worked out once */
} mig_jobinfo;
_Static_assert(sizeof(mig_jobinfo) == 32, "mig_jobinfo: half a cache line");
#define MIG_INFO_CHUNK 4096u

/* A queued job's watches, beside its record (read only while it is queued
 * and a refused try could still count it: mig, waiting beside idle
 * instances; dynmig, blocked by layout): the index sets it watches,
 * (group, entry, profile) triples. */
typedef struct mig_watches {
    int *watch, nwatch;
} mig_watches;

enum { MIG_ROUTE_KNOWN = 1, MIG_ROUTE_MIG = 2, MIG_ROUTE_WHOLE = 4, MIG_ROUTE_FALLBACK = 8 };

/* What a policy decides on one card for a job: a profile and a start
 * (dynmig), or an existing instance slot (mig: start = slot index). */
typedef struct mig_pick {
    int prof, start;
} mig_pick;

typedef struct mig_base mig_base;
typedef struct mig_hooks {
    /* Can card g host one GPU of j now? Fills *pk. */
    bool (*pick)(mig_base *b, mig_gpu *g, job *j, mig_pick *pk);
    /* Takes what pick chose on card g for j. */
    void (*commit)(mig_base *b, mig_gpu *g, job *j, const mig_pick *pk);
    /* All of j's cards are committed: start it (now or after creation). */
    void (*placed)(mig_base *b, job *j);
    /* Could group gr ever host one GPU of j (any layout it will have)? */
    bool (*ever)(const mig_base *b, const mig_group *gr, const job *j);
    /* j did not fit anywhere: count layout blocking (may be NULL). */
    void (*blocked)(mig_base *b, job *j);
    /* The job on card g's instance `slot` left (the instance is IDLE now). */
    void (*unplaced)(mig_base *b, mig_gpu *g, int slot);
    /* Describes card g for the index (mig_index.h): the entry it serves
     * (-1: no new work), the profiles pick would take on it now, the
     * policy's aux profiles and its room value. */
    void (*avail)(const mig_base *b, const mig_gpu *g, int *entry, uint16_t *avail, uint16_t *aux, int *room);
    /* The profiles p such that pick succeeds on a card of group gr serving
     * entry when (and only when) the card's avail bit p is set; returns
     * their number (into out[MIG_MAX_PROFILES]). */
    int (*wanted)(mig_base *b, const mig_group *gr, int entry, const job *j, int *out);
    /* Queued j not yet counted by `blocked`: the index sets (mig_keys_add)
     * that, while any is not empty, a try of j could count it; returns
     * their number (0: it cannot be counted any more). */
    int (*watch)(mig_base *b, const job *j);
    /* true when a released instance is destroyed and its slices
     * come back (dynmig); false when it stays as an idle instance (mig).
     * The preemption dry run frees a victim's instance accordingly. */
    bool frees_slices;
} mig_hooks;

struct mig_base {
    sim *s;
    /* mig_candidates_of's cache: (job, its slot generation, model) */
    const job *cand_job;
    uint32_t cand_gen;
    const gpu_model *cand_model;
    int cand[MIG_MAX_PROFILES], ncand;
    int pol_index;
    const mig_hooks *h;
    void *owner; /* the policy's state */
    int released_node; /* node of the job unplaced last (-1: none or whole cards) */
    mig_group *groups;
    int ngroups;
    mig_gpu *gpus;
    mig_gpu_cold *cold; /* [card index] */
    int ngpus;
    int *node_first, *node_count; /* per node: its MIG cards in gpus[] */
    int *mig_nodes, nmig_nodes;   /* nodes with MIG cards, ascending id */
    int *taken_ids;               /* scratch for ledger take/give */
    /* slot s's record: info[s / MIG_INFO_CHUNK][s % MIG_INFO_CHUNK], in
     * 64-byte aligned chunks (grown as the core's slots grow, never copied) */
    mig_jobinfo **info;
    mig_watches *watches;   /* by job slot */
    uint32_t info_cap;
    mig_index idx;      /* cards by what they can take now */
    int *keys, nkeys, keys_cap; /* scratch: a placement's (group, entry, profile) triples */

    /* figures */
    int total_mem_slices, total_compute_slices;
    sim_gauge mem_held, compute_held, mem_occupied, waste_mib;
    uint64_t placed_mig, creations, destructions;
    /* dynmig mem_route=mig-first: a memory request goes to a card without MIG
     * when no MIG card can take it now (set by the policy before any arrival) */
    bool mem_fallback;
    uint64_t placed_fallback;
    double waste_sum_mib; /* over instances held for memory requests */
    uint64_t waste_n;
    uint64_t blocked_requests, other_idle_waits;
    double blocked_wait_s, other_idle_wait_s;
    double demand[CL_MAX_POOLS][MIG_MAX_PROFILES]; /* requests seen per profile */
    /* a preemptor whose victims' instances are still being
     * destroyed (dynmig) holds node resv_node until it is placed there */
    job *resv;
    uint32_t resv_gen;
    int resv_node;
};

static inline mig_gpu_cold *mig_cold(const mig_base *b, const mig_gpu *g) { return &b->cold[g - b->gpus]; }

/* Builds the cards from the cluster (each group's "mig" key parsed and
 * validated against its model), takes MIG cards out of the ledger and sets
 * up the queue. A bad key is GS_EINPUT naming the cluster file and the node
 * group. */
int mig_base_init(mig_base *b, sim *s, int pol_index, const mig_hooks *h, void *owner, gs_error *err);
void mig_base_free(mig_base *b);
mig_jobinfo *mig_info(mig_base *b, const job *j);

/* Memory a request asks per card on model m: gpumem, else gpumem_pct of the
 * card's memory (rounded down); 0 when neither is given. */
static inline int64_t mig_req_mem_mib(const gpu_model *m, const job_req *r)
{
    return job_req_gpumem_mib(r, m->memory_mib);
}
/* Candidate profiles of r on MIG model m, in the order to try; returns their
 * number (0: none holds the request). kind: 'n' named, 'm' memory, 'w' whole. */
int mig_candidates(const gpu_model *m, const job_req *r, int *out, char *kind);
/* mig_candidates of j on m, kept for the last (job, model) asked: a
 * placement asks it once per card, and it only depends on the request and
 * the model (profile names resolved once, not per card). *out points into
 * b's cache, valid until the next call. */
int mig_candidates_of(mig_base *b, const gpu_model *m, const job *j, const int **out);

/* The questions the core's queue asks (pol_space.place and beside it).
 * can_ever_fit: also resets j's record and counts its profile demand (the
 * core asks once per arrival). place: start j now (whole cards through the
 * ledger, or instances), else count layout blocking. unplace: give back
 * what j holds. nominee_missed / dispatch_held: dynmig's hold of a node for
 * a preemptor whose victims' slices are still being destroyed. */
bool mig_base_can_ever_fit(mig_base *b, const job *j);
/* Why j can never fit (pol_space.reject_reason): a profile no MIG card
 * offers, memory no profile holds, whole cards where every card has MIG. */
void mig_base_reject_reason(const mig_base *b, const job *j, char *why, size_t cap);
bool mig_base_place(mig_base *b, job *j);
void mig_base_unplace(mig_base *b, job *j);
uint64_t mig_base_shape_key(const void *state, const job *j);
/* pol_space.mem_per_card_mib of both (state: the policy's, a mig_base
 * first): 0 when no card of m in the cluster could ever take one GPU of r
 * (a profile no layout of its MIG cards offers, memory no profile holds, a
 * whole card where every card of m has MIG and no full-card instance);
 * else a named profile's memory, else gpumem (the policy picks a profile
 * that holds it), else the whole card. O(groups x profiles). */
double mig_mem_per_card_mib(const void *state, const struct gpu_model *m, const job_req *r);
void mig_base_nominee_missed(mig_base *b, job *p);
job *mig_base_dispatch_held(mig_base *b);
/* Core preemption (policies/README.md): would queued j be placed
 * on node n if the running jobs v[0..nv) released what they hold there? A
 * dry run on copies of the node's cards; changes nothing. */
bool mig_base_fits_if_released(const mig_base *b, const job *j, int n, job *const *v, int nv);
/* The queue's demand index (pol_space_index.queue_demand): 0 for a request that
 * may take whole cards through the ledger (always tried), else the fewest
 * memory slices among the profiles it could take on any MIG card it may use
 * (the policy's room says the most any card offers now). */
uint32_t mig_base_queue_demand(mig_base *b, const job *j);
/* Card g changed (instances, state, layout, service): re-index it. O(profiles x placements). */
void mig_card_changed(mig_base *b, mig_gpu *g);
/* Node left service or came back (pol_space.node_changed): its MIG cards
 * are indexed again, with nothing to offer while it is out. O(its cards). */
void mig_node_changed(mig_base *b, int node);
/* The queue's room (pol_space_index.queue_room): the most any node offers
 * (mig_index.h), or unbounded while a watched set of a queued request is not
 * empty (a try of it could be counted). O(1). */
uint32_t mig_base_queue_room(const mig_base *b);
/* j is queued (on: its watches from hooks.watch) or no longer to be
 * counted (off: placed, counted, or its slot reused). */
void mig_set_pending(mig_base *b, mig_jobinfo *in, const job *j, bool on);
/* Appends the triple (g, e, p) to b->keys at n triples; returns n + 1. */
int mig_keys_add(mig_base *b, int n, int g, int e, int p);
/* Instance bookkeeping that keeps the gauges right. */
/* hold: j takes slot (its record's node and cards already name the card);
 * unhold: j, holding slot, gives it back. */
void mig_inst_hold(mig_base *b, mig_gpu *g, int slot, job *j);
void mig_inst_unhold(mig_base *b, mig_gpu *g, int slot, job *j);
/* The slot that the job of record in holds on card ci of its node (bit ci
 * of in->cards set). O(1). */
int mig_job_slot(const mig_jobinfo *in, int ci);
int mig_inst_create(mig_base *b, mig_gpu *g, int prof, int start, uint8_t state); /* returns the slot */
void mig_inst_destroy(mig_base *b, mig_gpu *g, int slot);
/* Time of day (0 = midnight of the trace's first day) to the schedule entry in force. */
int mig_sched_entry(const mig_group *gr, gs_time_us t_us);

/* Reads a node group's "mig" text into gr (its layouts and schedule);
 * returns nonzero with why filled on a bad text (mig_conf.c). */
int mig_group_parse(mig_group *gr, const char *text, char *why, size_t n);

/* Slot s's record (s < info_cap). */
static inline mig_jobinfo *mig_info_at(const mig_base *b, uint32_t s)
{
    return &b->info[s / MIG_INFO_CHUNK][s % MIG_INFO_CHUNK];
}

/* Adds the shared figures to the report object pol. */
void mig_base_report(const mig_base *b, cJSON *pol);

#endif
