/* share_task.h - the tasks' records (sc_task, share_state.h): a slab of
 * fixed-size records, filed by job slot.
 *
 * Records come from chunks of SC_TASK_CHUNK, free ones linked: no allocator
 * header a task, pointers stable while the slab grows. The index by slot is
 * chunks of SC_TREC_CHUNK pointers, one allocated when a task of its slot
 * range first keeps a record. O(1) per call.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SHARE_TASK_H
#define GPUSIM_SHARE_TASK_H

#include "share_state.h"

/* A new record for j (its cards' rates out of line when sc_task_wide). */
sc_task *sc_task_new(sc_state *st, const job *j);
/* Files t (NULL: none) as j's record. */
void sc_task_set(sc_state *st, const job *j, sc_task *t);
/* Gives record t back to the slab (the caller unfiles it). */
void sc_task_free(sc_state *st, sc_task *t);
/* Frees the slab and the index, records in use included. */
void sc_tasks_free(sc_state *st);

#endif
