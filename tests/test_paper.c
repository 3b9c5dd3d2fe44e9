/* test_paper.c - frag_model=paper (the FGD artifact's scores, typical
 * shapes and tie order), gpu_select=fgdfit and fgdhost, by hand.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/share/share_frag.h"
#include "../policies/share/share_paper.h"
#include "check.h"
#include "testutil.h"

typedef struct setup {
    sim s;
    sim_cluster cl;
    sim_config cfg;
    gs_error err;
    int rc;
} setup;

static int setup_init(setup *u, const char *cluster_json, const char *trace, const char *const *sets, uint64_t seed,
                      bool run, void (*on_done)(void *, const job *), void *ud)
{
    memset(u, 0, sizeof *u);
    u->cfg.trace_path = tu_write_tmp(trace);
    u->cfg.policy = "vgpu";
    u->cfg.seed = seed;
    for (int i = 0; sets && sets[i]; i++) {
        char *kv = xstrdup(sets[i]), *eq = strchr(kv, '=');
        *eq = 0;
        u->cfg.sets[u->cfg.nsets].key = kv;
        u->cfg.sets[u->cfg.nsets++].value = eq + 1;
    }
    if ((u->rc = sim_cluster_load(&u->cl, tu_write_tmp(cluster_json), tu_catalog(), &u->err)))
        return u->rc;
    if ((u->rc = tu_sim_init(&u->s, &u->cfg, tu_catalog(), &u->cl, NULL, &u->err)))
        return u->rc;
    sim_observe(&u->s, &(sim_observer){.job_done = on_done, .job_done_ud = ud});
    if (run && (u->rc = sim_run(&u->s)))
        u->err = u->s.err;
    return u->rc;
}

static void setup_free(setup *u)
{
    sim_free(&u->s);
    sim_cluster_free(&u->cl);
    for (int i = 0; i < u->cfg.nsets; i++)
        free(u->cfg.sets[i].key);
}

/* The node each job ran on, by its one-letter id. */
static void record_node(void *ud, const job *j)
{
    int *node = ud, k = j->req.id[0] - 'a';
    if (k >= 0 && k < 8)
        node[k] = j->node;
}

/* The artifact's integer scores. FGD: 100 x sigmoid(decrease), cut: 0 ->
 * 50; a decrease of 0.04 GPU -> 50.99 -> 50, of 0.05 -> 51.25 -> 51; a
 * growth of 0.01 -> 49.75 -> 49; 3 GPUs -> 95.26 -> 95; a rounding-sized
 * growth counts as none (50). BestFit, 96 cores and 8 GPUs free, asking 8
 * cores and 1 GPU: 1 - (88/128 + 7/8) / 2 = 0.21875 -> 21. DotProd, same:
 * 1 - (0.75 x 0.0625 + 1 x 0.125) / 2 = 0.9140625 -> 91. Normalization
 * 5 of 0..10 -> 50, 7 of 3..10 -> 57 (integer division), flat -> 0. */
static void paper_scores_by_hand(void)
{
    CHECK_NEAR(sc_paper_fgd_score(0), 50, 0, 0);
    CHECK_NEAR(sc_paper_fgd_score(-0.04), 50, 0, 0);
    CHECK_NEAR(sc_paper_fgd_score(-0.05), 51, 0, 0);
    CHECK_NEAR(sc_paper_fgd_score(0.01), 49, 0, 0);
    CHECK_NEAR(sc_paper_fgd_score(-3), 95, 0, 0);
    CHECK_NEAR(sc_paper_fgd_score(1e-13), 50, 0, 0);
    CHECK_EQ_INT((int)sc_paper_node_score(SC_SEL_BESTFIT, 96, 8, 8, 1), 21);
    CHECK_EQ_INT((int)sc_paper_node_score(SC_SEL_DOTPROD, 96, 8, 8, 1), 91);
    CHECK_EQ_INT((int)sc_paper_normalize(5, 0, 10), 50);
    CHECK_EQ_INT((int)sc_paper_normalize(7, 3, 10), 57);
    CHECK_EQ_INT((int)sc_paper_normalize(4, 4, 4), 0);
}

/* The artifact's measure on one node of 2 cards, 32 cores. Rows: 60% x 10,
 * CPU-only 40 cores x 9, 2 whole cards x 1 (20 rows). Most common first:
 * 60% covers 50%, with the CPU rows 95%: enough, the 2-card shape is cut;
 * weights 10/19 and 9/19. Cards free (30, 100): 60% fits, the 30 is
 * fragment; the CPU shape counts all 130 (whatever the free CPU):
 * (10 x 30 + 9 x 130) / 19 = 77.37% of a card. The same with 48 cores or
 * no memory free (memory plays no part). gpusim's exact measure on the same
 * node keeps the 2-card shape and lets the CPU shape fit at 48 cores. */
