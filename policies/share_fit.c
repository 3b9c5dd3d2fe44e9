/* share_fit.c - whether a shared card, and its node, admit a request now:
 * HAMi's admission test (reference/mechanics.md section 1a, "Scheduling"). Placement
 * (share_place.c), GPU selection (share_select.c) and the fragmentation
 * measure (share_frag.c) all ask it, so it sits below them.
 *
 * A card admits a request iff it has a slot left (split_count; 0 =
 * unlimited: SC_CARD_TENANTS_MAX), and under vgpu: memory left (physical x mem_scaling minus what
 * its tenants asked) >= the request, cores left >= the request, not (a
 * 100-core request on a card that has a user while the card has exactly 100
 * cores), not (a 0-core request on a card whose cores are all reserved).
 * SPDX-License-Identifier: MIT */
#include "share_card.h"

/* The test on a card's counters. */
static bool fits(const sc_config *cfg, int n, int cores_used, int64_t mem_committed, double total_mem, int64_t mem,
                 int cores)
{
    if (n >= cfg->max_tenants) /* split_count, else the most a card's count holds */
        return false;
    if (!cfg->hami)
        return true;
    if (total_mem - (double)mem_committed < (double)mem)
        return false;
    if (cfg->total_cores - cores_used < cores)
        return false;
    if (cores == 100 && n > 0 && cfg->total_cores == 100)
        return false;
    if (cores == 0 && cores_used >= cfg->total_cores)
        return false;
    return true;
}

bool sc_card_fits(const sc_state *st, const sc_card *c, double total_mib, int64_t mem, int cores)
{
    return fits(&st->cfg, c->n, c->cores_used, c->mem_committed, total_mib, mem, cores);
}

bool sc_host_fits(const sim_node *n, double cpu, double mem_gib)
{
    return (n->cpu_total < 0 || n->cpu_total - n->cpu_used >= cpu - 1e-9) &&
           (n->mem_total_gib < 0 || n->mem_total_gib - n->mem_used_gib >= mem_gib - 1e-9);
}
