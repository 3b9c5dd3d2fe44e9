/* test_job_mem.c - what a job in flight costs (the slab slot, its id's slot,
 * nothing else for a plain row), what fill mode keeps per trace row, and
 * that a job's strings come through the compact request unchanged: ids of
 * every length class, names interned once, slots reused after jobs end.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../cli/fill.h"
#include "../sim/sim_cluster_file.h"
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

/* The slab slot of a job: the core's 104 bytes (slot, generation and
 * tokens, arrival order, pools, progress, placement with one card's id
 * inline, flags, the out-of-line pointer, which also holds the space
 * policy's record for the few tasks that keep one) and the 88-byte request
 * (id, tenant and mig pointers, times, sizes, priority, its card count in
 * 32 bits (up to 2^20 GPUs across nodes), shares, GPUs per node and flags).
 * A 1M-GPU cluster full of 1-GPU jobs then holds 192 + 16 (id slot) + 32
 * (completion event) bytes a job: 240 MiB beside the cluster's own, under
 * the 300 MB the scale goal allows. A member added to job must pay for
 * itself here or go out of line (job_more). */
#define JOB_SLOT_MAX_BYTES 192
#define JOB_REQ_MAX_BYTES 88
/* Fill mode keeps every job row of its trace for the whole experiment: the
 * placement and admission columns (names as pointers, rare ones out of
 * line), 112 bytes, against the reader's 1 KB row. */
#define FILL_ROW_MAX_BYTES 112
/* A node of the ledger: what placements read and write, its name made on
 * demand (sim_cluster_node_name). */
#define NODE_MAX_BYTES 72

static void sizes(void)
{
    CHECK(sizeof(job) <= JOB_SLOT_MAX_BYTES);
    CHECK(sizeof(job_req) <= JOB_REQ_MAX_BYTES);
    CHECK(sizeof(fill_row) <= FILL_ROW_MAX_BYTES);
    CHECK(sizeof(sim_node) <= NODE_MAX_BYTES);
    if (sizeof(job) > JOB_SLOT_MAX_BYTES)
        fprintf(stderr, "    sizeof(job) = %zu\n", sizeof(job));
}

/* At the first completion every job of the trace is in flight: count what
 * they hold beyond their slots. */
typedef struct seen {
    tu_run *r;
    int checked, in_flight, with_more, inline_gpu;
    size_t id_bytes;
    int n;
    char ids[64][160];
    char tenants[64][80];
} seen;

static void on_done(void *ud, const job *j)
{
    seen *v = ud;
    if (!v->checked) {
        v->checked = 1;
        const sim *s = &v->r->s;
        uint32_t per_chunk = s->nchunks ? s->nslots / s->nchunks : 0;
        for (uint32_t slot = 0; slot < s->nslots; slot++) {
            const job *x = &s->chunks[slot / per_chunk][slot % per_chunk];
            if (x->state != JOB_RUNNING && x != j) /* j: completing now, its slot not yet free */
                continue;
            v->in_flight++;
            v->with_more += x->more != NULL;
            v->inline_gpu += x->ngpu_ids == 1 && job_gpu_ids(x) == &x->gpu.one;
        }
        v->id_bytes = s->strs.id_bytes;
    }
    if (v->n < 64) {
        snprintf(v->ids[v->n], sizeof v->ids[v->n], "%s", j->req.id);
        snprintf(v->tenants[v->n], sizeof v->tenants[v->n], "%s", j->req.tenant);
        v->n++;
    }
}

/* 1,000 plain 1-GPU jobs at once on 1,000 GPUs: each holds its slot and a
 * 16-byte id slot, no out-of-line record, no GPU-id allocation. */
