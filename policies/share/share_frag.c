/* share_frag.c - GPU fragmentation as FGD defines it (Weng et al., "Beware
 * of Fragmentation", USENIX ATC'23, Sec. 4), for shared cards: gpusim's
 * exact measure below, or the artifact's (frag_model=paper, node_frag_paper:
 * its typical shapes, no memory, CPU-only shapes count all idle GPU).
 *
 * The workload is the distribution of request shapes of the run's trace
 * (job rows, counted once each when the policy starts; a shape is gpus,
 * gpucores, gpumem, gpumem_pct, cpu, mem_gib and the allowed models). For a
 * node n and a shape m: if m cannot be placed on n now (model not allowed,
 * CPU or memory short, not enough cards with room), all of n's free GPU
 * share is fragment for m; otherwise the free share of each card that has
 * less room than m asks per card is. The node's fragmentation is the
 * expectation over shapes (weights = their frequency in the trace), the
 * cluster's the sum over nodes, in GPUs.
 *
 * Modeling assumption [U]: a card's room is one number, the smaller of its
 * free cores and free memory as percents of the card (0 when its slots are
 * full), and a request's size the percent it asks (gpucores, else
 * gpumem_pct, else a whole card). Openb traces ask the same percent of both
 * (import openb), so there it is exact.
 *
 * Cost, S = distinct shapes (up to the trace's job rows), c = cards per node:
 * - the shape table is read once, O(rows) expected: a row finds its shape
 *   through a hash of its fields (likewise a task, once, when it starts, and
 *   the artifact's typical shapes while they are counted);
 * - a node's fragmentation is recomputed only when a task is placed on it or
 *   leaves it: O(c^2 + S d) for d <= c distinct free shares on the node
 *   (sorted once, with the sums of the cards at or below each; then per
 *   shape d compares without branches instead of a walk over the cards).
 *   It stays linear in S because it is one floating-point sum over the
 *   shapes in table order, and any regrouping would move its last bits
 *   (and so the report). The cluster sum and its time integral move by the
 *   difference, so per-event work does not grow with the cluster;
 * - gpu_select=fgd and fgdfit score each candidate node by the same sum with
 *   the task added, cached per (node, shape) until the node changes.
 * A trace of R rows that are all distinct therefore costs O(R^2) over a run
 * in these sums (scripts/README.md gives a figure); a trace of few shapes,
 * O(R).
 * Memory: one double per node, the hash (two ints per shape), plus for
 * gpu_select=fgd and fgdfit a cache of nodes x shapes entries (16 bytes
 * each), and for fgdfit one double per card (its free share, refreshed with
 * its node).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "share_fit.h"
#include "share_frag.h"
#include "share_paper.h"

typedef struct fshape {
    int gpus, gpucores, gpumem_pct;
    int64_t gpumem_mib;
    double cpu, mem_gib, r_pct, w;
    uint64_t pools;
} fshape;

typedef struct fcache {
    uint32_t ver; /* node version it was computed at; 0 = empty */
    double delta; /* exact, so that cached and fresh values compare alike */
    int card; /* first card chosen, -1 none fits */
} fcache;

/* A typical task shape of the FGD artifact's measure (frag_model=paper):
 * no memory dimension, counted by (gpus, share, cpu, allowed models). */
typedef struct tshape {
    int gpus;
    double r_pct, cpu, w; /* w: count while reading, then the weight */
    uint64_t pools, key;  /* key: the pools named by the row's model list, 0 for none */
} tshape;

/* Open addressing over indexes into a shape array (-1: empty slot); the
 * capacity is a power of two kept at least twice the entries. */
typedef struct shash {
    int *slot;
    int cap, n;
} shash;

