/* test_mig_index.c - the MIG policies' card index (policies/mig_index.c)
 * against brute-force scans: the bitmaps, counts, node offers and watches
 * on random updates; and, inside runs of `mig` and `dynmig` on random
 * traces, at every job's end: each card indexed as the policy describes it
 * now, and for probe requests the first card the index gives equal to the
 * first card, in card order, where the policy's own pick succeeds.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../policies/mig_common.h"
#include "check.h"
#include "testutil.h"

/* {==== the index alone, random updates ====} */

enum { NG = 3, NCARDS = 9000, NNODES = NCARDS / 8 };

typedef struct brute {
    int entry[NCARDS];
    uint16_t avail[NCARDS], aux[NCARDS];
    int room[NCARDS];
    int watch_av[NG][4][MIG_MAX_PROFILES], watch_aux[NG][MIG_MAX_PROFILES];
} brute;

static const int nentries[NG] = {1, 4, 2};

/* cards: group 0 the first 1,000, group 1 the next 7,000 (several summary
 * words), group 2 the rest; 8 to a node */
static int group_of_card(int c) { return c < 1000 ? 0 : c < 8000 ? 1 : 2; }

static int brute_next(const brute *b, int g, int e, int p, int from)
{
    for (int c = from < 0 ? 0 : from; c < NCARDS; c++)
        if (group_of_card(c) == g && b->entry[c] == e && (b->avail[c] >> p & 1))
            return c;
    return -1;
}

static int brute_room(const brute *b)
{
    int best = 0;
    for (int n = 0; n < NNODES; n++)
        for (int k = 1; k <= 8; k++) /* k cards of room >= r */
            for (int r = 1; r <= MIG_MAX_SLICES; r++) {
                int have = 0;
                for (int c = 8 * n; c < 8 * n + 8; c++)
                    have += b->room[c] >= r;
                if (have >= k && (r - 1) * MIG_ROOM_STRIDE + k > best)
                    best = (r - 1) * MIG_ROOM_STRIDE + k;
            }
    return best;
}

static int brute_hot(const brute *b)
{
    int hot = 0;
    for (int g = 0; g < NG; g++)
        for (int p = 0; p < MIG_MAX_PROFILES; p++) {
            int aux = 0;
            for (int c = 0; c < NCARDS; c++)
                aux += group_of_card(c) == g && (b->aux[c] >> p & 1);
            hot += b->watch_aux[g][p] > 0 && aux > 0;
            for (int e = 0; e < nentries[g]; e++)
                hot += b->watch_av[g][e][p] > 0 && brute_next(b, g, e, p, 0) >= 0;
        }
    return hot;
}

static void index_random_updates(void)
{
    static brute b;
    memset(&b, 0, sizeof b);
    int *group_of = xcalloc(NCARDS, sizeof *group_of), *node_of = xcalloc(NCARDS, sizeof *node_of);
    for (int c = 0; c < NCARDS; c++) {
        group_of[c] = group_of_card(c);
        node_of[c] = c / 8;
        b.entry[c] = -1;
    }
    mig_index x;
    mig_index_init(&x, NG, nentries, NCARDS, group_of, node_of, NNODES, NULL, 0);
    srand(7);
    for (int step = 0; step < 4000; step++) {
        /* updates cluster on a few cards so sets empty and fill again */
        int c = (rand() % 2 ? rand() % 40 : rand() % NCARDS), g = group_of_card(c);
        int e = rand() % (nentries[g] + 1) - 1;
        uint16_t av = (uint16_t)(rand() % 8 == 0 ? 0 : rand() & 0x0f0f), aux = (uint16_t)(rand() & 0x0303);
        int room = rand() % (MIG_MAX_SLICES + 1);
        mig_index_set(&x, c, e, av, aux, room);
        b.entry[c] = e;
        b.avail[c] = e < 0 ? 0 : av;
        b.aux[c] = aux;
        b.room[c] = room;
        if (rand() % 4 == 0) { /* a watch on or off */
            int wg = rand() % NG, wp = rand() % 4, we = rand() % (nentries[wg] + 1) - 1;
            int *w = we < 0 ? &b.watch_aux[wg][wp] : &b.watch_av[wg][we][wp];
            int d = *w > 0 && rand() % 2 ? -1 : 1;
            mig_index_watch(&x, wg, we, wp, d);
            *w += d;
        }
        if (step % 200 == 0 || step == 3999) { /* the whole comparison (brute force is slow) */
            CHECK_EQ_INT(mig_index_room(&x), brute_room(&b));
            CHECK_EQ_INT(x.hot, brute_hot(&b));
            for (int q = 0; q < NG; q++)
                for (int p = 0; p < MIG_MAX_PROFILES; p++) {
                    int aux_n = 0;
                    for (int k = 0; k < NCARDS; k++)
                        aux_n += group_of_card(k) == q && (b.aux[k] >> p & 1);
                    CHECK_EQ_INT(mig_index_aux(&x, q, p), aux_n);
                    for (int qe = 0; qe < nentries[q]; qe++) {
                        int n = 0;
                        for (int k = brute_next(&b, q, qe, p, 0); k >= 0; k = brute_next(&b, q, qe, p, k + 1))
                            n++;
                        CHECK_EQ_INT(mig_index_count(&x, q, qe, p), n);
                        for (int t = 0; t < 6; t++) {
                            int from = t == 0 ? 0 : rand() % (NCARDS + 10);
                            CHECK_EQ_INT(mig_index_next(&x, q, qe, p, from), brute_next(&b, q, qe, p, from));
                        }
                    }
                }
        } else { /* a cheap probe on the card's own sets */
            int pe = e < 0 ? 0 : e;
            for (int p = 0; p < 12; p++)
                CHECK_EQ_INT(mig_index_next(&x, g, pe, p, c - 3), brute_next(&b, g, pe, p, c - 3));
        }
    }
    mig_index_free(&x);
    free(group_of);
    free(node_of);
}

