/* sim_victims.c - the node a queued request preempts on (sim_preempt_types.h).
 *
 * The rule: over every node of the request's allowed models, the cheapest
 * victim set there (sim_ckpt_plan_node); the winner is the least (cost,
 * victims, node id). sim_victims_scan plans every node in id order: the
 * reference. sim_victims_find gives the same winner through lower bounds
 * of each node's cheapest set (below), planning only the nodes that may
 * still win: nodes come off a bound heap least key (as of now) first; a
 * node's first time off in a search takes its key as of now, and one whose
 * key was stale goes back by it (so it is planned only if it may still
 * win); nodes are planned until the next key exceeds the best cost found
 * (no node left can beat or tie it), then go back with fresh keys. Cost
 * O(m (log nodes + NB_SLOPES)) for the m nodes looked at, plus a plan for
 * each node planned; every node with listed jobs when none can host p.
 * Keys rise with time as the work the victims would lose does, so m stays
 * near the nodes planned whatever the cluster's size.
 * tests/test_preempt_index.c checks the two agree victim for victim.
 * SPDX-License-Identifier: MIT */
#include "sim_preempt_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* {==== lower bounds per node ====}
 * A listed job's cost (preempt_cost_us x GPUs) never falls while it stays
 * listed, except where a cut write makes it a sawtooth:
 * - without a checkpoint size it is the work done since its latest start,
 *   which grows at its drain rate x GPUs (its slope, victim_slope) until
 *   the job ends;
 * - when its write at preemption completes it is the write and read-back
 *   times, fixed by its checkpoint size (slope 0);
 * - when that write is cut it is at least the write limit (plus lost work
 *   and read-back, both >= 0; slope 0).
 * So victim_bound() taken at t0 and rising at victim_slope() from there
 * bounds the job's cost at every later time, as long as the slope is told
 * again whenever the job's rate changes (ext_rate_changed). The least of the
 * jobs' lines over a node's listed jobs (eligible or not: a superset) bounds
 * the cost of any victim set there, a sum of costs >= 0 being at least each
 * of its terms; it rises at least at the least of their slopes, the node's
 * key in the heap (sim_node_bound.h: a line per node, in slope classes, so
 * the keys keep up with time without re-keying and a search finds the
 * nodes that may win, not nodes whose key went stale as work was done).
 * Jobs already chosen as victims are left out: a victim stays one until it
 * stops, and stopping takes it off the list. A job listed later brings the
 * node's line down; a job that leaves, or a cost that grew faster than the
 * line, leaves the line low (still a bound), and the search refreshes the
 * lines of the nodes it looks at (bound_now). */

/* How fast v's cost x GPUs rises while it runs listed (us per us). */
static double victim_slope(const sim_ext *x, const job *v)
{
    if (sim_ckpt_bytes(x, v) > 0 || !isfinite(v->work_left_us))
        return 0; /* fixed, or bounded by the fixed write limit */
    return job_drain_rate(v) * (v->req.gpus > 0 ? v->req.gpus : 1);
}

/* v's bound now; *slope: victim_slope. */
static double victim_bound(const sim *s, const sim_ext *x, const job *v, double *slope)
{
    double bytes = sim_ckpt_bytes(x, v) * sim_ckpt_shard(s, v);
    double c = bytes > 0 && !sim_ckpt_write_completes(x, sim_ckpt_write_us(x, bytes)) ? (double)x->write_limit_us
                                                                                        : sim_ckpt_cost_us(s, x, v);
    c *= v->req.gpus > 0 ? v->req.gpus : 1;
    *slope = victim_slope(x, v);
    /* margins: the rounding of a cost recomputed later from drained work
     * figures (relative 1e-16 per operation; costs are sums of those), of a
     * line's value (sim_node_bound.c keeps v - A x now: a few roundings of
     * A x now at most before a fresh value replaces it), and the last
     * microsecond of a job's work, where its work left stops at 0 before its
     * end event (its cost stops rising while its line goes on) */
    return c * (1 - 1e-9) - 1.0 - *slope * (2.0 + 1e-12 * (double)sim_now(s));
}

