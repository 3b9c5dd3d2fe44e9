/* test_topo.c - the topology's domain index (sim_topo.c) against a
 * brute-force scan of every domain through random takes and gives, and
 * jobs across nodes placed by it on hand-computed timelines: a 24-GPU job
 * inside one rack of free nodes rather than across two fragmented racks,
 * at full speed, and across racks or blocks at the speed the formula says.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "../base/gs_rng.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* {==== the index against a scan ====} */

/* Domain d's (S_t, q_t) from the ledger's nodes. */
static void brute_key(const sim_cluster *c, int p, int l, int d, int t, int *S, int *q)
{
    *S = *q = 0;
    for (int n = 0; n < c->nnodes; n++) {
        const sim_node *nd = &c->nodes[n];
        if (nd->pool != p || sim_topo_dom(c->topo, n, l) != d)
            continue;
        if (nd->free_gpus >= t)
            (*S)++;
        else if (nd->free_gpus > *q)
            *q = nd->free_gpus;
    }
}

/* The key of the tightest domain for (g, k, r): row k - 1 with q >= r
 * first (least q), then the least S >= k (least q): -1 S when none. */
static void brute_best(const sim_cluster *c, int p, int l, int ndom, int g, int k, int r, int *bs, int *bq)
{
    *bs = -1;
    *bq = 0;
    for (int d = 0; d < ndom; d++) {
        int S, q;
        brute_key(c, p, l, d, g, &S, &q);
        bool fits = S >= k || (S == k - 1 && r < g && q >= r);
        if (!fits)
            continue;
        /* order: (k - 1, q) rows before S >= k rows; then S, then q */
        int rank_s = S == k - 1 ? -1 : S, best_rank = *bs < 0 ? 1 << 30 : *bs == k - 1 ? -1 : *bs;
        if (*bs < 0 || rank_s < best_rank || (rank_s == best_rank && q < *bq)) {
            *bs = S;
            *bq = q;
        }
    }
}

static void index_matches_scan(void)
{
    const char *cl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 37, \"gpus\": 8},"
                     " {\"model\": \"A100-SXM4-80GB\", \"count\": 11, \"gpus\": 4}],"
                     " \"topology\": {\"levels\": [\"block\", \"rack\"], \"sizes\": [3, 5], \"bw_gbps\": [50, 200]}}";
    sim_cluster c;
    gs_error err;
    CHECK_EQ_INT(sim_cluster_load(&c, tu_write_tmp(cl), tu_catalog(), &err), 0);
    CHECK(c.topo && c.topo->nlevels == 2 && c.topo->rack_nodes == 5 && c.topo->block_racks == 3);
    gsl_rng *rng = gs_rng_new(7, 1);
    int held[48][8], nheld[48] = {0}, mism = 0, queries = 0, found = 0;
    for (int step = 0; step < 4000; step++) {
        int n = (int)gsl_rng_uniform_int(rng, (unsigned long)c.nnodes);
        sim_node *nd = &c.nodes[n];
        if (gsl_rng_uniform(rng) < 0.55 && nd->free_gpus > 0) {
            int k = 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)nd->free_gpus);
            int ids[64];
            sim_cluster_take(&c, n, k, 0, 0, ids);
            for (int i = 0; i < k; i++)
                held[n][nheld[n]++] = ids[i];
        } else if (nheld[n] > 0) {
            int k = 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)nheld[n]);
            nheld[n] -= k;
            sim_cluster_give(&c, n, &held[n][nheld[n]], k, 0, 0);
        }
        for (int p = 0; p < c.npools; p++)
            for (int l = 0; l < 2; l++) {
                int ndom = c.topo->lv[p][l].ndom, G = c.pools[p].max_node_gpus;
                /* every domain's key for one threshold, and one query */
                int t = 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)G);
                for (int d = 0; d < ndom; d++) {
                    int S, q, qi, Si = sim_topo_count(c.topo, p, l, d, t, &qi);
                    brute_key(&c, p, l, d, t, &S, &q);
                    mism += S != Si || q != qi;
                }
                int g = 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)G), k = 2 + (int)gsl_rng_uniform_int(rng, 6);
                int r = 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)g), bs, bq;
                brute_best(&c, p, l, ndom, g, k, r, &bs, &bq);
                int d = sim_topo_best(c.topo, p, l, g, k, r);
                queries++;
                if (bs < 0) {
                    mism += d != -1;
                } else if (d < 0) {
                    mism++;
                } else {
                    int S, q;
                    brute_key(&c, p, l, d, g, &S, &q);
                    mism += S != bs || q != bq;
                    found++;
                }
                int out[64], m = sim_topo_largest(c.topo, p, l, g, out, 64), prev = 1 << 30;
                for (int i = 0; i < m; i++) {
                    int q, S = sim_topo_count(c.topo, p, l, out[i], g, &q);
                    mism += S > prev || S < 1;
                    prev = S;
                }
            }
    }
    CHECK_EQ_INT(mism, 0);
    CHECK(found > queries / 10 && found < queries); /* the queries both fit and miss */
    gsl_rng_free(rng);
    sim_cluster_free(&c);
}

