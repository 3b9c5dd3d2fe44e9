/* sim_gang.c - jobs across nodes: shape, placement, release (sim_gang.h).
 * SPDX-License-Identifier: MIT */
#include "sim_gang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most GPUs a node of the allowed pools has. */
static int largest_node(const sim_cluster *c, uint64_t pools)
{
    int m = 0;
    for (int p = 0; p < c->npools; p++)
        if ((pools >> p & 1) && c->pools[p].max_node_gpus > m)
            m = c->pools[p].max_node_gpus;
    return m;
}

bool sim_gang_spans(const sim_cluster *c, const job *j)
{
    int n = j->req.gpus, g = j->req.gpus_per_node;
    return (g > 0 && g < n) || n > largest_node(c, j->pools);
}

bool sim_gang_shape(const sim_cluster *c, const job *j, int p, gang_shape *sh)
{
    int n = j->req.gpus, g = j->req.gpus_per_node ? j->req.gpus_per_node : c->pools[p].max_node_gpus;
    if (g <= 0 || n <= 0)
        return false;
    sh->g = g;
    sh->k = (n + g - 1) / g;
    sh->r = n - (sh->k - 1) * g;
    return true;
}

/* {==== could it ever fit ====} */

void sim_gang_init(sim_cluster *c)
{
    for (int p = 0; p < c->npools; p++) {
        sim_pool *pl = &c->pools[p];
        free(pl->wshapes);
        pl->wshapes = NULL;
        pl->nwshapes = 0;
    }
    int *cap = xmalloc(((size_t)c->nnodes + 1) * sizeof *cap), *pool = xmalloc(((size_t)c->nnodes + 1) * sizeof *pool);
    for (int n = 0; n < c->nnodes; n++) {
        const sim_node *nd = &c->nodes[n];
        sim_pool *pl = &c->pools[nd->pool];
        node_shape w = {sim_cluster_whole_cap(c, n), nd->cpu_total, nd->mem_total_gib, 1};
        cap[n] = w.ngpus;
        pool[n] = nd->pool;
        int s = 0;
        while (s < pl->nwshapes && !(pl->wshapes[s].ngpus == w.ngpus && pl->wshapes[s].cpu == w.cpu &&
                                     pl->wshapes[s].mem_gib == w.mem_gib))
            s++;
        if (s == pl->nwshapes) {
            pl->wshapes = xrealloc(pl->wshapes, (size_t)(pl->nwshapes + 1) * sizeof *pl->wshapes);
            pl->wshapes[pl->nwshapes++] = (node_shape){w.ngpus, w.cpu, w.mem_gib, 0};
        }
        pl->wshapes[s].count++;
    }
    if (c->topo && c->withheld) {
        int g[CL_MAX_POOLS];
        for (int p = 0; p < c->npools; p++)
            g[p] = c->pools[p].max_node_gpus;
        sim_topo_set_ever(c->topo, &(topo_nodes){c->nnodes, c->npools, g, pool, cap});
    }
    free(cap);
    free(pool);
}

/* Nodes of pool p (all its cards free) with at least t GPUs and the host
 * totals for cpu and mem: O(node shapes). */
static int nodes_with(const sim_pool *p, int t, double cpu, double mem)
{
    int n = 0;
    for (int s = 0; s < p->nwshapes; s++) {
        const node_shape *sh = &p->wshapes[s];
        if (sh->ngpus >= t && (sh->cpu < 0 || sh->cpu >= cpu - 1e-9) && (sh->mem_gib < 0 || sh->mem_gib >= mem - 1e-9))
            n += sh->count;
    }
    return n;
}

/* A job that must stay inside one rack or block: could a domain of that
 * level ever take it, in some allowed pool? */
static bool ever_inside(const sim_cluster *c, const job *j, char *why, size_t cap)
{
    const char *name = j->req.topology == JOB_TOPO_RACK ? "rack" : "block";
    int l = j->req.topology == JOB_TOPO_RACK ? TOPO_RACK : TOPO_BLOCK;
    if (!c->topo || l >= c->topo->nlevels) {
        snprintf(why, cap, "topology '%s' required: the cluster file defines no %ss", name, name);
        return false;
    }
    for (int p = 0; p < c->npools; p++) {
        gang_shape sh;
        if ((j->pools >> p & 1) && sim_gang_shape(c, j, p, &sh) && sim_topo_ever(c->topo, p, l, sh.g, sh.k, sh.r))
            return true;
    }
    snprintf(why, cap, "needs %d GPUs inside one %s (topology '%s' required): no %s of its models holds that many",
             j->req.gpus, name, name, name);
    return false;
}

