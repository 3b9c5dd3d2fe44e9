/* share_preempt.c - the core preemption dry run for shared cards (`vgpu`,
 * `timeslice`; policies/README.md "Priorities, quotas and
 * preemption").
 *
 * Would a queued request be admitted on a node if some running tasks there
 * (the victims) left? Each card of the node is looked at as a copy with the
 * victims' shares taken out (their slots, reserved cores and committed
 * memory), and HAMi's admission test (share_fit.c) is run on the copy:
 * the request fits when at least `gpus` cards admit it and the node's CPU
 * and memory, plus what the victims hold, cover its host request. This is
 * the same test placement runs, so a "yes" here means the hand-over can
 * place it (unless room was taken meanwhile, which the core counts as a
 * miss). Cost: O(cards on the node x victims x cards per victim).
 *
 * A card of the copy changes only when a victim is on it, so the cards that
 * admit the request as they are, plus the victims' cards, bound the count:
 * sc_cards_open (pol_space_index.cards_open). A card's room grows only when a task
 * leaves it (sc_leave, from sc_unplace, which gives the node's host share
 * back to the ledger).
 * SPDX-License-Identifier: MIT */
#include "share_fit.h"
#include "share_preempt.h"

int sc_cards_open(const void *state, const sim *s, const job *j, int n)
{
    const sc_state *st = state;
    const sim_node *nd = &sim_cluster_of(s)->nodes[n];
    int64_t mem = sc_mem_of(st, j, nd->pool);
    int cores = sc_task_cores(st, j), open = 0;
    double total = sc_node_total_mem(st, nd);
    for (int g = nd->gpu0; g < nd->gpu0 + nd->ngpus; g++)
        open += sc_card_fits(st, &st->cards[g], total, mem, cores);
    return open;
}

bool sc_fits_if_released(const void *state, const sim *s, const job *j, int n, job *const *v, int nv)
{
    const sc_state *st = state;
    const sim_node *nd = &sim_cluster_of(s)->nodes[n];
    if (!(j->pools >> nd->pool & 1) || nd->ngpus < j->req.gpus)
        return false;
    double cpu = nd->cpu_total - nd->cpu_used, mem_gib = nd->mem_total_gib - nd->mem_used_gib;
    for (int i = 0; i < nv; i++) {
        if (v[i]->node != n)
            return false;
        cpu += v[i]->req.cpu;
        mem_gib += v[i]->req.mem_gib;
    }
    if ((nd->cpu_total >= 0 && cpu < j->req.cpu - 1e-9) || (nd->mem_total_gib >= 0 && mem_gib < j->req.mem_gib - 1e-9))
        return false;
    int64_t mem = sc_mem_of(st, j, nd->pool);
    int cores = sc_task_cores(st, j), fit = 0;
    for (int g = nd->gpu0; g < nd->gpu0 + nd->ngpus && fit < j->req.gpus; g++) {
        sc_card c = st->cards[g]; /* a copy: only its counters are changed */
        for (int i = 0; i < nv; i++) {
            const int *vc = job_gpu_ids(v[i]);
            for (int k = 0; k < v[i]->ngpu_ids; k++)
                if (vc[k] == g) {
                    c.n--;
                    c.cores_used = (unsigned)(c.cores_used - sc_task_cores(st, v[i])) & 0x3fff;
                    if (st->cfg.hami) /* kept only there (sc_card) */
                        c.mem_committed -= (int32_t)sc_task_mem(st, v[i]);
                }
        }
        fit += sc_card_fits(st, &c, sc_node_total_mem(st, nd), mem, cores);
    }
    return fit >= j->req.gpus;
}
