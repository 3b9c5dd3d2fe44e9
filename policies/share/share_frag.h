/* share_frag.h - index and measure: GPU fragmentation as FGD defines it
 * (Weng et al., "Beware of Fragmentation", USENIX ATC'23, Sec. 4), over the
 * request shapes of the run's trace; its per-node figures, the cluster sum
 * and its gauge, FGD's choice of node and cards, and what gpu_select=fgdfit
 * reads (share_frag.c states the measure and its costs).
 *
 * Kept by sc_index_changed (share_index.c): sc_frag_changed after a task was
 * placed on node ni or left it, O(shapes x cards per node).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_FRAG_H
#define GPUSIM_SHARE_FRAG_H

#include "share_state.h"

/* Reads the request shapes of the run's trace (job rows) and computes every
 * node's fragmentation. Returns 0 or GS_EINPUT. */
int sc_frag_init(sc_state *st, gs_error *err);
void sc_frag_free(sc_state *st);
/* Node ni changed (a task placed or gone): recompute its fragmentation,
 * move the cluster sum and the gauge. Nothing when not measured. */
void sc_frag_changed(sc_state *st, int ni);
/* Fragmented GPUs of the whole cluster now (sum over nodes); < 0 when the
 * run does not measure it. */
double sc_frag_gpus(const sc_state *st);
/* Free share of card g in percent of a card (0..100): the smaller of free
 * cores and free memory, 0 when its slots are full. */
double sc_card_free_pct(const sc_state *st, int g, double total_mib);
/* A request's share of one card in percent (gpucores, else gpumem_pct,
 * else 100: a whole card). */
double sc_req_pct(const job *j);
/* Expected fragmentation (GPUs) of node ni if its cards had free shares
 * free_pct[] and its host cpu_free / mem_free: the FGD measure. */
double sc_node_frag(const sc_state *st, int ni, const double *free_pct, double cpu_free, double mem_free);
/* j's index in the shape table (-1: none, or no cache: fgd and fgdfit only).
 * O(1) expected: a hash probe, once per placement. */
int sc_frag_shape(const sc_state *st, const job *j);
/* FGD's choice for j (of shape si, sc_frag_shape) on node ni: the growth of
 * the node's fragmentation and the cards; false when j does not fit there.
 * Cached per (node, shape). */
bool sc_fgd_node(sc_state *st, const job *j, int si, int ni, double *delta, int *cards);
/* The smallest share of one card (percent) a task of the run's trace asks:
 * room below it on a card is never used (gpu_select=fgdfit). */
double sc_min_share_pct(const sc_state *st);
/* gpu_select=fgdfit: would the tasks of the trace held to some GPU models
 * (gpu_model lists) ask all of the pool's free share before the cluster is
 * full, at the trace's mix? (false without such tasks) */
bool sc_pool_scarce(const sc_state *st, int pool);
/* gpu_select=fgdfit: every card's free share (percent), kept current by
 * sc_frag_changed (NULL under other strategies). */
const double *sc_card_free_cached(const sc_state *st);
/* gpu_select=fgdfit: node ni's idle share (percent of a card, summed), and
 * whether one of its cards may have lo_pct..hi_pct free (no false "no"). */
double sc_node_idle_pct(const sc_state *st, int ni);
bool sc_node_has_room_in(const sc_state *st, int ni, double lo_pct, double hi_pct);
/* gpu_select=fgdhost: of idle_gpus free GPUs on a node with cpu_free cores
 * and mem_free GiB left, how many the host could not feed at the trace's
 * host resources per GPU (0 when it feeds them all). O(1). */
double sc_stranded_gpus(const sc_state *st, double idle_gpus, double cpu_free, double mem_free);
/* Report fields (gpu.frag_*). */
void sc_frag_report(const sc_state *st, const sim *s, cJSON *root);

#endif