bool sim_gang_ever(const sim_cluster *c, const job *j, char *why, size_t cap)
{
    if (j->req.topology != JOB_TOPO_ANY && !ever_inside(c, j, why, cap))
        return false;
    int total = 0, best = -1;
    for (int p = 0; p < c->npools; p++) {
        if (!(j->pools >> p & 1))
            continue;
        const sim_pool *pl = &c->pools[p];
        gang_shape sh;
        if (!sim_gang_shape(c, j, p, &sh))
            continue;
        int whole = 0; /* its cards for whole-card work */
        for (int k = 0; k < pl->nwshapes; k++)
            whole += pl->wshapes[k].ngpus * pl->wshapes[k].count;
        if (whole > total || best < 0) {
            total = whole;
            best = p;
        }
        if (nodes_with(pl, sh.g, j->req.cpu, j->req.mem_gib) >= sh.k - 1 &&
            nodes_with(pl, sh.r, j->req.cpu, j->req.mem_gib) >= sh.k)
            return true;
    }
    if (best < 0) {
        snprintf(why, cap, "needs %d GPUs across nodes: none of its models' nodes has a GPU", j->req.gpus);
        return false;
    }
    const sim_pool *pl = &c->pools[best];
    gang_shape sh = {1, 1, 1};
    sim_gang_shape(c, j, best, &sh);
    if (j->req.gpus > total && total < pl->ngpus)
        snprintf(why, cap, "needs %d GPUs, the cluster has %d whole %s cards (the policy keeps %d more, e.g. MIG)",
                 j->req.gpus, total, pl->model->name, pl->ngpus - total);
    else if (j->req.gpus > total)
        snprintf(why, cap, "needs %d GPUs, the cluster has %d (%s)", j->req.gpus, total, pl->model->name);
    else if (nodes_with(pl, sh.g, -1, -1) < sh.k - 1 || nodes_with(pl, sh.r, -1, -1) < sh.k)
        snprintf(why, cap, "needs %d nodes of %d GPUs (%d GPUs), the cluster has %d such %s nodes", sh.k, sh.g,
                 j->req.gpus, nodes_with(pl, sh.g, -1, -1), pl->model->name);
    else
        snprintf(why, cap, "needs %g CPU cores and %g GiB on each of %d nodes: too few %s nodes have them",
                 j->req.cpu, j->req.mem_gib, sh.k, pl->model->name);
    return false;
}

/* {==== placement ====} */

/* Nodes of pool p with at least t free cards now: O(cards per node). */
static int free_with(const sim_pool *p, int t)
{
    int n = 0;
    for (int f = t; f <= p->max_node_gpus; f++)
        n += p->count[f];
    return n;
}

/* Chooses the nodes of sh in pool p on a flat network into out[0..k)
 * (out[k - 1] takes the part of r). false when the host room of too few
 * nodes lets it (nothing chosen). */
static bool pick_flat(const sim_cluster *c, int p, const gang_shape *sh, double cpu, double mem, int *out)
{
    const sim_pool *pl = &c->pools[p];
    int rnode = -1, got = 0;
    /* the part of r: the tightest partly used node (free in [r, g)) */
    for (int f = sh->r; f < sh->g && f <= pl->max_node_gpus && rnode < 0; f++)
        for (int id = pl->head[f]; id >= 0 && rnode < 0; id = c->nodes[id].next)
            if (sim_node_host_fits(&c->nodes[id], cpu, mem))
                rnode = id;
    int need = rnode >= 0 ? sh->k - 1 : sh->k;
    /* the parts of g: the nodes with the fewest free cards that have g */
    uint64_t m = sh->g >= 1 && sh->g <= 64 ? pl->nonempty & (~0ULL << (sh->g - 1)) : 0;
    while (m && got < need) {
        int f = __builtin_ctzll(m) + 1;
        m &= m - 1;
        for (int id = pl->head[f]; id >= 0 && got < need; id = c->nodes[id].next)
            if (sim_node_host_fits(&c->nodes[id], cpu, mem))
                out[got++] = id;
    }
    if (got < need)
        return false;
    if (rnode >= 0)
        out[sh->k - 1] = rnode;
    return true;
}

