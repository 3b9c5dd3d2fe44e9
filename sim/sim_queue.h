/* sim_queue.h - the pending-request queue a policy keeps.
 *
 * Requests are ordered by priority (higher first), then submit time, then
 * arrival order. They are kept in classes by a policy-chosen shape key (e.g.
 * GPUs requested and allowed models), one binary heap per class, so a
 * dispatch pass looks at one head per class instead of walking the whole
 * queue: a class whose head does not fit is skipped for the rest of the pass,
 * because every request behind it has the same shape and capacity only
 * shrinks while the pass starts work.
 *
 * Classes are indexed by demand: a small number the policy derives from the
 * shape (e.g. cards needed on one node), together with the room it reports
 * (the most cards open on any node). A request whose demand exceeds the room
 * cannot fit, so a pass never visits its class: a thousand shapes that cannot
 * fit cost nothing at a release that frees one card. Within one demand the
 * non-empty classes sit in a heap ordered by their heads, so a pass picks the
 * next request over the demand buckets' tops.
 *
 * Host CPU and memory likewise (sim_queue_dispatch_host): a bucket holds one
 * demand and one coarse level of the CPU and memory its requests ask (four
 * levels per doubling of each), and keeps the least of both it ever held;
 * a pass skips a bucket whose least ask exceeds the most free on any node.
 * Where the host counts its gives (sim_queue_host.gives), a skipping pass parks a
 * bucket whose least ask no node has: later passes leave it out, and it is
 * woken only when a node given something back since has that ask; those
 * are then the only nodes its asks are checked against. In an overloaded
 * queue bound by CPU or memory most buckets stay parked across releases,
 * and a release costs a look at the few nodes it gave to per bucket, not a
 * fit-index descent per bucket and a try per head.
 *
 * Classes that emptied are dropped, and the rest renumbered, once at least
 * half of them and more than 64 are empty (outside a pass): so many shape
 * keys over a run (CPU and memory values, backfill's time limits) cost
 * memory for the shapes queued, not for every shape ever seen. Order never
 * depends on a class's number, so this changes nothing a pass does.
 *
 * Cost: O(log n) per push and pop (amortized, with the renumbering); a pass costs O(buckets + log classes) per
 * request it starts (after a start that released nothing, O(listed) to
 * filter its list), and it tries only the heads of classes within the room
 * (each at most once when it fails). The number of buckets is the number of
 * distinct demands (a handful: the card counts requests ask for) times the
 * host levels in use (1 without CPU and memory asks or with host_blind; a
 * few hundred for asks spread over a decade of each).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_QUEUE_H
#define GPUSIM_SIM_QUEUE_H

#include "sim_job.h"

/* room for a policy that reports none: every class may fit */
#define SQ_ROOM_ANY UINT32_MAX

typedef struct sim_queue_class {
    uint64_t key;
    /* heap[0..n): a binary heap (the head is heap[0]) that starts `off`
     * entries into its allocation base[0..cap). While unsorted is false the
     * entries are in order, as requests of one priority arrive: a push
     * appends, and the head is taken by moving the start (no sift down). */
    job **heap, **base;
    size_t n, cap, off;
    bool unsorted;
    uint32_t demand;
    int bucket;   /* index in sim_queue.bk */
    int bpos;     /* position in its bucket's heap, -1 when empty or failed this pass */
} sim_queue_class;

/* The non-empty classes of one demand, in a heap ordered by their heads. */
typedef struct sim_queue_bucket {
    uint32_t demand;
    uint32_t host;   /* the host level (CPU and memory, coarse): with demand, the bucket's order */
    double cpu_min;  /* the least CPU cores and GiB any request ever queued in it asked: */
    double mem_min;  /* a lower bound on what each of its requests asks */
    int *h;
    int n, cap;
    /* what a skipping pass with a host that counts its gives knows of the
     * least ask (sim_queue_dispatch_host): SQ_LIVE nothing; SQ_PARKED no node has
     * it free (left out of passes until a node given something has);
     * SQ_WOKEN no node had it when the host's count of gives was `base`,
     * so only the nodes given something since can have it now */
    unsigned char state;
    uint64_t base;
} sim_queue_bucket;

enum { SQ_LIVE, SQ_PARKED, SQ_WOKEN };