static void paper_frag_by_hand(void)
{
    const char *one_node = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":2,\"cpu\":32,"
                           "\"mem_gib\":128}]}";
    char tr[2048] = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\n";
    for (int i = 0; i < 10; i++)
        snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "s%d,0,1,1,60,60,0\n", i);
    for (int i = 0; i < 9; i++)
        snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "c%d,0,1,0,,,40\n", i);
    strcat(tr, "w0,0,1,2,,,0\n");
    static const char *const paper[] = {"frag_model=paper", NULL};
    setup u;
    CHECK_EQ_INT(setup_init(&u, one_node, tr, paper, 1, false, NULL, NULL), 0);
    const sc_state *st = u.s.pst[0];
    double freev[2] = {30, 100};
    double want = (10 * 30.0 + 9 * 130.0) / 19 / 100;
    CHECK_NEAR(sc_node_frag(st, 0, freev, 32, 128), want, 1e-12, 0);
    CHECK_NEAR(sc_node_frag(st, 0, freev, 48, 128), want, 1e-12, 0);
    CHECK_NEAR(sc_node_frag(st, 0, freev, 48, 0), want, 1e-12, 0);
    setup_free(&u);
    /* exact: 60% 1/2 -> 30 x 10/20; CPU 40 cores fits at 48: 0; 2 cards do
     * not fit: 130 x 1/20 */
    CHECK_EQ_INT(setup_init(&u, one_node, tr, NULL, 1, false, NULL, NULL), 0);
    st = u.s.pst[0];
    CHECK_NEAR(sc_node_frag(st, 0, freev, 48, 128), (10 * 30.0 + 130.0) / 20 / 100, 1e-12, 0);
    setup_free(&u);
}

/* Four identical one-card nodes and one task: every node scores the same,
 * so the seed's node order decides. Paper mode takes the node with the
 * lowest rank of that seed's order; over 40 seeds more than one node is
 * taken (a fixed order would always take node 0); exact mode always takes
 * node 0. */
static void paper_ties_follow_seed_order(void)
{
    const char *cl = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"count\":4,\"gpus\":1,\"cpu\":8}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\na,0,10,1,30,30,1\n";
    static const char *const paper[] = {"gpu_select=fgd", "frag_model=paper", NULL};
    static const char *const exact[] = {"gpu_select=fgd", NULL};
    int seen[4] = {0};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        int node[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
        setup u;
        CHECK_EQ_INT(setup_init(&u, cl, tr, paper, seed, true, record_node, node), 0);
        int *rank = sc_paper_rank_new(seed, 4), lowest = 0;
        for (int k = 1; k < 4; k++)
            if (rank[k] < rank[lowest])
                lowest = k;
        CHECK_EQ_INT(node[0], lowest);
        if (node[0] >= 0 && node[0] < 4)
            seen[node[0]] = 1;
        free(rank);
        setup_free(&u);
        CHECK_EQ_INT(setup_init(&u, cl, tr, exact, seed, true, record_node, node), 0);
        CHECK_EQ_INT(node[0], 0);
        setup_free(&u);
    }
    CHECK(seen[0] + seen[1] + seen[2] + seen[3] >= 2);
}

/* fgdfit's second rule. Node 0 has 2 cores, node 1 has 64; a (a whole card,
 * 8 cores) can only go to node 1. c (CPU only, 1 core) then grows the
 * fragmentation nowhere: fgd follows the seed's order, fgdfit takes node 1,
 * whose card is taken (node 0's would idle without CPU). The seed is one
 * whose order puts node 0 first, so the two differ. Its first rule: b (a
 * 30% share) after d (70%) on a 3-node cluster goes to d's card, the fit
 * that leaves no room (30 is the smallest share). */
static void fgdfit_rules_by_hand(void)
{
    const char *cl = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":1,\"cpu\":2},"
                     "{\"model\":\"A100-SXM4-80GB\",\"gpus\":1,\"cpu\":64}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\na,0,10,1,,,8\nc,1,10,0,,,1\n";
    uint64_t seed = 1;
    for (; seed < 100; seed++) {
        int *rank = sc_paper_rank_new(seed, 2), first = rank[0] < rank[1];
        free(rank);
        if (first)
            break;
    }
    static const char *const fgd[] = {"gpu_select=fgd", "frag_model=paper", NULL};
    static const char *const fit[] = {"gpu_select=fgdfit", "frag_model=paper", NULL};
    int node[8];
    setup u;
    CHECK_EQ_INT(setup_init(&u, cl, tr, fgd, seed, true, record_node, node), 0);
    CHECK_EQ_INT(node[0], 1);
    CHECK_EQ_INT(node[2], 0);
    setup_free(&u);
    CHECK_EQ_INT(setup_init(&u, cl, tr, fit, seed, true, record_node, node), 0);
    CHECK_EQ_INT(node[0], 1);
    CHECK_EQ_INT(node[2], 1);
    setup_free(&u);

    const char *cl3 = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"count\":3,\"gpus\":1,\"cpu\":8}]}";
    const char *tr3 = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\nd,0,10,1,70,70,1\nb,1,10,1,30,30,1\n";
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(setup_init(&u, cl3, tr3, fit, 3 + (uint64_t)i, true, record_node, node), 0);
        CHECK_EQ_INT(node[1], node[3]);
        setup_free(&u);
    }
}