/* j was listed on its nodes: each node's line comes down to j's. A node a
 * search has off the heap gets its line back when the search ends. */
static void bound_offer(sim *s, sim_ext *x, const job *j)
{
    double slope, b = victim_bound(s, x, j, &slope);
    for (int i = 0; i < vic_nodes(j); i++)
        sim_node_bound_lower(&x->vx.bound, vic_node(j, i), b, slope, (double)sim_now(s));
}

/* Node n's key as of now: its listed jobs' least bound (INFINITY when it
 * lists none but victims), in *slope the least of their slopes, and in
 * *listed how many it lists; one walk of its list, which the plan walks
 * next. */
static double bound_now(const sim *s, const sim_ext *x, int n, size_t *listed, double *slope)
{
    double key = INFINITY, a = INFINITY;
    size_t k = 0;
    for (const job *v = x->node_run[n]; v; v = vic_next(v, n), k++)
        if (!(v->core_flags & JF_VICTIM)) {
            double sl, b = victim_bound(s, x, v, &sl);
            key = b < key ? b : key;
            a = sl < a ? sl : a;
        }
    *listed = k;
    *slope = a == INFINITY ? 0 : a;
    return key;
}

/* {==== bounds that count cards (pol_space_index.cards_open) ====}
 * There a victim set on node n hosting a request of d cards holds at least
 * r = d - (cards open to it on n) cards: one job holding r or more, or at
 * least two jobs. So its cost is at least the least bound of a job holding
 * >= r cards, or the sum of the two least bounds, whichever is less (r <= 0:
 * the least bound). Keys use the open cards as of when they were set: room
 * taken since only raises the true bound; room given back lowers it, so the
 * nodes the ledger saw given something (sim_cluster_watch_gives) get their
 * keys again before each search. */

typedef struct node_look {
    size_t listed;          /* jobs the node lists */
    double b1, b2;          /* the two least bounds of its non-victims */
    double slope;           /* the least of their slopes: every key below rises at least so fast */
    int kmax;               /* the node's cards (at most DEM_MAX): no job holds more */
    double ge[DEM_MAX + 2]; /* [k], k <= kmax: least bound of a non-victim holding >= k cards */
    double gs[DEM_MAX + 2]; /* [k]: the least slope of those jobs */
} node_look;

static void look_node(const sim *s, const sim_ext *x, int n, node_look *o)
{
    o->listed = 0;
    o->b1 = o->b2 = INFINITY;
    double a = INFINITY;
    int kmax = x->cl->nodes[n].ngpus < DEM_MAX ? x->cl->nodes[n].ngpus : DEM_MAX;
    o->kmax = kmax;
    for (int k = 0; k <= kmax + 1; k++)
        o->ge[k] = o->gs[k] = INFINITY;
    for (const job *v = x->node_run[n]; v; v = vic_next(v, n), o->listed++) {
        if (v->core_flags & JF_VICTIM)
            continue;
        double sl, b = victim_bound(s, x, v, &sl);
        a = sl < a ? sl : a;
        if (b < o->b1) {
            o->b2 = o->b1;
            o->b1 = b;
        } else if (b < o->b2) {
            o->b2 = b;
        }
        int held = job_gpus_on(v, n), g = held > kmax ? kmax : held;
        o->ge[g] = b < o->ge[g] ? b : o->ge[g];
        o->gs[g] = sl < o->gs[g] ? sl : o->gs[g];
    }
    for (int k = kmax - 1; k >= 0; k--) {
        o->ge[k] = o->ge[k + 1] < o->ge[k] ? o->ge[k + 1] : o->ge[k];
        o->gs[k] = o->gs[k + 1] < o->gs[k] ? o->gs[k + 1] : o->gs[k];
    }
    o->slope = a == INFINITY ? 0 : a;
}

/* Node n's key in class c's heap (INFINITY: no set there can host it), and
 * in *slope how fast it rises: a set of one job holding >= r cards rises as
 * the least of those jobs' slopes, a set of two or more at twice the least
 * slope at least. */
