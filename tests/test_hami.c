/* test_hami.c - vgpu places and admits as HAMi's scheduler does, each case
 * built from the HAMi code line or test case it follows (Project-HAMi/HAMi
 * at commit 4707fb02, tag v2.10.0; file:line there):
 *   1. the node score is a ratio of the node's sums
 *      (pkg/scheduler/policy/node_policy.go:106-129, ComputeDefaultScore;
 *      node_policy_test.go:416-514, TestComputeDefaultScore);
 *   2. gpumem_pct is a share of the registered (scaled) memory
 *      (pkg/device/nvidia/device.go:780-783, Fit; registered memory
 *      pkg/device-plugin/nvidiadevice/nvinternal/plugin/register.go:148-152);
 *   3. no memory asked books 100% of the registered memory
 *      (device.go:572-577, GenerateResourceRequests; device_test.go:1737-1753
 *      and 2055-2093) and, since v2.7.0, 100 cores (device.go:417-450,
 *      defaultExclusiveCoreIfNeeded; device_test.go:248-255);
 *   4. among equal cards the one listed last wins (device.go:727, Fit walks
 *      the sorted list from its end; device_test.go:772-814, "fit success":
 *      two identical cards, dev-1 chosen); equal nodes: gpusim takes the
 *      lower index (HAMi's order there is its goroutines');
 *   5. gpucores over 100, which HAMi clamps with an error log
 *      (device.go:772-776; device_test.go:984-1010), is an input error here.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../policies/share/share_score.h"
#include "check.h"
#include "testutil.h"

typedef struct seen {
    int n;
    char id[8][8];
    double start_s[8], end_s[8];
    int node[8], gpu[8];
} seen;

static void rec(void *ud, const job *j)
{
    seen *e = ud;
    if (e->n >= 8)
        return;
    snprintf(e->id[e->n], 8, "%.7s", j->req.id);
    e->start_s[e->n] = gs_us_to_s(j->start_us);
    e->node[e->n] = j->node;
    e->gpu[e->n] = j->ngpu_ids > 0 ? job_gpu_ids(j)[0] : -1;
    e->n++;
}

static int find(const seen *e, const char *id)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->id[i], id))
            return i;
    return -1;
}

/* A run on a cluster file's nodes (json), recording each job's start, node
 * and first card at its end. */
static int run_cluster(tu_run *r, seen *e, const char *trace, const char *json, const char *const *sets)
{
    memset(r, 0, sizeof *r);
    memset(e, 0, sizeof *e);
    r->cfg.trace_path = tu_write_tmp(trace);
    r->cfg.policy = "vgpu";
    r->cfg.seed = 1;
    r->cfg.until_us = GS_TIME_MAX;
    tu_add_sets(&r->cfg, sets);
    if ((r->rc = sim_cluster_load(&r->cl, tu_write_tmp(json), tu_catalog(), &r->err)))
        return r->rc;
    if ((r->rc = tu_sim_init(&r->s, &r->cfg, tu_catalog(), &r->cl, NULL, &r->err)))
        return r->rc;
    sim_observe(&r->s, &(sim_observer){.job_done = rec, .job_done_ud = e});
    if ((r->rc = sim_run(&r->s)))
        r->err = r->s.err;
    return r->rc;
}

static const char *const one_a10g = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A10G-24GB\", \"gpus\": 1}]}";

/* 1. TestComputeDefaultScore's two devices (used 50 + 75 of 250 slots, every
 * core and MiB taken) score 10 x (125/250 + 1 + 1) = 25, not the sum of
 * the two cards' own scores (50). Here on one node of two cards with 100
 * slots each: used 50 + 75 of 200, every core and registered MiB booked:
 * 10 x (0.625 + 1 + 1) = 26.25 (the per-card sum said 52.5). Then the
 * issue's case: one task (gpucores 20, gpumem_pct 25, one slot of 10) on a
 * 1-card node scores 10 x (0.1 + 0.2 + 0.25) = 5.5, on a 2-card node 2.75,
 * so spread takes the 2-card node for the third task (the per-card sum was
 * a tie: 5.5 each, the lower index winning). */
