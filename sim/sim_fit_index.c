/* sim_fit_index.c - host CPU/memory fit index of one free-card bucket (see
 * sim_fit_index.h). A max segment tree over slots in link order, heap
 * layout: node 1 is the root, leaves are cap .. 2 cap - 1.
 * SPDX-License-Identifier: MIT */
#include "sim_fit_index.h"

#include <math.h>
#include <stdlib.h>

#include "../base/gs.h"

static inline double dmax(double a, double b)
{
    return a > b ? a : b;
}

static void pull_up(cl_fit *f, int i)
{
    for (i >>= 1; i >= 1; i >>= 1) {
        f->cpu[i] = dmax(f->cpu[2 * i], f->cpu[2 * i + 1]);
        f->mem[i] = dmax(f->mem[2 * i], f->mem[2 * i + 1]);
    }
}

/* Renumbers the live nodes 0 .. live-1 in their order into cap leaves.
 * O(old cap + cap). */
static void rebuild(cl_fit *f, int cap, int *slot_of)
{
    double *cpu = xmalloc(2 * (size_t)cap * sizeof *cpu), *mem = xmalloc(2 * (size_t)cap * sizeof *mem);
    int *node = xmalloc((size_t)cap * sizeof *node);
    int k = 0;
    for (int s = 0; s < f->top; s++) {
        if (f->node[s] < 0)
            continue;
        cpu[cap + k] = f->cpu[f->cap + s];
        mem[cap + k] = f->mem[f->cap + s];
        node[k] = f->node[s];
        slot_of[node[k]] = k;
        k++;
    }
    for (int s = k; s < cap; s++) {
        cpu[cap + s] = mem[cap + s] = -INFINITY;
        node[s] = -1;
    }
    for (int i = cap - 1; i >= 1; i--) {
        cpu[i] = dmax(cpu[2 * i], cpu[2 * i + 1]);
        mem[i] = dmax(mem[2 * i], mem[2 * i + 1]);
    }
    free(f->cpu);
    free(f->mem);
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

void cl_fit_insert(cl_fit *f, int node, double cpu_free, double mem_free, int *slot_of)
{
    if (f->top == f->cap)
        rebuild(f, cap_for(f->live + 1), slot_of);
    int s = f->top++;
    f->node[s] = node;
    f->cpu[f->cap + s] = cpu_free;
    f->mem[f->cap + s] = mem_free;
    slot_of[node] = s;
    f->live++;
    pull_up(f, f->cap + s);
}

void cl_fit_remove(cl_fit *f, int slot, int *slot_of)
{
    if (slot < 0 || slot >= f->top || f->node[slot] < 0)
        GS_BUG("cl_fit_remove: empty slot");
    slot_of[f->node[slot]] = -1;
    f->node[slot] = -1;
    f->cpu[f->cap + slot] = f->mem[f->cap + slot] = -INFINITY;
    f->live--;
    pull_up(f, f->cap + slot);
    /* a bucket that emptied gives its memory back */
    if (f->cap > 64 && f->live < f->cap / 8)
        rebuild(f, cap_for(f->live), slot_of);
}

static int descend(const cl_fit *f, int i, double cpu, double mem, long *visits)
{
    if (f->cpu[i] < cpu || f->mem[i] < mem)
        return -1;
    ++*visits;
    if (i >= f->cap)
        return f->node[i - f->cap];
    int r = descend(f, 2 * i + 1, cpu, mem, visits); /* newer slots first */
    return r >= 0 ? r : descend(f, 2 * i, cpu, mem, visits);
}

int cl_fit_find(const cl_fit *f, double cpu, double mem, long *visits)
{
    long scratch = 0;
    if (f->live == 0)
        return -1;
    return descend(f, 1, cpu - 1e-9, mem - 1e-9, visits ? visits : &scratch);
}

void cl_fit_free(cl_fit *f)
{
    free(f->cpu);
    free(f->mem);
    free(f->node);
    *f = (cl_fit){0};
}