static double class_key(const sim *s, const node_look *o, const dem_class *c, int n, double *slope)
{
    *slope = o->slope;
    if (o->b1 == INFINITY)
        return INFINITY;
    int r = c->rep.req.gpus - sim_policy_at(s, 0)->space->index->cards_open(sim_policy_state(s, 0), s, &c->rep, n);
    if (r <= 0)
        return o->b1;
    double pair = o->b2 < INFINITY ? o->b1 + o->b2 : INFINITY;
    bool one = r <= o->kmax && o->ge[r] < INFINITY; /* some job holds r cards or more */
    *slope = one && o->gs[r] < 2 * o->slope ? o->gs[r] : 2 * o->slope;
    return !one || o->ge[r] > pair ? pair : o->ge[r];
}

/* Node n's keys in every class heap, lowered to the bounds as of now. */
static void demand_offer(const sim *s, sim_ext *x, int n)
{
    vic_index *vx = &x->vx;
    if (vx->ndem == 0)
        return;
    node_look o;
    look_node(s, x, n, &o);
    for (int i = 0; i < vx->ndem; i++) {
        double slope, key = class_key(s, &o, vx->dem[i], n, &slope);
        if (key < INFINITY)
            sim_node_bound_lower(&vx->dem[i]->heap, n, key, slope, (double)sim_now(s));
    }
}

static bool same_class(const job *a, const job *b)
{
    return a->req.gpus == b->req.gpus && a->req.gpumem_mib == b->req.gpumem_mib &&
           a->req.gpumem_pct == b->req.gpumem_pct && a->req.gpucores == b->req.gpucores;
}

/* p's class, made on first use with every node's key (O(nodes + jobs
 * listed)), after the nodes given something back got theirs again in the
 * classes already made; NULL when there are DEM_CLASSES already. */
static dem_class *demand_class(const sim *s, sim_ext *x, const job *p)
{
    sim_cluster *cl = x->cl;
    vic_index *vx = &x->vx;
    for (int i = 0; i < cl->ngiven; i++)
        if (x->node_run[cl->given[i]])
            demand_offer(s, x, cl->given[i]);
    sim_cluster_given_clear(cl);
    for (int i = 0; i < vx->ndem; i++)
        if (same_class(&vx->dem[i]->rep, p))
            return vx->dem[i];
    if (vx->ndem == DEM_CLASSES)
        return NULL;
    dem_class *c = xmalloc(sizeof *c);
    c->rep = *p;
    c->rep.more = NULL; /* the copy outlives p: no pointer into p's state */
    sim_node_bound_init(&c->heap, cl->nnodes);
    node_look o;
    for (int n = 0; n < cl->nnodes; n++) {
        if (!x->node_run[n])
            continue;
        look_node(s, x, n, &o);
        double slope, key = class_key(s, &o, c, n, &slope);
        if (key < INFINITY)
            sim_node_bound_lower(&c->heap, n, key, slope, (double)sim_now(s));
    }
    vx->dem[vx->ndem++] = c;
    return c;
}

/* After a commit on n: n's keys in every heap as of now, its victims left
 * out (keys taken with them would bring the next search back to n for
 * nothing). O(listed jobs + heaps x log nodes). */
void sim_victims_committed(sim *s, sim_ext *x, int n)
{
    vic_index *vx = &x->vx;
    size_t cnt;
    double slope, now = (double)sim_now(s), key = bound_now(s, x, n, &cnt, &slope);
    if (key < INFINITY)
        sim_node_bound_set(&vx->bound, n, key, slope, now);
    else
        sim_node_bound_remove(&vx->bound, n);
    if (vx->ndem == 0)
        return;
    node_look o;
    look_node(s, x, n, &o);
    for (int i = 0; i < vx->ndem; i++) {
        key = class_key(s, &o, vx->dem[i], n, &slope);
        if (key < INFINITY)
            sim_node_bound_set(&vx->dem[i]->heap, n, key, slope, now);
        else
            sim_node_bound_remove(&vx->dem[i]->heap, n);
    }
}

