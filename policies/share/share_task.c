/* share_task.c - the tasks' records by job slot (see share_task.h).
 * SPDX-License-Identifier: MIT */
#include "share_task.h"

#include <stdlib.h>
#include <string.h>

sc_task *sc_task_new(sc_state *st, const job *j)
{
    if (!st->tfree) {
        st->tchunks = xrealloc(st->tchunks, (size_t)(st->ntchunks + 1) * sizeof *st->tchunks);
        sc_task *c = xcalloc(SC_TASK_CHUNK, sizeof *c);
        st->tchunks[st->ntchunks++] = c;
        for (int i = SC_TASK_CHUNK - 1; i >= 0; i--) { /* first slot first */
            c[i].u.next = st->tfree;
            st->tfree = &c[i];
        }
    }
    sc_task *t = st->tfree;
    st->tfree = t->u.next;
    *t = (sc_task){.live = true, .gen = j->gen};
    /* a task on several cards keeps their rates out of line; an internal
     * one (a service replica) its residency LRU key too */
    if (sc_task_wide(j)) {
        size_t n = j->req.gpus > 0 ? (size_t)j->req.gpus : 0;
        t->u.more = xcalloc(1, sizeof *t->u.more + n * sizeof *t->u.more->rate);
        t->wide = true;
    }
    return t;
}

void sc_task_set(sc_state *st, const job *j, sc_task *t)
{
    uint32_t c = j->slot / SC_TREC_CHUNK;
    if (c >= st->ntrec) {
        if (!t)
            return;
        st->trec = xrealloc(st->trec, (size_t)(c + 1) * sizeof *st->trec);
        memset(st->trec + st->ntrec, 0, (size_t)(c + 1 - st->ntrec) * sizeof *st->trec);
        st->ntrec = c + 1;
    }
    if (!st->trec[c]) {
        if (!t)
            return;
        st->trec[c] = xcalloc(SC_TREC_CHUNK, sizeof *st->trec[c]);
    }
    st->trec[c][j->slot % SC_TREC_CHUNK] = t;
}

void sc_task_free(sc_state *st, sc_task *t)
{
    if (t->wide)
        free(t->u.more);
    *t = (sc_task){.u.next = st->tfree};
    st->tfree = t;
}

void sc_tasks_free(sc_state *st)
{
    for (int c = 0; c < st->ntchunks; c++) {
        for (int i = 0; i < SC_TASK_CHUNK; i++)
            if (st->tchunks[c][i].live && st->tchunks[c][i].wide)
                free(st->tchunks[c][i].u.more);
        free(st->tchunks[c]);
    }
    free(st->tchunks);
    for (uint32_t c = 0; c < st->ntrec; c++)
        free(st->trec[c]);
    free(st->trec);
}
