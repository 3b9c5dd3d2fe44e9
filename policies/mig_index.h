/* mig_index.h - which MIG cards can take which profile now, kept up to date
 * as instances come and go, so a placement finds its cards without scanning
 * every card of the cluster. Used by the `mig` and `dynmig` policies through
 * mig_common.c.
 *
 * A card is described by its policy (mig_hooks.avail) as:
 *  - entry: the layout entry it serves (static `mig`: its schedule entry;
 *    dynmig: 0), or -1 when it takes no new work (draining, reconfiguring);
 *  - avail: bit p set when profile p can be placed on it now (mig: an idle
 *    instance of p; dynmig: a free legal start of p);
 *  - aux: bit p set for the policy's own count (dynmig: p blocked by layout);
 *  - room: a small number (0..MIG_MAX_SLICES) whose maximum over the cards
 *    the queue's room function reads (mig: the largest idle profile's memory
 *    slices; dynmig: the card's free memory slices).
 *
 * For each (node group, entry, profile) the index keeps a two-level bitmap
 * of the cards with that avail bit, over the group's span of card indices,
 * so "the first card at or after c that can take p" is a few word reads
 * (O(span / 4096) at worst); per (group, profile) a count of aux bits; and a
 * histogram of room values. An update costs O(profiles) bit flips.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_MIG_INDEX_H
#define GPUSIM_MIG_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "../models/gpu/gpu_model.h"

/* A set of card indices in [lo, lo + n): words, and a summary word per 64 words. */
typedef struct mig_bits {
    uint64_t *w, *sum;
    int lo, n, count;
} mig_bits;

typedef struct mig_index_group {
    int nentries, lo, n; /* entries (>= 1) and the span of its cards' indices */
    int key0;            /* its first key in mig_index.keys */
} mig_index_group;

typedef struct mig_index {
    int ngroups, ncards;
    mig_index_group *groups;
    mig_bits **keys;        /* [key0 + entry * MIG_MAX_PROFILES + p], made on first use */
    int nkeys;
    uint32_t *aux_count;    /* [group * MIG_MAX_PROFILES + p] */
    /* per card: what it was last indexed with */
    int16_t *group_of;
    int8_t *entry;
    uint16_t *avail, *aux;
    uint8_t *room;
    uint32_t room_hist[MIG_MAX_SLICES + 1];
} mig_index;

/* group_of[c]: each card's group (-1: none); nentries[g]: entries of group g
 * (groups without cards may give 0). Every card starts with entry -1 and
 * nothing available. */
void mig_index_init(mig_index *x, int ngroups, const int *nentries, int ncards, const int *group_of);
void mig_index_free(mig_index *x);
/* Card c is now described by (entry, avail, aux, room). */
void mig_index_set(mig_index *x, int c, int entry, uint16_t avail, uint16_t aux, int room);
/* The first card >= from of group g that serves entry e with avail bit p,
 * or -1. */
int mig_index_next(const mig_index *x, int g, int e, int p, int from);
/* Cards of group g serving entry e with avail bit p. */
int mig_index_count(const mig_index *x, int g, int e, int p);
/* Cards of group g with aux bit p. */
static inline uint32_t mig_index_aux(const mig_index *x, int g, int p) { return x->aux_count[g * MIG_MAX_PROFILES + p]; }
/* The largest room value over the cards (0 when none has any). O(MIG_MAX_SLICES). */
int mig_index_room(const mig_index *x);

#endif
