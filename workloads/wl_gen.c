/* wl_gen.c - synthetic trace generators (see wl_gen.h).
 * Arrivals and durations come from separate streams, so changing the load
 * keeps the same durations for the same seed.
 * SPDX-License-Identifier: MIT */
#include "wl_gen.h"

#include "../base/gs_rng.h"

int wl_gen_mmc(FILE *out, const wl_mmc_opts *o, gs_error *err)
{
    gsl_rng *ra = gs_rng_new(o->seed, RNG_ARRIVALS), *rd = gs_rng_new(o->seed, RNG_DURATIONS);
    double lambda = o->util * ((double)o->servers / o->gpus_per_job) / o->mean_s;
    double t = 0;
    fprintf(out, "id,submit,duration,gpus\n");
    for (long i = 0; i < o->jobs; i++) {
        t += gs_rng_exp(ra, 1.0 / lambda);
        fprintf(out, "j%ld,%.6f,%.6f,%d\n", i, t, gs_rng_exp(rd, o->mean_s), o->gpus_per_job);
    }
    gs_rng_free(ra);
    gs_rng_free(rd);
    if (fflush(out) != 0 || ferror(out))
        return gs_err(err, GS_EWRITE, "cannot write the generated trace");
    return 0;
}
