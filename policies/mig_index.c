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

/* Adds or removes c; returns the change in count (0 or +-1). */
static int bits_put(mig_bits *b, int c, bool on)
{
    int i = c - b->lo, wi = i >> 6;
    uint64_t m = 1ULL << (i & 63);
    if (((b->w[wi] & m) != 0) == on)
        return 0;
    b->w[wi] ^= m;
    b->count += on ? 1 : -1;
    if (on)
        b->sum[wi >> 6] |= 1ULL << (wi & 63);
    else if (!b->w[wi])
        b->sum[wi >> 6] &= ~(1ULL << (wi & 63));
    return on ? 1 : -1;
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

void mig_index_init(mig_index *x, int ngroups, const int *nentries, int ncards, const int *group_of,
                    const int *node_of, int nnodes, void *cards, size_t stride)
{
    memset(x, 0, sizeof *x);
    x->ngroups = ngroups;
    x->ncards = ncards;
    x->nnodes = nnodes;
    x->own_cards = cards == NULL;
    x->stride = cards ? stride : sizeof(mig_index_card);
    x->card = cards ? cards : xcalloc((size_t)ncards + 1, sizeof(mig_index_card));
    x->node = xcalloc((size_t)nnodes + 1, sizeof *x->node);
    for (int c = 0; c < ncards; c++) {
        *mig_index_card_of(x, c) = (mig_index_card){.node = node_of[c], .group = (int16_t)group_of[c], .entry = -1};
        x->node[node_of[c]].rooms[0]++;
    }
    x->offer_hist[0] = (uint32_t)nnodes;
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
    x->watch_av = xcalloc((size_t)x->nkeys + 1, sizeof *x->watch_av);
    x->watch_aux = xcalloc((size_t)ngroups * MIG_MAX_PROFILES + 1, sizeof *x->watch_aux);
    x->aux_count = xcalloc((size_t)ngroups * MIG_MAX_PROFILES + 1, sizeof *x->aux_count);

}

void mig_index_free(mig_index *x)
{
    for (int k = 0; k < x->nkeys; k++)
        bits_free(x->keys[k]);
    free(x->keys);
    free(x->groups);
    free(x->aux_count);
    if (x->own_cards)
        free(x->card);
    free(x->node);
    free(x->watch_av);
    free(x->watch_aux);
    memset(x, 0, sizeof *x);
}

static int key_ix(const mig_index *x, int g, int e, int p) { return x->groups[g].key0 + e * MIG_MAX_PROFILES + p; }

static mig_bits **key_of(const mig_index *x, int g, int e, int p) { return &x->keys[key_ix(x, g, e, p)]; }

/* A watched set whose size went from n0 to n1: hot when it becomes non-empty. */
static void watched_size(mig_index *x, int32_t watch, uint32_t n0, uint32_t n1)
{
    if (watch > 0 && (n0 == 0) != (n1 == 0))
        x->hot += n1 ? 1 : -1;
}

/* Card c in or out of the sets of (its group, entry e) for the profiles in mask. */
static void put_mask(mig_index *x, int c, int e, uint16_t mask, bool on)
{
    int g = mig_index_card_of(x, c)->group;
    for (uint32_t m = mask; m; m &= m - 1) {
        int k = key_ix(x, g, e, __builtin_ctz(m));
        if (!x->keys[k])
            x->keys[k] = bits_new(x->groups[g].lo, x->groups[g].n);
        int n0 = x->keys[k]->count;
        if (bits_put(x->keys[k], c, on))
            watched_size(x, x->watch_av[k], (uint32_t)n0, (uint32_t)x->keys[k]->count);
    }
}

/* Node n's offer: max over k of (its k-th largest card room - 1) * stride
 * + k. The stride is above any card count, so that is the largest room r,
 * with k the number of cards of room r: (r - 1) * stride + count(r), read
 * from the node's counts by room. O(MIG_MAX_SLICES). */
static void node_offer(mig_index *x, int n)
{
    mig_index_node *nd = &x->node[n];
    int offer = 0;
    for (int r = MIG_MAX_SLICES; r > 0; r--)
        if (nd->rooms[r]) {
            offer = (r - 1) * MIG_ROOM_STRIDE + nd->rooms[r];
            break;
        }
    if (offer == nd->offer)
        return;
    x->offer_hist[nd->offer]--;
    x->offer_hist[offer]++;
    nd->offer = (uint16_t)offer;
    if (offer > x->offer_max)
        x->offer_max = offer;
    while (x->offer_max > 0 && x->offer_hist[x->offer_max] == 0)
        x->offer_max--; /* amortized: it rose by at most what it falls back */
}

void mig_index_watch(mig_index *x, int g, int e, int p, int delta)
{
    int32_t *w;
    uint32_t size;
    if (e >= 0) {
        int k = key_ix(x, g, e, p);
        w = &x->watch_av[k];
        size = x->keys[k] ? (uint32_t)x->keys[k]->count : 0;
    } else {
        w = &x->watch_aux[g * MIG_MAX_PROFILES + p];
        size = x->aux_count[g * MIG_MAX_PROFILES + p];
    }
    if (size > 0 && (*w > 0) != (*w + delta > 0))
        x->hot += *w + delta > 0 ? 1 : -1;
    *w += delta;
}

void mig_index_set(mig_index *x, int c, int entry, uint16_t avail, uint16_t aux, int room)
{
    mig_index_card *cd = mig_index_card_of(x, c);
    int g = cd->group;
    if (entry < 0 || entry >= x->groups[g].nentries)
        entry = -1, avail = 0; /* takes no new work */
    if (entry != cd->entry) { /* out of the old entry's sets, into the new one's */
        if (cd->entry >= 0)
            put_mask(x, c, cd->entry, cd->avail, false);
        if (entry >= 0)
            put_mask(x, c, entry, avail, true);
    } else if (entry >= 0 && avail != cd->avail) {
        put_mask(x, c, entry, cd->avail & (uint16_t)~avail, false);
        put_mask(x, c, entry, avail & (uint16_t)~cd->avail, true);
    }
    cd->entry = (int8_t)entry;
    cd->avail = avail;
    for (uint32_t m = (uint32_t)(aux ^ cd->aux); m; m &= m - 1) {
        int p = __builtin_ctz(m), a = g * MIG_MAX_PROFILES + p;
        uint32_t n0 = x->aux_count[a];
        x->aux_count[a] += (aux >> p & 1) ? 1u : (uint32_t)-1;
        watched_size(x, x->watch_aux[a], n0, x->aux_count[a]);
    }
    cd->aux = aux;
    if (room < 0)
        room = 0;
    if (room > MIG_MAX_SLICES)
        room = MIG_MAX_SLICES;
    if (room != cd->room) {
        x->node[cd->node].rooms[cd->room]--;
        x->node[cd->node].rooms[room]++;
        cd->room = (uint8_t)room;
        node_offer(x, cd->node);
    }
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

