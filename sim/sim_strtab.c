/* sim_strtab.c - a run's strings (see sim_strtab.h).
 * SPDX-License-Identifier: MIT */
#include "sim_strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs.h"

const char sim_str_none[] = "";

/* Slots per slab: a slab is 4 KiB for the smallest class, so a run with a
 * handful of jobs stays small. */
#define SLAB_SLOTS 256u

void sim_strtab_init(sim_strtab *t) { memset(t, 0, sizeof *t); }

void sim_strtab_free(sim_strtab *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->set[i]);
    free(t->set);
    for (size_t i = 0; i < t->nslabs; i++)
        free(t->slabs[i]);
    free(t->slabs);
    memset(t, 0, sizeof *t);
}

/* FNV-1a: short names, few of them; the table stays at most half full */
static uint64_t hash_of(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void grow(sim_strtab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    char **set = xcalloc(cap, sizeof *set);
    for (size_t i = 0; i < t->cap; i++)
        if (t->set[i]) {
            size_t k = hash_of(t->set[i]) & (cap - 1);
            while (set[k])
                k = (k + 1) & (cap - 1);
            set[k] = t->set[i];
        }
    free(t->set);
    t->set = set;
    t->cap = cap;
}

const char *sim_str_intern(sim_strtab *t, const char *s)
{
    if (!s || !*s)
        return sim_str_none;
    if (2 * (t->n + 1) > t->cap)
        grow(t);
    size_t k = hash_of(s) & (t->cap - 1);
    for (; t->set[k]; k = (k + 1) & (t->cap - 1))
        if (!strcmp(t->set[k], s))
            return t->set[k];
    t->set[k] = xstrdup(s);
    t->n++;
    return t->set[k];
}

/* the class of a string of len bytes (terminator included); SIM_STR_CLASSES
 * when it is longer than the largest class */
static int class_of(size_t len)
{
    int k = 0;
    while (k < SIM_STR_CLASSES && ((size_t)16 << k) < len)
        k++;
    return k;
}

/* strlen(s) + 1, counted here for an id that fits the smallest class (most
 * do: a generated trace's are 2-8 characters), the library's strlen past
 * that: a call costs more than counting a short id's bytes, and an id is
 * measured twice a job (sim_str_id, sim_str_drop). */
static inline size_t size_of(const char *s)
{
    size_t n = 0;
    while (n < 16 && s[n])
        n++;
    return n < 16 ? n + 1 : 16 + strlen(s + 16) + 1;
}

/* memcpy(dst, src, len) for 8 <= len <= 16 as two 8-byte moves that
 * overlap in the middle (each a fixed size: no library call), reading and
 * writing only those len bytes; shorter ones byte by byte. */
static inline void copy_small(char *dst, const char *src, size_t len)
{
    if (len >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + len - 8, src + len - 8, 8);
    } else {
        for (size_t i = 0; i < len; i++)
            dst[i] = src[i];
    }
}

const char *sim_str_id(sim_strtab *t, const char *id)
{
    if (!id || !*id)
        return sim_str_none;
    size_t len = size_of(id);
    int k = class_of(len);
    char *slot;
    if (k == SIM_STR_CLASSES)
        slot = xmalloc(len);
    else if (t->free_slot[k]) {
        slot = t->free_slot[k];
        memcpy(&t->free_slot[k], slot, sizeof(char *)); /* the next free slot is stored in the slot */
    } else {
        if (t->carve_left[k] == 0) {
            if ((t->nslabs & (t->nslabs - 1)) == 0) /* 0, 1, 2, 4, ...: room doubles */
                t->slabs = xrealloc(t->slabs, (t->nslabs ? 2 * t->nslabs : 1) * sizeof *t->slabs);
            t->carve[k] = t->slabs[t->nslabs++] = xmalloc((size_t)SLAB_SLOTS << (4 + k));
            t->carve_left[k] = SLAB_SLOTS;
        }
        slot = t->carve[k];
        t->carve[k] += (size_t)16 << k;
        t->carve_left[k]--;
    }
    if (len <= 16)
        copy_small(slot, id, len);
    else
        memcpy(slot, id, len);
    t->id_bytes += k == SIM_STR_CLASSES ? len : (size_t)16 << k;
    return slot;
}

void sim_str_drop(sim_strtab *t, const char *id)
{
    if (!id || id == sim_str_none)
        return;
    size_t len = size_of(id);
    int k = class_of(len);
    char *slot = (char *)id; /* ours: handed out by sim_str_id */
    if (k == SIM_STR_CLASSES) {
        t->id_bytes -= len;
        free(slot);
        return;
    }
    t->id_bytes -= (size_t)16 << k;
    memcpy(slot, &t->free_slot[k], sizeof(char *));
    t->free_slot[k] = slot;
}
