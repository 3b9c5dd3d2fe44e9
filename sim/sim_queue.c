/* sim_queue.c - pending queue: per-shape heaps (see sim_queue.h).
 * SPDX-License-Identifier: MIT */
#include "sim_queue.h"

#include <stdlib.h>
#include <string.h>

static inline bool before(const job *a, const job *b)
{
    if (a->req.priority != b->req.priority)
        return a->req.priority > b->req.priority;
    if (a->req.submit_us != b->req.submit_us)
        return a->req.submit_us < b->req.submit_us;
    return a->arrival_no < b->arrival_no;
}

void sq_init(sim_queue *q) { memset(q, 0, sizeof *q); }

void sq_free(sim_queue *q)
{
    for (int i = 0; i < q->ncls; i++)
        free(q->cls[i].heap);
    free(q->cls);
    free(q->hash);
    free(q->active);
    memset(q, 0, sizeof *q);
}

static inline uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    return k ^ (k >> 33);
}

static void rehash(sim_queue *q)
{
    free(q->hash);
    q->hash_cap = q->hash_cap ? q->hash_cap * 2 : 64;
    q->hash = xmalloc((size_t)q->hash_cap * sizeof *q->hash);
    for (int i = 0; i < q->hash_cap; i++)
        q->hash[i] = -1;
    for (int c = 0; c < q->ncls; c++) {
        size_t h = mix(q->cls[c].key) & (size_t)(q->hash_cap - 1);
        while (q->hash[h] >= 0)
            h = (h + 1) & (size_t)(q->hash_cap - 1);
        q->hash[h] = c;
    }
}

static int class_of(sim_queue *q, uint64_t key)
{
    if (q->hash_cap == 0 || (q->ncls + 1) * 2 > q->hash_cap)
        rehash(q);
    size_t h = mix(key) & (size_t)(q->hash_cap - 1);
    while (q->hash[h] >= 0) {
        if (q->cls[q->hash[h]].key == key)
            return q->hash[h];
        h = (h + 1) & (size_t)(q->hash_cap - 1);
    }
    if (q->ncls == q->cls_cap) {
        q->cls_cap = q->cls_cap ? q->cls_cap * 2 : 8;
        q->cls = xrealloc(q->cls, (size_t)q->cls_cap * sizeof *q->cls);
        q->active = xrealloc(q->active, (size_t)q->cls_cap * sizeof *q->active);
    }
    sq_class *c = &q->cls[q->ncls];
    memset(c, 0, sizeof *c);
    c->key = key;
    c->active_pos = -1;
    q->hash[h] = q->ncls;
    return q->ncls++;
}

void sq_push(sim_queue *q, job *j, uint64_t key)
{
    int ci = class_of(q, key);
    sq_class *c = &q->cls[ci];
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->heap = xrealloc(c->heap, c->cap * sizeof *c->heap);
    }
    size_t i = c->n++;
    while (i > 0 && before(j, c->heap[(i - 1) / 2])) {
        c->heap[i] = c->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->heap[i] = j;
    j->q_class = ci;
    if (c->active_pos < 0) {
        c->active_pos = q->nactive;
        q->active[q->nactive++] = ci;
    }
    q->len++;
}

static void pop_head(sim_queue *q, sq_class *c)
{
    job *last = c->heap[--c->n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= c->n)
            break;
        if (k + 1 < c->n && before(c->heap[k + 1], c->heap[k]))
            k++;
        if (!before(c->heap[k], last))
            break;
        c->heap[i] = c->heap[k];
        i = k;
    }
    if (c->n)
        c->heap[i] = last;
    q->len--;
    if (c->n == 0) { /* leave the active list: swap the last entry in */
        int pos = c->active_pos, moved = q->active[--q->nactive];
        q->active[pos] = moved;
        q->cls[moved].active_pos = pos;
        c->active_pos = -1;
    }
}

void sq_dispatch(sim_queue *q, bool strict, bool (*try_start)(void *ud, job *j), void *ud)
{
    uint64_t pass = ++q->pass;
    for (;;) {
        sq_class *best = NULL;
        for (int a = 0; a < q->nactive; a++) {
            sq_class *c = &q->cls[q->active[a]];
            if (c->failed_pass != pass && (!best || before(c->heap[0], best->heap[0])))
                best = c;
        }
        if (!best)
            return;
        job *j = best->heap[0];
        if (try_start(ud, j)) {
            pop_head(q, best);
        } else {
            if (strict)
                return;
            best->failed_pass = pass;
        }
    }
}

/* issue 8: removes j from its class heap (a wait given up). Finding j is a
 * scan of its class, O(requests of that shape); removal is O(log n). Rare
 * (timeouts), so the queue keeps no per-job heap index. */
bool sq_remove(sim_queue *q, job *j)
{
    if (j->q_class < 0 || j->q_class >= q->ncls)
        return false;
    sq_class *c = &q->cls[j->q_class];
    size_t i = 0;
    while (i < c->n && c->heap[i] != j)
        i++;
    if (i == c->n)
        return false;
    if (i == 0) {
        pop_head(q, c);
        j->q_class = -1;
        return true;
    }
    job *last = c->heap[--c->n];
    q->len--;
    if (i < c->n) { /* put last at i and restore the heap both ways */
        while (i > 0 && before(last, c->heap[(i - 1) / 2])) {
            c->heap[i] = c->heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        for (;;) {
            size_t k = 2 * i + 1;
            if (k >= c->n)
                break;
            if (k + 1 < c->n && before(c->heap[k + 1], c->heap[k]))
                k++;
            if (!before(c->heap[k], last))
                break;
            c->heap[i] = c->heap[k];
            i = k;
        }
        c->heap[i] = last;
    }
    j->q_class = -1;
    return true;
}
