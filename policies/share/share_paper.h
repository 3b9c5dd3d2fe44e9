/* share_paper.h - frag_model=paper: the node scores and the tie-break of
 * the FGD paper's artifact (Weng et al., USENIX ATC'23;
 * hkust-adsl/kubernetes-scheduler-simulator), so that `run --mode fill`
 * lands on the published figures (share_paper.c names the files each rule
 * is read from). O(1) per score; O(nodes) for a seed's node order.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_PAPER_H
#define GPUSIM_SHARE_PAPER_H

#include "share_state.h"

/* FGD's integer node score for a growth of delta_gpus in the node's
 * fragmentation: 100 x sigmoid(decrease), cut (higher is better). */
double sc_paper_fgd_score(double delta_gpus);
/* bestfit's (before normalization) or dotprod's integer node score for a
 * request of cpu_req cores and gpu_req GPUs on a node with cpu_free, gpu_free
 * left (higher is better); select: SC_SEL_BESTFIT or SC_SEL_DOTPROD. */
int64_t sc_paper_node_score(int select, double cpu_free, double gpu_free, double cpu_req, double gpu_req);
/* Min-max normalization of an integer score to 0..100 (integer division). */
int64_t sc_paper_normalize(int64_t score, int64_t lo, int64_t hi);
/* One random node order per seed: rank[node], lower wins a tie. */
int *sc_paper_rank_new(uint64_t seed, int nnodes);

#endif
