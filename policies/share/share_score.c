/* share_score.c - HAMi's card and node scores (see share_score.h). Both in
 * single precision, as HAMi's float32, so that equal and ordered scores
 * compare as there.
 * SPDX-License-Identifier: MIT */
#include "share_score.h"

double sc_card_score(const sc_state *st, const sc_card *c, double total_mib, int slots, int64_t mem, int cores)
{
    const sc_config *cfg = &st->cfg;
    float used = cfg->split_count > 0 ? (float)(c->n + slots) / (float)cfg->split_count : (float)(c->n + slots);
    if (cfg->hami) /* weights 1, 1, 1 (util.DeviceScoringWeights' defaults) */
        used = used + (float)(cores + c->cores_used) / (float)cfg->total_cores +
               (float)(mem + c->mem_committed) / (float)total_mib;
    return 10.0f * used;
}

double sc_node_score(const sc_state *st, int ni)
{
    /* from the cards' counters, not copies kept beside them: a node's score
     * is read once per change on it (share_index.c), when its cards' records
     * are in cache (the change was theirs) */
    const sim_node *n = &sim_cluster_of(st->s)->nodes[ni];
    if (n->ngpus == 0)
        return 0;
    const sc_config *cfg = &st->cfg;
    int64_t used = 0, cores = 0, mem = 0;
    for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++) { /* a held card: by its counters (no tenant, SC_CORES_HELD) */
        used += st->cards[g].n;
        cores += st->cards[g].cores_used;
        mem += st->cards[g].mem_committed;
    }
    /* ratios of the node's sums (pkg/scheduler/policy/node_policy.go,
     * ComputeDefaultScore); slots: the count each card advertises, or (no
     * limit) tenants per card */
    int64_t count = (int64_t)(cfg->split_count > 0 ? cfg->split_count : 1) * n->ngpus;
    float score = (float)used / (float)count;
    if (cfg->hami) {
        int64_t total_cores = (int64_t)cfg->total_cores * n->ngpus;
        int64_t total_mem = (int64_t)sc_node_total_mem(st, n) * n->ngpus;
        score = score + (float)cores / (float)total_cores + (float)mem / (float)total_mem;
    }
    return 10.0f * score;
}