static void node_score_ratio_of_sums(void)
{
    tu_run r;
    seen e;
    const char *two = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A10G-24GB\", \"gpus\": 2}]}";
    const char *const split100[] = {"split_count=100", NULL};
    CHECK_EQ_INT(run_cluster(&r, &e, "id,submit,duration,gpus\n", two, split100), 0);
    sc_state *st = r.s.pst[0];
    sc_card saved[2] = {st->cards[0], st->cards[1]};
    int32_t reg = (int32_t)st->pool_total_mib[0];
    st->cards[0].n = 50;
    st->cards[1].n = 75;
    for (int g = 0; g < 2; g++) {
        st->cards[g].cores_used = 100;
        st->cards[g].mem_committed = reg;
    }
    CHECK_NEAR(sc_node_score(st, 0), 26.25, 0, 0);
    st->cards[0] = saved[0];
    st->cards[1] = saved[1];
    tu_run_free(&r);

    const char *mixed = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A10G-24GB\", \"gpus\": 1}, "
                        "{\"model\": \"A10G-24GB\", \"gpus\": 2}]}";
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct\na,0,100,1,20,25\nb,1,100,1,20,25\n"
                     "c,2,100,1,20,25\n";
    const char *const spread[] = {"node_policy=spread", NULL};
    CHECK_EQ_INT(run_cluster(&r, &e, tr, mixed, spread), 0);
    CHECK_EQ_INT(e.n, 3);
    if (e.n == 3) {
        CHECK_EQ_INT(e.node[find(&e, "a")], 0); /* equal empty nodes: the lower index */
        CHECK_EQ_INT(e.node[find(&e, "b")], 1); /* 5.5 against 0 */
        CHECK_EQ_INT(e.node[find(&e, "c")], 1); /* 5.5 against 2.75 */
    }
    tu_run_free(&r);
}

/* 2. mem_scaling=2 registers 2 x 23028 = 46056 MiB of an A10G; three tasks
 * of gpumem_pct=50 book 23028 MiB each (Totalmem x 50 / 100): two are
 * admitted, the third waits for one to end (the percent of the physical card
 * booked 11514 each and admitted all three). With oversub=swap the two run
 * (thrashing) and the third starts when the first ends. */
static void percent_of_registered_memory(void)
{
    tu_run r;
    seen e;
    const char *tr = "id,submit,duration,gpus,gpucores,gpumem_pct\na,0,100,1,10,50\nb,0,100,1,10,50\n"
                     "c,0,100,1,10,50\n";
    const char *const sets[] = {"mem_scaling=2", "oversub=swap", NULL};
    CHECK_EQ_INT(run_cluster(&r, &e, tr, one_a10g, sets), 0);
    CHECK_EQ_INT(e.n, 3);
    if (e.n == 3) {
        CHECK_NEAR(e.start_s[find(&e, "a")], 0, 0, 0);
        CHECK_NEAR(e.start_s[find(&e, "b")], 0, 0, 0);
        CHECK(e.start_s[find(&e, "c")] > 100); /* after a or b, slowed by thrashing, ends */
    }
    tu_run_free(&r);
}

/* 3. mem_scaling=1.5 registers 34542 MiB; task a asks no memory and no
 * cores: it books all 34542 MiB (and uses the physical card, no more) and,
 * with exclusive_cores=on (v2.7.0 on), 100 cores. b (gpumem 9000) waits
 * until a ends at 100 s, and nothing is OOM-killed (booking the physical
 * card, b started beside it at 1 s and was killed). With exclusive_cores=off
 * a books 0 cores, memory still keeps b out. */