struct sc_frag {
    fshape *sh;
    int nsh;
    shash sh_hash; /* f->sh by its fields */
    tshape *typ; /* frag_model=paper: the typical shapes the measure runs over */
    int ntyp;
    shash typ_hash; /* f->typ by its fields, while they are counted */
    double *node_frag, sum; /* GPUs */
    uint32_t *node_ver; /* per node, with the cache only: its entries are valid at their node's version */
    fcache *cache; /* [node * nsh + shape], gpu_select=fgd and fgdfit only */
    double min_share; /* the smallest share of one card a task of the trace asks (percent) */
    /* fgdfit, scarce models: the GPUs an average row of the trace asks of
     * each pool through tasks held to some of the models (spread over their
     * models by capacity), the GPUs an average row asks in all, and the free
     * share per pool and in all (percent of a card, kept with node_idle) */
    double pool_need[CL_MAX_POOLS], row_gpus;
    double pool_idle[CL_MAX_POOLS], idle_all;
    double *card_free; /* fgdfit: each card's free share (percent) as of its node's last change */
    double *node_idle; /* fgdfit: the sum of those per node */
    uint64_t *node_room; /* fgdfit: [2 node + w] bit b set when a card of the node has floor(free) = 64 w + b */
    double cpu_per_gpu, mem_per_gpu; /* fgdhost: host cores and GiB the trace's GPU tasks ask per GPU (0: none) */
    sim_gauge g;
};

double sc_req_pct(const job *j)
{
    if (j->req.gpucores > 0)
        return j->req.gpucores;
    if (j->req.gpumem_pct > 0)
        return j->req.gpumem_pct;
    return 100;
}

double sc_card_free_pct(const sc_state *st, int g, double total_mib)
{
    const sc_card *c = &st->cards[g];
    if ((int)c->n >= st->cfg.max_tenants)
        return 0;
    /* timeslice: a used card has no room to measure; a held card
     * (SC_CORES_HELD) has none left under HAMi by its cores */
    double cores = st->cfg.hami ? 100.0 * (st->cfg.total_cores - c->cores_used) / st->cfg.total_cores
                                : (c->n > 0 || sc_card_held(c) ? 0 : 100);
    double mem = st->cfg.hami ? 100.0 * (total_mib - (double)c->mem_committed) / total_mib
                              : cores;
    double f = cores < mem ? cores : mem;
    return f < 0 ? 0 : f;
}

static bool same_shape(const fshape *a, const job *j)
{
    return a->gpus == j->req.gpus && a->gpucores == j->req.gpucores && a->gpumem_pct == j->req.gpumem_pct &&
           a->gpumem_mib == j->req.gpumem_mib && a->cpu == j->req.cpu && a->mem_gib == j->req.mem_gib &&
           a->pools == j->pools;
}

/* {==== shape hashes ====} */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
}

/* Bits of a double for hashing: values that compare equal hash alike (0 and -0). */
static uint64_t dbits(double d)
{
    uint64_t b;
    if (d == 0)
        d = 0;
    memcpy(&b, &d, sizeof b);
    return b;
}

static uint64_t fshape_hash(int gpus, int gpucores, int gpumem_pct, int64_t gpumem_mib, double cpu, double mem_gib,
                            uint64_t pools)
{
    uint64_t h = mix(0, (uint64_t)gpus);
    h = mix(h, (uint64_t)gpucores);
    h = mix(h, (uint64_t)gpumem_pct);
    h = mix(h, (uint64_t)gpumem_mib);
    h = mix(h, dbits(cpu));
    h = mix(h, dbits(mem_gib));
    return mix(h, pools);
}

static uint64_t job_hash(const job *j)
{
    return fshape_hash(j->req.gpus, j->req.gpucores, j->req.gpumem_pct, j->req.gpumem_mib, j->req.cpu,
                       j->req.mem_gib, j->pools);
}

static uint64_t typ_hash(int gpus, double r_pct, double cpu, uint64_t key)
{
    return mix(mix(mix(mix(1, (uint64_t)gpus), dbits(r_pct)), dbits(cpu)), key);
}

/* Adds index ix with hash h (the caller has checked it is not there);
 * rehash(ud, i) gives the hash of entry i when the table grows. */
static void sh_add(shash *t, uint64_t h, int ix, uint64_t (*rehash)(const void *ud, int i), const void *ud)
{
    if (2 * (t->n + 1) > t->cap) {
        int cap = t->cap ? 2 * t->cap : 256;
        int *slot = xmalloc((size_t)cap * sizeof *slot);
        for (int i = 0; i < cap; i++)
            slot[i] = -1;
        for (int i = 0; i < t->cap; i++) {
            if (t->slot[i] < 0)
                continue;
            size_t p = (size_t)(rehash(ud, t->slot[i]) & (uint64_t)(cap - 1));
            while (slot[p] >= 0)
                p = (p + 1) & (size_t)(cap - 1);
            slot[p] = t->slot[i];
        }
        free(t->slot);
        t->slot = slot;
        t->cap = cap;
    }
    size_t p = (size_t)(h & (uint64_t)(t->cap - 1));
    while (t->slot[p] >= 0)
        p = (p + 1) & (size_t)(t->cap - 1);
    t->slot[p] = ix;
    t->n++;
}

