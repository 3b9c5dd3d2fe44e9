/* mig_index.c - per-profile card sets of the MIG policies (see mig_index.h).
 * SPDX-License-Identifier: MIT */
#include "mig_index.h"

#include "../base/gs.h"

#include <stdlib.h>
#include <string.h>

/* {==== two-level bitmap ====} */

static mig_bits *bits_new(int lo, int n)
{
    mig_bits *b = xcalloc(1, sizeof *b);
    int nw = (n + 63) / 64;
    b->w = xcalloc((size_t)nw + 1, sizeof *b->w);
    b->sum = xcalloc((size_t)(nw + 63) / 64 + 1, sizeof *b->sum);
    b->lo = lo;
    b->n = n;
    return b;
}

static void bits_free(mig_bits *b)
{
    if (!b)
        return;
    free(b->w);
    free(b->sum);
    free(b);
}

static void bits_put(mig_bits *b, int c, bool on)
{
    int i = c - b->lo, wi = i >> 6;
    uint64_t m = 1ULL << (i & 63);
    if (((b->w[wi] & m) != 0) == on)
        return;
    b->w[wi] ^= m;
    b->count += on ? 1 : -1;
    if (on)
        b->sum[wi >> 6] |= 1ULL << (wi & 63);
    else if (!b->w[wi])
        b->sum[wi >> 6] &= ~(1ULL << (wi & 63));
}

/* The first member >= from, or -1. */
static int bits_next(const mig_bits *b, int from)
{
    if (!b || b->count == 0)
        return -1;
    int i = from < b->lo ? 0 : from - b->lo;
    if (i >= b->n)
        return -1;
    int wi = i >> 6, nw = (b->n + 63) / 64;
    uint64_t m = b->w[wi] & (~0ULL << (i & 63));
    if (m)
        return b->lo + (wi << 6) + __builtin_ctzll(m);
    /* the summary: words after wi that have a member */
    int si = (wi + 1) >> 6;
    if (wi + 1 >= nw)
        return -1;
    uint64_t s = b->sum[si] & (~0ULL << ((wi + 1) & 63));
    for (;;) {
        if (s) {
            int w = (si << 6) + __builtin_ctzll(s);
            return b->lo + (w << 6) + __builtin_ctzll(b->w[w]);
        }
        if (++si > (nw - 1) >> 6)
            return -1;
        s = b->sum[si];
    }
}

/* {==== the index ====} */

void mig_index_init(mig_index *x, int ngroups, const int *nentries, int ncards, const int *group_of)
{
    memset(x, 0, sizeof *x);
    x->ngroups = ngroups;
    x->ncards = ncards;
    x->groups = xcalloc((size_t)ngroups + 1, sizeof *x->groups);
    for (int g = 0; g < ngroups; g++) {
        x->groups[g].nentries = nentries[g] > 0 ? nentries[g] : 1;
        x->groups[g].lo = -1;
        x->groups[g].key0 = x->nkeys;
        x->nkeys += x->groups[g].nentries * MIG_MAX_PROFILES;
    }
    for (int c = 0; c < ncards; c++) { /* each group's span of card indices */
        mig_index_group *gr = &x->groups[group_of[c]];
        if (gr->lo < 0)
            gr->lo = c;
        gr->n = c - gr->lo + 1;
    }
    x->keys = xcalloc((size_t)x->nkeys + 1, sizeof *x->keys);
    x->aux_count = xcalloc((size_t)ngroups * MIG_MAX_PROFILES + 1, sizeof *x->aux_count);
    x->group_of = xcalloc((size_t)ncards + 1, sizeof *x->group_of);
    x->entry = xcalloc((size_t)ncards + 1, sizeof *x->entry);
    x->avail = xcalloc((size_t)ncards + 1, sizeof *x->avail);
    x->aux = xcalloc((size_t)ncards + 1, sizeof *x->aux);
    x->room = xcalloc((size_t)ncards + 1, sizeof *x->room);
    for (int c = 0; c < ncards; c++) {
        x->group_of[c] = (int16_t)group_of[c];
        x->entry[c] = -1;
    }
    x->room_hist[0] = (uint32_t)ncards;
}

void mig_index_free(mig_index *x)
{
    for (int k = 0; k < x->nkeys; k++)
        bits_free(x->keys[k]);
    free(x->keys);
    free(x->groups);
    free(x->aux_count);
    free(x->group_of);
    free(x->entry);
    free(x->avail);
    free(x->aux);
    free(x->room);
    memset(x, 0, sizeof *x);
}

static mig_bits **key_of(const mig_index *x, int g, int e, int p)
{
    return &x->keys[x->groups[g].key0 + e * MIG_MAX_PROFILES + p];
}

/* Card c in or out of the sets of (its group, entry e) for the profiles in mask. */
static void put_mask(mig_index *x, int c, int e, uint16_t mask, bool on)
{
    int g = x->group_of[c];
    for (uint32_t m = mask; m; m &= m - 1) {
        mig_bits **k = key_of(x, g, e, __builtin_ctz(m));
        if (!*k)
            *k = bits_new(x->groups[g].lo, x->groups[g].n);
        bits_put(*k, c, on);
    }
}

void mig_index_set(mig_index *x, int c, int entry, uint16_t avail, uint16_t aux, int room)
{
    int g = x->group_of[c];
    if (entry < 0 || entry >= x->groups[g].nentries)
        entry = -1, avail = 0; /* takes no new work */
    if (entry != x->entry[c]) { /* out of the old entry's sets, into the new one's */
        if (x->entry[c] >= 0)
            put_mask(x, c, x->entry[c], x->avail[c], false);
        if (entry >= 0)
            put_mask(x, c, entry, avail, true);
    } else if (entry >= 0 && avail != x->avail[c]) {
        put_mask(x, c, entry, x->avail[c] & (uint16_t)~avail, false);
        put_mask(x, c, entry, avail & (uint16_t)~x->avail[c], true);
    }
    x->entry[c] = (int8_t)entry;
    x->avail[c] = avail;
    for (uint32_t m = (uint32_t)(aux ^ x->aux[c]); m; m &= m - 1) {
        int p = __builtin_ctz(m);
        x->aux_count[g * MIG_MAX_PROFILES + p] += (aux >> p & 1) ? 1u : (uint32_t)-1;
    }
    x->aux[c] = aux;
    if (room < 0)
        room = 0;
    if (room > MIG_MAX_SLICES)
        room = MIG_MAX_SLICES;
    x->room_hist[x->room[c]]--;
    x->room_hist[room]++;
    x->room[c] = (uint8_t)room;
}

int mig_index_next(const mig_index *x, int g, int e, int p, int from)
{
    if (e < 0 || e >= x->groups[g].nentries)
        return -1;
    return bits_next(*key_of(x, g, e, p), from);
}

int mig_index_count(const mig_index *x, int g, int e, int p)
{
    if (e < 0 || e >= x->groups[g].nentries)
        return 0;
    const mig_bits *b = *key_of(x, g, e, p);
    return b ? b->count : 0;
}

int mig_index_room(const mig_index *x)
{
    for (int r = MIG_MAX_SLICES; r > 0; r--)
        if (x->room_hist[r])
            return r;
    return 0;
}