void sim_victims_init(sim *s, sim_ext *x)
{
    vic_index *vx = &x->vx;
    int n = x->cl->nnodes;
    sim_node_bound_init(&vx->bound, n);
    vx->cards_fit = sim_policy_at(s, 0)->space->index && sim_policy_at(s, 0)->space->index->cards_open;
    if (vx->cards_fit)
        sim_cluster_watch_gives(x->cl);
    vx->looked = xmalloc(((size_t)n + 1) * sizeof *vx->looked);
    vx->looked_key = xmalloc(((size_t)n + 1) * sizeof *vx->looked_key);
    vx->looked_slope = xmalloc(((size_t)n + 1) * sizeof *vx->looked_slope);
    vx->fresh = xcalloc((size_t)n + 1, sizeof *vx->fresh);
}

void sim_victims_free(sim_ext *x)
{
    vic_index *vx = &x->vx;
    sim_node_bound_free(&vx->bound);
    for (int i = 0; i < vx->ndem; i++) {
        sim_node_bound_free(&vx->dem[i]->heap);
        free(vx->dem[i]);
    }
    free(vx->looked);
    free(vx->looked_key);
    free(vx->looked_slope);
    free(vx->fresh);
}

void sim_victims_listed(sim *s, sim_ext *x, const job *j)
{
    bound_offer(s, x, j);
    for (int i = 0; x->vx.cards_fit && i < vic_nodes(j); i++)
        demand_offer(s, x, vic_node(j, i));
}

/* A listed job's rate changed: its line now rises slower or faster. Slower:
 * the node's lines come down to its class in every heap (a line that rose
 * faster than the job's cost would pass it); faster: the lines stay (still
 * bounds), and a search's refresh takes the steeper slope. Victims are no
 * node's bound. O(heaps x log nodes) when a class falls, else O(heaps). */
void sim_victims_rate_changed(sim *s, sim_ext *x, const job *j)
{
    if (!(j->core_flags & JF_LISTED) || (j->core_flags & JF_VICTIM))
        return;
    vic_index *vx = &x->vx;
    double slope = victim_slope(x, j), now = (double)sim_now(s);
    for (int k = 0; k < vic_nodes(j); k++) {
        int n = vic_node(j, k);
        sim_node_bound_slow(&vx->bound, n, slope, now);
        for (int i = 0; i < vx->ndem; i++)
            sim_node_bound_slow(&vx->dem[i]->heap, n, slope, now);
    }
}

/* {==== the search ====} */

/* A search's scratch: one node's plan and the candidates' buffer. */
typedef struct vic_work {
    job **cur;
    size_t vcap;
    cand *buf;
    size_t cap;
} vic_work;

/* Plans node n (cnt jobs listed there) for p and keeps its set in *best
 * when it wins: less cost, then fewer victims, then the lower node id. */
static void consider(sim *s, const sim_ext *x, job *p, int n, size_t cnt, vic_pick *best, vic_work *w)
{
    if (x->cl->nodes[n].state != NODE_UP)
        return; /* out of service: what its victims free takes no work */
    if (cnt > w->vcap) {
        w->vcap = cnt;
        w->cur = xrealloc(w->cur, w->vcap * sizeof *w->cur);
    }
    double cost;
    int nv = sim_ckpt_plan_node(s, x, p, n, w->cur, &cost, &w->buf, &w->cap);
    if (nv > 0 && (best->node < 0 || cost < best->cost ||
                   (cost == best->cost && (nv < best->nv || (nv == best->nv && n < best->node))))) {
        if ((size_t)nv > best->vcap) {
            best->vcap = w->vcap;
            best->v = xrealloc(best->v, best->vcap * sizeof *best->v);
        }
        best->node = n;
        best->nv = nv;
        best->cost = cost;
        memcpy(best->v, w->cur, (size_t)nv * sizeof *best->v);
    }
}

static void work_free(vic_work *w)
{
    free(w->buf);
    free(w->cur);
}

static void pick_reset(vic_pick *out)
{
    out->node = -1;
    out->nv = 0;
    out->cost = 0;
}

/* Every node of [lo, hi) in id order; `count`: a search over every node
 * (vic_index.planned). */