static void plain_jobs_cost_slot_and_id(void)
{
    size_t cap = 64 + 1000 * 32;
    char *tr = xmalloc(cap);
    size_t used = (size_t)snprintf(tr, cap, "id,submit,duration,gpus\n");
    for (int i = 0; i < 1000; i++)
        used += (size_t)snprintf(tr + used, cap - used, "j%d,0,%d,1\n", i, 10 + i % 7);
    tu_run r;
    seen v = {.r = &r};
    CHECK_EQ_INT(tu_run_trace(&r, tu_write_tmp(tr), "A100-SXM4-80GB:1000", 8, "whole", NULL, on_done, &v), 0);
    CHECK_EQ_INT(v.in_flight, 1000);
    CHECK_EQ_INT(v.with_more, 0);
    CHECK_EQ_INT(v.inline_gpu, 1000);
    CHECK_EQ_INT(v.id_bytes, 1000 * 16); /* "j999" and shorter: the smallest class */
    double per_job = (double)sizeof(job) + (double)v.id_bytes / v.in_flight;
    CHECK(per_job <= JOB_SLOT_MAX_BYTES + 16);
    CHECK_EQ_INT(r.s.completed, 1000);
    CHECK_EQ_INT(r.s.strs.id_bytes, 0); /* every id slot given back */
    tu_run_free(&r);
    free(tr);
}

static int find(const seen *v, const char *id)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->ids[i], id))
            return i;
    return -1;
}

/* Ids of every size class (1 byte to WL_ID_MAX - 1, UTF-8, a quoted comma),
 * in two waves so the second reuses the first's slots; tenants counted by
 * the quota table through their interned names (the report's tenants[]). */
static void ids_and_names_round_trip(void)
{
    char id127[128];
    memset(id127, 'x', 127);
    id127[127] = 0;
    id127[0] = 'L';
    char tr[4096];
    snprintf(tr, sizeof tr,
             "id,submit,duration,gpus,tenant\n"
             "a,0,5,1,team-\xc3\xbc\n"
             "exactly15chars!,0,5,1,team-\xc3\xbc\n"
             "sixteen-chars-16,0,5,1,b\n"
             "\"with,comma\",0,5,1,b\n"
             "j\xc3\xb6\x62-\xe2\x82\xac,0,5,1,\n"
             "%s,0,5,1,b\n"
             "second-wave-0123456789012345678901234567890,10,5,1,team-\xc3\xbc\n"
             "w2,10,5,1,b\n",
             id127);
    const char *cl = "{\"nodes\": [{\"model\": \"H100-SXM5-80GB\", \"gpus\": 8}], \"tenants\": ["
                     "{\"name\": \"team-\xc3\xbc\", \"gpus\": 8}, {\"name\": \"b\", \"gpus\": 8}]}";
    tu_run r;
    memset(&r, 0, sizeof r);
    r.cfg.trace_path = tu_write_tmp(tr);
    r.cfg.policy = "whole";
    r.cfg.seed = 1;
    seen v = {.r = &r};
    CHECK_EQ_INT(sim_cluster_load(&r.cl, tu_write_tmp(cl), tu_catalog(), &r.err), 0);
    CHECK_EQ_INT(tu_sim_init(&r.s, &r.cfg, tu_catalog(), &r.cl, NULL, &r.err), 0);
    sim_observe(&r.s, &(sim_observer){.job_done = on_done, .job_done_ud = &v});
    CHECK_EQ_INT(sim_run(&r.s), 0);
    CHECK_EQ_INT(v.n, 8);
    const char *want[] = {"a", "exactly15chars!", "sixteen-chars-16", "with,comma", "j\xc3\xb6\x62-\xe2\x82\xac", id127,
                          "second-wave-0123456789012345678901234567890", "w2"};
    const char *tenant[] = {"team-\xc3\xbc", "team-\xc3\xbc", "b", "b", "", "b", "team-\xc3\xbc", "b"};
    for (int i = 0; i < 8; i++) {
        int k = find(&v, want[i]);
        CHECK(k >= 0);
        if (k >= 0 && strcmp(v.tenants[k], tenant[i]))
            CHECK_STR_HAS(v.tenants[k], tenant[i]);
    }
    cJSON *rep = sim_report_build(&r.s, 0, 0);
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(rep, "tenants"), *t;
    int found = 0;
    cJSON_ArrayForEach(t, tn)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
        double arrivals = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "arrivals"));
        if (name && !strcmp(name, "team-\xc3\xbc")) {
            found++;
            CHECK_EQ_INT(arrivals, 3);
        }
        if (name && !strcmp(name, "b")) {
            found++;
            CHECK_EQ_INT(arrivals, 4);
        }
    }
    CHECK_EQ_INT(found, 2);
    CHECK_EQ_INT(r.s.strs.id_bytes, 0);
    cJSON_Delete(rep);
    tu_run_free(&r);
}