/* {==== placements on hand timelines ====} */

typedef struct rec {
    int n;
    char id[16][16];
    double start_s[16], end_s[16];
    int nodes[16][8], nparts[16];
    const sim *s;
} rec;

static void record(void *ud, const job *j)
{
    rec *r = ud;
    int i = r->n++;
    snprintf(r->id[i], 16, "%.15s", j->req.id);
    r->start_s[i] = gs_us_to_s(j->start_us);
    r->end_s[i] = gs_us_to_s(sim_now(r->s));
    r->nparts[i] = job_spans(j) ? j->gpu.span->nparts : 1;
    for (int k = 0; k < r->nparts[i] && k < 8; k++)
        r->nodes[i][k] = job_spans(j) ? j->gpu.span->part[k].node : j->node;
}

static int find(const rec *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->id[i], id))
            return i;
    return -1;
}

static void run_topo(const char *cluster, const char *trace, rec *rc)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    memset(rc, 0, sizeof *rc);
    r.cfg.trace_path = tu_write_tmp(trace);
    r.cfg.policy = "whole";
    r.cfg.seed = 1;
    CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cluster), tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    rc->s = &r.s;
    sim_observe(&r.s, &(sim_observer){.job_done = record, .job_done_ud = rc});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    tu_run_free(&r);
}

/* Two racks of 4 H100 nodes (8 GPUs each). A, B, C (8 GPUs) take nodes 0,
 * 1, 2 at 0; B ends at 5: rack 0 has nodes 1 and 3 free, rack 1 all four.
 * G (24 GPUs, 3 nodes) at 10 goes inside rack 1 at full speed: 10 + 100.
 * On a flat network the same G takes the nodes in the ledger's order, the
 * one given back first: 1, 3, 4 (it would span both racks). */
static const char *two_racks = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 8, \"gpus\": 8}],"
                               " \"topology\": {\"levels\": [\"rack\"], \"sizes\": [4], \"bw_gbps\": [100]}}";

static void inside_one_rack(void)
{
    static rec rc;
    run_topo(two_racks, "id,submit,duration,gpus\nA,0,1000,8\nB,0,5,8\nC,0,1000,8\nG,10,100,24\n", &rc);
    int g = find(&rc, "G");
    CHECK(g >= 0);
    CHECK_NEAR(rc.start_s[g], 10, 0, 1e-9);
    CHECK_NEAR(rc.end_s[g], 110, 0, 1e-9);
    CHECK_EQ_INT(rc.nparts[g], 3);
    for (int k = 0; k < 3; k++)
        CHECK(rc.nodes[g][k] >= 4); /* rack 1 */
    run_topo("{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 8, \"gpus\": 8}]}",
             "id,submit,duration,gpus\nA,0,1000,8\nB,0,5,8\nC,0,1000,8\nG,10,100,24\n", &rc);
    g = find(&rc, "G");
    CHECK(g >= 0 && rc.nodes[g][0] == 1 && rc.nodes[g][1] == 3 && rc.nodes[g][2] == 4);
    CHECK_NEAR(rc.end_s[g], 110, 0, 1e-9); /* no topology: no network factor */
}

/* The same racks with nodes 0, 2, 4, 5 held (B and D end at 5): no rack
 * has three free nodes, so G spans both racks and runs at 1 / ((1 - 0.2) + 0.2 x
 * 900 / 100) = 1 / 2.6 of its speed (comm: the default 0.2; H100 NVLink 900
 * GB/s; across racks 100): it ends at 10 + 260. */
