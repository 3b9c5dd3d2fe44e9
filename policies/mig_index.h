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
 *  - room: a small number (0..MIG_MAX_SLICES): the fewest memory slices a
 *    profile needs to be taken there is at most this (mig: the largest idle
 *    profile's memory slices; dynmig: the card's free memory slices).
 *
 * The queue's room (sim_queue.h) is one number: a request for k cards of
 * at least s slices has demand (s - 1) * MIG_ROOM_STRIDE + k, and a node
 * offers max over k of (r_k - 1) * MIG_ROOM_STRIDE + k, r_k its k-th
 * largest card room; the room is the most any node offers. A request that
 * fits needs k cards of room >= s on one node, so its demand is within the
 * room. Size first: a node of many small free instances stays below a
 * request for one large one.
 *
 * Watches: a policy may mark sets it wants to hear about (a queued request
 * that a refused try could still count, see pol_mig.c and pol_dynmig.c);
 * `hot` is the number of watched sets that are not empty now.
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

#define MIG_ROOM_STRIDE 65 /* above any card count (at most 64 cards a node) */
#define MIG_ROOM_MAX (MIG_MAX_SLICES * MIG_ROOM_STRIDE) /* above any node's offer */

/* What card c was last indexed with, in one record: an update reads and
 * writes one place (separate arrays would be a cache miss each at 65,536
 * cards). The records may lie in the caller's own per-card records (the MIG
 * policies keep them in the card's first cache line, which every update has
 * just read): mig_index_init's cards and stride. */
typedef struct mig_index_card {
    int32_t node;
    int16_t group;
    int8_t entry;
    uint8_t room;
    uint16_t avail, aux;
} mig_index_card;

/* Node n: how many of its cards have each room value, and its offer. */
typedef struct mig_index_node {
    uint16_t offer;
    uint8_t rooms[MIG_MAX_SLICES + 1];
} mig_index_node;

typedef struct mig_index {
    int ngroups, ncards, nnodes;
    mig_index_group *groups;
    mig_bits **keys;        /* [key0 + entry * MIG_MAX_PROFILES + p], made on first use */
    int nkeys;
    uint32_t *aux_count;    /* [group * MIG_MAX_PROFILES + p] */
    char *card;        /* card c's record at card + c * stride */
    size_t stride;
    bool own_cards;    /* card was allocated here */
    mig_index_node *node;
    uint32_t offer_hist[MIG_ROOM_MAX + 1];
    int offer_max;
    /* watches: per avail set and per (group, profile) aux count */
    int32_t *watch_av, *watch_aux;
    int hot;
} mig_index;

/* group_of[c], node_of[c]: each card's group and node; nentries[g]:
 * entries of group g (groups without cards may give 0); nodes above every
 * node_of. cards: NULL (the index keeps its own records), or where card 0's
 * record lies, card c's stride x c bytes after it, left to the index. Every
 * card starts with entry -1 and nothing available. */
void mig_index_init(mig_index *x, int ngroups, const int *nentries, int ncards, const int *group_of,
                    const int *node_of, int nnodes, void *cards, size_t stride);
/* Card c's record (what it was last indexed with). */
static inline mig_index_card *mig_index_card_of(const mig_index *x, int c)
{
    return (mig_index_card *)(x->card + (size_t)c * x->stride);
}
void mig_index_free(mig_index *x);
/* Card c is now described by (entry, avail, aux, room). */
void mig_index_set(mig_index *x, int c, int entry, uint16_t avail, uint16_t aux, int room);
/* The first card >= from of group g that serves entry e with avail bit p,
 * or -1. */
int mig_index_next(const mig_index *x, int g, int e, int p, int from);
/* Cards of group g serving entry e with avail bit p. */
int mig_index_count(const mig_index *x, int g, int e, int p);
/* Cards of group g with aux bit p. */
static inline uint32_t mig_index_aux(const mig_index *x, int g, int p)
{
    return x->aux_count[g * MIG_MAX_PROFILES + p];
}
/* The most any node offers (see above; 0 when none offers anything). O(1). */
static inline int mig_index_room(const mig_index *x) { return x->offer_max; }
/* Watch the avail set (g, e, p) (e >= 0) or the aux count of (g, p)
 * (e < 0): delta +1 or -1. */
void mig_index_watch(mig_index *x, int g, int e, int p, int delta);

#endif
