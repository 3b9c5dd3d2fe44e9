/* mig_layout.h - the MIG placement engine for one card: which memory slices
 * are occupied, whether an instance of a profile may start at a slice, and
 * which legal start to take. Used by the `mig` and `dynmig` policies.
 *
 * The rule (reference/gpu-models.md, "Placement rule"): an instance
 * of profile P started at s occupies memory slices [s, s + P.size); s must be
 * one of P.placements; no two instances share a slice; at most
 * P.max_instances instances of P (binding only for +me profiles). Compute
 * slices are also tracked and checked against the card's total, although with
 * the shipped tables the slice rule already keeps them within it.
 *
 * All operations cost O(profiles x placements) <= 16 x 8 at most: a card is a
 * byte of occupied slices plus a count per profile.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_MIG_LAYOUT_H
#define GPUSIM_MIG_LAYOUT_H

#include "../models/gpu/gpu_model.h"

typedef struct mig_card {
    const mig_table *t;
    uint32_t used_mask;                  /* bit i: memory slice i occupied */
    int used_compute;                    /* compute slices of the instances */
    uint8_t count[MIG_MAX_PROFILES];     /* instances per profile */
} mig_card;

/* Start-choice strategies for a profile with several free legal starts. */
typedef enum mig_strategy {
    MIG_FIRST = 0, /* HAMi: 1g.* and 3g.* the highest free start, others the lowest (reference/mechanics.md 1) */
    MIG_BESTFIT,   /* keep the largest profile creatable, then the most free legal starts */
    MIG_DEMAND     /* keep creatable what the requests seen so far asked for (weights) */
} mig_strategy;
/* dynmig's strategy parameter: the names in enum mig_strategy's order. */
#define MIG_STRATEGY_CHOICES "first|bestfit|demand"

void mig_card_init(mig_card *c, const mig_table *t);
/* Index of profile `name` (exact, case-insensitive) in t, or -1. */
int mig_profile_find(const mig_table *t, const char *name);
/* The full-card profile: the one covering every memory slice, with the most
 * compute; -1 if the table has none. */
int mig_full_profile(const mig_table *t);
/* True when an instance of profile p may be created at start now: start is
 * legal for p, its slices are free, p's instance count is below its maximum
 * and the compute slices fit. */
bool mig_can_place(const mig_card *c, int p, int start);
/* Creates the instance; aborts (GS_BUG) if mig_can_place is false. */
void mig_place(mig_card *c, int p, int start);
/* Destroys an instance created by mig_place; aborts if its slices are not
 * all occupied or p has no instance. */
void mig_remove(mig_card *c, int p, int start);
/* Free legal starts of p, ascending, into starts[MIG_MAX_SLICES]; returns
 * their number. */
int mig_free_starts(const mig_card *c, int p, int *starts);
static inline bool mig_creatable(const mig_card *c, int p)
{
    int st[MIG_MAX_SLICES];
    return mig_free_starts(c, p, st) > 0;
}
int mig_free_slices(const mig_card *c);
static inline int mig_free_compute(const mig_card *c) { return c->t->compute_slices - c->used_compute; }
/* Blocked by layout: p cannot be created although the card has enough free
 * memory slices and compute slices in total and p is below its instance
 * limit (the seed article's fragmentation case). */
bool mig_blocked_by_layout(const mig_card *c, int p);
/* The start the strategy takes for p, or -1 when p is not creatable.
 * weights[profile] (MIG_DEMAND only; may be NULL otherwise) says how much a
 * creatable profile is worth. Ties go to the lowest start. */
int mig_choose_start(const mig_card *c, int p, mig_strategy st, const double *weights);
/* "first", "bestfit", "demand" -> 0 and *out; -1 if unknown. */

#endif