/* {==== inside runs: the index against the policy's own pick ====} */

typedef struct probe_ctx {
    sim *s;
    long checks, cards_taken; /* probes answered, of which with a card */
    long placed_seen, wide_seen; /* slot records checked, of which of more than MIG_SLOTS_PACKED cards */
} probe_ctx;

/* A release goes straight to the slots a job's record names, scanning no
 * card: every placed job's record names, on each of its cards, a slot that
 * is held, and the cards' held counts are exactly the records naming them. */
static void check_slots(mig_base *b, probe_ctx *pc)
{
    int *held = xcalloc((size_t)b->ngpus + 1, sizeof *held);
    for (uint32_t s = 0; s < b->info_cap; s++) {
        const mig_jobinfo *in = &b->info[s / MIG_INFO_CHUNK][s % MIG_INFO_CHUNK];
        CHECK((uintptr_t)in % 32 == 0); /* half a cache line, never across two */
        if (in->card0 < 0 || in->on_ledger || !in->cards)
            continue;
        pc->placed_seen++;
        pc->wide_seen += __builtin_popcountll(in->cards) > MIG_SLOTS_PACKED;
        CHECK_EQ_INT(in->many, __builtin_popcountll(in->cards) > MIG_SLOTS_PACKED);
        for (uint64_t m = in->cards; m; m &= m - 1) {
            int ci = __builtin_ctzll(m), slot = mig_job_slot(in, ci);
            CHECK(slot >= 0 && slot < MIG_MAX_SLICES);
            CHECK_EQ_INT(b->gpus[in->card0 + ci].inst[slot].state, MI_HELD);
            held[in->card0 + ci]++;
        }
    }
    for (int c = 0; c < b->ngpus; c++)
        CHECK_EQ_INT(held[c], b->gpus[c].nheld);
    free(held);
}

/* The first card, in card order, where pick succeeds for j (the scan the
 * index replaces), over the groups j may use. */
static int scan_first(mig_base *b, job *j)
{
    for (int c = 0; c < b->ngpus; c++) {
        mig_gpu *g = &b->gpus[c];
        mig_pick pk;
        if ((j->pools >> b->groups[g->ix.group].pool & 1) && b->h->pick(b, g, j, &pk))
            return c;
    }
    return -1;
}

static int index_first(mig_base *b, job *j)
{
    int best = -1;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(j->pools >> gr->pool & 1))
            continue;
        for (int e = 0; e < gr->nsched; e++) {
            int want[MIG_MAX_PROFILES];
            int n = b->h->wanted(b, gr, e, j, want);
            for (int w = 0; w < n; w++) {
                int c = mig_index_next(&b->idx, gi, e, want[w], 0);
                if (c >= 0 && (best < 0 || c < best))
                    best = c;
            }
        }
    }
    return best;
}

