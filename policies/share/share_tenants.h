/* share_tenants.h - a card's tenant list: the card's own slot for one
 * tenant, an array from the wing's own allocator for more.
 *
 * Arrays of 1 << lg slots (lg 2..SC_ARR_LG_MAX) come from chunks of
 * SC_ARR_CHUNK_BYTES (or one array, when larger), one set per size, and are
 * named by a 32-bit handle in sc_card.t (SC_T_ARRAY set): no allocator
 * header an array (four tenants' array is 16 bytes, not the 32 a malloc
 * chunk of 16 takes), and a handle of 32 bits where a pointer takes 64. A
 * card keeps its array at its peak size; order within it means nothing
 * (rates are symmetric). O(1) amortized per add, O(tenants) per remove.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_TENANTS_H
#define GPUSIM_SHARE_TENANTS_H

#include "share_state.h"

/* Appends job slot `slot` to card c's tenants. */
void sc_tenants_add(sc_state *st, sc_card *c, uint32_t slot);
/* Takes `slot` out of card c's tenants (the last one moves into its place). */
void sc_tenants_remove(sc_state *st, sc_card *c, uint32_t slot);
/* Frees every array of the state's allocator. */
void sc_tenants_free(sc_state *st);

#endif