/* fgdfit's third rule. Node 0 (model X, 1 card) and node 1 (model Y, 4
 * cards); the trace's rows: a (any model), b (X only), c (Y only), a card
 * each. An average row asks 1 GPU, a third of a GPU of X through b: with 5
 * GPUs free, that is 5/3 GPUs, all of X's 1 (X is scarce), not all of Y's 4.
 * fgd scores a alike on both (each placement lowers the measure by a third
 * of a GPU: integer 58) and follows the seed's order, here node 0 first;
 * fgdfit keeps a off X. b then finds its card under fgdfit only. */
static void fgdfit_scarce_model_by_hand(void)
{
    const char *cl = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":1,\"cpu\":64},"
                     "{\"model\":\"H100-SXM5-80GB\",\"gpus\":4,\"cpu\":64}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,gpu_model,cpu\n"
                     "a,0,10,1,,,,1\nb,1,10,1,,,A100-SXM4-80GB,1\nc,2,10,1,,,H100-SXM5-80GB,1\n";
    uint64_t seed = 1;
    for (; seed < 100; seed++) {
        int *rank = sc_paper_rank_new(seed, 2), first = rank[0] < rank[1];
        free(rank);
        if (first)
            break;
    }
    CHECK(seed < 100);
    static const char *const fgd[] = {"gpu_select=fgd", "frag_model=paper", NULL};
    static const char *const fit[] = {"gpu_select=fgdfit", "frag_model=paper", NULL};
    static const char *const fit_exact[] = {"gpu_select=fgdfit", NULL};
    int node[8];
    setup u;
    CHECK_EQ_INT(setup_init(&u, cl, tr, fgd, seed, true, record_node, node), 0);
    CHECK_EQ_INT(node[0], 0);
    setup_free(&u);
    CHECK_EQ_INT(setup_init(&u, cl, tr, fit, seed, true, record_node, node), 0);
    CHECK_EQ_INT(node[0], 1);
    CHECK_EQ_INT(node[1], 0);
    CHECK_EQ_INT(node[2], 1);
    setup_free(&u);
    CHECK_EQ_INT(setup_init(&u, cl, tr, fit_exact, seed, true, record_node, node), 0);
    CHECK_EQ_INT(node[0], 1);
    setup_free(&u);
}

/* fgdhost: two nodes of 2 cards, 12 and 40 cores; the trace's GPU task a
 * asks a card and 8 cores (8 cores per GPU), c asks 4 cores and no GPU.
 * c leaves a room on either node, so fgd's measure grows nowhere and fgdfit
 * ties too (2 idle cards each): both follow the seed's order, node 0 first.
 * fgdhost: node 0 feeds min(2, 12/8) = 1.5 cards before c and 1 after (0.5
 * more stranded), node 1 all 2 either way (0): c goes to node 1. */
static void fgdhost_strands_least_by_hand(void)
{
    const char *cl = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":2,\"cpu\":12},"
                     "{\"model\":\"A100-SXM4-80GB\",\"gpus\":2,\"cpu\":40}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\nc,0,10,0,,,4\na,1,10,1,,,8\n";
    uint64_t seed = 1;
    for (; seed < 100; seed++) {
        int *rank = sc_paper_rank_new(seed, 2), first = rank[0] < rank[1];
        free(rank);
        if (first)
            break;
    }
    CHECK(seed < 100);
    static const char *const sel[][3] = {{"gpu_select=fgd", "frag_model=paper", NULL},
                                         {"gpu_select=fgdfit", "frag_model=paper", NULL},
                                         {"gpu_select=fgdhost", "frag_model=paper", NULL},
                                         {"gpu_select=fgdhost", NULL, NULL}};
    static const int want[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++) {
        int node[8];
        setup u;
        CHECK_EQ_INT(setup_init(&u, cl, tr, sel[i], seed, true, record_node, node), 0);
        CHECK_EQ_INT(node['c' - 'a'], want[i]);
        setup_free(&u);
    }
}

const test_case tests_paper[] = {
    {"paper/scores_by_hand", paper_scores_by_hand},
    {"paper/frag_by_hand", paper_frag_by_hand},
    {"paper/ties_follow_seed_order", paper_ties_follow_seed_order},
    {"paper/fgdfit_rules_by_hand", fgdfit_rules_by_hand},
    {"paper/fgdfit_scarce_model_by_hand", fgdfit_scarce_model_by_hand},
    {"paper/fgdhost_strands_least_by_hand", fgdhost_strands_least_by_hand},
    {NULL, NULL},
};