static void check_now(void *ud, const job *done)
{
    (void)done;
    probe_ctx *pc = ud;
    mig_base *b = pc->s->pst[0]; /* both policies' state starts with their mig_base */
    check_slots(b, pc);
    for (int c = 0; c < b->ngpus; c++) { /* each card indexed as the policy describes it now */
        int entry, room;
        uint16_t avail, aux;
        b->h->avail(b, &b->gpus[c], &entry, &avail, &aux, &room);
        CHECK_EQ_INT(mig_index_card_of(&b->idx, c)->entry, entry);
        CHECK_EQ_INT(mig_index_card_of(&b->idx, c)->avail, entry < 0 ? 0 : avail);
        CHECK_EQ_INT(mig_index_card_of(&b->idx, c)->aux, aux);
        CHECK_EQ_INT(mig_index_card_of(&b->idx, c)->room, room);
    }
    /* probes by memory (the shape a trace gives as gpumem), and whole
     * cards: copies of a finished job that named no profile (whatever the
     * request's string fields are, its empty profile name stays valid) */
    if (done->req.mig[0])
        return;
    static const int64_t mem_mib[] = {0, 5000, 9000, 19000, 30000, 39000, 70000};
    for (size_t k = 0; k < sizeof mem_mib / sizeof *mem_mib; k++) {
        job j = *done;
        j.req.gpus = 1;
        j.req.gpumem_mib = mem_mib[k];
        j.req.gpumem_pct = 0;
        j.req.gpucores = 0;
        j.pools = ~0ULL;
        j.gen = (uint32_t)(pc->checks + 1); /* a new request for the candidate cache */
        int want = scan_first(b, &j), got = index_first(b, &j);
        CHECK_EQ_INT(got, want);
        pc->checks++;
        pc->cards_taken += want >= 0;
    }
}

static void random_trace(const char *path, unsigned seed, int rows)
{
    FILE *f = fopen(path, "w");
    static const char *const prof[] = {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.20gb"};
    static const int mem[] = {4000, 9000, 18000, 30000, 60000};
    srand(seed);
    fprintf(f, "id,submit,duration,gpus,mig,gpumem\n");
    double t = 0;
    for (int i = 0; i < rows; i++) {
        t += (rand() % 1000) / 250.0;
        int r = rand() % 10, g = rand() % 8 == 0 ? 2 : 1;
        fprintf(f, "r%d,%.3f,%.3f,%d,%s,", i, t, 5 + (rand() % 4000) / 10.0, g, r < 5 ? prof[rand() % 6] : "");
        if (r >= 5 && r < 9)
            fprintf(f, "%d", mem[rand() % 5]);
        fprintf(f, "\n");
    }
    fclose(f);
}

static const char *cluster_json =
    "{\"name\": \"ix\", \"nodes\": ["
    "{\"name\": \"a\", \"model\": \"A100-SXM4-80GB\", \"count\": 3, \"gpus\": 4, \"mig\": \"balanced\"},"
    "{\"name\": \"w\", \"model\": \"A100-SXM4-80GB\", \"count\": 1, \"gpus\": 4},"
    "{\"name\": \"b\", \"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 8, \"mig\": \"all-1g.10gb\"},"
    "{\"name\": \"c\", \"model\": \"A100-SXM4-80GB\", \"count\": 2, \"gpus\": 4, \"mig\": {\"schedule\": ["
    "{\"at\": \"00:20\", \"layout\": \"balanced\"}, {\"at\": \"00:50\", \"layout\": \"all-2g.20gb\"},"
    "{\"at\": \"01:30\", \"layout\": \"whole\"}]}}]}";

static void run_and_probe(const char *policy, const char *const *sets, unsigned seed)
{
    const char *trace = tu_write_tmp("");
    random_trace(trace, seed, 1500);
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = trace;
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    tu_add_sets(&r.cfg, sets);
    CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cluster_json), tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    probe_ctx pc = {.s = &r.s};
    sim_observe(&r.s, &(sim_observer){.job_done = check_now, .job_done_ud = &pc});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    /* the probes ran at every end, and found cards as well as none */
    CHECK(pc.checks >= 7 * 300);
    CHECK(pc.cards_taken > 0 && pc.cards_taken < pc.checks);
    tu_run_free(&r);
}

static void mig_index_matches_scan(void)
{
    run_and_probe("mig", NULL, 11);
    run_and_probe("mig", NULL, 12);
}

static void dynmig_index_matches_scan(void)
{
    run_and_probe("dynmig", NULL, 21);
    static const char *const bestfit[] = {"strategy=bestfit", NULL};
    run_and_probe("dynmig", bestfit, 22);
}

/* Jobs of up to 64 cards on one node, to both sides of MIG_SLOTS_PACKED:
 * their records name held slots at every end, and the cards are one
 * aligned cache line each. */
