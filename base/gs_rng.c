/* gs_rng.c - seeded GSL streams (see gs_rng.h).
 * SPDX-License-Identifier: MIT */
#include "gs_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

gsl_rng *gs_rng_new(uint64_t seed, uint32_t stream)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        GS_BUG("gsl_rng_alloc failed");
    /* mt19937 maps seed 0 to 4357 silently; keep the mixed seed non-zero. */
    uint64_t s = splitmix64(seed ^ splitmix64((uint64_t)stream)) & 0xffffffffUL;
    gsl_rng_set(r, s ? s : 1);
    return r;
}

void gs_rng_free(gsl_rng *r)
{
    if (r)
        gsl_rng_free(r);
}

double gs_rng_exp(gsl_rng *r, double mean)
{
    /* uniform_pos excludes 0, so log never sees 0 */
    return -mean * log(gsl_rng_uniform_pos(r));
}
