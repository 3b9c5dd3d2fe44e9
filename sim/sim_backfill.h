/* sim_backfill.h - EASY backfilling, the queue discipline `queue=backfill`
 * (D. Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; A. Mu'alem and
 * D. Feitelson, IEEE TPDS 12(6), 2001; Slurm's sched/backfill).
 *
 * A pass starts requests in queue order while they fit (as queue=fifo). The
 * first that does not, the head, gets a reservation: the earliest planned
 * time T its GPUs are free, judged by the running jobs' time limits
 * (sim_bf_index.h), and the nodes reserved for it then: one node of its
 * pools with its GPUs; across nodes (sim_gang.h), in one pool, k - 1 nodes
 * with its part of g and another with its part of r, inside one rack or
 * block when it must stay there (sim_topo.h). Then at most look_ahead later
 * requests are tried in queue order (Slurm's bf_max_job_test, default 500:
 * slurm.conf(5), SchedMD/slurm src/plugins/sched/backfill/backfill.c
 * DEF_BF_MAX_JOB_TEST); one starts now only if it fits and either ends, by
 * its own time limit, no later than T, or takes nothing the reservation
 * needs: of a reserved node's GPUs free now it may use only the extra,
 * those still free at T after the head's part there.
 *
 * The rule is the ledger's: while requests are tried, each reserved node's
 * GPUs beyond its extra are held (taken from the ledger, given back when
 * the pass is done), so the placement, the policy's or the gang placer's,
 * keeps long requests off them; a request that ends by T and does not fit
 * under the holds is tried again without them. Of the nodes planned free by
 * T, those that would hold least are reserved (the nodes a job ending by T
 * frees before the nodes free now), and they are chosen again after every
 * start: so a long request may use every node the head does not need, as
 * EASY's count of extra nodes allows. The queue's demand index is told the
 * room the holds hide. A request's class (sim_queue.h) includes its time
 * limit and shape across nodes, so a class whose head is refused is
 * refused as a whole for the right reason.
 *
 * The reservation is kept between passes while no job started or stopped
 * outside a pass (sim_bf_index_epoch) and the head is the same: an arrival
 * then costs one try, because nothing tried before could start now (no
 * GPU was given back, and a later `now` only makes a request end later).
 *
 * Judged by GPUs: the head's CPU, memory and quota are not planned (a head
 * short of them starts when it fits); a head that no listed job's end makes
 * room for (held by work with no limit) gets no reservation, and the pass
 * skips as queue=skip does. A job running past its time limit is planned
 * as ending by then.
 *
 * Cost: the fifo part as sim_queue_dispatch; a reservation, when the kept one is
 * stale, O(pools + jobs on the node) for one node, O((k + ties) log k) per
 * pool across k nodes, and a walk of the pool's nodes in planned order
 * until one domain holds k for a head that must stay inside one (at worst
 * every node of the pool); then at most look_ahead tries, each one
 * placement, and after each start the nodes chosen again (O(k log k)) and
 * held (O(k) ledger changes): O(look_ahead x (a placement + k log k)) a
 * pass, whatever the cluster's size. Keeping the index: per job started or
 * stopped, O(jobs on each of its nodes + G) (sim_bf_index.h).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_BACKFILL_H
#define GPUSIM_SIM_BACKFILL_H

#include "sim_cluster.h"
#include "sim_queue.h"

typedef struct sim_bf sim_bf;

/* The discipline for a run on cluster cl (its nodes, no job running yet)
 * whose clock is *now_us. */
sim_bf *sim_bf_new(const gs_time_us *now_us, sim_cluster *cl, size_t look_ahead);
void sim_bf_free(sim_bf *b); /* NULL-safe */
/* j was just placed on whole cards of j->node (sim_place_whole) / is about
 * to give them back (sim_release_whole). */
void sim_bf_taken(sim_bf *b, const job *j);
void sim_bf_given(sim_bf *b, const job *j);
/* Mixed into j's queue class key: requests of one class share a time limit
 * and, across nodes, a shape. */
uint64_t sim_bf_class_key(const job *j);
/* The queue demand of a request across nodes (sim_queue.h): its largest
 * part, the least over its pools; no node with that many GPUs free, and it
 * cannot start. O(pools). */
uint32_t sim_bf_demand(const sim_bf *b, const job *j);

/* The place a pass starts requests with (try_start's contract, sim_queue_dispatch)
 * and the queue's room (NULL: no demand index) and host room. */
typedef struct sim_bf_ops {
    bool (*place)(void *ud, job *j);
    uint32_t (*room)(void *ud);
    const sim_queue_host *host;
    void *ud;
} sim_bf_ops;

/* A pass over q. A pass asked for while one runs (a start released
 * something) is run again after it, once the holds are given back. */
void sim_bf_dispatch(sim_bf *b, sim_queue *q, const sim_bf_ops *ops);
/* A new request j while q is not empty: BF_STARTED (it started under the
 * kept reservation), BF_QUEUE (queue it; nothing else can start), or
 * BF_PASS (queue it, then run a pass). */
enum { BF_STARTED = 1, BF_QUEUE, BF_PASS };
int sim_bf_arrive(sim_bf *b, sim_queue *q, job *j, const sim_bf_ops *ops);

/* Requests started past the head under a reservation, and reservations made. */
uint64_t sim_bf_backfilled(const sim_bf *b);
uint64_t sim_bf_reservations(const sim_bf *b);

#endif