/* The string table: one copy per distinct name; id slots reused by class. */
static void strtab_interns_and_reuses(void)
{
    sim_strtab t;
    sim_strtab_init(&t);
    char name[32];
    const char *first[300];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 300; i++) {
            snprintf(name, sizeof name, "tenant-%d", i);
            const char *p = sim_str_intern(&t, name);
            CHECK(!strcmp(p, name));
            if (round == 0)
                first[i] = p;
            else
                CHECK(p == first[i]);
        }
    CHECK_EQ_INT(t.n, 300);
    CHECK(sim_str_intern(&t, "") == sim_str_none && sim_str_intern(&t, NULL) == sim_str_none);
    const char *a = sim_str_id(&t, "short");
    const char *b = sim_str_id(&t, "a-thirty-one-byte-long-id-00001"); /* 32 with its terminator */
    CHECK_EQ_INT(t.id_bytes, 16 + 32);
    sim_str_drop(&t, a);
    const char *c = sim_str_id(&t, "other");
    CHECK(c == a); /* the freed slot of its class */
    CHECK(!strcmp(c, "other") && !strcmp(b, "a-thirty-one-byte-long-id-00001"));
    char big[2000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    const char *d = sim_str_id(&t, big);
    CHECK(!strcmp(d, big));
    sim_str_drop(&t, d);
    sim_str_drop(&t, b);
    sim_str_drop(&t, c);
    sim_str_drop(&t, sim_str_none);
    CHECK_EQ_INT(t.id_bytes, 0);
    /* every length around the short path's bounds (8 and 16 bytes with the
     * terminator: the two overlapping moves, the byte loop, the library's
     * strlen): an exact copy in its class's slot, freed back to zero */
    char id[48];
    const char *got[48];
    size_t want = 0;
    for (int n = 1; n < 48; n++) {
        for (int i = 0; i < n; i++)
            id[i] = (char)('a' + (n * 7 + i) % 26);
        id[n] = 0;
        got[n] = sim_str_id(&t, id);
        CHECK(got[n] != id && !strcmp(got[n], id));
        want += n + 1 <= 16 ? 16 : n + 1 <= 32 ? 32 : 64;
    }
    CHECK_EQ_INT(t.id_bytes, want);
    for (int n = 1; n < 48; n++)
        sim_str_drop(&t, got[n]);
    CHECK_EQ_INT(t.id_bytes, 0);
    sim_strtab_free(&t);
}

/* Node names as the cluster file and --gpus make them: group prefix, then
 * the node's place in its group. */
static void node_names_made_on_demand(void)
{
    sim_cluster c;
    gs_error err = {0};
    CHECK_EQ_INT(sim_cluster_from_spec(&c, "A100-SXM4-80GB:16,H100-SXM5-80GB:8", 8, tu_catalog(), &err), 0);
    char name[48];
    const char *want[] = {"A100-SXM4-80GB-0", "A100-SXM4-80GB-1", "H100-SXM5-80GB-0"};
    for (int n = 0; n < 3; n++) {
        sim_cluster_node_name(&c, n, name, sizeof name);
        CHECK(strcmp(name, want[n]) == 0);
        if (strcmp(name, want[n]))
            fprintf(stderr, "    node %d: '%s', want '%s'\n", n, name, want[n]);
    }
    sim_cluster_free(&c);
}

const test_case tests_job_mem[] = {
    {"job_mem/sizes", sizes},
    {"job_mem/plain_jobs_cost_slot_and_id", plain_jobs_cost_slot_and_id},
    {"job_mem/ids_and_names_round_trip", ids_and_names_round_trip},
    {"job_mem/strtab_interns_and_reuses", strtab_interns_and_reuses},
    {"job_mem/node_names_made_on_demand", node_names_made_on_demand},
    {NULL, NULL},
};