static void slots_of_wide_jobs(const char *policy, const char *layout)
{
    const char *trace = tu_write_tmp("");
    FILE *f = fopen(trace, "w");
    fprintf(f, "id,submit,duration,gpus,mig\n");
    static const int gpus[] = {1, 2, 21, 22, 40, 64, 3};
    srand(7);
    for (int i = 0; i < 300; i++)
        fprintf(f, "w%d,%d,%d,%d,%s\n", i, i * 3, 20 + rand() % 200, gpus[rand() % 7], rand() % 2 ? "1g.10gb" : "2g.20gb");
    fclose(f);
    char cluster[256];
    snprintf(cluster, sizeof cluster,
             "{\"name\": \"wide\", \"nodes\": [{\"name\": \"m\", \"model\": \"A100-SXM4-80GB\", "
             "\"count\": 3, \"gpus\": 64, \"mig\": \"%s\"}]}", layout);
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = trace;
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cluster), tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    mig_base *b = r.s.pst[0];
    CHECK_EQ_INT((int)sizeof(mig_gpu), 64);
    CHECK_EQ_INT((int)sizeof(mig_jobinfo), 32);
    CHECK((uintptr_t)b->gpus % 64 == 0);
    probe_ctx pc = {.s = &r.s};
    sim_observe(&r.s, &(sim_observer){.job_done = check_now, .job_done_ud = &pc});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    CHECK(pc.placed_seen > 300); /* records checked while jobs ran beside the one ending */
    CHECK(pc.wide_seen > 20);    /* among them jobs of more cards than the packed record holds */
    tu_run_free(&r);
}

static void mig_slots_of_wide_jobs(void) { slots_of_wide_jobs("mig", "all-1g.10gb"); }
static void dynmig_slots_of_wide_jobs(void) { slots_of_wide_jobs("dynmig", "dynamic"); }

/* {==== the queue's room skips only tries that would change nothing ====} */

typedef struct digest {
    uint64_t h;
    long n;
} digest;

static void digest_done(void *ud, const job *j)
{
    digest *d = ud;
    uint64_t k = (uint64_t)j->start_us * 0x9E3779B97F4A7C15ULL ^ (uint64_t)j->req.submit_us;
    for (const char *c = j->req.id; *c; c++)
        k = (k ^ (uint8_t)*c) * 0x100000001B3ULL;
    d->h += k * 0xff51afd7ed558ccdULL ^ (k >> 29); /* order-free: the same starts in any order */
    d->n++;
}

/* A run's policy figures and the digest of every job's start. */
static char *run_digest(const char *policy, const char *trace, const char *cluster, digest *d)
{
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = trace;
    r.cfg.policy = policy;
    r.cfg.seed = 1;
    memset(d, 0, sizeof *d);
    CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cluster), tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    sim_observe(&r.s, &(sim_observer){.job_done = digest_done, .job_done_ud = d});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    cJSON *rep = cJSON_CreateObject();
    cJSON_AddObjectToObject(rep, "policy");
    r.s.pol[0]->report(r.s.pst[0], &r.s, rep);
    char *text = cJSON_PrintUnformatted(rep);
    cJSON_Delete(rep);
    tu_run_free(&r);
    return text;
}

/* The core uses the demand index only without tenant quotas (sim.c): a
 * quota that binds no one turns it off and changes nothing else, so the
 * two runs must agree on every start and every policy figure (the
 * layout-blocking counts included). */
static void room_changes_nothing(const char *policy, unsigned seed)
{
    const char *trace = tu_write_tmp("");
    random_trace(trace, seed, 1500);
    size_t n = strlen(cluster_json);
    char *quota = xmalloc(n + 64);
    memcpy(quota, cluster_json, n - 1); /* without the closing brace */
    strcpy(quota + n - 1, ", \"tenants\": [{\"name\": \"nobody\", \"gpus\": 1}]}");
    digest with, without;
    char *a = run_digest(policy, trace, cluster_json, &with), *b = run_digest(policy, trace, quota, &without);
    CHECK(a && b && strcmp(a, b) == 0);
    CHECK_EQ_INT(with.n, without.n);
    CHECK(with.h == without.h);
    CHECK(with.n > 1000);
    CHECK(a && (strstr(a, "\"waited_beside_idle_instances\":{\"requests\":0") == NULL ||
                strstr(a, "\"blocked_by_layout\":{\"requests\":0") == NULL)); /* the counts are exercised */
    free(a);
    free(b);
    free(quota);
}

static void room_changes_nothing_mig(void)
{
    room_changes_nothing("mig", 31);
    room_changes_nothing("mig", 32);
}

static void room_changes_nothing_dynmig(void)
{
    room_changes_nothing("dynmig", 41);
    room_changes_nothing("dynmig", 42);
}

const test_case tests_mig_index[] = {
    {"mig_queue_room_changes_no_start_nor_figure", room_changes_nothing_mig},
    {"dynmig_queue_room_changes_no_start_nor_figure", room_changes_nothing_dynmig},
    {"mig_index_random_updates_match_brute_force", index_random_updates},
    {"mig_index_in_static_runs_matches_card_scan", mig_index_matches_scan},
    {"mig_index_in_dynmig_runs_matches_card_scan", dynmig_index_matches_scan},
    {"mig_release_slots_of_wide_jobs_from_records", mig_slots_of_wide_jobs},
    {"dynmig_release_slots_of_wide_jobs_from_records", dynmig_slots_of_wide_jobs},
    {NULL, NULL},
};
