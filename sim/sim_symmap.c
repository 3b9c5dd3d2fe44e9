/* sim_symmap.c - see sim_symmap.h.
 * SPDX-License-Identifier: MIT */
#include "sim_symmap.h"

#include <stdlib.h>
#include <string.h>

#include "../base/gs.h"

void sim_symmap_put(sim_symmap *m, uint32_t sym, uint64_t v)
{
    if (sym == 0)
        return;
    if (sym >= m->cap) {
        uint32_t cap = m->cap ? m->cap : 16;
        while (cap <= sym)
            cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
        m->val = xrealloc(m->val, (size_t)cap * sizeof *m->val);
        m->known = xrealloc(m->known, cap);
        memset(m->known + m->cap, 0, cap - m->cap);
        m->cap = cap;
    }
    m->val[sym] = v;
    m->known[sym] = 1;
}

void sim_symmap_free(sim_symmap *m)
{
    free(m->val);
    free(m->known);
    memset(m, 0, sizeof *m);
}
