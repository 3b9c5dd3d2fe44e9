/* share_select.c - vgpu's gpu_select strategies beyond HAMi's scores (issue
 * 7): bestfit, dotprod, random and fgd, the policies compared in Weng et
 * al., "Beware of Fragmentation" (USENIX ATC'23, Sec. 6; summarized in
 * reference/fill-up-protocol.md, "The compared strategies").
 * Every strategy admits a card exactly as HAMi does (sc_card_fits) and a
 * node only with room for the task's CPU and memory (sc_host_fits).
 *
 *   bestfit  node with the least resources left after placement: the sum of
 *            its free CPU, memory and GPU share as fractions of its capacity
 *            (dimensions without a limit left out); cards: the tightest.
 *   dotprod  node with the largest dot product of the request and the node's
 *            free resources, both as fractions of the node's capacity
 *            (Tetris, Grandl et al., SIGCOMM'14); cards: the tightest.
 *   random   a node uniformly among the feasible ones, then the cards
 *            uniformly among its fitting cards (seeded stream).
 *   fgd      the node and card whose placement grows the node's expected
 *            fragmentation (share_frag.c) least.
 * Ties go to the lower node index, then the lower card index.
 *
 * Cost: one scan of the nodes and their cards per placement, O(nodes x
 * cards per node); fgd adds O(shapes x cards per node) per node whose state
 * changed since the task's shape was last evaluated there (cached).
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "share_card.h"

/* The node's fitting cards, tightest first; returns how many. */
static int fitting_cards(const sc_state *st, const sc_task *t, const sim_node *n, int *fit, double *freev)
{
    int64_t mem = sc_mem_of(st, t->j, st->s->cl->pools[n->pool].model->memory_mib);
    int m = 0;
    for (int k = 0; k < n->ngpus; k++) {
        freev[k] = sc_card_free_pct(st, n->gpu0 + k);
        if (sc_card_fits(st, &st->cards[n->gpu0 + k], mem, t->cores)) {
            int b = m++;
            for (; b > 0 && (freev[fit[b - 1]] > freev[k]); b--)
                fit[b] = fit[b - 1];
            fit[b] = k;
        }
    }
    return m;
}

static double frac(double part, double total) { return total > 0 ? part / total : 0; }

int sc_place_select(sc_state *st, sc_task *t, uint64_t pools)
{
    const sim_cluster *cl = st->s->cl;
    const job *j = t->j;
    int want = j->req.gpus, best = -1, nfeas = 0;
    int best_cards[CL_MAX_NODE_GPUS], cards[CL_MAX_NODE_GPUS], fit[CL_MAX_NODE_GPUS];
    double freev[CL_MAX_NODE_GPUS], best_score = 0, r = want > 0 ? sc_req_pct(j) : 0;
    int *feas = st->cfg.select == SC_SEL_RANDOM ? xmalloc(((size_t)cl->nnodes + 1) * sizeof *feas) : NULL;
    for (int ni = 0; ni < cl->nnodes; ni++) {
        const sim_node *n = &cl->nodes[ni];
        if (!(pools >> n->pool & 1) || n->ngpus < want || !sc_host_fits(n, j->req.cpu, j->req.mem_gib))
            continue;
        double score;
        if (st->cfg.select == SC_SEL_FGD) {
            if (!sc_fgd_node(st, t, ni, &score, cards))
                continue;
        } else {
            int m = fitting_cards(st, t, n, fit, freev);
            if (m < want)
                continue;
            if (st->cfg.select == SC_SEL_RANDOM) {
                feas[nfeas++] = ni;
                continue;
            }
            double gfree = 0;
            for (int k = 0; k < n->ngpus; k++)
                gfree += freev[k] / 100.0;
            double cpu_free = n->cpu_total - n->cpu_used, mem_free = n->mem_total_gib - n->mem_used_gib;
            double greq = want * r / 100.0;
            if (st->cfg.select == SC_SEL_BESTFIT)
                score = frac(cpu_free - j->req.cpu, n->cpu_total) + frac(mem_free - j->req.mem_gib, n->mem_total_gib) +
                        frac(gfree - greq, n->ngpus);
            else /* dotprod: maximized, so negated to share the min rule */
                score = -(frac(j->req.cpu, n->cpu_total) * frac(cpu_free, n->cpu_total) +
                          frac(j->req.mem_gib, n->mem_total_gib) * frac(mem_free, n->mem_total_gib) +
                          frac(greq, n->ngpus) * frac(gfree, n->ngpus));
            for (int i = 0; i < want; i++)
                cards[i] = n->gpu0 + fit[i];
        }
        if (best < 0 || score < best_score - 1e-12) {
            best = ni;
            best_score = score;
            for (int i = 0; i < want; i++)
                best_cards[i] = cards[i];
        }
    }
    if (st->cfg.select == SC_SEL_RANDOM) {
        if (nfeas > 0) {
            best = feas[gsl_rng_uniform_int(st->rng, (unsigned long)nfeas)];
            const sim_node *n = &cl->nodes[best];
            int m = fitting_cards(st, t, n, fit, freev);
            for (int i = 0; i < want; i++) { /* partial Fisher-Yates over the fitting cards */
                int k = i + (int)gsl_rng_uniform_int(st->rng, (unsigned long)(m - i));
                int x = fit[i];
                fit[i] = fit[k];
                fit[k] = x;
                best_cards[i] = n->gpu0 + fit[i];
            }
        }
        free(feas);
    }
    if (best < 0)
        return -1;
    for (int i = 0; i < want; i++)
        t->cards[i] = best_cards[i];
    t->mem_mib = sc_mem_of(st, j, cl->pools[cl->nodes[best].pool].model->memory_mib);
    return best;
}