static void sh_free(shash *t)
{
    free(t->slot);
    *t = (shash){0};
}

static uint64_t fshape_rehash(const void *ud, int i)
{
    const fshape *m = &((const struct sc_frag *)ud)->sh[i];
    return fshape_hash(m->gpus, m->gpucores, m->gpumem_pct, m->gpumem_mib, m->cpu, m->mem_gib, m->pools);
}

static uint64_t typ_rehash(const void *ud, int i)
{
    const tshape *m = &((const struct sc_frag *)ud)->typ[i];
    return typ_hash(m->gpus, m->r_pct, m->cpu, m->key);
}

/* Shape index of j, or -1 (not in the trace's table: a service replica).
 * O(1) expected. */
static int shape_of(const struct sc_frag *f, const job *j)
{
    if (!f->sh_hash.cap)
        return -1;
    size_t mask = (size_t)f->sh_hash.cap - 1;
    for (size_t p = (size_t)job_hash(j) & mask; f->sh_hash.slot[p] >= 0; p = (p + 1) & mask)
        if (same_shape(&f->sh[f->sh_hash.slot[p]], j))
            return f->sh_hash.slot[p];
    return -1;
}

int sc_frag_shape(const sc_state *st, const job *j)
{
    return st->frag && st->frag->cache ? shape_of(st->frag, j) : -1;
}

/* The FGD artifact's measure (frag_model=paper; hkust-adsl/
 * kubernetes-scheduler-simulator, pkg/utils/frag.go, NodeGpuShareFragAmount
 * and GetNodePodFrag): a CPU-only shape counts all of the node's idle GPU as
 * fragment whatever its free CPU; a GPU shape counts it all when the model
 * is not allowed, the free CPU is short or too few cards have room, else the
 * free share of the cards too small for it. Host memory plays no part. */
/* A node's cards split by a shape's size: for each distinct free share v
 * (ascending), how many cards have at most v and the sum of their shares
 * added in card order, exactly the sum a walk over the cards that are too
 * small for a size just above v accumulates. O(c^2) to build, c <= 64. */
typedef struct card_steps {
    int nd, ngpus;
    double v[CL_MAX_NODE_GPUS], below[CL_MAX_NODE_GPUS];
    int cnt[CL_MAX_NODE_GPUS];
} card_steps;

static void steps_build(card_steps *cs, const double *free_pct, int ngpus)
{
    cs->nd = 0;
    cs->ngpus = ngpus;
    for (int k = 0; k < ngpus; k++) { /* insertion of the distinct values */
        int i = cs->nd;
        bool dup = false;
        for (int q = 0; q < cs->nd && !dup; q++)
            dup = cs->v[q] == free_pct[k];
        if (dup)
            continue;
        while (i > 0 && cs->v[i - 1] > free_pct[k]) {
            cs->v[i] = cs->v[i - 1];
            i--;
        }
        cs->v[i] = free_pct[k];
        cs->nd++;
    }
    for (int i = 0; i < cs->nd; i++) {
        double sum = 0;
        int cnt = 0;
        for (int k = 0; k < ngpus; k++)
            if (free_pct[k] <= cs->v[i]) {
                sum += free_pct[k];
                cnt++;
            }
        cs->below[i] = sum;
        cs->cnt[i] = cnt;
    }
}

/* The cards with free_pct >= r_pct - 1e-9 (room for the shape) and the
 * summed shares of the others, as the walk over the cards computes them.
 * O(distinct shares) compares without branches: a node has a few distinct
 * shares, and a search's branches on random sizes mispredict. */
static inline void steps_split(const card_steps *cs, double r_pct, int *room, double *small)
{
    double t = r_pct - 1e-9;
    int lo = 0; /* the distinct values below t are v[0..lo-1] */
    for (int i = 0; i < cs->nd; i++)
        lo += cs->v[i] < t;
    *room = lo ? cs->ngpus - cs->cnt[lo - 1] : cs->ngpus;
    *small = lo ? cs->below[lo - 1] : 0;
}

