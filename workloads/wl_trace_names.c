/* wl_trace_names.c - the reader's names: each distinct text of a name
 * column (tenant, gpu_model, ref_gpu, class, service, ...) numbered once,
 * per column, in order of first appearance (wl_row's *_sym members).
 *
 * Open addressing on a 64-bit hash of (column, text), at most half full;
 * the texts are kept in chunks that never move. Memory is O(distinct
 * names), never O(rows). A row's name costs O(length): one of the column's
 * recent names is a comparison (wl_name_find, wl_trace_names.h), any other
 * one hash probe. Only names that passed their column's check are numbered,
 * so a name found needs no check again.
 * SPDX-License-Identifier: MIT */
#include "wl_trace_names.h"

#include <stdlib.h>

#define CHUNK_BYTES (64u * 1024u)

static uint64_t name_hash(int col, const char *s, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)col << 32) ^ len;
    for (; len >= sizeof(uint64_t); s += sizeof(uint64_t), len -= sizeof(uint64_t)) {
        uint64_t x;
        memcpy(&x, s, sizeof x);
        h = (h ^ x) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    uint64_t x = 0;
    memcpy(&x, s, len);
    h = (h ^ x) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* A copy of the len bytes at s (and a NUL) that stays where it is. */
static const char *keep_text(wl_names *n, const char *s, size_t len)
{
    if (len + 1 > n->chunk_left) {
        size_t size = len + 1 > CHUNK_BYTES ? len + 1 : CHUNK_BYTES;
        n->chunks = xrealloc(n->chunks, (n->nchunks + 1) * sizeof *n->chunks);
        n->chunk = n->chunks[n->nchunks++] = xmalloc(size);
        n->chunk_left = size;
    }
    char *p = n->chunk;
    memcpy(p, s, len);
    p[len] = 0;
    n->chunk += len + 1;
    n->chunk_left -= len + 1;
    return p;
}

static void grow(wl_names *n)
{
    size_t cap = n->cap ? n->cap * 2 : 64;
    wl_name *slot = xcalloc(cap, sizeof *slot);
    for (size_t i = 0; i < n->cap; i++) {
        if (!n->slot[i].text)
            continue;
        size_t k = n->slot[i].hash & (cap - 1);
        while (slot[k].text)
            k = (k + 1) & (cap - 1);
        slot[k] = n->slot[i];
    }
    free(n->slot);
    n->slot = slot;
    n->cap = cap;
}

static void remember(wl_names *n, int col, const wl_name *e)
{
    unsigned k = wl_name_recent_key(e->text, e->len);
    n->recent[col][k].text = e->text;
    n->recent[col][k].len = e->len;
    n->recent[col][k].sym = e->sym;
}

/* The slot of (col, s), or the free slot where it goes. */
static wl_name *slot_of(wl_names *n, int col, const char *s, size_t len, uint64_t h)
{
    size_t k = h & (n->cap - 1);
    for (; n->slot[k].text; k = (k + 1) & (n->cap - 1)) {
        const wl_name *e = &n->slot[k];
        if (e->hash == h && e->col == col && e->len == len && wl_same_text(e->text, s, len))
            break;
    }
    return &n->slot[k];
}

uint32_t wl_name_find_slow(wl_trace *t, int col, const char *s, size_t len)
{
    wl_names *n = &t->names;
    if (!n->cap)
        return 0;
    const wl_name *e = slot_of(n, col, s, len, name_hash(col, s, len));
    if (!e->text)
        return 0;
    remember(n, col, e);
    return e->sym;
}

uint32_t wl_name_add(wl_trace *t, int col, const char *s, size_t len)
{
    wl_names *n = &t->names;
    if (2 * (n->used + 1) > n->cap)
        grow(n);
    uint64_t h = name_hash(col, s, len);
    wl_name *e = slot_of(n, col, s, len, h);
    if (e->text)
        return e->sym; /* numbered already */
    if (n->count[col] >= UINT32_MAX - 1)
        return 0; /* past 2^32 - 2 names: the text alone, as a row built by hand */
    *e = (wl_name){.hash = h, .text = keep_text(n, s, len), .len = (uint32_t)len, .col = (uint8_t)col,
                   .sym = ++n->count[col]};
    n->used++;
    remember(n, col, e);
    return e->sym;
}

void wl_names_free(wl_names *n)
{
    for (size_t i = 0; i < n->nchunks; i++)
        free(n->chunks[i]);
    free(n->chunks);
    free(n->slot);
}
