/* sim_strtab.h - a run's strings: low-cardinality names interned once,
 * job ids kept in size-class slabs.
 *
 * A job in flight holds its request's strings by pointer (sim_job.h). Names
 * a trace repeats (tenant, mig profile, ref_gpu, speedup table) are interned:
 * one copy per distinct value for the whole run, so their memory is bounded
 * by the distinct values, not by the jobs. A job id is unique, so it is
 * copied into a slab slot of its size class (16, 32, ... bytes) and the slot
 * goes back on its class's free list when the job ends: id memory follows the
 * jobs in flight, not the trace length, and costs no allocator header.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_STRTAB_H
#define GPUSIM_SIM_STRTAB_H

#include <stddef.h>

/* Size classes of id slots: 16 << k bytes, k < SIM_STR_CLASSES; a longer
 * id (over 1 KiB) gets its own allocation. */
#define SIM_STR_CLASSES 7

typedef struct sim_strtab {
    /* interned: open addressing, power-of-two capacity, half full at most */
    char **set;
    size_t cap, n;
    /* ids: per class a free list threaded through free slots, and the
     * slabs carved so far */
    char *free_slot[SIM_STR_CLASSES];
    char *carve[SIM_STR_CLASSES]; /* the class's newest slab: slots not handed out yet */
    size_t carve_left[SIM_STR_CLASSES];
    char **slabs;
    size_t nslabs;
    size_t id_bytes; /* bytes held by ids in use (their slots), for tests */
} sim_strtab;

/* The empty string every unset name points to (never freed). */
extern const char sim_str_none[];

void sim_strtab_init(sim_strtab *t);
void sim_strtab_free(sim_strtab *t);
/* The run's one copy of s ("" and NULL give sim_str_none). Valid until
 * sim_strtab_free. O(length) expected. */
const char *sim_str_intern(sim_strtab *t, const char *s);
/* A private copy of id in a slot of its size class ("" and NULL give
 * sim_str_none, which sim_str_drop ignores). */
const char *sim_str_id(sim_strtab *t, const char *id);
/* Gives id's slot back (id from sim_str_id, or sim_str_none). */
void sim_str_drop(sim_strtab *t, const char *id);

#endif