static double node_frag_paper(const struct sc_frag *f, const sim_node *n, const card_steps *cs, double cpu_free,
                              double total)
{
    double frag = 0;
    for (int s = 0; s < f->ntyp; s++) {
        const tshape *m = &f->typ[s];
        double part = total;
        if (m->gpus > 0 && (m->pools >> n->pool & 1) && cpu_free >= m->cpu - 1e-9) {
            int room;
            double small;
            steps_split(cs, m->r_pct, &room, &small);
            if (room >= m->gpus)
                part = small;
        }
        frag += m->w * part;
    }
    return frag / 100.0;
}

double sc_node_frag(const sc_state *st, int ni, const double *free_pct, double cpu_free, double mem_free)
{
    const struct sc_frag *f = st->frag;
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double total = 0;
    for (int k = 0; k < n->ngpus; k++)
        total += free_pct[k];
    if (total <= 0)
        return 0;
    card_steps cs;
    steps_build(&cs, free_pct, n->ngpus);
    if (st->cfg.paper)
        return node_frag_paper(f, n, &cs, cpu_free, total);
    double frag = 0;
    for (int s = 0; s < f->nsh; s++) {
        const fshape *m = &f->sh[s];
        double part = total; /* m cannot go here: all free share is fragment */
        if ((m->pools >> n->pool & 1) && cpu_free >= m->cpu - 1e-9 && mem_free >= m->mem_gib - 1e-9 &&
            n->ngpus >= m->gpus) {
            int room;
            double small;
            steps_split(&cs, m->r_pct, &room, &small);
            if (m->gpus == 0)
                part = 0;
            else if (room >= m->gpus)
                part = small;
        }
        frag += m->w * part;
    }
    return frag / 100.0; /* percents of a card -> GPUs */
}

static double host_free(double total, double used) { return total < 0 ? INFINITY : total - used; }

static double node_frag_now(const sc_state *st, int ni)
{
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double freev[CL_MAX_NODE_GPUS], total = sc_node_total_mem(st, n);
    for (int k = 0; k < n->ngpus; k++)
        freev[k] = sc_card_free_pct(st, n->gpu0 + k, total);
    return sc_node_frag(st, ni, freev, host_free(n->cpu_total, n->cpu_used),
                        host_free(n->mem_total_gib, n->mem_used_gib));
}

double sc_min_share_pct(const sc_state *st) { return st->frag ? st->frag->min_share : 100; }

/* Rows still to come before the cluster is full: its free GPUs over what a
 * row asks on average; the tasks held to some models among them would ask
 * pool_need x that of the pool. Scarce when that is all its free share. */
bool sc_pool_scarce(const sc_state *st, int pool)
{
    const struct sc_frag *f = st->frag;
    if (!f || f->pool_need[pool] <= 0 || f->row_gpus <= 0)
        return false;
    return f->pool_need[pool] * f->idle_all / f->row_gpus >= f->pool_idle[pool] - 1e-9;
}

const double *sc_card_free_cached(const sc_state *st) { return st->frag ? st->frag->card_free : NULL; }

double sc_node_idle_pct(const sc_state *st, int ni) { return st->frag->node_idle[ni]; }

bool sc_node_has_room_in(const sc_state *st, int ni, double lo_pct, double hi_pct)
{
    const uint64_t *m = st->frag->node_room + 2 * (size_t)ni;
    int lo = (int)floor(lo_pct), hi = (int)floor(hi_pct);
    lo = lo < 0 ? 0 : lo;
    hi = hi > 127 ? 127 : hi;
    for (int b = lo; b <= hi; b++) /* a window of a few percent: a few bit tests */
        if (m[b >> 6] >> (b & 63) & 1)
            return true;
    return false;
}

/* fgdfit: node ni's cached card frees, idle sum and room bits, from its cards now. */
static void node_rooms(const sc_state *st, struct sc_frag *f, int ni)
{
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    uint64_t *m = f->node_room + 2 * (size_t)ni;
    m[0] = m[1] = 0;
    f->pool_idle[n->pool] -= f->node_idle[ni];
    f->idle_all -= f->node_idle[ni];
    f->node_idle[ni] = 0;
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++) {
        double v = sc_card_free_pct(st, g, sc_node_total_mem(st, n));
        int b = (int)floor(v);
        b = b < 0 ? 0 : b > 127 ? 127 : b;
        f->card_free[g] = v;
        f->node_idle[ni] += v;
        m[b >> 6] |= 1ULL << (b & 63);
    }
    f->pool_idle[n->pool] += f->node_idle[ni];
    f->idle_all += f->node_idle[ni];
}

