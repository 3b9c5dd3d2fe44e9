/* test_cluster.c - the ledger never over-allocates; binpack and spread pick
 * the same node a brute-force scan would; cluster files are validated.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_cluster.h"
#include "check.h"
#include "testutil.h"

typedef struct held {
    int node, n, ids[8];
    double cpu;
} held;

static int brute(const sim_cluster *c, uint64_t pools, int k, double cpu, bool spread)
{
    int best = -1;
    for (int i = 0; i < c->nnodes; i++) {
        const sim_node *n = &c->nodes[i];
        if (!(pools >> n->pool & 1) || n->free_gpus < k)
            continue;
        if (n->cpu_total >= 0 && n->cpu_total - n->cpu_used < cpu - 1e-9)
            continue;
        if (best < 0 || (spread ? n->free_gpus > c->nodes[best].free_gpus : n->free_gpus < c->nodes[best].free_gpus))
            best = i;
    }
    return best;
}

static void random_take_give(void)
{
    const char *path = tu_write_tmp("{\"name\":\"t\",\"nodes\":["
                                    "{\"model\":\"H100-SXM5-80GB\",\"count\":5,\"gpus\":8,\"cpu\":64},"
                                    "{\"model\":\"A100-SXM4-80GB\",\"count\":3,\"gpus\":4,\"cpu\":32},"
                                    "{\"model\":\"L4-24GB\",\"count\":4,\"gpus\":2}]}");
    sim_cluster c;
    gs_error err;
    CHECK_EQ_INT(sim_cluster_load(&c, path, tu_catalog(), &err), 0);
    CHECK_EQ_INT(c.ngpus, 5 * 8 + 3 * 4 + 4 * 2);
    CHECK_EQ_INT(c.npools, 3);
    held *h = calloc(4000, sizeof *h);
    int nh = 0;
    srand(7);
    for (int step = 0; step < 20000; step++) {
        if (nh > 0 && rand() % 2) {
            int i = rand() % nh;
            sim_cluster_give(&c, h[i].node, h[i].ids, h[i].n, h[i].cpu, 0);
            h[i] = h[--nh];
        } else {
            int k = rand() % 9;
            double cpu = (double)(rand() % 20);
            uint64_t pools = (uint64_t)(rand() % 7 + 1);
            bool spread = rand() % 2;
            int node = sim_cluster_find_node(&c, pools, k, cpu, 0, spread);
            int want = brute(&c, pools, k, cpu, spread);
            CHECK((node < 0) == (want < 0));
            if (node >= 0 && want >= 0)
                CHECK_EQ_INT(c.nodes[node].free_gpus, c.nodes[want].free_gpus);
            if (node >= 0) {
                h[nh] = (held){node, k, {0}, cpu};
                sim_cluster_take(&c, node, k, cpu, 0, h[nh].ids);
                for (int q = 0; q < k; q++)
                    CHECK_EQ_INT(sim_cluster_gpu_node(&c, h[nh].ids[q]), node);
                nh++;
            }
        }
        /* invariants: per-node free count matches the mask, nothing doubly held */
        int total_free = 0;
        for (int i = 0; i < c.nnodes; i++) {
            CHECK_EQ_INT(__builtin_popcountll(c.nodes[i].free_mask), c.nodes[i].free_gpus);
            CHECK(c.nodes[i].free_gpus >= 0 && c.nodes[i].free_gpus <= c.nodes[i].ngpus);
            CHECK(c.nodes[i].cpu_total < 0 || c.nodes[i].cpu_used <= c.nodes[i].cpu_total + 1e-9);
            total_free += c.nodes[i].free_gpus;
        }
        for (int pi = 0; pi < c.npools; pi++) /* the mask of non-empty buckets follows the lists */
            for (int k = 1; k <= c.pools[pi].max_node_gpus; k++)
                CHECK_EQ_INT((int)(c.pools[pi].nonempty >> (k - 1) & 1), c.pools[pi].head[k] >= 0);
        int held_gpus = 0;
        for (int i = 0; i < nh; i++)
            held_gpus += h[i].n;
        CHECK_EQ_INT(total_free + held_gpus, c.ngpus);
        if (check_failures > 5)
            break;
    }
    free(h);
    sim_cluster_free(&c);
}

