/* sim_waitset.c - see sim_waitset.h.
 * SPDX-License-Identifier: MIT */
#include "sim_waitset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_job.h"

void sim_waitset_free(sim_waitset *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->c[i].h);
    free(w->c);
    memset(w, 0, sizeof *w);
}

bool sim_waitset_ranks_before(const job *a, const job *b)
{
    if (a->req.priority != b->req.priority)
        return a->req.priority > b->req.priority;
    if (a->req.submit_us != b->req.submit_us)
        return a->req.submit_us < b->req.submit_us;
    return a->arrival_no < b->arrival_no;
}

static bool live(const sim_waitset_ent *e)
{
    return e->j->gen == e->gen && e->j->state == JOB_QUEUED && (e->j->core_flags & JF_WAITING);
}

static void heap_up(sim_waitset_class *c, size_t i)
{
    sim_waitset_ent e = c->h[i];
    while (i > 0 && sim_waitset_ranks_before(e.j, c->h[(i - 1) / 2].j)) {
        c->h[i] = c->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->h[i] = e;
}

static void heap_down(sim_waitset_class *c, size_t i)
{
    sim_waitset_ent e = c->h[i];
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= c->n)
            break;
        if (k + 1 < c->n && sim_waitset_ranks_before(c->h[k + 1].j, c->h[k].j))
            k++;
        if (!sim_waitset_ranks_before(c->h[k].j, e.j))
            break;
        c->h[i] = c->h[k];
        i = k;
    }
    c->h[i] = e;
}

void sim_waitset_pop(sim_waitset_class *c)
{
    c->h[0] = c->h[--c->n];
    if (c->n)
        heap_down(c, 0);
}

job *sim_waitset_head(sim_waitset_class *c)
{
    while (c->n && !live(&c->h[0]))
        sim_waitset_pop(c);
    return c->n ? c->h[0].j : NULL;
}

/* O(shapes) to find the class: traces have few request shapes. */
static sim_waitset_class *class_for(sim_waitset *w, const job *j)
{
    for (int i = 0; i < w->n; i++) {
        sim_waitset_class *c = &w->c[i];
        if (c->gpus == j->req.gpus && c->gpucores == j->req.gpucores && c->tenant_ix == j->tenant_ix &&
            c->gpumem_mib == j->req.gpumem_mib && c->pools == j->pools && c->cpu == j->req.cpu &&
            c->mem_gib == j->req.mem_gib && !strcmp(c->mig, j->req.mig))
            return c;
    }
    w->c = xrealloc(w->c, (size_t)(w->n + 1) * sizeof *w->c);
    sim_waitset_class *c = &w->c[w->n++];
    memset(c, 0, sizeof *c);
    c->gpus = j->req.gpus;
    c->gpucores = j->req.gpucores;
    c->tenant_ix = j->tenant_ix;
    c->gpumem_mib = j->req.gpumem_mib;
    c->pools = j->pools;
    c->cpu = j->req.cpu;
    c->mem_gib = j->req.mem_gib;
    snprintf(c->mig, sizeof c->mig, "%s", j->req.mig);
    return c;
}

void sim_waitset_add(sim_waitset *w, job *j)
{
    if (j->core_flags & JF_WAITING)
        return;
    sim_waitset_class *c = class_for(w, j);
    if (c->n == c->cap) { /* drop stale entries first; grow only if more than half are live */
        size_t k = 0;
        for (size_t i = 0; i < c->n; i++)
            if (live(&c->h[i]))
                c->h[k++] = c->h[i];
        c->n = k;
        for (size_t i = k / 2; i-- > 0;)
            heap_down(c, i);
        if (c->n * 2 >= c->cap) {
            c->cap = c->cap ? c->cap * 2 : 16;
            c->h = xrealloc(c->h, c->cap * sizeof *c->h);
        }
    }
    c->h[c->n++] = (sim_waitset_ent){j, j->gen};
    heap_up(c, c->n - 1);
    j->core_flags |= JF_WAITING;
}