/* Counts one row of shape (gpus, r_pct, cpu, pools) in the typical table. */
static void typ_count(struct sc_frag *f, int *cap, int gpus, double r_pct, double cpu, uint64_t pools, uint64_t key)
{
    uint64_t h = typ_hash(gpus, r_pct, cpu, key);
    if (f->typ_hash.cap) {
        size_t mask = (size_t)f->typ_hash.cap - 1;
        for (size_t p = (size_t)h & mask; f->typ_hash.slot[p] >= 0; p = (p + 1) & mask) {
            tshape *m = &f->typ[f->typ_hash.slot[p]];
            if (m->gpus == gpus && m->r_pct == r_pct && m->cpu == cpu && m->key == key) {
                m->w += 1;
                return;
            }
        }
    }
    if (f->ntyp == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        f->typ = xrealloc(f->typ, (size_t)*cap * sizeof *f->typ);
    }
    f->typ[f->ntyp++] = (tshape){gpus, r_pct, cpu, 1, pools, key};
    sh_add(&f->typ_hash, h, f->ntyp - 1, typ_rehash, f);
}

/* Most common first; equal counts: the larger shape first (cpu, share,
 * cards, then the model mask standing in for the artifact's model string). */
static int typ_order(const void *pa, const void *pb)
{
    const tshape *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    if (a->cpu != b->cpu)
        return a->cpu > b->cpu ? -1 : 1;
    if (a->r_pct != b->r_pct)
        return a->r_pct > b->r_pct ? -1 : 1;
    if (a->gpus != b->gpus)
        return a->gpus > b->gpus ? -1 : 1;
    return a->key > b->key ? -1 : a->key < b->key;
}

/* The artifact's "typical pods" (pkg/utils/frag.go, GetTypicalPods, with its
 * run script's settings: CPU-only pods included, popularity threshold 95%,
 * step 1): the most common shapes, one at a time, until they cover at least
 * 95% of the rows; their counts renormalized to sum to 1. */
static void typ_cut(struct sc_frag *f, double total)
{
    qsort(f->typ, (size_t)f->ntyp, sizeof *f->typ, typ_order);
    double cum = 0;
    int keep = 0;
    while (keep < f->ntyp && cum < 0.95 * total)
        cum += f->typ[keep++].w;
    f->ntyp = keep;
    for (int i = 0; i < keep; i++)
        f->typ[i].w /= cum;
}

/* fgdhost: the trace's GPU tasks' host cores and GiB per GPU they ask, each
 * summed over the rows (shape weights) before the ratio: what a card left
 * free will bring with it when a task of the trace takes it. O(shapes). */
static void host_ratios(struct sc_frag *f)
{
    double gpus = 0, cpu = 0, mem = 0;
    for (int i = 0; i < f->nsh; i++) {
        const fshape *m = &f->sh[i];
        if (m->gpus == 0)
            continue;
        gpus += m->w * m->gpus * m->r_pct / 100.0;
        cpu += m->w * m->cpu;
        mem += m->w * m->mem_gib;
    }
    f->cpu_per_gpu = gpus > 0 ? cpu / gpus : 0;
    f->mem_per_gpu = gpus > 0 ? mem / gpus : 0;
}

double sc_stranded_gpus(const sc_state *st, double idle_gpus, double cpu_free, double mem_free)
{
    const struct sc_frag *f = st->frag;
    double usable = idle_gpus;
    if (f->cpu_per_gpu > 0 && cpu_free / f->cpu_per_gpu < usable)
        usable = cpu_free / f->cpu_per_gpu;
    if (f->mem_per_gpu > 0 && mem_free / f->mem_per_gpu < usable)
        usable = mem_free / f->mem_per_gpu;
    return usable < 0 ? idle_gpus : idle_gpus - usable;
}

/* The trace's job shapes (and, for the paper's rule, its typical pods)
 * counted into f, one row at a time: *total the rows counted. O(rows). */