static bool scan_range(sim *s, sim_ext *x, job *p, uint64_t pools, int lo, int hi, bool count, vic_pick *out)
{
    vic_work w = {xmalloc(16 * sizeof(job *)), 16, NULL, 0};
    pick_reset(out);
    for (int n = lo; n < hi; n++) {
        size_t cnt = 0;
        for (job *v = x->node_run[n]; v; v = vic_next(v, n))
            cnt++;
        if (!(pools >> x->cl->nodes[n].pool & 1) || !cnt)
            continue;
        if (count)
            x->vx.planned++;
        consider(s, x, p, n, cnt, out, &w);
    }
    work_free(&w);
    return out->node >= 0;
}

bool sim_victims_scan(sim *s, sim_ext *x, job *p, uint64_t pools, int lo, int hi, vic_pick *out)
{
    return scan_range(s, x, p, pools, lo, hi, false, out);
}

/* The next node of the search off heap h, its listed count in *cnt: -1
 * when no node left can beat or tie the best found. A node's first time
 * off in this search takes its key as of now; one whose key was stale goes
 * back in by the fresh one (and 0 is returned in *cnt: not planned now). */
static int next_node(sim *s, sim_ext *x, sim_node_bound *h, dem_class *dc, const vic_pick *best, int *nlooked,
                     size_t *cnt)
{
    vic_index *vx = &x->vx;
    double key, now = (double)sim_now(s);
    if (sim_node_bound_top(h, now, &key) < 0 || (best->node >= 0 && key > best->cost))
        return -1; /* every node left costs more than the best */
    int n = sim_node_bound_pop(h, now);
    vx->looks++;
    node_fresh *f = &vx->fresh[n];
    *cnt = 0;
    if (f->seen != vx->search) { /* first time this search: its key as of now */
        double fresh, slope;
        size_t listed;
        f->seen = vx->search;
        if (!dc) {
            fresh = bound_now(s, x, n, &listed, &slope);
        } else {
            node_look o;
            look_node(s, x, n, &o);
            listed = o.listed;
            fresh = class_key(s, &o, dc, n, &slope);
        }
        f->key = fresh;
        f->slope = slope;
        f->cnt = (uint32_t)listed;
        if (fresh == INFINITY)
            return n; /* no set there can host p: out until a job is listed or room comes back */
        if (fresh > key) { /* the key was stale: back in by the fresh one, planned only if it may still win */
            sim_node_bound_lower(h, n, fresh, slope, now);
            return n;
        }
    }
    *cnt = f->cnt;
    vx->looked[*nlooked] = n;
    vx->looked_slope[*nlooked] = f->slope;
    vx->looked_key[(*nlooked)++] = f->key; /* back in when the search ends */
    return n;
}

bool sim_victims_find(sim *s, sim_ext *x, job *p, uint64_t pools, vic_pick *out)
{
    vic_index *vx = &x->vx;
    if (vx->plain_scan)
        return scan_range(s, x, p, pools, 0, x->cl->nnodes, true, out);
    dem_class *dc = vx->cards_fit && p->req.gpus >= 1 ? demand_class(s, x, p) : NULL;
    sim_node_bound *heap = dc ? &dc->heap : &vx->bound;
    int nlooked = 0;
    double now = (double)sim_now(s);
    vx->searches++;
    if (++vx->search == 0) { /* wrapped: no node may look seen */
        for (int i = 0; i < x->cl->nnodes; i++)
            vx->fresh[i].seen = 0;
        vx->search = 1;
    }
    vic_work w = {xmalloc(16 * sizeof(job *)), 16, NULL, 0};
    pick_reset(out);
    size_t cnt;
    for (int n; (n = next_node(s, x, heap, dc, out, &nlooked, &cnt)) >= 0;) {
        if (!(pools >> x->cl->nodes[n].pool & 1) || !cnt)
            continue;
        vx->planned++;
        consider(s, x, p, n, cnt, out, &w);
    }
    for (int i = 0; i < nlooked; i++) /* costs do not change within this call: keys as of now */
        if (vx->looked_key[i] < INFINITY)
            sim_node_bound_lower(heap, vx->looked[i], vx->looked_key[i], vx->looked_slope[i], now);
    work_free(&w);
    return out->node >= 0;
}

