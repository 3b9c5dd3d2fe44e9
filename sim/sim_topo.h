/* sim_topo.h - the cluster's network topology and, per GPU model, an index
 * of its domains by room for the parts of a job across nodes (sim_gang.h).
 *
 * Topology (cluster file "topology": {"levels": ["block", "rack"], "sizes":
 * [8, 4], "bw_gbps": [50, 200]}): nodes, in file order, form racks of
 * sizes[last] nodes, and racks form blocks of sizes[0] racks (Slurm's
 * topology/block BlockSizes do the same); levels are ["rack"] or
 * ["block", "rack"]. A ring across the racks of a block gets the rack
 * level's per-GPU bandwidth, one across blocks the block level's (GB/s,
 * both directions, the measure of the model files' nvlink_gbps).
 *
 * The index. For a level (racks, or blocks), a pool (one GPU model) and a
 * threshold t (1 .. the pool's largest node), every domain d is in exactly
 * one bucket, keyed by (S, q): S = the nodes of the pool in d with at least
 * t free cards, q = the most free cards below t on such a node of d (0:
 * none). Invariant: a domain's bucket for every t follows from its nodes'
 * free cards as the ledger has them now (sim_topo_moved is told of every
 * change). A job of shape (g, k, r) (k - 1 parts of g, one of r) fits d iff
 * S_g >= k, or S_g = k - 1 and q_g >= r; the tightest such domain is the
 * first non-empty bucket from (k - 1, r) on, in (S, q) order: a few bitmap
 * words, whatever the domains' number. Each row of buckets (one S) has a
 * bitmap of its non-empty q, each threshold a bitmap of its non-empty rows.
 *
 * The buckets follow the histograms lazily: a change marks its domain
 * (sim_topo_moved, O(levels)) and a question about a pool and level first
 * brings that level's marked domains into their buckets (O(largest node)
 * each), so a run of single-node jobs pays a histogram count a take or
 * give, and only a job across nodes pays for the buckets.
 * Costs: sim_topo_moved O(levels); a question O(marked domains x largest
 * node) then sim_topo_best O(domain size / 64 + 1), sim_topo_largest
 * O(rows + domains returned), sim_topo_count O(1). Memory per level and pool: the
 * histograms (domains x (cards per node + 1) ints) and, per threshold, two
 * links a domain and (domain size + 1) x t bucket heads.
 * tests/test_topo.c checks the index against a brute-force scan of every
 * domain after random takes and gives.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_TOPO_H
#define GPUSIM_SIM_TOPO_H

#include <cJSON.h>
#include <stdint.h>

#include "../base/gs.h"

#define TOPO_MAX_LEVELS 2
enum { TOPO_RACK = 0, TOPO_BLOCK = 1 };

/* One threshold's buckets over the domains of a level (one pool). */
typedef struct topo_thresh {
    int *head;      /* [(S) * t + q]: the first domain of the bucket, -1: none */
    int *next, *prev; /* [domain] */
    uint64_t *qmask; /* [S]: bit q set: bucket (S, q) non-empty (t <= 64) */
    uint64_t *smask; /* bit S set: row S non-empty; (dmax + 64) / 64 words */
    int *key_s, *key_q; /* [domain]: the bucket it is in */
} topo_thresh;

/* A level's index for one pool. */
typedef struct topo_level {
    int ndom, dmax;  /* domains, and the most nodes of the pool in one */
    int g;           /* thresholds 1..g: the pool's largest node */
    int *hist;       /* [domain * (g + 1) + f]: its nodes with f free cards */
    int *ever_s;     /* [t]: the most nodes with t cards or more in one domain, all free (as built) */
    int *dirty, ndirty;  /* domains whose histogram changed since their buckets were set */
    uint8_t *is_dirty;   /* [domain] */
    topo_thresh *th; /* [t - 1] */
} topo_level;

typedef struct sim_topo {
    int nlevels;         /* 1: racks; 2: racks in blocks */
    int rack_nodes;      /* nodes per rack */
    int block_racks;     /* racks per block (2 levels) */
    double bw_gbps[TOPO_MAX_LEVELS]; /* [TOPO_RACK]: across racks; [TOPO_BLOCK]: across blocks */
    int npools;
    topo_level (*lv)[TOPO_MAX_LEVELS]; /* [pool][level] */
} sim_topo;

/* Parses the cluster file's "topology" object into *out (NULL when j is
 * NULL: a flat network), its index not built yet. Returns 0 or GS_EINPUT
 * naming path and the field. */
int sim_topo_parse(sim_topo **out, const cJSON *j, const char *path, gs_error *err);
/* The nodes the index is built from (the ledger's, sim_cluster_file.c). */
typedef struct topo_nodes {
    int nnodes, npools;
    const int *pool_g; /* [pool]: its largest node's cards */
    const int *pool;   /* [node]: its pool */
    const int *free;   /* [node]: its free cards now */
} topo_nodes;
/* Builds the index over nodes nd (O(nodes + domains x cards per node^2)). */
void sim_topo_build(sim_topo *t, const topo_nodes *nd);
/* The domains' capacities for sim_topo_ever again, with nd->free each
 * node's cards for whole-card work (a policy kept some out). O(nodes +
 * domains x cards per node). */
void sim_topo_set_ever(sim_topo *t, const topo_nodes *nd);
void sim_topo_free(sim_topo *t);
/* The domain of node n at level l. */
static inline int sim_topo_dom(const sim_topo *t, int n, int l)
{
    int rack = n / t->rack_nodes;
    return l == TOPO_RACK ? rack : rack / t->block_racks;
}
/* Node n of pool p went from `from` to `to` free cards (the ledger calls it). */
void sim_topo_moved(sim_topo *t, int p, int n, int from, int to);
/* Node n of pool p leaves (in = false) or rejoins the index with f free
 * cards: a node out of service (sim_cluster.h) is in no domain's count. */
void sim_topo_node(sim_topo *t, int p, int n, int f, bool in);
/* The tightest domain of level l where a job of shape (g, k, r) fits, by
 * its pool-p nodes' free cards; -1 when none. */
int sim_topo_best(sim_topo *t, int p, int l, int g, int k, int r);
/* S_t and q_t of domain d at level l (pool p). */
int sim_topo_count(sim_topo *t, int p, int l, int d, int th, int *q);
/* Whether a domain of level l could ever take a job of shape (g, k, r)
 * (all its cards free; racks alike: when they differ, it may say yes of a
 * shape no single domain takes). O(1). */
bool sim_topo_ever(const sim_topo *t, int p, int l, int g, int k, int r);
/* The domains of level l by S_g, most first, into out[0..max): how many. */
int sim_topo_largest(sim_topo *t, int p, int l, int g, int *out, int max);

#endif