static int count_shapes(sc_state *st, struct sc_frag *f, double *total, gs_error *err)
{
    sim *s = st->s;
    int cap = 0, tcap = 0;
    const sim_config *cfg = sim_config_of(s);
    if (!cfg || !cfg->trace_path)
        return 0;
    wl_opts o = {.allow_extra_columns = cfg->allow_extra_columns};
    wl_trace *tr = wl_trace_open(cfg->trace_path, &o, err);
    if (!tr)
        return GS_EINPUT;
    const wl_row *r;
    int got;
    job probe;
    while ((got = wl_trace_next(tr, &r, err)) > 0) {
        if (r->kind != WL_KIND_JOB)
            continue;
        uint64_t pools = sim_cluster_all_pools(sim_cluster_of(s));
        if (r->gpu_model[0])
            pools = sim_cluster_model_mask(sim_cluster_of(s), sim_catalog(s), r->gpu_model, NULL);
        if (!pools)
            continue; /* nowhere to go: rejected by the run, not part of the mix */
        memset(&probe, 0, sizeof probe);
        job_req_numbers(&probe.req, r);
        probe.pools = pools;
        *total += 1;
        if (st->cfg.paper)
            typ_count(f, &tcap, r->gpus, r->gpus > 0 ? sc_req_pct(&probe) : 0, r->cpu, pools,
                      r->gpu_model[0] ? pools : 0);
        int i = shape_of(f, &probe);
        if (i >= 0) {
            f->sh[i].w += 1;
            continue;
        }
        if (f->nsh == cap) {
            cap = cap ? 2 * cap : 64;
            f->sh = xrealloc(f->sh, (size_t)cap * sizeof *f->sh);
        }
        f->sh[f->nsh++] = (fshape){r->gpus, r->gpucores, r->gpumem_pct, r->gpumem_mib, r->cpu, r->mem_gib,
                                   r->gpus > 0 ? sc_req_pct(&probe) : 0, 1, pools};
        sh_add(&f->sh_hash, job_hash(&probe), f->nsh - 1, fshape_rehash, f);
    }
    wl_trace_close(tr);
    return got < 0 ? GS_EINPUT : 0;
}

/* What the fit-based rules keep: each card's free room, each node's idle
 * cards and rooms, the GPUs the mix asks per row, and the share each pool
 * must keep for the shapes bound to some models only. */
static void fit_state(sc_state *st, struct sc_frag *f, const sim_cluster *cl)
{
    f->card_free = xmalloc(((size_t)st->ncards + 1) * sizeof *f->card_free);
    f->node_idle = xcalloc((size_t)cl->nnodes + 1, sizeof *f->node_idle);
    f->node_room = xmalloc(2 * ((size_t)cl->nnodes + 1) * sizeof *f->node_room);
    for (int ni = 0; ni < cl->nnodes; ni++)
        node_rooms(st, f, ni);
    uint64_t all = sim_cluster_all_pools(cl);
    for (int i = 0; i < f->nsh; i++) {
        const fshape *m = &f->sh[i];
        f->row_gpus += m->w * m->gpus * m->r_pct / 100.0;
        if (m->gpus == 0 || (m->pools & all) == all)
            continue; /* a task free to go anywhere reserves no model */
        double gpus = 0;
        for (int p = 0; p < cl->npools; p++)
            if (m->pools >> p & 1)
                gpus += cl->pools[p].ngpus;
        for (int p = 0; p < cl->npools && gpus > 0; p++)
            if (m->pools >> p & 1)
                f->pool_need[p] += m->w * m->gpus * m->r_pct / 100.0 * cl->pools[p].ngpus / gpus;
    }
}