/* The widest level nodes[0..k) span: 0 one rack (or a flat network), 1
 * racks of one block (or racks, with racks alone), 2 blocks. */
static int spanned(const sim_cluster *c, const int *nodes, int k, int level)
{
    if (!c->topo || level == 0)
        return 0;
    bool racks = false, blocks = false;
    for (int i = 1; i < k; i++) {
        racks |= sim_topo_dom(c->topo, nodes[i], TOPO_RACK) != sim_topo_dom(c->topo, nodes[0], TOPO_RACK);
        blocks |= c->topo->nlevels > 1 &&
                  sim_topo_dom(c->topo, nodes[i], TOPO_BLOCK) != sim_topo_dom(c->topo, nodes[0], TOPO_BLOCK);
    }
    return blocks ? 2 : racks ? 1 : 0;
}

typedef struct part_pick {
    int node, ngpus;
} part_pick;

static int by_node(const void *a, const void *b)
{
    const part_pick *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

/* Takes the parts (k nodes, out[k - 1] of r GPUs) from the ledger into j's
 * record. */
static void take(sim_cluster *c, job *j, const int *nodes, const gang_shape *sh, int level)
{
    part_pick *pp = xmalloc((size_t)sh->k * sizeof *pp);
    for (int i = 0; i < sh->k; i++)
        pp[i] = (part_pick){nodes[i], i == sh->k - 1 ? sh->r : sh->g};
    qsort(pp, (size_t)sh->k, sizeof *pp, by_node);
    job_span *sp = xmalloc(sizeof *sp + (size_t)sh->k * sizeof sp->part[0] + (size_t)j->req.gpus * sizeof(int));
    sp->nparts = sh->k;
    sp->ngpus = j->req.gpus;
    sp->level = level;
    int *ids = job_span_ids(sp), off = 0;
    for (int i = 0; i < sh->k; i++) {
        sp->part[i] = (job_part){pp[i].node, pp[i].ngpus, off, NULL, NULL, NULL, NULL};
        sim_cluster_take(c, pp[i].node, pp[i].ngpus, j->req.cpu, j->req.mem_gib, ids + off);
        off += pp[i].ngpus;
    }
    free(pp);
    j->gpu.span = sp;
    j->ngpu_ids = JOB_SPANS;
    j->node = sp->part[0].node;
}

/* {==== with a topology (sim_topo.h) ====}
 * The lowest level where one domain fits the job (the tightest such
 * domain, sim_topo_best), else the whole pool; inside a domain its
 * children by most room for parts of g first, the last child the one that
 * fits what is left most tightly (inside a block), so the job spans the
 * fewest children; inside a rack its nodes best fit, as on a flat network.
 * A part of r goes to a chosen child with room for it, else the next. */

typedef struct pick_ctx {
    const sim_cluster *c;
    sim_topo *t; /* its questions bring the buckets up to date (sim_topo.h) */
    int p;
    gang_shape sh;
    double cpu, mem;
    int *out, nout; /* nodes chosen, parts of g first; the part of r last */
    int rnode;      /* the node of the part of r, -1: none yet */
} pick_ctx;

static int by_free(const void *a, const void *b, void *ud)
{
    const sim_cluster *c = ud;
    int x = *(const int *)a, y = *(const int *)b, fx = c->nodes[x].free_gpus, fy = c->nodes[y].free_gpus;
    return fx != fy ? (fx > fy) - (fx < fy) : (x > y) - (x < y);
}

/* ng parts of g and, when wr, the part of r on rack d: its nodes of the
 * pool with the host room, fewest free cards first. O(rack size log). */
static bool pick_rack(pick_ctx *x, int d, int ng, bool wr)
{
    const sim_cluster *c = x->c;
    int lo = d * x->t->rack_nodes, hi = lo + x->t->rack_nodes, m = 0;
    hi = hi < c->nnodes ? hi : c->nnodes;
    int *cand = xmalloc((size_t)(hi - lo + 1) * sizeof *cand);
    for (int n = lo; n < hi; n++)
        if (c->nodes[n].pool == x->p && c->nodes[n].state == NODE_UP && c->nodes[n].free_gpus >= x->sh.r &&
            sim_node_host_fits(&c->nodes[n], x->cpu, x->mem))
            cand[m++] = n;
    qsort_r(cand, (size_t)m, sizeof *cand, by_free, (void *)c);
    int got = 0, rn = -1;
    for (int i = 0; i < m && wr && x->sh.r < x->sh.g && rn < 0; i++)
        if (c->nodes[cand[i]].free_gpus < x->sh.g)
            rn = cand[i]; /* the tightest partly used node for the part of r */
    for (int i = 0; i < m && (got < ng || (wr && rn < 0)); i++) {
        int n = cand[i];
        if (c->nodes[n].free_gpus < x->sh.g || n == rn)
            continue;
        if (got < ng) {
            x->out[x->nout++] = n;
            got++;
        } else {
            rn = n;
        }
    }
    free(cand);
    if (rn >= 0)
        x->rnode = rn;
    return got == ng && (!wr || rn >= 0);
}

static bool pick_in(pick_ctx *x, int l, int d, int ng, bool wr);

/* Parts spread over children ch[0..nch) of a domain, most room first. */
static bool pick_children(pick_ctx *x, int l, int *ch, int nch, int ng, bool wr, bool best_last)
{
    int g = x->sh.g, r = x->sh.r;
    for (int i = 0; i < nch && (ng > 0 || wr); i++) {
        int q, S = sim_topo_count(x->t, x->p, l, ch[i], g, &q), qr;
        int Sr = sim_topo_count(x->t, x->p, l, ch[i], r, &qr);
        if (best_last && ng > 0 && ng <= S) { /* the last child needed: the tightest that takes the rest */
            int k = i;
            for (int e = i + 1; e < nch; e++) {
                int qe, Se = sim_topo_count(x->t, x->p, l, ch[e], g, &qe);
                if (Se >= ng && (!wr || Se > ng || qe >= r))
                    k = e;
            }
            if (k != i) {
                int tmp = ch[i];
                ch[i] = ch[k];
                ch[k] = tmp;
                S = sim_topo_count(x->t, x->p, l, ch[i], g, &q);
                Sr = sim_topo_count(x->t, x->p, l, ch[i], r, &qr);
            }
        }
        int take = S < ng ? S : ng;
        bool here = wr && (S > take || (r < g && q >= r) || (take == 0 && Sr >= 1));
        if (take == 0 && !here)
            continue;
        if (!pick_in(x, l, ch[i], take, here))
            return false;
        ng -= take;
        wr = wr && !here;
    }
    return ng == 0 && !wr;
}

static int by_room_desc(const void *a, const void *b, void *ud)
{
    const pick_ctx *x = ud;
    int qa, qb, A = sim_topo_count(x->t, x->p, TOPO_RACK, *(const int *)a, x->sh.g, &qa),
            B = sim_topo_count(x->t, x->p, TOPO_RACK, *(const int *)b, x->sh.g, &qb);
    return A != B ? (A < B) - (A > B) : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* ng parts of g (and the part of r when wr) inside domain d of level l. */
static bool pick_in(pick_ctx *x, int l, int d, int ng, bool wr)
{
    if (l == TOPO_RACK)
        return pick_rack(x, d, ng, wr);
    int lo = d * x->t->block_racks, n = x->t->block_racks;
    int nr = (x->c->nnodes + x->t->rack_nodes - 1) / x->t->rack_nodes;
    n = lo + n <= nr ? n : nr - lo;
    int *ch = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *ch);
    for (int i = 0; i < n; i++)
        ch[i] = lo + i;
    qsort_r(ch, (size_t)n, sizeof *ch, by_room_desc, x);
    bool ok = pick_children(x, TOPO_RACK, ch, n, ng, wr, true);
    free(ch);
    return ok;
}

/* The job across the whole pool: the top level's domains, most room first. */
static bool pick_pool(pick_ctx *x)
{
    int top = x->t->nlevels - 1, max = x->sh.k + 1;
    int *ch = xmalloc((size_t)max * sizeof *ch);
    int n = sim_topo_largest(x->t, x->p, top, x->sh.g, ch, max);
    bool wr = true, ok;
    int ng = x->sh.k - 1;
    /* the part of r may need a domain with no room for a part of g */
    if (n < max) {
        int d = sim_topo_best(x->t, x->p, top, x->sh.r, 1, x->sh.r);
        bool seen = false;
        for (int i = 0; i < n && !seen; i++)
            seen = ch[i] == d;
        if (d >= 0 && !seen)
            ch[n++] = d;
    }
    ok = pick_children(x, top, ch, n, ng, wr, false);
    free(ch);
    return ok;
}

/* Its nodes in pool p with a topology into nodes[0..k) (the part of r
 * last), and in *level the widest level it spans; false: none fit. */
static bool pick_topo(const sim_cluster *c, const job *j, int p, const gang_shape *sh, int *nodes, int *level)
{
    sim_topo *t = c->topo;
    int most = j->req.topology == JOB_TOPO_RACK ? TOPO_RACK : j->req.topology == JOB_TOPO_BLOCK ? TOPO_BLOCK
                                                                                                : t->nlevels;
    pick_ctx x = {c, t, p, *sh, j->req.cpu, j->req.mem_gib, nodes, 0, -1};
    for (int l = 0; l < t->nlevels && l <= most; l++) {
        int d = sim_topo_best(t, p, l, sh->g, sh->k, sh->r);
        x.nout = 0;
        x.rnode = -1;
        if (d >= 0 && pick_in(&x, l, d, sh->k - 1, true)) {
            *level = l; /* in one rack: 0; in one block, across racks: 1 */
            nodes[sh->k - 1] = x.rnode;
            return true;
        }
    }
    if (most < t->nlevels)
        return false; /* required inside one domain of that level */
    x.nout = 0;
    x.rnode = -1;
    if (!pick_pool(&x))
        return false;
    nodes[sh->k - 1] = x.rnode;
    *level = t->nlevels; /* across the top level's domains */
    return true;
}

bool sim_gang_place(sim_cluster *c, job *j, uint64_t pools)
{
    for (int p = 0; p < c->npools; p++) {
        gang_shape sh;
        if (!(pools >> p & 1) || !sim_gang_shape(c, j, p, &sh))
            continue;
        const sim_pool *pl = &c->pools[p];
        if (pl->free_gpus < j->req.gpus || free_with(pl, sh.g) < sh.k - 1 || free_with(pl, sh.r) < sh.k)
            continue; /* too few nodes with room for a part, whatever their CPU */
        int *nodes = xmalloc((size_t)sh.k * sizeof *nodes), level = 0;
        bool ok = c->topo ? pick_topo(c, j, p, &sh, nodes, &level)
                          : pick_flat(c, p, &sh, j->req.cpu, j->req.mem_gib, nodes);
        if (ok)
            take(c, j, nodes, &sh, spanned(c, nodes, sh.k, level));
        free(nodes);
        if (ok)
            return true;
    }
    return false;
}

void sim_gang_release(sim_cluster *c, job *j)
{
    if (!job_spans(j))
        GS_BUG("sim_gang_release: the job holds no parts across nodes");
    job_span *sp = j->gpu.span;
    const int *ids = job_span_ids(sp);
    for (int i = 0; i < sp->nparts; i++)
        sim_cluster_give(c, sp->part[i].node, ids + sp->part[i].first_id, sp->part[i].ngpus, j->req.cpu,
                         j->req.mem_gib);
    sim_job_drop_gpus(j);
    j->node = -1;
}

double sim_gang_net_factor(const sim_cluster *c, const job *j)
{
    double comm = job_req_comm(j);
    if (!job_spans(j) || !c->topo || j->gpu.span->level == 0 || comm <= 0)
        return 1;
    const gpu_model *m = c->pools[c->nodes[j->node].pool].model;
    double inside = m->nvlink_gbps > 0 ? m->nvlink_gbps : 2 * m->host_link_gbps_per_dir;
    double ratio = inside / c->topo->bw_gbps[j->gpu.span->level >= 2 ? TOPO_BLOCK : TOPO_RACK];
    return 1 / ((1 - comm) + comm * (ratio > 1 ? ratio : 1));
}

int sim_gang_largest(const sim_cluster *c)
{
    int best = 0;
    for (int p = 0; p < c->npools; p++) {
        const sim_pool *pl = &c->pools[p];
        int g = pl->max_node_gpus, whole = g > 0 ? pl->count[g] : 0, rest = 0;
        for (int f = g - 1; f > 0 && !rest; f--)
            if (pl->count[f])
                rest = f;
        int n = whole * g + rest;
        if (n > best)
            best = n;
    }
    return best;
}