typedef struct sim_queue {
    sim_queue_class *cls;
    int ncls, cls_cap;
    int nlive; /* classes holding requests: the rest are dropped when they are many (sim_queue_push) */
    int *hash; /* open addressing: class index or -1 */
    int hash_cap;
    sim_queue_bucket *bk; /* in ascending demand */
    int nbk;
    int *failed; /* classes taken out of their buckets during a pass */
    int nfailed, failed_cap;
    int depth; /* passes running (a start may release, and so dispatch, inside one) */
    uint64_t gen;     /* moves at every push, removal and pass inside a pass */
    int nparked;      /* buckets SQ_PARKED */
    uint64_t park_at; /* the host's count of gives when they were last checked */
    size_t len;
    /* set before the first push when no pass has a host room (every ask
     * fits the host): one bucket per demand, not per host level */
    bool host_blind;
} sim_queue;

void sim_queue_init(sim_queue *q);
void sim_queue_free(sim_queue *q);
/* Queues j in the class of key; demand is the class's (one key, one demand). */
void sim_queue_push(sim_queue *q, job *j, uint64_t key, uint32_t demand);
static inline size_t sim_queue_len(const sim_queue *q) { return q->len; }
/* Takes j out of the queue: a wait given up (a wake that timed out) or a
 * preemptor started out of order at a hand-over. false if j is not in it.
 * Cost O(requests of j's shape) to find it. */
bool sim_queue_remove(sim_queue *q, job *j);
/* Starts queued requests in order. try_start(ud, j) must either start j and
 * return true, or change nothing and return false. strict: stop at the first
 * request that does not fit (head-of-line); otherwise skip it and go on.
 * room(ud) (NULL: no bound): no request whose class demand exceeds it can
 * start now; asked at the start of the pass and after each start. Classes
 * beyond it are not visited, and in strict order a head beyond it ends the
 * pass as its failed try would. */
void sim_queue_dispatch(sim_queue *q, bool strict, uint32_t (*room)(void *ud), bool (*try_start)(void *ud, job *j),
                 void *ud);
/* The host room (NULL members: no bound). room(ud, &cpu, &mem) is at least
 * the most free CPU cores and the most free GiB on any node (each may come
 * from a different node; +INFINITY when unlimited); fits(ud, cpu, mem), if
 * not NULL, says whether one node has both free (free >= ask - 1e-9). */
typedef struct sim_queue_host {
    void (*room)(void *ud, double *cpu, double *mem);
    bool (*fits)(void *ud, double cpu, double mem);
    /* Optional, both or neither, with fits: gives(ud) counts the gives so
     * far (a node's free CPU or memory grows only at one); given_free(ud,
     * since, cpu, mem, max) writes the free cores and GiB now of the nodes
     * given something since the count was `since` (a node may appear
     * twice) and returns how many, or -1 when more than max or unknown.
     * With them a skipping pass parks a bucket whose least ask no node has,
     * and later passes leave it out until a node given something has it. */
    uint64_t (*gives)(void *ud);
    int (*given_free)(void *ud, uint64_t since, double *cpu, double *mem, int max);
} sim_queue_host;

/* sim_queue_dispatch with a host room as well: try_start must refuse a request
 * whose req.cpu or req.mem_gib no node has free (by the ledger's tolerance,
 * 1e-9). Classes sit in buckets by (demand, host level), and a bucket whose
 * least CPU or memory ask exceeds the host room is not visited; in skipping
 * order, a bucket whose least ask no single node has free (host->fits) is
 * dropped before its head is tried. A thousand CPU-bound shapes cost
 * nothing at a release that frees a few cores. */
void sim_queue_dispatch_host(sim_queue *q, bool strict, uint32_t (*room)(void *ud), const sim_queue_host *host,
                      bool (*try_start)(void *ud, job *j), void *ud);
/* sim_queue_dispatch_host that stops after max_tries calls of try_start (SIZE_MAX:
 * no bound; a backfill pass's look-ahead); returns the calls made. */
size_t sim_queue_dispatch_upto(sim_queue *q, bool strict, uint32_t (*room)(void *ud), const sim_queue_host *host,
                        bool (*try_start)(void *ud, job *j), void *ud, size_t max_tries);
/* The first request in queue order (priority, submit, arrival), or NULL.
 * O(buckets); not during a pass. */
job *sim_queue_head(const sim_queue *q);
/* Whether a comes before b in queue order. */
bool sim_queue_before(const job *a, const job *b);

#endif
