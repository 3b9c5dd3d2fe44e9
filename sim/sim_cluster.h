/* sim_cluster.h - the cluster ledger: nodes, their GPUs, CPU and memory, and
 * what is allocated on each.
 *
 * Nodes are grouped in pools, one per GPU model. Within a pool every node sits
 * in a bucket keyed by its number of free whole GPUs (intrusive doubly linked
 * lists), so finding the tightest (binpack) or emptiest (spread) node that
 * fits k GPUs costs O(GPUs per node) bucket probes, not a scan of the cluster.
 * A node has at most 64 GPUs (one bit each in free_mask).
 * CPU cores and memory are enforced per node; a total < 0 means unlimited.
 * In a pool where some node has a CPU or memory total, each bucket also keeps
 * a fit index (sim_fit_index.h) in the same order as its list, so the first
 * node of a bucket with room for a request's CPU and memory costs O(log
 * nodes), not a walk past every node that lacks it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_CLUSTER_H
#define GPUSIM_SIM_CLUSTER_H

#include <cJSON.h>

#include "../models/gpu/gpu_model.h"
#include "../base/gs.h"
#include "sim_fit_index.h"
#include "sim_topo.h"
#include "sim_tco.h"

#define CL_MAX_NODE_GPUS 64
#define CL_MAX_POOLS 64
/* gives remembered by node (sim_cluster_given_since): a few passes' worth */
#define CL_GIVE_LOG 256
/* Whole-cluster limits, checked before any count is held in an int: far
 * above any cluster a planner sizes, far below what would overflow. */
#define CL_MAX_NODES 4000000
#define CL_MAX_GPUS 16000000
#define CL_MAX_NODE_CPU 1e6
#define CL_MAX_NODE_MEM_GIB 1e9

/* A node as placements read and write it (72 bytes); its name is made on
 * demand (sim_cluster_node_name): at 8,192 nodes the records stay 40 bytes
 * a node smaller, which a placement walking nodes reads from cache. */
/* A node's state (sim_nodes.h moves it between them). Only an UP node is
 * in the ledger's buckets and indexes: the others take no new work, and
 * what their jobs give back stays out of the indexes until they are UP. */
enum { NODE_UP = 0, NODE_PROVISIONING, NODE_DRAINING, NODE_DOWN, NODE_SPARE, NODE_ABSENT, NODE_NSTATES };

typedef struct sim_node {
    int id;
    int16_t pool;
    uint8_t state; /* NODE_*: 0 (up) as built */
    uint8_t spare_;
    int ngpus, gpu0; /* GPUs are gpu0 .. gpu0+ngpus-1 in cluster order */
    int free_gpus;
    int group; /* index of its entry in the cluster file's "nodes" */
    uint64_t free_mask;
    double cpu_total, cpu_used;         /* cores; total < 0: unlimited */
    double mem_total_gib, mem_used_gib; /* GiB;   total < 0: unlimited */
    int prev, next;                     /* bucket links (node ids, -1 = none) */
} sim_node;

typedef struct node_shape {
    int ngpus;
    double cpu, mem_gib;
    int count; /* nodes of this shape in the pool */
} node_shape;

/* Has node n cpu cores and mem GiB free (the ledger's tolerance, 1e-9)? */
static inline bool sim_node_host_fits(const sim_node *n, double cpu, double mem_gib)
{
    return (n->cpu_total < 0 || n->cpu_total - n->cpu_used >= cpu - 1e-9) &&
           (n->mem_total_gib < 0 || n->mem_total_gib - n->mem_used_gib >= mem_gib - 1e-9);
}

typedef struct sim_pool {
    const gpu_model *model;
    int nnodes, ngpus, free_gpus;
    int max_node_gpus;
    int *head; /* [0..max_node_gpus]: first node with that many free GPUs */
    uint64_t nonempty; /* bit k - 1 set: head[k] >= 0 (k >= 1), so a search skips empty buckets */
    int *count; /* [0..max_node_gpus]: the nodes in each bucket (how many nodes have k free GPUs) */
    sim_fit_index *fit; /* [0..max_node_gpus]: per bucket, when some node has a CPU or memory total; else NULL */
    node_shape *shapes; /* distinct node shapes, for "can this ever fit" */
    int nshapes;
    /* the same with each node's whole-card capacity (sim_cluster_whole_cap)
     * for ngpus: what a job across nodes could ever get (sim_gang_init) */
    node_shape *wshapes;
    int nwshapes;
    double price_override; /* USD per GPU-hour from --price (wins over any other); < 0: none */
    bool spot; /* the nodes of spot groups (sim_elastic.h): a pool of their own beside the model's other one */
} sim_pool;

