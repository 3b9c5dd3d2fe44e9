/* share_select.c - vgpu's gpu_select strategies beyond HAMi's scores:
 * bestfit, dotprod, random and fgd, the policies compared in Weng et al.,
 * "Beware of Fragmentation" (USENIX ATC'23, Sec. 6), and fgdfit and
 * fgdhost, gpusim's own (policies/README.md argues them).
 * Every strategy admits a card exactly as HAMi does (sc_card_fits) and a
 * node only with room for the task's CPU and memory (sc_host_fits).
 * (see share_select.h)
 *
 *   bestfit  node with the least resources left after placement: the sum of
 *            its free CPU, memory and GPU share as fractions of its capacity
 *            (dimensions without a limit left out); cards: the tightest.
 *   dotprod  node with the largest dot product of the request and the node's
 *            free resources, both as fractions of the node's capacity
 *            (Tetris, Grandl et al., SIGCOMM'14); cards: the tightest.
 *   random   a node uniformly among the feasible ones, then the cards
 *            uniformly among its fitting cards (seeded stream).
 *   fgd      the node and card whose placement grows the node's expected
 *            fragmentation (share_frag.c) least.
 *   fgdfit   fgd's score; a GPU task keeps off a GPU model that the
 *            trace's tasks held to it would fill before the cluster is full
 *            (when it can go elsewhere); a share of a card goes first to an
 *            exact fit (room left below the trace's smallest share) on a
 *            node where it grows no fragmentation; a CPU task breaks fgd's
 *            ties toward the node with the least idle GPU.
 *   fgdhost  fgdfit with the host as a dimension: GPUs a node's free CPU
 *            and memory could not feed at the trace's host resources per
 *            GPU are stranded (sc_stranded_gpus); a CPU task goes where it
 *            strands the fewest (then fgd's score, then the least idle
 *            GPU), a GPU task breaks fgdfit's ties by the same growth.
 * Ties go to the lower node index, then the lower card index; under
 * frag_model=paper (and for fgdfit and fgdhost) to the seed's node order, and bestfit,
 * dotprod and fgd score as the FGD artifact does (share_paper.c).
 *
 * Cost: one scan of the nodes and their cards per placement, O(nodes x
 * cards per node); fgd adds O(shapes x cards per node) per node whose state
 * changed since the task's shape was last evaluated there (cached).
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "share_fit.h"
#include "share_frag.h"
#include "share_paper.h"
#include "share_select.h"

/* The node's fitting cards, tightest first; returns how many. */
static int fitting_cards(const sc_state *st, const job *j, const sim_node *n, int *fit, double *freev)
{
    int64_t mem = sc_mem_of(st, j, n->pool);
    int m = 0, cores = sc_task_cores(st, j);
    double total = sc_node_total_mem(st, n);
    for (int k = 0; k < n->ngpus; k++) {
        freev[k] = sc_card_free_pct(st, n->gpu0 + k, total);
        if (sc_card_fits(st, &st->cards[n->gpu0 + k], total, mem, cores)) {
            int b = m++;
            for (; b > 0 && (freev[fit[b - 1]] > freev[k]); b--)
                fit[b] = fit[b - 1];
            fit[b] = k;
        }
    }
    return m;
}

static double frac(double part, double total) { return total > 0 ? part / total : 0; }

/* gpu_select=fgdfit's keys for placing t on node n, where fgd scores it
 * `score` (lower is better) on cards[] (the caller puts the scarce-model key
 * before them and the node's rank after; lower keys win, in order):
 *   a share of one card: first the room its tightest fitting card would keep,
 *     when that room is below the smallest share the trace asks (an exact
 *     fit: room no task could use later is closed now; that card replaces
 *     fgd's) and fgd sees no growth of fragmentation on the node (integer
 *     score 50 or better under frag_model=paper), else "no exact fit"; then
 *     fgd's score;
 *   no GPU (a CPU task): fgd's score, then the node's idle GPU share: CPU goes
 *     where the fewest cards are left without it;
 *   whole cards: fgd's score alone. */
static void fgdfit_keys(const sc_state *st, const job *j, int ni, double score, int *cards, double *key)
{
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    int want = j->req.gpus;
    double r = want > 0 ? sc_req_pct(j) : 0;
    key[0] = score;
    key[1] = 0;
    if (want == 1 && r < 100) {
        /* only cards whose room would fall below the smallest share are
         * candidates: test admission for those alone (a plain scan, no sort) */
        double dead = sc_min_share_pct(st), room = INFINITY;
        const double *fr = sc_card_free_cached(st);
        int64_t mem = -1;
        key[0] = 1000; /* no exact fit */
        key[1] = score;
        if (!sc_node_has_room_in(st, ni, r, r + dead))
            return; /* most nodes: one look at the node's room bits */
        if (score > (st->cfg.paper ? -50.0 : 0.0) + 1e-9)
            return; /* it would grow the fragmentation there: fgd decides */
        for (int k = 0; k < n->ngpus; k++) {
            double left = fr[n->gpu0 + k] - r;
            if (left < -1e-9 || left >= dead - 1e-9 || left >= room - 1e-9)
                continue;
            if (mem < 0)
                mem = sc_mem_of(st, j, n->pool);
            if (sc_card_fits(st, &st->cards[n->gpu0 + k], sc_node_total_mem(st, n), mem, sc_task_cores(st, j))) {
                room = left;
                key[0] = left;
                cards[0] = n->gpu0 + k;
            }
        }
    } else if (want == 0) {
        key[1] = sc_node_idle_pct(st, ni);
    }
}

