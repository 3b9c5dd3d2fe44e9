/* sim_metrics.h - constant-memory summaries: a log-bucketed quantile sketch
 * and a time-weighted gauge.
 *
 * The sketch maps x > 0 to bucket ceil(log_g(x / SK_MIN)) with g = 1.02 and
 * reports a bucket by 2 g^i / (g + 1) * SK_MIN, so any quantile it returns is
 * within (g - 1) / (g + 1) = 0.99% (relative) of the exact nearest-rank
 * quantile of the samples; values <= 0 are counted exactly in a zero bucket,
 * and results are clamped to the exact min and max. Values below SK_MIN
 * (1e-6, one tick when the unit is seconds) fall in the first bucket.
 *
 * Memory follows the values, not the range: counters come in pages of
 * SK_PAGE buckets, a page allocated when a first value lands in it, and the
 * page table spans only the pages between the lowest and highest touched.
 * An empty sketch holds nothing; latencies within one decade take about
 * five pages (~1.3 KB); the most any sketch can hold is SK_NBUCKETS
 * counters (~17 KB), independent of the sample count. Thousands of
 * services keep four sketches each, so a fixed 17 KB array per sketch
 * would dominate their state.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_METRICS_H
#define GPUSIM_SIM_METRICS_H

#include <cJSON.h>
#include <string.h>

#include "../base/gs.h"

#define SK_GAMMA 1.02
#define SK_MIN 1e-6
#define SK_NBUCKETS 2200 /* covers SK_MIN .. ~8e12 */
#define SK_REL_ERR ((SK_GAMMA - 1.0) / (SK_GAMMA + 1.0))
#define SK_PAGE 32 /* buckets per page of counters (256 bytes) */

typedef struct sim_sketch {
    uint64_t n, zeros;
    double sum, min, max;
    uint64_t **page; /* npage pages from page plo on; a page is NULL until a value lands in it */
    int plo, npage;
    /* the value added last and its bucket: a sketch often takes one value
     * over and over (a slowdown of exactly 1 on whole cards), and the
     * bucket's search ends in a division and a table walk */
    double last_x;
    int last_bucket;
} sim_sketch;

/* An empty sketch; allocates nothing (cannot fail). The first one made
 * makes the bucket tables (once a process). */
void sim_sketch_init(sim_sketch *s);
/* Frees its pages; the sketch is then empty and may be used again. */
void sim_sketch_free(sim_sketch *s);
/* Empties the sketch and keeps its pages (zeroed) for the next values:
 * O(pages held). */
void sim_sketch_reset(sim_sketch *s);
/* The bucket x falls in (-1 for x <= 0), so that a value added to several
 * sketches is placed once: sim_sketch_add_at(s, x, sim_sketch_bucket(x)) is
 * sim_sketch_add(s, x). */
int sim_sketch_bucket(double x);

/* Cells of x, so that finding a bucket needs no division: x split by its
 * exponent (from 2^SK_XCELL_E0, just under SK_MIN, over 64 exponents) and
 * top SK_CELL_BITS mantissa bits, a cell spanning a ratio of at most
 * 1.008, under a bucket's: its values lie in the bucket of its lowest
 * value (sim_sketch_xcell[c]) or the next. sim_sketch_xbound[i] is the
 * largest x whose x / SK_MIN is still <= g^i (found once by stepping an
 * ulp at a time: the division rounds, so it is not g^i SK_MIN itself);
 * x / SK_MIN rounds monotonically, so x is past bucket i's bound exactly
 * when x > sim_sketch_xbound[i]. The last bucket's is +inf. Made with the
 * first sketch (sim_sketch_init), read-only afterwards. */
#define SK_CELL_BITS 7
#define SK_NCELLS (64 << SK_CELL_BITS)
#define SK_XCELL_E0 (-20)
extern uint16_t sim_sketch_xcell[SK_NCELLS];
extern double sim_sketch_xbound[SK_NBUCKETS];
/* The bucket of x by the definition (x / SK_MIN; -1 for x <= 0) */
int sim_sketch_bucket_slow(double x);
/* sim_sketch_bucket, inline, where a sketch has been initialised (the
 * tables are made): x's cell's bucket, or the next one past that bucket's
 * bound. x <= 0, NaN and values outside the cells (below 2^SK_XCELL_E0,
 * from 2^44 on) fall outside the unsigned range and take the definition. */
