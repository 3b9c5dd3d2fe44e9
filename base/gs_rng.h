/* gs_rng.h - reproducible random streams.
 *
 * Every consumer (each generator quantity, each policy) takes its own GSL
 * mt19937 stream seeded from (run seed, stream id) through splitmix64, so
 * adding draws to one stream never shifts another, and any seed (0 too) is
 * valid. gsl_rng_env_setup is never called: the environment is not an input.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_RNG_H
#define GPUSIM_GS_RNG_H

#include <gsl/gsl_rng.h>

#include "gs.h"

/* Stream ids: fixed, so a stream's draws depend only on the seed. */
enum {
    RNG_ARRIVALS = 1, RNG_DURATIONS = 2, RNG_SIZES = 3, RNG_FILL = 4 /* run --mode fill order */,
    RNG_VARIANT = 5 /* gen openb-variant */, RNG_FAILURES = 6 /* failing nodes */, RNG_POLICY = 16
};

gsl_rng *gs_rng_new(uint64_t seed, uint32_t stream);
void gs_rng_free(gsl_rng *r);
/* Exponential with the given mean (> 0), never 0 or inf. */
double gs_rng_exp(gsl_rng *r, double mean);

#endif
