/* share_score.c - HAMi's card and node scores (see share_score.h).
 * SPDX-License-Identifier: MIT */
#include "share_score.h"

double sc_card_score(const sc_state *st, const sc_card *c, double total_mib, int slots, int64_t mem, int cores)
{
    const sc_config *cfg = &st->cfg;
    double used = cfg->split_count > 0 ? (double)(c->n + slots) / cfg->split_count : (double)(c->n + slots);
    if (cfg->hami)
        used += (double)(cores + c->cores_used) / cfg->total_cores + (double)(mem + c->mem_committed) / total_mib;
    return 10.0 * used;
}

double sc_node_score(const sc_state *st, int ni)
{
    /* from the cards' counters, not a copy of each card's score kept beside
     * them (8 bytes a card): a node's score is read once per change on it
     * (share_index.c), its cards' records are in cache then (the change
     * was theirs) and the pool's scaled memory is one load */
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    double score = 0, total = sc_node_total_mem(st, n);
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++)
        score += sc_card_score(st, &st->cards[g], total, 0, 0, 0);
    return score;
}