/* gpu_select=fgdhost: how many more of node ni's free GPUs its host would
 * leave unfed (sc_stranded_gpus) once j is placed there; negative when j
 * brings the node back toward the trace's CPU and memory per GPU. O(1). */
static double stranded_growth(const sc_state *st, const job *j, int ni)
{
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double idle = sc_node_idle_pct(st, ni) / 100.0, g = j->req.gpus > 0 ? j->req.gpus * sc_req_pct(j) / 100.0 : 0;
    double cpu = n->cpu_total < 0 ? INFINITY : n->cpu_total - n->cpu_used;
    double mem = n->mem_total_gib < 0 ? INFINITY : n->mem_total_gib - n->mem_used_gib;
    return sc_stranded_gpus(st, idle - g, cpu - j->req.cpu, mem - j->req.mem_gib) - sc_stranded_gpus(st, idle, cpu, mem);
}

#define NKEYS 5 /* scarce model, fgdfit_keys' two, fgdhost's stranding, the seed's node order */

/* gpu_select=fgdhost over fgdfit's keys: a CPU task goes first where it
 * strands the fewest GPUs, then by fgd's score, then where the least GPU
 * idles; a GPU task breaks fgdfit's ties by the same stranding. */
static void host_keys(const sc_state *st, const job *j, int ni, double score, double *key)
{
    double grow = stranded_growth(st, j, ni);
    if (j->req.gpus > 0) {
        key[3] = grow;
        return;
    }
    key[1] = grow;
    key[2] = score;
    key[3] = sc_node_idle_pct(st, ni);
}

static bool keys_before(const double *a, const double *b)
{
    for (int i = 0; i < NKEYS; i++)
        if (a[i] < b[i] - 1e-9 || a[i] > b[i] + 1e-9)
            return a[i] < b[i];
    return false;
}

/* One pass's candidates for the random and normalized rules: feasible
 * nodes, their raw paper scores, and the scores' range. */
typedef struct feasible {
    int *nodes;
    int64_t *raw, lo, hi;
    int n;
} feasible;

/* fgdfit's and fgdhost's keys for node ni (cards: the cards fgd picks
 * there), or false when fgd finds no place on it. */
static inline bool fit_node_keys(sc_state *st, const job *j, int si, int ni, const sim_node *n, int *cards,
                                 double *key)
{
    double score;
    if (!sc_fgd_node(st, j, si, ni, &score, cards))
        return false;
    /* a GPU task keeps off a model that tasks held to it will need */
    key[0] = j->req.gpus > 0 && sc_pool_scarce(st, n->pool);
    fgdfit_keys(st, j, ni, score, cards, key + 1);
    key[3] = 0;
    if (st->cfg.select == SC_SEL_FGDHOST)
        host_keys(st, j, ni, score, key);
    key[4] = st->rank[ni];
    return true;
}

/* The host-aware rules' score for node ni (lower is better; cards: its
 * fitting cards), 0 when none fits, 1 scored, 2 when ni only joins fs (the
 * random rule, the normalized paper score). */
static inline int host_node_score(sc_state *st, const job *j, int ni, const sim_node *n, double r, feasible *fs,
                                  int *fit, double *freev, int *cards, double *score)
{
    int want = j->req.gpus;
    bool paper = st->cfg.paper, normalize = paper && st->cfg.select == SC_SEL_BESTFIT;
    int m = fitting_cards(st, j, n, fit, freev);
    if (m < want)
        return 0;
    if (st->cfg.select == SC_SEL_RANDOM) {
        fs->nodes[fs->n++] = ni;
        return 2;
    }
    double gfree = 0;
    for (int k = 0; k < n->ngpus; k++)
        gfree += freev[k] / 100.0;
    double cpu_free = n->cpu_total - n->cpu_used, mem_free = n->mem_total_gib - n->mem_used_gib;
    double greq = want * r / 100.0;
    if (paper) { /* the artifact's integer scores, higher is better (share_paper.c) */
        int64_t v = sc_paper_node_score(st->cfg.select, cpu_free, gfree, j->req.cpu, greq);
        if (normalize) {
            fs->raw[fs->n] = v;
            fs->nodes[fs->n++] = ni;
            fs->lo = v < fs->lo ? v : fs->lo;
            fs->hi = v > fs->hi ? v : fs->hi;
            return 2;
        }
        *score = -(double)v;
    } else if (st->cfg.select == SC_SEL_BESTFIT)
        *score = frac(cpu_free - j->req.cpu, n->cpu_total) + frac(mem_free - j->req.mem_gib, n->mem_total_gib) +
                 frac(gfree - greq, n->ngpus);
    else /* dotprod: maximized, so negated to share the min rule */
        *score = -(frac(j->req.cpu, n->cpu_total) * frac(cpu_free, n->cpu_total) +
                   frac(j->req.mem_gib, n->mem_total_gib) * frac(mem_free, n->mem_total_gib) +
                   frac(greq, n->ngpus) * frac(gfree, n->ngpus));
    for (int i = 0; i < want; i++)
        cards[i] = n->gpu0 + fit[i];
    return 1;
}