int sc_frag_init(sc_state *st, gs_error *err)
{
    sim *s = st->s;
    struct sc_frag *f = xcalloc(1, sizeof *f);
    st->frag = f;
    double total = 0;
    int rc = count_shapes(st, f, &total, err);
    if (rc)
        return rc;
    for (int i = 0; i < f->nsh; i++)
        f->sh[i].w /= total;
    sh_free(&f->typ_hash); /* typ_cut reorders the table; nothing looks a typical shape up after */
    if (st->cfg.paper && total > 0)
        typ_cut(f, total);
    const sim_cluster *cl = sim_cluster_of(s);
    f->node_frag = xcalloc((size_t)cl->nnodes + 1, sizeof *f->node_frag);
    for (int ni = 0; ni < cl->nnodes; ni++) {
        f->node_frag[ni] = node_frag_now(st, ni);
        f->sum += f->node_frag[ni];
    }
    sim_gauge_set(&f->g, sim_now(s), f->sum);
    f->g.peak = f->sum;
    if (sc_sel_frag(st->cfg.select)) {
        /* the cache's entries are valid while their node's version is
         * theirs: versions are kept only with a cache (4 bytes a node) */
        f->cache = xcalloc((size_t)cl->nnodes * (size_t)(f->nsh > 0 ? f->nsh : 1), sizeof *f->cache);
        f->node_ver = xmalloc(((size_t)cl->nnodes + 1) * sizeof *f->node_ver);
        for (int ni = 0; ni < cl->nnodes; ni++)
            f->node_ver[ni] = 1;
    }
    if (sc_sel_fit(st->cfg.select))
        fit_state(st, f, cl);
    host_ratios(f);
    f->min_share = 100;
    for (int i = 0; i < f->nsh; i++)
        if (f->sh[i].gpus == 1 && f->sh[i].r_pct < f->min_share)
            f->min_share = f->sh[i].r_pct;
    return 0;
}

void sc_frag_free(sc_state *st)
{
    struct sc_frag *f = st->frag;
    if (!f)
        return;
    free(f->sh);
    sh_free(&f->sh_hash);
    sh_free(&f->typ_hash);
    free(f->typ);
    free(f->node_frag);
    free(f->node_ver);
    free(f->cache);
    free(f->card_free);
    free(f->node_idle);
    free(f->node_room);
    free(f);
    st->frag = NULL;
}

void sc_frag_changed(sc_state *st, int ni)
{
    struct sc_frag *f = st->frag;
    if (!f || ni < 0)
        return;
    if (f->card_free)
        node_rooms(st, f, ni);
    double v = node_frag_now(st, ni);
    f->sum += v - f->node_frag[ni];
    f->node_frag[ni] = v;
    if (f->node_ver && ++f->node_ver[ni] == 0)
        f->node_ver[ni] = 1; /* 0 marks an empty cache entry */
    sim_gauge_set(&f->g, sim_now(st->s), f->sum);
}

double sc_frag_gpus(const sc_state *st) { return st->frag ? st->frag->sum : -1; }

/* Ascending free share, then card index: the tightest cards first. */
static int by_free(const void *pa, const void *pb, const double *freev)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    if (freev[a] != freev[b])
        return freev[a] < freev[b] ? -1 : 1;
    return a - b;
}

/* One card or none asked (want <= 1) on node ni: each distinct room a
 * fitting card has is one candidate; the one whose fragmentation change
 * is least (*best_k: its card in the node, -1 for none asked). freev is
 * restored. O(fitting cards x cards). */
static inline double fgd_one(sc_state *st, int ni, int want, const int *fit, int nfit, double *freev, double r,
                             double cpu_after, double mem_after, int *best_k)
{
    const struct sc_frag *f = st->frag;
    double best = INFINITY;
    *best_k = -1;
    for (int i = 0; i < (want == 0 ? 1 : nfit); i++) {
        int k = want == 0 ? -1 : fit[i];
        bool dup = false;
        for (int p = 0; p < i && !dup; p++)
            dup = freev[fit[p]] == freev[k];
        if (dup)
            continue;
        double save = 0;
        if (k >= 0) {
            save = freev[k];
            freev[k] = save - r < 0 ? 0 : save - r;
        }
        double d = sc_node_frag(st, ni, freev, cpu_after, mem_after) - f->node_frag[ni];
        if (st->cfg.paper) /* under the artifact's measure, its integer score */
            d = -sc_paper_fgd_score(d);
        if (k >= 0)
            freev[k] = save;
        if (d < best - 1e-12) {
            best = d;
            *best_k = k;
        }
    }
    return best;
}

/* Several cards asked on node ni: the tightest `want` fitting ones (one
 * candidate) into cards, and its fragmentation change. freev is changed. */