/* {==== a preemptor across nodes ====}
 * A job of shape (g, k, r) in pool p (sim_gang.h) needs k nodes. A node
 * with g free cards and room for its host share is free already; so is
 * one with r (and fewer than g) for the part of r. Every other node of p
 * takes a part once its cheapest victim set for a part of g is gone
 * (sim_ckpt_plan_node for a probe of g cards: the policy's dry run). The
 * nodes chosen are the `need` cheapest (cost, victims, node id) beyond the
 * free ones; a victim on several of them counts once in the total, and the
 * pool of the least total wins (ties: fewer victims, the lower pool). The
 * scan plans every listed node of the pool; the bound search stops at the
 * first key above the need-th best cost found (no node left can take its
 * place). */

/* One node's plan for a part. */
typedef struct part_plan {
    int node, nv;
    double cost;
    job **v;
} part_plan;

/* Does (cost, nv, node) come before plan a? */
static bool plan_before(const part_plan *a, double cost, int nv, int node)
{
    return cost < a->cost || (cost == a->cost && (nv < a->nv || (nv == a->nv && node < a->node)));
}

/* The `need` best plans so far, sorted: best[0..nb). */
typedef struct part_best {
    part_plan *p;
    int nb, need;
} part_best;

/* Keeps node n's plan when it is among the need best. O(need). */
static void keep_plan(part_best *b, int n, job **v, int nv, double cost)
{
    int i = b->nb;
    if (i == b->need) {
        if (!plan_before(&b->p[i - 1], cost, nv, n))
            return;
        free(b->p[--i].v);
        b->nb--;
    }
    while (i > 0 && plan_before(&b->p[i - 1], cost, nv, n)) {
        b->p[i] = b->p[i - 1];
        i--;
    }
    b->p[i] = (part_plan){n, nv, cost, xmalloc((size_t)nv * sizeof(job *))};
    memcpy(b->p[i].v, v, (size_t)nv * sizeof(job *));
    b->nb++;
}

/* Free nodes of pool p for shape sh and host share (cpu, mem): how many
 * can take a part of g (up to k), and in *rfree whether one with fewer can
 * take the part of r. O(k + cards per node) plus the nodes passed over for
 * want of CPU or memory. */
static int free_parts(const sim_cluster *c, int p, const gang_shape *sh, double cpu, double mem, bool *rfree)
{
    const sim_pool *pl = &c->pools[p];
    int m = 0;
    *rfree = false;
    for (int f = sh->r; f < sh->g && f <= pl->max_node_gpus && !*rfree; f++)
        for (int id = pl->head[f]; id >= 0 && !*rfree; id = c->nodes[id].next)
            *rfree = sim_node_host_fits(&c->nodes[id], cpu, mem);
    for (int f = sh->g; f <= pl->max_node_gpus && m < sh->k; f++)
        for (int id = pl->head[f]; id >= 0 && m < sh->k; id = c->nodes[id].next)
            m += sim_node_host_fits(&c->nodes[id], cpu, mem);
    return m;
}

/* Plans node n for the probe part q (a node already free is no candidate). */
static void gang_consider(sim *s, const sim_ext *x, job *q, int n, int g, part_best *b, vic_work *w, size_t cnt)
{
    const sim_node *nd = &x->cl->nodes[n];
    if (nd->state != NODE_UP)
        return;
    if (nd->free_gpus >= g && sim_node_host_fits(nd, q->req.cpu, q->req.mem_gib))
        return;
    if (cnt > w->vcap) {
        w->vcap = cnt;
        w->cur = xrealloc(w->cur, w->vcap * sizeof *w->cur);
    }
    double cost;
    int nv = sim_ckpt_plan_node(s, x, q, n, w->cur, &cost, &w->buf, &w->cap);
    if (nv > 0)
        keep_plan(b, n, w->cur, nv, cost);
}

/* The need best nodes of pool p for probe q: every listed node (scan), or
 * through the bound heap. */
