/* sim_symmap.h - answers kept by a trace reader's name number: what a name
 * (a gpu_model list, a tenant, a ref_gpu) resolved to on its first row, so
 * every later row with that name is an array lookup.
 *
 * The numbers are the reader's (wl_row's *_sym: 1, 2, ... per column, 0 for
 * a row built by hand), so a map holds answers for one reader's rows only:
 * the run's (sim.tr). Memory is O(distinct names).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_SYMMAP_H
#define GPUSIM_SIM_SYMMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_symmap {
    uint64_t *val;
    uint8_t *known; /* known[sym]: val[sym] is set */
    uint32_t cap;
} sim_symmap;

/* The answer kept for sym into *out; false if none (sym 0 never has one). O(1). */
static inline bool sim_symmap_get(const sim_symmap *m, uint32_t sym, uint64_t *out)
{
    if (sym >= m->cap || !m->known[sym])
        return false;
    *out = m->val[sym];
    return true;
}

/* Keeps v as sym's answer (sym 0: nothing kept). Amortized O(1). */
void sim_symmap_put(sim_symmap *m, uint32_t sym, uint64_t v);
void sim_symmap_free(sim_symmap *m);

#endif