static inline double fgd_several(sc_state *st, int ni, const sim_node *n, int want, int *fit, int nfit,
                                 double *freev, double r, double cpu_after, double mem_after, int *cards)
{
    for (int a = 1; a < nfit; a++)
        for (int b = a; b > 0 && by_free(&fit[b], &fit[b - 1], freev) < 0; b--) {
            int x = fit[b];
            fit[b] = fit[b - 1];
            fit[b - 1] = x;
        }
    for (int i = 0; i < want; i++)
        freev[fit[i]] = freev[fit[i]] - r < 0 ? 0 : freev[fit[i]] - r;
    double best = sc_node_frag(st, ni, freev, cpu_after, mem_after) - st->frag->node_frag[ni];
    if (st->cfg.paper)
        best = -sc_paper_fgd_score(best);
    for (int i = 0; i < want; i++)
        cards[i] = n->gpu0 + fit[i];
    return best;
}

bool sc_fgd_node(sc_state *st, const job *j, int si, int ni, double *delta, int *cards)
{
    struct sc_frag *f = st->frag;
    const sim_cluster *cl = sim_cluster_of(st->s);
    const sim_node *n = &cl->nodes[ni];
    int want = j->req.gpus, cores = sc_task_cores(st, j);
    fcache *ce = si >= 0 ? &f->cache[(size_t)ni * (size_t)f->nsh + (size_t)si] : NULL;
    if (ce && ce->ver == f->node_ver[ni] && want <= 1) {
        if (ce->card < -1)
            return false;
        *delta = ce->delta;
        if (want == 1)
            cards[0] = ce->card;
        return true;
    }
    bool ok = (j->pools >> n->pool & 1) && n->ngpus >= want && sc_host_fits(n, j->req.cpu, j->req.mem_gib);
    double freev[CL_MAX_NODE_GPUS];
    int fit[CL_MAX_NODE_GPUS], nfit = 0;
    double r = sc_req_pct(j);
    if (ok) {
        int64_t mem = sc_mem_of(st, j, n->pool);
        double total = sc_node_total_mem(st, n);
        for (int k = 0; k < n->ngpus; k++) {
            freev[k] = sc_card_free_pct(st, n->gpu0 + k, total);
            if (want > 0 && sc_card_fits(st, &st->cards[n->gpu0 + k], total, mem, cores))
                fit[nfit++] = k;
        }
        ok = nfit >= want;
    }
    double cpu_after = host_free(n->cpu_total, n->cpu_used) - j->req.cpu;
    double mem_after = host_free(n->mem_total_gib, n->mem_used_gib) - j->req.mem_gib;
    double best = INFINITY;
    int best_k = -1;
    if (ok && want <= 1)
        best = fgd_one(st, ni, want, fit, nfit, freev, r, cpu_after, mem_after, &best_k);
    else if (ok)
        best = fgd_several(st, ni, n, want, fit, nfit, freev, r, cpu_after, mem_after, cards);
    if (ce && want <= 1) {
        ce->ver = f->node_ver[ni];
        ce->delta = best;
        ce->card = ok ? (best_k >= 0 ? n->gpu0 + best_k : -1) : -2;
    }
    if (!ok)
        return false;
    *delta = best;
    if (want == 1)
        cards[0] = n->gpu0 + best_k;
    return true;
}

void sc_frag_report(const sc_state *st, const sim *s, cJSON *root)
{
    const struct sc_frag *f = st->frag;
    if (!f)
        return;
    gs_time_us now = sim_now(s);
    double end_s = gs_us_to_s(now), cap = st->ncards, idle = 0;
    for (int g = 0; g < st->ncards; g++)
        idle += sc_card_free_pct(st, g, sc_card_total_mem(st, g)) / 100.0;
    cJSON *gpu = cJSON_GetObjectItemCaseSensitive(root, "gpu");
    cJSON_AddNumberToObject(gpu, "frag_gpus_end", f->sum);
    cJSON_AddNumberToObject(gpu, "frag_pct_end", cap > 0 ? 100.0 * f->sum / cap : 0);
    cJSON_AddNumberToObject(gpu, "frag_of_idle_pct_end", idle > 0 ? 100.0 * f->sum / idle : 0);
    cJSON_AddNumberToObject(gpu, "frag_pct_mean", cap > 0 && end_s > 0 ? 100.0 * sim_gauge_area(&f->g, now) / end_s / cap : 0);
    cJSON_AddNumberToObject(gpu, "frag_pct_peak", cap > 0 ? 100.0 * f->g.peak / cap : 0);
    cJSON_AddNumberToObject(gpu, "frag_shapes", f->nsh);
}
