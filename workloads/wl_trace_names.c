/* wl_trace_names.c - the reader's names: each distinct text of a name
 * column (tenant, gpu_model, ref_gpu, class, service, ...) numbered once,
 * per column, in order of first appearance (wl_row's *_sym members).
 *
 * Open addressing on a 64-bit hash of (column, text), at most half full;
 * the texts are kept in chunks that never move. Memory is O(distinct
 * names), never O(rows). A row's name costs O(length): the same text as the
 * column's previous row is one comparison (wl_name_sym, wl_trace_int.h),
 * any other one hash probe.
 * SPDX-License-Identifier: MIT */
#include "wl_trace_int.h"

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

uint32_t wl_name_sym_slow(wl_trace *t, int col, const char *s, size_t len)
{
    wl_names *n = &t->names;
    if (2 * (n->used + 1) > n->cap)
        grow(n);
    uint64_t h = name_hash(col, s, len);
    size_t k = h & (n->cap - 1);
    for (; n->slot[k].text; k = (k + 1) & (n->cap - 1)) {
        const wl_name *e = &n->slot[k];
        if (e->hash == h && e->col == col && e->len == len && !memcmp(e->text, s, len))
            break;
    }
    wl_name *e = &n->slot[k];
    if (!e->text) {
        if (n->count[col] == UINT32_MAX)
            return 0; /* past 2^32 - 1 names: the text alone, as a row built by hand */
        *e = (wl_name){.hash = h, .text = keep_text(n, s, len), .len = (uint32_t)len, .col = (uint8_t)col,
                       .sym = ++n->count[col]};
        n->used++;
    }
    n->last[col] = e->text;
    n->last_len[col] = e->len;
    n->last_sym[col] = e->sym;
    return e->sym;
}

void wl_names_free(wl_names *n)
{
    for (size_t i = 0; i < n->nchunks; i++)
        free(n->chunks[i]);
    free(n->chunks);
    free(n->slot);
}