static void can_ever_fit(void)
{
    sim_cluster c;
    gs_error err;
    CHECK_EQ_INT(sim_cluster_from_spec(&c, "H100-SXM5-80GB:20,L4:3", 8, tu_catalog(), &err), 0);
    CHECK_EQ_INT(c.nnodes, 4); /* 8+8+4 H100, 3 L4 */
    uint64_t all = sim_cluster_all_pools(&c);
    CHECK(sim_cluster_can_ever_fit(&c, all, 8, 0, 0));
    CHECK(!sim_cluster_can_ever_fit(&c, all, 9, 0, 0));
    CHECK(!sim_cluster_can_ever_fit(&c, 2, 4, 0, 0)); /* L4 pool: nodes of 3 */
    CHECK(sim_cluster_can_ever_fit(&c, 2, 3, 1e6, 1e6)); /* --gpus: CPU/memory unlimited */
    CHECK_EQ_INT(sim_cluster_model_mask(&c, tu_catalog(), "L4-24GB", &err), 2);
    CHECK_EQ_INT(sim_cluster_model_mask(&c, tu_catalog(), "nope", &err), 0);
    CHECK_STR_HAS(err.msg, "unknown GPU model 'nope'");
    sim_cluster_free(&c);
    CHECK_EQ_INT(sim_cluster_from_spec(&c, "H100-SXM5-80GB", 8, tu_catalog(), &err), GS_EUSAGE);
    CHECK_EQ_INT(sim_cluster_from_spec(&c, "V100:8", 8, tu_catalog(), &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "unknown GPU model 'V100'");
}

static void bad_cluster_files(void)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{\"nodes\":[]}", "non-empty array"},
        {"{\"nodes\":[{\"model\":\"H100-SXM5-80GB\",\"gpus\":8,\"colour\":1}]}", "unknown key 'colour'"},
        {"{\"nodes\":[{\"model\":\"V100\",\"gpus\":8}]}", "unknown GPU model 'V100'"},
        {"{\"nodes\":[{\"model\":\"H100-SXM5-80GB\",\"gpus\":65}]}", "nodes[0].gpus"},
        {"{\"nodes\":[{\"model\":\"H100-SXM5-80GB\",\"gpus\":8,\"cpu\":-1}]}", "nodes[0].cpu"},
        {"not json", "line 1, column 1: unexpected 'n'"},
        {"[1]", "expected a JSON object"},
        {"{\"nodes\":[{\"model\":\"H100-SXM5-80GB\",\n \"gpus\":8,}]}", "line 2, column 11: unexpected '}'"},
        {"{\"nodes\":[{\"model\":\"H100-SXM5-80GB\",\"gpus\":8,\"gpus\":4}]}", "duplicate key 'nodes[0].gpus'"},
        {"{\"nodes\":[{\"model\":\"H100-SXM5-80GB\",\"gpus\":8}]} }", "after the JSON value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sim_cluster c;
        gs_error err;
        const char *path = tu_write_tmp(cases[i].json);
        CHECK_EQ_INT(sim_cluster_load(&c, path, tu_catalog(), &err), GS_EINPUT);
        CHECK_STR_HAS(err.msg, cases[i].want);
        CHECK_STR_HAS(err.msg, path);
    }
}

const test_case tests_cluster[] = {
    {"cluster/random_take_give_never_overallocates", random_take_give},
    {"cluster/can_ever_fit_and_model_masks", can_ever_fit},
    {"cluster/bad_cluster_files", bad_cluster_files},
    {NULL, NULL},
};
