/* sim_fit_index.c - host CPU/memory fit index of one free-card bucket (see
 * sim_fit_index.h). A max segment tree over slots in link order, heap
 * layout: node 1 is the root, leaves are cap .. 2 cap - 1.
 * SPDX-License-Identifier: MIT */
#include "sim_fit_index.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs.h"

static inline double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* A free amount's level, 0..7, doubling per level: cores from 1 ([1, 2)
 * is level 1) to 64 and up, GiB from 8 ([8, 16) is level 1) to 512 and up
 * (shift -3), the sizes of nodes a planner models. Monotone, so a node
 * below an ask's level cannot have room for it; beyond the scale the levels
 * only prune less. */
static inline int fit_level(double x, int shift)
{
    if (!(x >= 1.0)) /* below 1, or -inf: an empty leaf */
        return 0;
    if (x >= 1e300)
        return 7;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1022; /* x >= 1 is normal: x in [2^(e-1), 2^e) */
    int l = e + shift;
    return l < 0 ? 0 : l > 7 ? 7 : l;
}

enum { CPU_SHIFT = 0, MEM_SHIFT = -3 };

static inline unsigned long long cell_of(double cpu, double mem)
{
    if (cpu == -INFINITY)
        return 0; /* an empty slot */
    return 1ULL << (8 * fit_level(cpu, CPU_SHIFT) + fit_level(mem, MEM_SHIFT));
}

/* The cells where a node with cpu cores and mem GiB free could be: levels
 * at or above the ask's in both (the rows c >= c0, in each the bits m >= m0). */
static unsigned long long cells_at_least(double cpu, double mem)
{
    int c0 = fit_level(cpu, CPU_SHIFT), m0 = fit_level(mem, MEM_SHIFT);
    unsigned long long row = (0xffULL << m0) & 0xffULL; /* bits m0 .. 7 of one row */
    return (row * 0x0101010101010101ULL) << (8 * c0);
}

static void pull_up(sim_fit_index *f, int i)
{
    for (i >>= 1; i >= 1; i >>= 1) {
        f->cpu[i] = dmax(f->cpu[2 * i], f->cpu[2 * i + 1]);
        f->mem[i] = dmax(f->mem[2 * i], f->mem[2 * i + 1]);
        f->cells[i] = f->cells[2 * i] | f->cells[2 * i + 1];
    }
}

/* Renumbers the live nodes 0 .. live-1 in their order into cap leaves.
 * O(old cap + cap). */
static void rebuild(sim_fit_index *f, int cap, int *slot_of)
{
    double *cpu = xmalloc(2 * (size_t)cap * sizeof *cpu), *mem = xmalloc(2 * (size_t)cap * sizeof *mem);
    unsigned long long *cells = xmalloc(2 * (size_t)cap * sizeof *cells);
    int *node = xmalloc((size_t)cap * sizeof *node);
    int k = 0;
    for (int s = 0; s < f->top; s++) {
        if (f->node[s] < 0)
            continue;
        cpu[cap + k] = f->cpu[f->cap + s];
        mem[cap + k] = f->mem[f->cap + s];
        cells[cap + k] = f->cells[f->cap + s];
        node[k] = f->node[s];
        slot_of[node[k]] = k;
        k++;
    }
    for (int s = k; s < cap; s++) {
        cpu[cap + s] = mem[cap + s] = -INFINITY;
        cells[cap + s] = 0;
        node[s] = -1;
    }
    for (int i = cap - 1; i >= 1; i--) {
        cpu[i] = dmax(cpu[2 * i], cpu[2 * i + 1]);
        mem[i] = dmax(mem[2 * i], mem[2 * i + 1]);
        cells[i] = cells[2 * i] | cells[2 * i + 1];
    }
    free(f->cpu);
    free(f->mem);
    free(f->cells);
    f->cells = cells;
    free(f->node);
    f->cpu = cpu;
    f->mem = mem;
    f->node = node;
    f->cap = cap;
    f->top = k;
}

/* Leaves for n live nodes with as many free slots again: appends between
 * compactions then number at least the live count, which pays for them. */
static int cap_for(int n)
{
    int cap = 8;
    while (cap < 2 * (n + 1))
        cap *= 2;
    return cap;
}

void sim_fit_index_insert(sim_fit_index *f, int node, double cpu_free, double mem_free, int *slot_of)
{
    if (f->top == f->cap)
        rebuild(f, cap_for(f->live + 1), slot_of);
    int s = f->top++;
    f->node[s] = node;
    f->cpu[f->cap + s] = cpu_free;
    f->mem[f->cap + s] = mem_free;
    f->cells[f->cap + s] = cell_of(cpu_free, mem_free);
    slot_of[node] = s;
    f->live++;
    pull_up(f, f->cap + s);
}

void sim_fit_index_remove(sim_fit_index *f, int slot, int *slot_of)
{
    if (slot < 0 || slot >= f->top || f->node[slot] < 0)
        GS_BUG("sim_fit_index_remove: empty slot");
    slot_of[f->node[slot]] = -1;
    f->node[slot] = -1;
    f->cpu[f->cap + slot] = f->mem[f->cap + slot] = -INFINITY;
    f->cells[f->cap + slot] = 0;
    f->live--;
    pull_up(f, f->cap + slot);
    /* a bucket that emptied gives its memory back */
    if (f->cap > 64 && f->live < f->cap / 8)
        rebuild(f, cap_for(f->live), slot_of);
}

static int descend(const sim_fit_index *f, int i, double cpu, double mem, unsigned long long q, long *visits)
{
    if (f->cpu[i] < cpu || f->mem[i] < mem || !(f->cells[i] & q))
        return -1;
    ++*visits;
    if (i >= f->cap)
        return f->node[i - f->cap];
    int r = descend(f, 2 * i + 1, cpu, mem, q, visits); /* newer slots first */
    return r >= 0 ? r : descend(f, 2 * i, cpu, mem, q, visits);
}

int sim_fit_index_find(const sim_fit_index *f, double cpu, double mem, long *visits)
{
    long scratch = 0;
    if (f->live == 0)
        return -1;
    cpu -= 1e-9; /* the ledger's tolerance */
    mem -= 1e-9;
    return descend(f, 1, cpu, mem, cells_at_least(cpu, mem), visits ? visits : &scratch);
}

void sim_fit_index_free(sim_fit_index *f)
{
    free(f->cpu);
    free(f->mem);
    free(f->cells);
    free(f->node);
    *f = (sim_fit_index){0};
}
