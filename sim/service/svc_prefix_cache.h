/* svc_prefix_cache.h - one replica's KV-cache prefix blocks (prefix caching,
 * as vLLM's automatic prefix caching and Mooncake's KV-cache reuse do).
 *
 * A prompt is cut into fixed blocks of tokens; a block is named by an id that
 * hashes the block and everything before it, so two prompts share block k
 * only if they share blocks 0..k. A request whose first m blocks are resident
 * skips their prefill. The cache holds at most `capacity` blocks and evicts
 * the least recently used. Self-contained: no simulator types.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SVC_PREFIX_CACHE_H
#define GPUSIM_SVC_PREFIX_CACHE_H

#include <stdint.h>

typedef struct svc_prefix_cache svc_prefix_cache;

svc_prefix_cache *svc_prefix_cache_new(long capacity_blocks);
void svc_prefix_cache_free(svc_prefix_cache *c);
/* Leading blocks of ids[0..n) that are resident (stops at the first miss: a
 * later block cannot be used without the ones before it). Touches nothing. */
int svc_prefix_cache_match(const svc_prefix_cache *c, const uint64_t *ids, int n);
/* A request's prefill on this replica: returns svc_prefix_cache_match(ids, n), then makes
 * the n blocks resident and most recently used, the first block the most
 * recent of all (a prefix outlives its tail: eviction takes the tail of a
 * prompt first, as vLLM frees a sequence's blocks last-first), evicting the
 * least recently used as needed. With n > capacity the first `capacity`
 * blocks stay. O(n). */
int svc_prefix_cache_admit(svc_prefix_cache *c, const uint64_t *ids, int n);
long svc_prefix_cache_size(const svc_prefix_cache *c);
uint64_t svc_prefix_cache_evictions(const svc_prefix_cache *c);

#endif
