/* sim_queue.h - the pending-request queue a policy keeps.
 *
 * Requests are ordered by priority (higher first), then submit time, then
 * arrival order. They are kept in classes by a policy-chosen shape key (e.g.
 * GPUs requested and allowed models), one binary heap per class, so a
 * dispatch pass looks at one head per class instead of walking the whole
 * queue: a class whose head does not fit is skipped for the rest of the pass,
 * because every request behind it has the same shape and capacity only
 * shrinks while the pass starts work. Cost per pass: O(classes) per start,
 * O(log n) per push and pop.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_QUEUE_H
#define GPUSIM_SIM_QUEUE_H

#include "sim_job.h"

typedef struct sq_class {
    uint64_t key;
    job **heap;
    size_t n, cap;
    int active_pos; /* index in sq.active, -1 when empty */
    uint64_t failed_pass;
} sq_class;

typedef struct sim_queue {
    sq_class *cls;
    int ncls, cls_cap;
    int *hash; /* open addressing: class index or -1 */
    int hash_cap;
    int *active; /* classes with n > 0 */
    int nactive;
    size_t len;
    uint64_t pass;
} sim_queue;

void sq_init(sim_queue *q);
void sq_free(sim_queue *q);
void sq_push(sim_queue *q, job *j, uint64_t key);
static inline size_t sq_len(const sim_queue *q) { return q->len; }
/* Starts queued requests in order. try_start(ud, j) must either start j and
 * return true, or change nothing and return false. strict: stop at the first
 * request that does not fit (head-of-line); otherwise skip it and go on. */
/* issue 8: takes j out of the queue (a wait that timed out). false if j is
 * not in it. Cost O(requests of j's shape) to find it. */
bool sq_remove(sim_queue *q, job *j);
void sq_dispatch(sim_queue *q, bool strict, bool (*try_start)(void *ud, job *j), void *ud);

#endif
