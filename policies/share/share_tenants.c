/* share_tenants.c - a card's tenant list and the allocator of its arrays
 * (see share_tenants.h).
 * SPDX-License-Identifier: MIT */
#include "share_tenants.h"

#include <stdlib.h>
#include <string.h>

/* A tenant array of 1 << lg slots: its handle (SC_T_ARRAY, lg, index),
 * from its size's free list, else the next unused array of its chunks. A
 * free array's first slot links the next free one. */
static uint32_t array_get(sc_state *st, int lg)
{
    sc_arrays *a = &st->arr[lg];
    uint32_t i;
    if (a->free != UINT32_MAX) {
        i = a->free;
        a->free = *sc_arr_at(st, SC_T_ARRAY | (uint32_t)lg << SC_T_LG_SHIFT | i);
    } else {
        if (!a->chunk) { /* arrays per chunk: as many as SC_ARR_CHUNK_BYTES holds, at least one */
            size_t bytes = ((size_t)1 << lg) * sizeof(uint32_t);
            a->clog = 0;
            while (((size_t)2 << a->clog) * bytes <= SC_ARR_CHUNK_BYTES)
                a->clog++;
        }
        i = a->used++;
        if (i > SC_T_INDEX_MASK)
            GS_BUG("share_tenants: more tenant arrays of one size than cards");
        if ((i >> a->clog) == a->nchunk) {
            a->chunk = xrealloc(a->chunk, (size_t)(a->nchunk + 1) * sizeof *a->chunk);
            a->chunk[a->nchunk++] = xmalloc(((size_t)1 << a->clog << lg) * sizeof(uint32_t));
        }
    }
    return SC_T_ARRAY | (uint32_t)lg << SC_T_LG_SHIFT | i;
}

static void array_put(sc_state *st, uint32_t h)
{
    sc_arrays *a = &st->arr[h >> SC_T_LG_SHIFT & 31];
    *sc_arr_at(st, h) = a->free;
    a->free = h & SC_T_INDEX_MASK;
}

void sc_tenants_add(sc_state *st, sc_card *c, uint32_t slot)
{
    int n = c->n;
    if (n == SC_CARD_TENANTS_MAX) /* admission closes a card there (max_tenants) */
        GS_BUG("share_tenants: more than SC_CARD_TENANTS_MAX tenants on a card");
    if (!(c->t & SC_T_ARRAY) && n == 0) {
        c->t = slot; /* below SIM_MAX_SLOTS: the top bit clear */
    } else {
        int cap = sc_card_cap(c);
        if (cap == 1 || n == cap) { /* 4 slots, then doubling */
            int lg = cap == 1 ? 2 : (int)(c->t >> SC_T_LG_SHIFT & 31) + 1;
            uint32_t h = array_get(st, lg);
            memcpy(sc_arr_at(st, h), sc_card_tenants(st, c), (size_t)n * sizeof(uint32_t));
            if (c->t & SC_T_ARRAY)
                array_put(st, c->t);
            c->t = h;
        }
        sc_arr_at(st, c->t)[n] = slot;
    }
    c->n = (unsigned)n + 1;
}

void sc_tenants_remove(sc_state *st, sc_card *c, uint32_t slot)
{
    uint32_t *ten = (uint32_t *)sc_card_tenants(st, c);
    int at = -1, n = c->n;
    for (int k = 0; k < n && at < 0; k++)
        if (ten[k] == slot)
            at = k;
    if (at < 0)
        GS_BUG("share_tenants: leaving a card the task is not on");
    ten[at] = ten[n - 1];
    c->n = (unsigned)n - 1;
}

void sc_tenants_free(sc_state *st)
{
    for (int lg = 0; lg <= SC_ARR_LG_MAX; lg++) {
        for (uint32_t c = 0; c < st->arr[lg].nchunk; c++)
            free(st->arr[lg].chunk[c]);
        free(st->arr[lg].chunk);
    }
}