static inline int sim_sketch_bucket_ready(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint64_t c = (b >> (52 - SK_CELL_BITS)) - ((uint64_t)(1023 + SK_XCELL_E0) << SK_CELL_BITS);
    if (c >= SK_NCELLS)
        return sim_sketch_bucket_slow(x);
    int i = sim_sketch_xcell[c];
    return i + (x > sim_sketch_xbound[i]);
}
void sim_sketch_add_at(sim_sketch *s, double x, int bucket);
/* sim_sketch_add's part for a value other than the last one: its bucket
 * found, remembered and added to. */
void sim_sketch_add_new(sim_sketch *s, double x);
/* The counters of page p, made when the first value lands there (cold). */
uint64_t *sim_sketch_page(sim_sketch *s, int p);

/* x in the count, sum and range (sim_sketch_count and _wide alike). */
static inline void sim_sketch_note(sim_sketch *s, double x)
{
    s->n++;
    s->sum += x;
    if (x < s->min)
        s->min = x;
    if (x > s->max)
        s->max = x;
}

/* Counts x into its bucket (< 0: the zeros): the one body of every add,
 * inlined into each; the hot path is a few loads and stores (bucket >= 0
 * is split as unsigned: no sign fix-ups). */
static inline void sim_sketch_count(sim_sketch *s, double x, int bucket)
{
    sim_sketch_note(s, x);
    if (bucket < 0) {
        s->zeros++;
        return;
    }
    unsigned b = (unsigned)bucket, p = b / SK_PAGE, k = p - (unsigned)s->plo;
    uint64_t *c = k < (unsigned)s->npage && s->page[k] ? s->page[k] : sim_sketch_page(s, (int)p);
    c[b % SK_PAGE]++;
}

/* Pages a table spanning every bucket holds */
#define SK_NPAGES ((SK_NBUCKETS + SK_PAGE - 1) / SK_PAGE)
/* An empty sketch whose page table spans every bucket from the start
 * (SK_NPAGES pointers, ~550 bytes; pages still come with their first
 * value), for sim_sketch_count_wide. For a few sketches that live as long
 * as the run and take a value or two a job (the per-class figures). */
void sim_sketch_init_wide(sim_sketch *s);
/* sim_sketch_count for a sketch made by sim_sketch_init_wide (and not
 * freed since): the page is found without the table's range test. */
static inline void sim_sketch_count_wide(sim_sketch *s, double x, int bucket)
{
    sim_sketch_note(s, x);
    if (bucket < 0) {
        s->zeros++;
        return;
    }
    unsigned b = (unsigned)bucket;
    uint64_t *c = s->page[b / SK_PAGE];
    if (!c)
        c = sim_sketch_page(s, (int)(b / SK_PAGE));
    c[b % SK_PAGE]++;
}

/* Adds x. Inline for the value added last (its bucket remembered: a
 * slowdown of exactly 1, a queue time of 0), several times a job: the
 * counts and one counter, without a call. */
static inline void sim_sketch_add(sim_sketch *s, double x)
{
    if (x != s->last_x) { /* NaN too: never equal */
        sim_sketch_add_new(s, x);
        return;
    }
    sim_sketch_count(s, x, s->last_bucket);
}
/* dst (initialised) becomes a copy of src, as if it had been given the same
 * values in the same order: O(pages). */
void sim_sketch_copy(sim_sketch *dst, const sim_sketch *src);
/* Bytes the sketch holds beside its struct (page table and pages). */
size_t sim_sketch_bytes(const sim_sketch *s);
/* Nearest-rank quantile q in [0,1]; 0 when empty. */
double sim_sketch_quantile(const sim_sketch *s, double q);
static inline double sim_sketch_mean(const sim_sketch *s) { return s->n ? s->sum / (double)s->n : 0.0; }

/* A piecewise-constant quantity integrated over time (allocated GPUs, queue
 * length). area is value x seconds. */
typedef struct sim_gauge {
    double value, peak;
    double area;      /* integral of value dt, in value-seconds */
    gs_time_us since; /* time of the last change */
} sim_gauge;

static inline void sim_gauge_set(sim_gauge *g, gs_time_us now, double v)
{
    g->area += g->value * gs_us_to_s(now - g->since);
    g->since = now;
    g->value = v;
    if (v > g->peak)
        g->peak = v;
}
static inline void sim_gauge_add(sim_gauge *g, gs_time_us now, double dv) { sim_gauge_set(g, now, g->value + dv); }
/* Integral up to `now` without changing the gauge. */
static inline double sim_gauge_area(const sim_gauge *g, gs_time_us now)
{
    return g->area + g->value * gs_us_to_s(now - g->since);
}

/* Adds {"count","mean","p50","p95","p99","max"} of a sketch under key. */
void sim_report_add_stats(cJSON *obj, const char *key, const sim_sketch *sk);

#endif