static void gang_search(sim *s, sim_ext *x, job *q, int p, int g, part_best *b)
{
    vic_index *vx = &x->vx;
    vic_work w = {xmalloc(16 * sizeof(job *)), 16, NULL, 0};
    if (vx->plain_scan) {
        for (int n = 0; n < x->cl->nnodes; n++) {
            size_t cnt = 0;
            for (job *v = x->node_run[n]; v; v = vic_next(v, n))
                cnt++;
            if (x->cl->nodes[n].pool != p || !cnt)
                continue;
            vx->planned++;
            gang_consider(s, x, q, n, g, b, &w, cnt);
        }
        work_free(&w);
        return;
    }
    int nlooked = 0;
    double now = (double)sim_now(s);
    vx->searches++;
    if (++vx->search == 0) {
        for (int i = 0; i < x->cl->nnodes; i++)
            vx->fresh[i].seen = 0;
        vx->search = 1;
    }
    size_t cnt;
    for (;;) {
        vic_pick stop = {.node = b->nb == b->need ? 0 : -1, .cost = b->nb ? b->p[b->nb - 1].cost : 0};
        int n = next_node(s, x, &vx->bound, NULL, &stop, &nlooked, &cnt);
        if (n < 0)
            break;
        if (x->cl->nodes[n].pool != p || !cnt)
            continue;
        vx->planned++;
        gang_consider(s, x, q, n, g, b, &w, cnt);
    }
    for (int i = 0; i < nlooked; i++)
        if (vx->looked_key[i] < INFINITY)
            sim_node_bound_lower(&vx->bound, vx->looked[i], vx->looked_key[i], vx->looked_slope[i], now);
    work_free(&w);
}

/* The victims of b's plans, each once, into out (its cost their sum). */
static void gang_union(sim *s, const sim_ext *x, const part_best *b, vic_pick *out)
{
    out->nv = 0;
    out->cost = 0;
    out->nn = 0;
    for (int i = 0; i < b->nb; i++) {
        if ((size_t)out->nn == out->ncap) {
            out->ncap = out->ncap ? 2 * out->ncap : 16;
            out->nodes = xrealloc(out->nodes, out->ncap * sizeof *out->nodes);
        }
        out->nodes[out->nn++] = b->p[i].node;
        for (int k = 0; k < b->p[i].nv; k++) {
            job *v = b->p[i].v[k];
            bool dup = false;
            for (int e = 0; e < out->nv && !dup; e++)
                dup = out->v[e] == v;
            if (dup)
                continue;
            if ((size_t)out->nv == out->vcap) {
                out->vcap = out->vcap ? 2 * out->vcap : 16;
                out->v = xrealloc(out->v, out->vcap * sizeof *out->v);
            }
            out->v[out->nv++] = v;
            out->cost += sim_ckpt_cost_us(s, x, v) * (v->req.gpus > 0 ? v->req.gpus : 1);
        }
    }
    out->node = b->nb ? b->p[0].node : -1;
}

bool sim_victims_gang(sim *s, sim_ext *x, job *p, uint64_t pools, vic_pick *out)
{
    vic_pick cur = {.node = -1};
    out->node = -1;
    for (int pi = 0; pi < x->cl->npools; pi++) {
        gang_shape sh;
        if (!(pools >> pi & 1) || !sim_gang_shape(x->cl, p, pi, &sh))
            continue;
        bool rfree;
        int m = free_parts(x->cl, pi, &sh, p->req.cpu, p->req.mem_gib, &rfree);
        int need = sh.k - m - (sh.r < sh.g && rfree ? 1 : 0);
        if (need <= 0)
            continue; /* it fits as things are (the gang placer decides) */
        job q = *p; /* the probe: one part of g cards */
        q.req.gpus = sh.g;
        q.req.spans = false;
        q.pools = 1ULL << pi;
        part_best b = {xcalloc((size_t)need, sizeof(part_plan)), 0, need};
        gang_search(s, x, &q, pi, sh.g, &b);
        if (b.nb == need) {
            gang_union(s, x, &b, &cur);
            if (out->node < 0 || cur.cost < out->cost || (cur.cost == out->cost && cur.nv < out->nv)) {
                vic_pick t = *out;
                *out = cur;
                cur = t;
            }
        }
        for (int i = 0; i < b.nb; i++)
            free(b.p[i].v);
        free(b.p);
    }
    free(cur.v);
    free(cur.nodes);
    return out->node >= 0;
}