typedef struct sim_cluster {
    char name[128];
    sim_node *nodes;
    int nnodes;
    sim_pool pools[CL_MAX_POOLS];
    int npools;
    int ngpus;
    int *fit_slot; /* slot of each node in its bucket's fit index (-1: none); NULL when no pool has one */
    char path[256]; /* the cluster file ("" for --gpus) */
    /* a node group's "mig" value, kept as raw JSON text for the MIG
     * policies to parse (the core does not interpret it); NULL when absent */
    char **group_mig;
    /* per node group: tier, autoscaling, spot reclaims (sim_elastic.h); NULL: no group has an elastic key */
    struct sim_group_elastic *group_elastic;
    double *group_price; /* per node group: USD per GPU-hour from the cluster file; < 0 or NULL: the model's */
    sim_tco *group_tco;  /* per node group: the cost of owning its cards (sim_tco.h); NULL or .given false: none */
    char (*group_prefix)[24]; /* per node group: its nodes' name prefix (node k of the group: prefix k) */
    int *group_first;         /* per node group: its first node's id */
    int ngroups;
    /* per node group (cluster file; NULL when no group sets them): its
     * "failures" override applied to its model's rates (NULL: the model's,
     * gpu_catalog_failures), and its "spares": hot-spare nodes beyond its
     * count, the group's last nodes (sim_fail.h) */
    struct gpu_failures **group_fail;
    int *group_spares;
    struct sim_quota *quota; /* tenant quotas (cluster file "tenants"); NULL: none (sim_quota.h) */
    sim_topo *topo; /* the network's racks and blocks and their index (cluster file "topology"); NULL: flat */
    int *withheld;  /* [node]: cards kept out of whole-card work for the run (sim_cluster_withhold); NULL: none */
    /* nodes given something back (cards, or CPU and memory alone) since their watcher last took the list
     * (sim_cluster_watch_gives); NULL: nobody watches */
    int *given, ngiven;
    unsigned char *given_flag; /* [nnodes]: the node is in given[] */
    /* sim_cluster_give calls so far, and the node of each of the last
     * CL_GIVE_LOG: a node's free CPU and memory grow only at one */
    uint64_t gives;
    int give_log[CL_GIVE_LOG];
} sim_cluster;

/* The nodes of a cluster document (JSON): {"name": "...", "nodes":
 * [{"model": M, "count": N, "gpus": G, "cpu": C, "mem_gib": GiB, "name":
 * prefix, "mig": ..., "price_per_gpu_hour_usd": USD}, ...], "tenants":
 * [...]}; "tenants" is left to the caller (sim_cluster_from_json in
 * sim_cluster_file.h parses nodes and quotas). path names the document in
 * messages. Returns 0 or GS_EINPUT naming the file and field. */
struct cJSON;
int sim_cluster_nodes_from_json(sim_cluster *c, const struct cJSON *j, const char *path, const gpu_catalog *cat,
                                gs_error *err);
/* "--gpus MODEL:COUNT[,MODEL:COUNT]" with gpus_per_node GPUs per node (the
 * last node of a model takes the remainder); CPU and memory unlimited.
 * Returns 0 or GS_EUSAGE. */
int sim_cluster_from_spec(sim_cluster *c, const char *spec, int gpus_per_node, const gpu_catalog *cat,
                          gs_error *err);
/* Frees the ledger of a cluster that holds no quotas (sim_cluster_free frees both). */
void sim_cluster_free_nodes(sim_cluster *c);
/* Node id's name ("<prefix><k>", k its place in its group) into buf. */
void sim_cluster_node_name(const sim_cluster *c, int node, char *buf, size_t cap);
/* `--mig LAYOUT`: every node group whose model has MIG gets LAYOUT as its
 * "mig" value (a name such as all-1g.10gb, balanced, whole, dynamic, or the
 * JSON of a cluster file's "mig" key). GS_EUSAGE when no card has MIG. */
int sim_cluster_set_mig(sim_cluster *c, const char *layout, gs_error *err);
/* `--price MODEL=USD_PER_GPU_HOUR`: the price of every card of that model in
 * this cluster (the report's price_source says "--price"). GS_EUSAGE for a
 * malformed value or an unknown model; a model the cluster lacks is left
 * alone (a price list may name more models than one cluster has). */
int sim_cluster_set_price(sim_cluster *c, const gpu_catalog *cat, const char *arg, gs_error *err);
/* Parses "MODEL=USD_PER_GPU_HOUR" (0..1e4). 0 or GS_EUSAGE naming the value. */
int sim_price_parse(const gpu_catalog *cat, const char *arg, const gpu_model **model, double *usd, gs_error *err);
/* The raw JSON text of node's group "mig" key, or NULL. */
static inline const char *sim_cluster_node_mig(const sim_cluster *c, int node)
{
    return c->group_mig ? c->group_mig[c->nodes[node].group] : NULL;
}

/* Pool index of a model, or -1 (its first pool: a model has a second one
 * only for spot groups, sim_cluster_pools_of). */
int sim_cluster_pool_of(const sim_cluster *c, const gpu_model *m);
/* Every pool of a model, a bit each (0: none). */
uint64_t sim_cluster_pools_of(const sim_cluster *c, const gpu_model *m);
/* Bit mask of pools allowed by a '|'-separated list of model names ("" or
 * NULL: all pools). An unknown name, or one not in this cluster, gives 0 and
 * a message in err. */