/* The paper's bestfit over normalized scores: the highest, ties to the
 * seed's node order; its fitting cards into best_cards. */
static int pick_normalized(sc_state *st, const job *j, const feasible *fs, int best, int *best_cards)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    int fit[CL_MAX_NODE_GPUS];
    double freev[CL_MAX_NODE_GPUS];
    int64_t best_v = -1;
    for (int i = 0; i < fs->n; i++) {
        int64_t v = sc_paper_normalize(fs->raw[i], fs->lo, fs->hi);
        if (best < 0 || v > best_v || (v == best_v && st->rank[fs->nodes[i]] < st->rank[best])) {
            best = fs->nodes[i];
            best_v = v;
        }
    }
    if (best >= 0) {
        fitting_cards(st, j, &cl->nodes[best], fit, freev);
        for (int i = 0; i < j->req.gpus; i++)
            best_cards[i] = cl->nodes[best].gpu0 + fit[i];
    }
    return best;
}

/* gpu_select=random: a feasible node drawn, and its cards by a partial
 * Fisher-Yates over the fitting ones. */
static int pick_random(sc_state *st, const job *j, const feasible *fs, int *best_cards)
{
    if (fs->n == 0)
        return -1;
    const sim_cluster *cl = sim_cluster_of(st->s);
    int fit[CL_MAX_NODE_GPUS];
    double freev[CL_MAX_NODE_GPUS];
    int best = fs->nodes[gsl_rng_uniform_int(st->rng, (unsigned long)fs->n)];
    const sim_node *n = &cl->nodes[best];
    int m = fitting_cards(st, j, n, fit, freev);
    for (int i = 0; i < j->req.gpus; i++) {
        int k = i + (int)gsl_rng_uniform_int(st->rng, (unsigned long)(m - i));
        int x = fit[i];
        fit[i] = fit[k];
        fit[k] = x;
        best_cards[i] = n->gpu0 + fit[i];
    }
    return best;
}

int sc_place_select(sc_state *st, const job *j, uint64_t pools)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    int want = j->req.gpus, best = -1;
    int best_cards[CL_MAX_NODE_GPUS], cards[CL_MAX_NODE_GPUS], fit[CL_MAX_NODE_GPUS];
    double freev[CL_MAX_NODE_GPUS], best_score = 0, best_key[NKEYS] = {0}, r = want > 0 ? sc_req_pct(j) : 0;
    bool paper = st->cfg.paper, normalize = paper && st->cfg.select == SC_SEL_BESTFIT;
    feasible fs = {NULL, NULL, INT64_MAX, INT64_MIN, 0};
    if (st->cfg.select == SC_SEL_RANDOM || normalize)
        fs.nodes = xmalloc(((size_t)cl->nnodes + 1) * sizeof *fs.nodes);
    if (normalize)
        fs.raw = xmalloc(((size_t)cl->nnodes + 1) * sizeof *fs.raw);
    int si = sc_sel_frag(st->cfg.select) ? sc_frag_shape(st, j) : -1;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        const sim_node *n = &cl->nodes[ni];
        if (!(pools >> n->pool & 1) || n->ngpus < want || !sc_host_fits(n, j->req.cpu, j->req.mem_gib))
            continue;
        double score;
        if (st->cfg.select == SC_SEL_FGD) {
            if (!sc_fgd_node(st, j, si, ni, &score, cards))
                continue;
        } else if (sc_sel_fit(st->cfg.select)) {
            double key[NKEYS];
            if (fit_node_keys(st, j, si, ni, n, cards, key) && (best < 0 || keys_before(key, best_key))) {
                best = ni;
                for (int i = 0; i < NKEYS; i++)
                    best_key[i] = key[i];
                for (int i = 0; i < want; i++)
                    best_cards[i] = cards[i];
            }
            continue;
        } else if (host_node_score(st, j, ni, n, r, &fs, fit, freev, cards, &score) != 1)
            continue;
        /* paper: equal scores go to the seed's node order, else the lower index */
        if (best < 0 || score < best_score - 1e-12 ||
            (paper && score <= best_score + 1e-12 && st->rank[ni] < st->rank[best])) {
            best = ni;
            best_score = score;
            for (int i = 0; i < want; i++)
                best_cards[i] = cards[i];
        }
    }
    if (normalize)
        best = pick_normalized(st, j, &fs, best, best_cards);
    else if (st->cfg.select == SC_SEL_RANDOM)
        best = pick_random(st, j, &fs, best_cards);
    free(fs.nodes);
    free(fs.raw);
    if (best < 0)
        return -1;
    for (int i = 0; i < want; i++)
        st->pick[i] = best_cards[i];
    return best;
}
