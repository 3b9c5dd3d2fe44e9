/* test_prefix_cache.c - the per-replica prefix cache (LRU of block ids) and
 * the importers' bounded-memory sort, against answers worked out by hand.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/service/svc_prefix_cache.h"
#include "../workloads/wl_sort_runs.h"
#include "check.h"

/* Only the leading run of resident blocks counts: block 2 resident without
 * block 1 is no use. */
static void test_prefix_hits_stop_at_first_miss(void)
{
    svc_prefix_cache *c = svc_prefix_cache_new(10);
    uint64_t a[] = {0, 1, 2, 3}, b[] = {0, 1, 9, 3}, d[] = {7, 1, 2};
    CHECK_EQ_INT(svc_prefix_cache_admit(c, a, 4), 0); /* cold: nothing resident */
    CHECK_EQ_INT(svc_prefix_cache_size(c), 4);
    CHECK_EQ_INT(svc_prefix_cache_match(c, a, 4), 4);
    CHECK_EQ_INT(svc_prefix_cache_match(c, b, 4), 2); /* 0, 1 hit; 9 misses, so 3 cannot count */
    CHECK_EQ_INT(svc_prefix_cache_match(c, d, 3), 0);
    CHECK_EQ_INT(svc_prefix_cache_admit(c, b, 4), 2);
    CHECK_EQ_INT(svc_prefix_cache_size(c), 5); /* 9 added; 0, 1, 3 were resident */
    CHECK_EQ_INT(svc_prefix_cache_evictions(c), 0);
    svc_prefix_cache_free(c);
}

/* Capacity 4: A = 0 1 2, then B = 10 11 (evicts the LRU, block 2: the tail
 * of A, since blocks are touched last-first), then A again hits 0 1 only. */
static void test_lru_evicts_tail_first(void)
{
    svc_prefix_cache *c = svc_prefix_cache_new(4);
    uint64_t a[] = {0, 1, 2}, b[] = {10, 11};
    svc_prefix_cache_admit(c, a, 3);
    CHECK_EQ_INT(svc_prefix_cache_admit(c, b, 2), 0);
    CHECK_EQ_INT(svc_prefix_cache_evictions(c), 1);
    CHECK_EQ_INT(svc_prefix_cache_match(c, a, 3), 2);
    /* recency now (most recent first): 10 11 0 1. Admitting A again: the hits
     * 0 1 go to the front (0 1 10 11), the miss 2 evicts the LRU, 11, and the
     * hits are touched again: 0 1 2 10 */
    CHECK_EQ_INT(svc_prefix_cache_admit(c, a, 3), 2);
    CHECK_EQ_INT(svc_prefix_cache_evictions(c), 2);
    CHECK_EQ_INT(svc_prefix_cache_match(c, a, 3), 3);
    CHECK_EQ_INT(svc_prefix_cache_match(c, b, 2), 1);
    CHECK_EQ_INT(svc_prefix_cache_size(c), 4);
    svc_prefix_cache_free(c);
}

/* A prompt longer than the cache keeps its first blocks; capacity 0 caches
 * nothing; many ids through a small table keep it consistent. */
static void test_overflow_zero_and_churn(void)
{
    svc_prefix_cache *c = svc_prefix_cache_new(3), *z = svc_prefix_cache_new(0);
    uint64_t a[] = {5, 6, 7, 8, 9};
    CHECK_EQ_INT(svc_prefix_cache_admit(c, a, 5), 0);
    CHECK_EQ_INT(svc_prefix_cache_match(c, a, 5), 3);
    CHECK_EQ_INT(svc_prefix_cache_admit(z, a, 5), 0);
    CHECK_EQ_INT(svc_prefix_cache_match(z, a, 5), 0);
    svc_prefix_cache *m = svc_prefix_cache_new(64);
    uint64_t ids[200];
    for (int i = 0; i < 200; i++)
        ids[i] = (uint64_t)i * 64; /* ids that collide in a naive table */
    for (int r = 0; r < 50; r++)
        svc_prefix_cache_admit(m, ids + r * 3, 20);
    CHECK_EQ_INT(svc_prefix_cache_size(m), 64);
    CHECK_EQ_INT(svc_prefix_cache_match(m, ids + 49 * 3, 20), 20); /* the last request is wholly resident */
    svc_prefix_cache_free(c);
    svc_prefix_cache_free(z);
    svc_prefix_cache_free(m);
}

typedef struct seen {
    double key[64];
    char line[64][16];
    int n;
} seen;

static int collect(void *ud, double key, const char *line)
{
    seen *s = ud;
    s->key[s->n] = key;
    snprintf(s->line[s->n], sizeof s->line[0], "%s", line);
    s->n++;
    return 0;
}

/* 40 lines with keys 39 % 7 ... sorted 5 at a time (8 runs on disk): the
 * merge gives keys in order and, among equal keys, the order added. */
static void test_sort_runs_stable_across_runs(void)
{
    gs_error err = {0};
    wl_runs *r = wl_runs_new(5);
    for (int i = 0; i < 40; i++) {
        char line[16];
        snprintf(line, sizeof line, "L%d", i);
        CHECK_EQ_INT(wl_runs_add(r, (double)((i * 13) % 7), line, &err), 0);
    }
    CHECK_EQ_INT(wl_runs_spilled(r), 7);
    seen s = {0};
    CHECK_EQ_INT(wl_runs_merge(r, collect, &s, &err), 0);
    CHECK_EQ_INT(s.n, 40);
    int bad = 0;
    for (int i = 1; i < s.n; i++)
        if (s.key[i] < s.key[i - 1] || (s.key[i] == s.key[i - 1] && atoi(s.line[i] + 1) < atoi(s.line[i - 1] + 1)))
            bad++;
    CHECK_EQ_INT(bad, 0);
    CHECK(s.key[0] == 0 && !strcmp(s.line[0], "L0"));
    wl_runs_free(r);
}

const test_case tests_prefix_cache[] = {
    {"prefix_cache_hits_stop_at_first_miss", test_prefix_hits_stop_at_first_miss},
    {"prefix_cache_lru_evicts_tail_first", test_lru_evicts_tail_first},
    {"prefix_cache_overflow_zero_and_churn", test_overflow_zero_and_churn},
    {"import_sort_runs_stable_across_runs", test_sort_runs_stable_across_runs},
    {NULL, NULL},
};
