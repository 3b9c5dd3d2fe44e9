/* sim_gang.c - jobs across nodes: shape, placement, release (sim_gang.h).
 * SPDX-License-Identifier: MIT */
#include "sim_gang.h"
#include "sim_struct.h"

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

/* Nodes of pool p (all its cards free) with at least t GPUs and the host
 * totals for cpu and mem: O(node shapes). */
static int nodes_with(const sim_pool *p, int t, double cpu, double mem)
{
    int n = 0;
    for (int s = 0; s < p->nshapes; s++) {
        const node_shape *sh = &p->shapes[s];
        if (sh->ngpus >= t && (sh->cpu < 0 || sh->cpu >= cpu - 1e-9) && (sh->mem_gib < 0 || sh->mem_gib >= mem - 1e-9))
            n += sh->count;
    }
    return n;
}

bool sim_gang_ever(const sim_cluster *c, const job *j, char *why, size_t cap)
{
    int total = 0, best = -1;
    for (int p = 0; p < c->npools; p++) {
        if (!(j->pools >> p & 1))
            continue;
        const sim_pool *pl = &c->pools[p];
        gang_shape sh;
        if (!sim_gang_shape(c, j, p, &sh))
            continue;
        if (pl->ngpus > total) {
            total = pl->ngpus;
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
    if (j->req.gpus > total)
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
static void take(sim *s, job *j, const int *nodes, const gang_shape *sh, int level)
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
        sp->part[i] = (job_part){pp[i].node, pp[i].ngpus, off, NULL, NULL};
        sim_cluster_take(s->cl, pp[i].node, pp[i].ngpus, j->req.cpu, j->req.mem_gib, ids + off);
        off += pp[i].ngpus;
    }
    free(pp);
    j->gpu.span = sp;
    j->ngpu_ids = JOB_SPANS;
    j->node = sp->part[0].node;
    sim_gauge_add(&s->g_alloc, s->now, (double)sp->ngpus);
}

bool sim_gang_place(sim *s, job *j, uint64_t pools)
{
    sim_cluster *c = s->cl;
    for (int p = 0; p < c->npools; p++) {
        gang_shape sh;
        if (!(pools >> p & 1) || !sim_gang_shape(c, j, p, &sh))
            continue;
        const sim_pool *pl = &c->pools[p];
        if (pl->free_gpus < j->req.gpus || free_with(pl, sh.g) < sh.k - 1 || free_with(pl, sh.r) < sh.k)
            continue; /* too few nodes with room for a part, whatever their CPU */
        int *nodes = xmalloc((size_t)sh.k * sizeof *nodes);
        bool ok = pick_flat(c, p, &sh, j->req.cpu, j->req.mem_gib, nodes);
        if (ok)
            take(s, j, nodes, &sh, 0);
        free(nodes);
        if (ok)
            return true;
    }
    return false;
}

void sim_gang_release(sim *s, job *j)
{
    if (!job_spans(j))
        GS_BUG("sim_gang_release: the job holds no parts across nodes");
    job_span *sp = j->gpu.span;
    const int *ids = job_span_ids(sp);
    for (int i = 0; i < sp->nparts; i++)
        sim_cluster_give(s->cl, sp->part[i].node, ids + sp->part[i].first_id, sp->part[i].ngpus, j->req.cpu,
                         j->req.mem_gib);
    sim_gauge_add(&s->g_alloc, s->now, -(double)sp->ngpus);
    sim_job_drop_gpus(j);
    j->node = -1;
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

const job_part *job_part_on(const job *j, int n)
{
    const job_span *sp = j->gpu.span;
    int lo = 0, hi = sp->nparts - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (sp->part[mid].node == n)
            return &sp->part[mid];
        if (sp->part[mid].node < n)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}
