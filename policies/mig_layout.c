/* mig_layout.c - MIG placement engine for one card (see mig_layout.h).
 * SPDX-License-Identifier: MIT */
#include "mig_layout.h"

#include <string.h>

static uint32_t span(int start, int size) { return ((1u << size) - 1u) << start; }

void mig_card_init(mig_card *c, const mig_table *t)
{
    memset(c, 0, sizeof *c);
    c->t = t;
}

int mig_profile_find(const mig_table *t, const char *name)
{
    for (int i = 0; i < t->nprofiles; i++)
        if (gs_streq_ci(t->profiles[i].name, name))
            return i;
    return -1;
}

int mig_full_profile(const mig_table *t)
{
    int best = -1;
    for (int i = 0; i < t->nprofiles; i++)
        if (t->profiles[i].size == t->memory_slices &&
            (best < 0 || t->profiles[i].compute_slices > t->profiles[best].compute_slices))
            best = i;
    return best;
}

static bool is_legal(const mig_profile *pr, int start)
{
    for (int i = 0; i < pr->nplacements; i++)
        if (pr->placements[i] == start)
            return true;
    return false;
}

bool mig_can_place(const mig_card *c, int p, int start)
{
    const mig_profile *pr = &c->t->profiles[p];
    return is_legal(pr, start) && !(c->used_mask & span(start, pr->size)) && c->count[p] < pr->max_instances &&
           c->used_compute + pr->compute_slices <= c->t->compute_slices;
}

void mig_place(mig_card *c, int p, int start)
{
    if (!mig_can_place(c, p, start))
        GS_BUG("mig_place: illegal or occupied placement");
    c->used_mask |= span(start, c->t->profiles[p].size);
    c->used_compute += c->t->profiles[p].compute_slices;
    c->count[p]++;
}

void mig_remove(mig_card *c, int p, int start)
{
    uint32_t m = span(start, c->t->profiles[p].size);
    if ((c->used_mask & m) != m || c->count[p] == 0 || !is_legal(&c->t->profiles[p], start))
        GS_BUG("mig_remove: no such instance");
    c->used_mask &= ~m;
    c->used_compute -= c->t->profiles[p].compute_slices;
    c->count[p]--;
}

int mig_free_starts(const mig_card *c, int p, int *starts)
{
    const mig_profile *pr = &c->t->profiles[p];
    int n = 0;
    for (int i = 0; i < pr->nplacements; i++)
        if (mig_can_place(c, p, pr->placements[i]))
            starts[n++] = pr->placements[i];
    /* the tables list starts ascending; keep the contract even if one does not */
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && starts[k - 1] > starts[k]; k--) {
            int tmp = starts[k];
            starts[k] = starts[k - 1];
            starts[k - 1] = tmp;
        }
    return n;
}

int mig_free_slices(const mig_card *c) { return c->t->memory_slices - __builtin_popcount(c->used_mask); }

bool mig_blocked_by_layout(const mig_card *c, int p)
{
    const mig_profile *pr = &c->t->profiles[p];
    return mig_free_slices(c) >= pr->size && mig_free_compute(c) >= pr->compute_slices &&
           c->count[p] < pr->max_instances && !mig_creatable(c, p);
}

/* Largest memory size among creatable profiles, and the number of free legal
 * starts summed over profiles (each weighted by w[p], or 1). */
static void creatable_score(const mig_card *c, const double *w, int *max_size, double *starts_sum)
{
    *max_size = 0;
    *starts_sum = 0;
    for (int q = 0; q < c->t->nprofiles; q++) {
        int st[MIG_MAX_SLICES];
        int n = mig_free_starts(c, q, st);
        if (n > 0 && c->t->profiles[q].size > *max_size)
            *max_size = c->t->profiles[q].size;
        *starts_sum += (w ? w[q] : 1.0) * n;
    }
}

int mig_choose_start(const mig_card *c, int p, mig_strategy st, const double *weights)
{
    int starts[MIG_MAX_SLICES];
    int n = mig_free_starts(c, p, starts);
    if (n == 0)
        return -1;
    if (st == MIG_FIRST) {
        const char *nm = c->t->profiles[p].name;
        bool high = strncmp(nm, "1g.", 3) == 0 || strncmp(nm, "3g.", 3) == 0;
        return high ? starts[n - 1] : starts[0];
    }
    int best = -1, best_size = -1;
    double best_sum = -1;
    for (int i = 0; i < n; i++) {
        mig_card after = *c;
        mig_place(&after, p, starts[i]);
        int size;
        double sum;
        creatable_score(&after, st == MIG_DEMAND ? weights : NULL, &size, &sum);
        /* bestfit: the largest profile first, then room for the most
         * instances; demand: only what the request mix is worth */
        bool better = st == MIG_BESTFIT ? (size > best_size || (size == best_size && sum > best_sum + 1e-12))
                                        : (sum > best_sum + 1e-12);
        if (best < 0 || better) {
            best = starts[i];
            best_size = size;
            best_sum = sum;
        }
    }
    return best;
}
