/* test_select.c - vgpu's gpu_select strategies on small clusters
 * whose best placement is known by hand, FGD's fragmentation measure
 * against a hand computation, and the fill-up driver on a hand timeline.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/share/share_frag.h"
#include "../policies/share/share_paper.h"
#include "../cli/fill.h"
#include "check.h"
#include "testutil.h"

typedef struct setup {
    sim s;
    sim_cluster cl;
    sim_config cfg;
    gs_error err;
    int rc;
} setup;

/* Loads a cluster JSON and inits vgpu on trace with `sets` (NULL-ended).
 * Runs the simulation when `run`. */
static uint64_t g_seed = 1; /* the run seed of the next setup_init */

static int setup_init(setup *u, const char *cluster_json, const char *trace, const char *const *sets, bool run,
                      void (*on_done)(void *, const job *), void *ud)
{
    memset(u, 0, sizeof *u);
    u->cfg.trace_path = tu_write_tmp(trace);
    u->cfg.policy = "vgpu";
    u->cfg.seed = g_seed;
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

/* Records the first card (global index) and node of each job, by id. */
typedef struct where {
    int card[8], node[8];
} where;

static void record(void *ud, const job *j)
{
    where *w = ud;
    int k = j->req.id[0] - 'a';
    if (k >= 0 && k < 8) {
        w->card[k] = j->ngpu_ids > 0 ? job_gpu_ids(j)[0] : -1;
        w->node[k] = j->node;
    }
}

/* One node, two cards. a (40%) lands on card 0 (both empty: the lower
 * index). For b (40%): on card 0 the cards keep (20, 100) free, on card 1
 * (60, 60). The trace's shapes are 40% x 2/5 and 60% x 3/5; with (20, 100)
 * the 20 left is fragment for both (0.2 GPU expected), with (60, 60) nothing
 * is: FGD puts b on card 1. bestfit takes the tightest card: card 0. */
static const char *one_node = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":2,\"cpu\":32,"
                              "\"mem_gib\":128}]}";
static const char *fgd_trace = "id,submit,duration,gpus,gpucores,gpumem_pct\n"
                               "a,0,100,1,40,40\nb,1,100,1,40,40\n"
                               "c,500,1,1,60,60\nd,501,1,1,60,60\ne,502,1,1,60,60\n";

static void fgd_spreads_to_keep_room(void)
{
    setup u;
    where w = {{0}, {0}};
    static const char *const sets[] = {"gpu_select=fgd", NULL};
    CHECK_EQ_INT(setup_init(&u, one_node, fgd_trace, sets, true, record, &w), 0);
    CHECK_EQ_INT(w.card[0], 0);
    CHECK_EQ_INT(w.card[1], 1);
    setup_free(&u);
}

static void bestfit_takes_tightest_card(void)
{
    setup u;
    where w = {{0}, {0}};
    static const char *const sets[] = {"gpu_select=bestfit", NULL};
    CHECK_EQ_INT(setup_init(&u, one_node, fgd_trace, sets, true, record, &w), 0);
    CHECK_EQ_INT(w.card[0], 0);
    CHECK_EQ_INT(w.card[1], 0);
    setup_free(&u);
}

/* Two nodes of one card: node 0 with 8 cores, node 1 with 64. a (50%, no
 * CPU) ties and takes node 0. b (50%, no CPU): bestfit scores what is left,
 * node 0 = cpu 8/8 + gpu 0 = 1, node 1 = 1 + 0.5 = 1.5: node 0. dotprod
 * scores request . free, node 0 = 0.5 x 0.5 = 0.25, node 1 = 0.5 x 1 = 0.5:
 * node 1. c (4 cores, 50%) then: dotprod, node 0 = (4/8) x 1 + 0.5 x 0.5 =
 * 0.75 vs node 1 = (4/64) x 1 + 0.5 x 0.5 = 0.3125: node 0. */
static const char *two_nodes = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":1,\"cpu\":8},"
                               "{\"model\":\"A100-SXM4-80GB\",\"gpus\":1,\"cpu\":64}]}";
static const char *dot_trace = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\n"
                               "a,0,100,1,50,50,0\nb,1,100,1,50,50,0\nc,2,100,1,50,50,4\n";

static void dotprod_aligns_request_and_free(void)
{
    setup u;
    where w = {{0}, {0}};
    static const char *const sets[] = {"gpu_select=dotprod", NULL};
    CHECK_EQ_INT(setup_init(&u, two_nodes, dot_trace, sets, true, record, &w), 0);
    CHECK_EQ_INT(w.node[0], 0);
    CHECK_EQ_INT(w.node[1], 1);
    CHECK_EQ_INT(w.node[2], 0);
    setup_free(&u);
}

static void bestfit_leaves_least(void)
{
    setup u;
    where w = {{0}, {0}};
    static const char *const sets[] = {"gpu_select=bestfit", NULL};
    CHECK_EQ_INT(setup_init(&u, two_nodes, dot_trace, sets, true, record, &w), 0);
    CHECK_EQ_INT(w.node[0], 0);
    CHECK_EQ_INT(w.node[1], 0);
    CHECK_EQ_INT(w.node[2], 1); /* node 0's card is full now */
    setup_free(&u);
}

/* Four one-card nodes; node 3 has 2 cores, the task asks 4: random never
 * picks it, and over 300 seeds picks nodes 0..2 about 100 times each
 * (binomial sd 8.2; the band is +-4 sd). The same seed picks the same node. */
static void random_is_uniform_over_feasible(void)
{
    const char *cl = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"count\":3,\"gpus\":1,\"cpu\":8},"
                     "{\"model\":\"A100-SXM4-80GB\",\"gpus\":1,\"cpu\":2}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\na,0,1,1,30,30,4\n";
    static const char *const sets[] = {"gpu_select=random", NULL};
    int count[4] = {0}, first = -1;
    for (int seed = 1; seed <= 300; seed++) {
        setup u;
        where w = {{0}, {0}};
        g_seed = (uint64_t)seed;
        CHECK_EQ_INT(setup_init(&u, cl, tr, sets, true, record, &w), 0);
        if (w.node[0] >= 0 && w.node[0] < 4)
            count[w.node[0]]++;
        if (seed == 7)
            first = w.node[0];
        setup_free(&u);
    }
    CHECK_EQ_INT(count[3], 0);
    for (int k = 0; k < 3; k++)
        CHECK(count[k] >= 67 && count[k] <= 133);
    CHECK_EQ_INT(count[0] + count[1] + count[2], 300);
    setup u;
    where w = {{0}, {0}};
    g_seed = 7;
    CHECK_EQ_INT(setup_init(&u, cl, tr, sets, true, record, &w), 0);
    CHECK_EQ_INT(w.node[0], first);
    setup_free(&u);
    g_seed = 1;
}

/* FGD's measure by hand. Shapes: 60% x 1, 2 whole cards x 1, CPU-only 40
 * cores x 2 (weights 1/4, 1/4, 1/2). One node of 2 cards, 32 cores, cards
 * free (30%, 100%): 60% fits, only the 30 is fragment -> 30/4; 2 whole cards
 * do not fit -> all 130/4; 40 cores do not fit -> all 130/2. Sum 105% of a
 * card = 1.05 GPUs. With 48 cores free the CPU task fits and adds nothing:
 * 7.5 + 32.5 = 40% = 0.40 GPUs. Empty cards (100, 100), 48 cores: 0. */
static void frag_matches_hand_computation(void)
{
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,cpu\n"
                     "x,0,1,1,60,60,0\ny,0,1,2,,,0\nz,0,1,0,,,40\nw,0,1,0,,,40\n";
    setup u;
    CHECK_EQ_INT(setup_init(&u, one_node, tr, NULL, false, NULL, NULL), 0);
    const sc_state *st = u.s.pst[0];
    double freev[2] = {30, 100};
    CHECK_NEAR(sc_node_frag(st, 0, freev, 32, 128), 1.05, 1e-12, 0);
    CHECK_NEAR(sc_node_frag(st, 0, freev, 48, 128), 0.40, 1e-12, 0);
    double empty[2] = {100, 100};
    CHECK_NEAR(sc_node_frag(st, 0, empty, 48, 128), 0.0, 1e-12, 0);
    /* the cluster as it stands (empty, 32 cores): y fits, z and w do not */
    CHECK_NEAR(sc_frag_gpus(st), 0.5 * 2.0, 1e-12, 0);
    setup_free(&u);
}

/* Fill-up by hand: one node of 2 cards, rows of 60% x 3, fill to 1.0 (2
 * GPUs). The three originals request 1.8; a drawn fourth would make 2.4 >
 * 2: three tasks. The first two take a card each; the third fits nowhere.
 * Curve: 30% arrived -> 30% allocated, 60 -> 60, 90 -> still 60; nothing
 * past 90. */
static void fill_by_hand(void)
{
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct\np1,0,5,1,60,60\np2,0,5,1,60,60\np3,0,5,1,60,60\n";
    static const char *const sets[] = {"gpu_select=fgd", NULL};
    setup u;
    CHECK_EQ_INT(setup_init(&u, one_node, tr, sets, false, NULL, NULL), 0);
    fill_rows rows;
    gs_error err = {0};
    CHECK_EQ_INT(fill_rows_load(u.cfg.trace_path, false, &rows, &err), 0);
    CHECK_EQ_INT((int)rows.n, 3);
    fill_result res;
    CHECK_EQ_INT(fill_run(&u.s, &rows, 1.0, &res, &err), 0);
    CHECK_EQ_INT(res.tasks, 3);
    CHECK_EQ_INT(res.placed, 2);
    CHECK_EQ_INT(res.failed, 1);
    CHECK_EQ_INT(res.npts, 101);
    CHECK_NEAR(res.alloc_pct[30], 30, 1e-9, 0);
    CHECK_NEAR(res.alloc_pct[60], 60, 1e-9, 0);
    CHECK_NEAR(res.alloc_pct[90], 60, 1e-9, 0);
    CHECK(isnan(res.alloc_pct[91]));
    CHECK_NEAR(res.arrived_pct_end, 90, 1e-9, 0);
    /* at the end both cards have 40% free, below the only shape (60%):
     * all 0.8 GPU idle is fragment, 40% of capacity */
    CHECK_NEAR(res.frag_pct_end, 40, 1e-9, 0);
    fill_result_free(&res);
    fill_rows_free(&rows);
    setup_free(&u);
}

/* Host CPU and memory are enforced under vgpu: three overlapping 12 GiB
 * tasks on nodes of 16 and 24 GiB (two free cards each) can only run as one
 * on the first node and two on the second, whatever the strategy. */
static void vgpu_enforces_host_memory(void)
{
    const char *cl = "{\"name\":\"t\",\"nodes\":[{\"model\":\"A100-SXM4-80GB\",\"gpus\":2,\"mem_gib\":16},"
                     "{\"model\":\"A100-SXM4-80GB\",\"gpus\":2,\"mem_gib\":24}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct,mem_gib\n"
                     "a,0,100,1,10,10,12\nb,1,100,1,10,10,12\nc,2,100,1,10,10,12\n";
    static const char *const sel[] = {"gpu_select=hami",    "gpu_select=fgd",    "gpu_select=bestfit",
                                      "gpu_select=dotprod", "gpu_select=random", NULL};
    for (int i = 0; sel[i]; i++) {
        const char *sets[] = {sel[i], NULL};
        setup u;
        where w = {{0}, {0}};
        CHECK_EQ_INT(setup_init(&u, cl, tr, sets, true, record, &w), 0);
        int on0 = (w.node[0] == 0) + (w.node[1] == 0) + (w.node[2] == 0);
        int on1 = (w.node[0] == 1) + (w.node[1] == 1) + (w.node[2] == 1);
        CHECK_EQ_INT(on0, 1);
        CHECK_EQ_INT(on1, 2);
        setup_free(&u);
    }
}

const test_case tests_select[] = {
    {"select/fgd_spreads_to_keep_room", fgd_spreads_to_keep_room},
    {"select/bestfit_takes_tightest_card", bestfit_takes_tightest_card},
    {"select/dotprod_aligns_request_and_free", dotprod_aligns_request_and_free},
    {"select/bestfit_leaves_least", bestfit_leaves_least},
    {"select/random_is_uniform_over_feasible", random_is_uniform_over_feasible},
    {"select/frag_matches_hand_computation", frag_matches_hand_computation},
    {"select/fill_by_hand", fill_by_hand},
    {"select/vgpu_enforces_host_memory", vgpu_enforces_host_memory},
    {NULL, NULL},
};