static void no_memory_asked_books_the_registered_card(void)
{
    const char *tr = "id,submit,duration,gpus,gpumem\na,0,100,1,\nb,1,10,1,9000\n";
    for (int excl = 1; excl >= 0; excl--) {
        tu_run r;
        seen e;
        const char *const sets[] = {"mem_scaling=1.5", excl ? "exclusive_cores=on" : "exclusive_cores=off", NULL};
        CHECK_EQ_INT(run_cluster(&r, &e, tr, one_a10g, sets), 0);
        CHECK_EQ_INT(r.s.failed, 0);
        CHECK_EQ_INT(e.n, 2);
        if (e.n == 2)
            CHECK_NEAR(e.start_s[find(&e, "b")], 100, 0, 0);
        tu_run_free(&r);
        /* a alone, the run stopped at 50 s: what it booked */
        memset(&r, 0, sizeof r);
        r.cfg.trace_path = tu_write_tmp("id,submit,duration,gpus\na,0,100,1\n");
        r.cfg.policy = "vgpu";
        r.cfg.seed = 1;
        r.cfg.until_us = 50 * GS_US_PER_S;
        tu_add_sets(&r.cfg, sets);
        CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(one_a10g), tu_catalog(), &r.err), 0);
        CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
        CHECK_EQ_INT(sim_run(&r.s), 0);
        const sc_state *st = r.s.pst[0];
        CHECK_EQ_INT(st->cards[0].mem_committed, 34542);          /* 23028 x 1.5 */
        CHECK_EQ_INT(st->cards[0].mem_used, 23028);               /* the physical card */
        CHECK_EQ_INT((int)st->cards[0].cores_used, excl ? 100 : 0); /* the webhook's default */
        tu_run_free(&r);
    }
}

/* 4. Two identical empty cards: the one listed last takes the task, under
 * card_policy spread and binpack; two identical empty nodes: the lower
 * node index (deterministic; HAMi's is goroutine order). */
static void ties(void)
{
    const char *tr = "id,submit,duration,gpus,gpumem\na,0,10,1,64\n";
    const char *two_nodes = "{\"name\": \"t\", \"nodes\": [{\"model\": \"A10G-24GB\", \"count\": 2, \"gpus\": 2}]}";
    const char *const spread[] = {"card_policy=spread", NULL}, *const binpack[] = {"card_policy=binpack", NULL};
    const char *const *cp[] = {spread, binpack};
    for (int k = 0; k < 2; k++) {
        tu_run r;
        seen e;
        CHECK_EQ_INT(run_cluster(&r, &e, tr, two_nodes, cp[k]), 0);
        CHECK_EQ_INT(e.n, 1);
        CHECK_EQ_INT(e.node[0], 0);
        CHECK_EQ_INT(e.gpu[0], 1); /* dev-1 of device_test.go's "fit success" */
        tu_run_free(&r);
    }
}

/* 5. gpucores=120: HAMi clamps it to 100 and logs an error; gpusim refuses
 * the row (exit 3), naming its line and column: a percent of one card above
 * 100 is a mistake in the trace, and reading it as 100 would change the
 * request without a word. */
static void cores_over_100_refused(void)
{
    tu_run r;
    seen e;
    CHECK_EQ_INT(run_cluster(&r, &e, "id,submit,duration,gpus,gpucores\na,0,10,1,120\n", one_a10g, NULL), GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "line 2, column 5 ('gpucores')");
    CHECK_STR_HAS(r.err.msg, "1..100");
    tu_run_free(&r);
}

const test_case tests_hami[] = {
    {"hami/node_score_is_a_ratio_of_the_nodes_sums", node_score_ratio_of_sums},
    {"hami/gpumem_pct_is_a_share_of_registered_memory", percent_of_registered_memory},
    {"hami/no_memory_asked_books_the_registered_card_and_100_cores", no_memory_asked_books_the_registered_card},
    {"hami/equal_cards_the_last_listed_equal_nodes_the_lower_index", ties},
    {"hami/gpucores_over_100_is_an_input_error", cores_over_100_refused},
    {NULL, NULL},
};