static void across_racks_at_the_formula(void)
{
    static rec rc;
    run_topo(two_racks,
             "id,submit,duration,gpus\nA,0,1000,8\nB,0,5,8\nC,0,1000,8\nD,0,5,8\nE,0,1000,8\nF,0,1000,8\n"
             "G,10,100,24\n",
             &rc);
    int g = find(&rc, "G");
    CHECK(g >= 0);
    CHECK_NEAR(rc.start_s[g], 10, 0, 1e-9);
    CHECK_NEAR(rc.end_s[g], 10 + 100 * 2.6, 0, 1e-6);
    bool r0 = false, r1 = false;
    for (int k = 0; k < rc.nparts[g]; k++) {
        r0 |= rc.nodes[g][k] < 4;
        r1 |= rc.nodes[g][k] >= 4;
    }
    CHECK(r0 && r1);
}

/* Blocks of two racks of two nodes: with one node free in every rack, a
 * 16-GPU job spans racks of one block (200 GB/s: 1 / (0.8 + 0.2 x 4.5) =
 * 1 / 1.7); with one free node per block, it spans blocks (50 GB/s: 1 /
 * (0.8 + 0.2 x 18) = 1 / 4.4). */
static void across_blocks_slower(void)
{
    const char *blocks = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 8, \"gpus\": 8}],"
                         " \"topology\": {\"levels\": [\"block\", \"rack\"], \"sizes\": [2, 2], \"bw_gbps\": [50, 200]}}";
    static rec rc;
    /* a, c, e, g hold nodes 0, 2, 4, 6 (b, d, f, h end at 5): one free node a rack */
    run_topo(blocks,
             "id,submit,duration,gpus\na,0,1000,8\nb,0,5,8\nc,0,1000,8\nd,0,5,8\ne,0,1000,8\nf,0,5,8\ng,0,1000,8\n"
             "h,0,5,8\nG,10,100,16\n",
             &rc);
    int g = find(&rc, "G");
    CHECK(g >= 0);
    CHECK_NEAR(rc.end_s[g], 10 + 100 * 1.7, 0, 1e-6);
    /* now a block's second rack busy too: nodes 0, 2, 3, 4, 6, 7 held */
    run_topo(blocks,
             "id,submit,duration,gpus\na,0,1000,8\nb,0,5,8\nc,0,1000,8\nd,0,1000,8\ne,0,1000,8\nf,0,5,8\n"
             "g,0,1000,8\nh,0,1000,8\nG,10,100,16\n",
             &rc);
    g = find(&rc, "G");
    CHECK(g >= 0);
    CHECK_NEAR(rc.end_s[g], 10 + 100 * 4.4, 0, 1e-6);
}

/* Bad topology keys name the field. */
static void bad_topology(void)
{
    const char *cases[][2] = {
        {"\"levels\": [\"rack\", \"block\"], \"sizes\": [4, 2], \"bw_gbps\": [1, 1]", "topology.levels"},
        {"\"levels\": [\"rack\"], \"sizes\": [0], \"bw_gbps\": [1]", "topology.sizes"},
        {"\"levels\": [\"rack\"], \"sizes\": [4], \"bw_gbps\": [0]", "topology.bw_gbps"},
        {"\"levels\": [\"rack\"], \"sizes\": [4], \"bw_gbps\": [1], \"spine\": 1", "unknown key 'spine'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"count\": 4, \"gpus\": 8}], "
                 "\"topology\": {%s}}", cases[i][0]);
        sim_cluster c;
        gs_error err = {0};
        CHECK_EQ_INT(sim_cluster_load(&c, tu_write_tmp(text), tu_catalog(), &err), GS_EINPUT);
        CHECK_STR_HAS(err.msg, cases[i][1]);
    }
}

const test_case tests_topo[] = {
    {"topo/index_matches_scan", index_matches_scan},
    {"topo/inside_one_rack", inside_one_rack},
    {"topo/across_racks_at_the_formula", across_racks_at_the_formula},
    {"topo/across_blocks_slower", across_blocks_slower},
    {"topo/bad_topology", bad_topology},
    {NULL, NULL},
};
