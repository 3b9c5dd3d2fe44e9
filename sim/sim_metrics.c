/* sim_metrics.c - log-bucketed quantile sketch (see sim_metrics.h).
 * SPDX-License-Identifier: MIT */
#include "sim_metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Bucket upper bounds in units of SK_MIN: bucket i holds (g^(i-1), g^i].
 * Computed once per process (read-only afterwards), with a table of cells
 * (below), so adding a sample costs a table load and one comparison, not a
 * libm log: sketches are updated several times per job on the hot path. */
static double sk_bound[SK_NBUCKETS];
static pthread_once_t sk_bound_once = PTHREAD_ONCE_INIT;

/* Cells: r > 1 split by its binary exponent and top SK_CELL_BITS mantissa
 * bits, each cell spanning a ratio of at most 1 + 2^-SK_CELL_BITS (1.008),
 * under one bucket's (1.02): a cell holds at most one bucket bound, so the
 * bucket of its lowest value, or the next one, is the bucket of any value
 * in it. 64 exponents x 128 cells x 2 bytes = 16 KB, for every r below 2^64
 * (past the last bound, ~7.8e18); the rest (and NaN) take the search. */
static uint16_t sk_cell[SK_NCELLS];

/* The same cells over x itself (sim_sketch_bucket_ready, in the header) */
uint16_t sim_sketch_xcell[SK_NCELLS];
double sim_sketch_xbound[SK_NBUCKETS];

/* Index of the bucket holding r = x / SK_MIN > 0: the smallest i with
 * r <= g^i. ln r comes from r's exponent and mantissa (read from its bits:
 * frexp is a libm call) plus three terms of the atanh series (|error| <
 * 2e-4, under 1% of a bucket), then the exact bounds settle it, so the
 * estimate only decides how far the two loops walk (at most a step). Used
 * once per table cell, and for values past the table. */
static long sk_search(double r)
{
    if (r <= 1.0)
        return 0;
    if (r != r) /* NaN: the first bucket (no sample is NaN; kept total) */
        return 1;
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1022; /* r > 1 is normal: r = m 2^e, m in [0.5, 1) */
    bits = (bits & 0x000fffffffffffffull) | 0x3fe0000000000000ull;
    double m;
    memcpy(&m, &bits, sizeof m);
    double t = (m - 1.0) / (m + 1.0), t2 = t * t;
    double ln_r = e * M_LN2 + 2.0 * t * (1.0 + t2 * (1.0 / 3.0 + t2 * 0.2));
    double y = ln_r * (1.0 / 0.019802627296179712); /* / ln(SK_GAMMA) */
    long i = y < 1.0 ? 1 : y > SK_NBUCKETS - 1 ? SK_NBUCKETS - 1 : (long)y; /* floor; the loops round */
    while (i > 0 && r <= sk_bound[i - 1])
        i--;
    while (i < SK_NBUCKETS - 1 && r > sk_bound[i])
        i++;
    return i;
}

/* The largest x with x / SK_MIN <= bound (bound >= 1). */
static double sk_xbound_of(double bound)
{
    double x = bound * SK_MIN;
    while (x / SK_MIN > bound)
        x = nextafter(x, 0);
    while (nextafter(x, INFINITY) / SK_MIN <= bound)
        x = nextafter(x, INFINITY);
    return x;
}

static long sk_index(double r);

/* The bucket of x by the definition (x / SK_MIN, then the r cells): for
 * the x cells' table, and for values outside it (x <= 0: -1). */
int sim_sketch_bucket_slow(double x) { return x <= 0 ? -1 : (int)sk_index(x / SK_MIN); }

static void sk_bound_init(void)
{
    for (int i = 0; i < SK_NBUCKETS; i++)
        sk_bound[i] = pow(SK_GAMMA, (double)i);
    for (int c = 0; c < SK_NCELLS; c++) /* the lowest value of cell c: 2^e (1 + k / 128) */
        sk_cell[c] = (uint16_t)sk_search(ldexp(1.0 + (double)(c & ((1 << SK_CELL_BITS) - 1)) / (1 << SK_CELL_BITS),
                                               c >> SK_CELL_BITS));
    for (int i = 0; i < SK_NBUCKETS - 1; i++)
        sim_sketch_xbound[i] = sk_xbound_of(sk_bound[i]);
    sim_sketch_xbound[SK_NBUCKETS - 1] = INFINITY;
    for (int c = 0; c < SK_NCELLS; c++)
        sim_sketch_xcell[c] = (uint16_t)sim_sketch_bucket_slow(ldexp(
            1.0 + (double)(c & ((1 << SK_CELL_BITS) - 1)) / (1 << SK_CELL_BITS), (c >> SK_CELL_BITS) + SK_XCELL_E0));
}

/* The same answer as sk_search: the cell's bucket, or the next one when r
 * is past its bound. */
static long sk_index(double r)
{
    if (r <= 1.0)
        return 0;
    uint64_t b;
    memcpy(&b, &r, sizeof b);
    uint64_t c = (b >> (52 - SK_CELL_BITS)) - ((uint64_t)1023 << SK_CELL_BITS);
    if (c >= SK_NCELLS)
        return sk_search(r);
    long i = sk_cell[c];
    /* the next bucket when r is past the cell's bound: a coin toss for
     * values spread over a decade, so counted in without a jump (bitwise &:
     * both sides evaluated; sk_bound[i] is in the table for any cell's i) */
    return i + ((i < SK_NBUCKETS - 1) & (r > sk_bound[i]));
}