uint64_t sim_cluster_model_mask(const sim_cluster *c, const gpu_catalog *cat, const char *list, gs_error *err);
static inline uint64_t sim_cluster_all_pools(const sim_cluster *c)
{
    return c->npools >= 64 ? ~0ULL : ((1ULL << c->npools) - 1);
}

/* The most free CPU cores and the most free GiB on any node (each may be on
 * a different node; +INFINITY where a node's is unlimited): the tops of
 * the fit indexes, O(pools x cards per node). */
void sim_cluster_host_room(const sim_cluster *c, double *cpu, double *mem_gib);
/* Does some node have cpu cores and mem GiB free (the ledger's tolerance),
 * whatever its cards? A fit-index descent per free-card bucket and pool. */
bool sim_cluster_host_fits_any(const sim_cluster *c, double cpu, double mem_gib);
/* The free CPU cores and GiB now (+INFINITY: unlimited) of the nodes given
 * something back since c->gives was `since`, into cpu[] and mem_gib[] (a
 * node given twice appears twice); returns how many, or -1 when more than
 * max or than the log holds. O(gives since). */
int sim_cluster_given_since(const sim_cluster *c, uint64_t since, double *cpu, double *mem_gib, int max);
/* Could a request of ngpus whole GPUs, cpu cores and mem GiB fit on some
 * empty node of the allowed pools? */
bool sim_cluster_can_ever_fit(const sim_cluster *c, uint64_t pools, int ngpus, double cpu, double mem_gib);
/* The node GPU g belongs to: O(log nodes), nothing kept per GPU (a job
 * knows its node: this is for the GPU ids alone). */
int sim_cluster_gpu_node(const sim_cluster *c, int g);
/* A node with >= ngpus free GPUs and room for cpu/mem: the one with the
 * fewest free GPUs (binpack) or the most (spread); within one count the
 * bucket's order (newest link first). -1 when none. Cost is O(pools) to
 * gather the non-empty bucket sizes (sim_pool.nonempty) plus O(non-empty
 * sizes x pools) bucket probes, each O(1) without CPU/memory totals and a
 * fit-index descent, O(log nodes), with them. */
int sim_cluster_find_node(const sim_cluster *c, uint64_t pools, int ngpus, double cpu, double mem_gib,
                          bool spread);
/* Whether node (of an allowed pool) has >= ngpus free GPUs and room for
 * cpu/mem now. O(1). (a preferred node). */
bool sim_cluster_node_fits(const sim_cluster *c, int node, uint64_t pools, int ngpus, double cpu, double mem_gib);
/* Takes ngpus free GPUs (lowest indices first) and cpu/mem on node; writes the
 * global GPU indices into ids. The caller has checked that they fit. */
void sim_cluster_take(sim_cluster *c, int node, int ngpus, double cpu, double mem_gib, int *ids);
/* Returns GPUs (global indices) and cpu/mem to node. */
void sim_cluster_give(sim_cluster *c, int node, const int *ids, int ngpus, double cpu, double mem_gib);
/* Node `node` leaves the buckets and indexes (it stops taking new work;
 * its free cards no longer count in its pool's) or rejoins them. The node's
 * state is the caller's (sim_nodes.c). O(1), a fit-index and topology
 * update where there are. */
void sim_cluster_node_out(sim_cluster *c, int node);
void sim_cluster_node_in(sim_cluster *c, int node);

/* Card g of node takes (held) or leaves the ledger's free cards for a
 * policy's own use that is not a placement of whole cards (a shared card's
 * first tenant joins, its last leaves): the ledger's free cards stay the
 * cards no work uses (sim_gang.h). No CPU or memory, and no give logged
 * (host room does not grow). O(1), a fit-index move where the pool has one. */
void sim_cluster_hold_card(sim_cluster *c, int node, int g, bool held);
/* A policy keeps cards ids[0..n) of node out of whole-card work for the
 * whole run (MIG-enabled cards, taken at init): they are taken, and no
 * longer count among the cards a job across nodes could ever get. */
void sim_cluster_withhold(sim_cluster *c, int node, int n, int *ids);
/* The node's cards for whole-card work on an empty cluster: its GPUs less
 * those withheld. */
static inline int sim_cluster_whole_cap(const sim_cluster *c, int node)
{
    return c->nodes[node].ngpus - (c->withheld ? c->withheld[node] : 0);
}

/* From now on every node given anything back is listed once in c->given[0..
 * ngiven) until the watcher clears it (sim_cluster_given_clear): an index
 * that bounds what fits on a node by its free cards (sim_preempt.c) learns
 * which bounds may have fallen. Starts from an empty list; freed with the
 * nodes. */
void sim_cluster_watch_gives(sim_cluster *c);
void sim_cluster_given_clear(sim_cluster *c);

#endif