void sim_sketch_init(sim_sketch *s)
{
    s->n = s->zeros = 0;
    s->sum = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
    s->page = NULL;
    s->plo = s->npage = 0;
    s->last_x = 0; /* x <= 0: bucket -1 */
    s->last_bucket = -1;
    pthread_once(&sk_bound_once, sk_bound_init);
}

void sim_sketch_init_wide(sim_sketch *s)
{
    sim_sketch_init(s);
    s->page = xcalloc(SK_NPAGES, sizeof *s->page);
    s->plo = 0;
    s->npage = SK_NPAGES;
}

void sim_sketch_free(sim_sketch *s)
{
    for (int i = 0; i < s->npage; i++)
        free(s->page[i]);
    free(s->page);
    sim_sketch_init(s);
}

void sim_sketch_reset(sim_sketch *s)
{
    s->n = s->zeros = 0;
    s->sum = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
    for (int i = 0; i < s->npage; i++)
        if (s->page[i])
            memset(s->page[i], 0, SK_PAGE * sizeof *s->page[i]);
}

size_t sim_sketch_bytes(const sim_sketch *s)
{
    size_t b = (size_t)s->npage * sizeof *s->page;
    for (int i = 0; i < s->npage; i++)
        if (s->page[i])
            b += SK_PAGE * sizeof *s->page[i];
    return b;
}

int sim_sketch_bucket(double x)
{
    pthread_once(&sk_bound_once, sk_bound_init);
    return sim_sketch_bucket_ready(x);
}

/* The counters of page p, made (and the table widened to reach it) when
 * the first value lands there: the table grows at either end. Cold and out
 * of line: a new page is rare, and inlined it would make every add save and
 * restore registers. */
__attribute__((noinline, cold)) uint64_t *sim_sketch_page(sim_sketch *s, int p)
{
    if (s->npage == 0) {
        s->page = xcalloc(1, sizeof *s->page);
        s->plo = p;
        s->npage = 1;
    } else if (p < s->plo) {
        int grow = s->plo - p, n = s->npage + grow;
        s->page = xrealloc(s->page, (size_t)n * sizeof *s->page);
        memmove(s->page + grow, s->page, (size_t)s->npage * sizeof *s->page);
        memset(s->page, 0, (size_t)grow * sizeof *s->page);
        s->plo = p;
        s->npage = n;
    } else if (p >= s->plo + s->npage) {
        int n = p - s->plo + 1;
        s->page = xrealloc(s->page, (size_t)n * sizeof *s->page);
        memset(s->page + s->npage, 0, (size_t)(n - s->npage) * sizeof *s->page);
        s->npage = n;
    }
    uint64_t **pg = &s->page[p - s->plo];
    if (!*pg)
        *pg = xcalloc(SK_PAGE, sizeof **pg);
    return *pg;
}

void sim_sketch_copy(sim_sketch *dst, const sim_sketch *src)
{
    sim_sketch_free(dst);
    *dst = *src;
    dst->page = src->npage ? xcalloc((size_t)src->npage, sizeof *dst->page) : NULL;
    for (int i = 0; i < src->npage; i++)
        if (src->page[i]) {
            dst->page[i] = xmalloc(SK_PAGE * sizeof *dst->page[i]);
            memcpy(dst->page[i], src->page[i], SK_PAGE * sizeof *dst->page[i]);
        }
}

void sim_sketch_add_at(sim_sketch *s, double x, int bucket) { sim_sketch_count(s, x, bucket); }

void sim_sketch_add_new(sim_sketch *s, double x)
{
    s->last_bucket = sim_sketch_bucket_ready(x); /* s is initialised: the tables are made */
    s->last_x = x;
    sim_sketch_count(s, x, s->last_bucket);
}

double sim_sketch_quantile(const sim_sketch *s, double q)
{
    if (s->n == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)s->n);
    if (rank < 1)
        rank = 1;
    if (rank > s->n)
        rank = s->n;
    if (rank == s->n)
        return s->max; /* exact */
    if (rank <= s->zeros)
        return s->min < 0 ? s->min : 0.0;
    uint64_t acc = s->zeros;
    for (int k = 0; k < s->npage; k++) {
        const uint64_t *c = s->page[k];
        if (!c)
            continue; /* no value landed there */
        for (int j = 0; j < SK_PAGE; j++) {
            acc += c[j];
            if (acc < rank)
                continue;
            long i = (long)(s->plo + k) * SK_PAGE + j;
            double v = 2.0 * pow(SK_GAMMA, (double)i) / (SK_GAMMA + 1.0) * SK_MIN;
            if (v < s->min)
                v = s->min;
            if (v > s->max)
                v = s->max;
            return v;
        }
    }
    return s->max;
}

void sim_report_add_stats(cJSON *obj, const char *key, const sim_sketch *sk)
{
    cJSON *o = cJSON_AddObjectToObject(obj, key);
    cJSON_AddNumberToObject(o, "count", (double)sk->n);
    cJSON_AddNumberToObject(o, "mean", sim_sketch_mean(sk));
    cJSON_AddNumberToObject(o, "p50", sim_sketch_quantile(sk, 0.50));
    cJSON_AddNumberToObject(o, "p95", sim_sketch_quantile(sk, 0.95));
    cJSON_AddNumberToObject(o, "p99", sim_sketch_quantile(sk, 0.99));
    cJSON_AddNumberToObject(o, "max", sk->n ? sk->max : 0.0);
}
