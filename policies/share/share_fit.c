/* share_fit.c - HAMi's admission test and a task's memory per card (see
 * share_fit.h).
 * SPDX-License-Identifier: MIT */
#include "share_fit.h"

#include <math.h>

int64_t sc_mem_of(const sc_state *st, const job *j, int pool)
{
    /* vgpu: a share of the registered memory; time-slicing and MPS have no
     * memory accounting, so memory not stated is not modeled (0) */
    int64_t card = st->cfg.hami ? (int64_t)st->pool_total_mib[pool] : st->pool_phys_mib[pool];
    int64_t m = job_req_gpumem_mib(&j->req, card);
    return m > 0 ? m : st->cfg.hami ? card : 0;
}

int64_t sc_mem_use_of(const sc_state *st, const job *j, int pool)
{
    int64_t m = sc_mem_of(st, j, pool), phys = st->pool_phys_mib[pool];
    bool asked = j->req.gpumem_mib > 0 || j->req.gpumem_pct > 0;
    return !asked && m > phys ? phys : m;
}

/* a node's cards share a model: its first card says */
int64_t sc_task_mem(const sc_state *st, const job *j)
{
    return j->ngpu_ids > 0 ? sc_mem_of(st, j, sc_card_pool(st, job_gpu_ids(j)[0])) : 0;
}

int64_t sc_task_use(const sc_state *st, const job *j)
{
    return j->ngpu_ids > 0 ? sc_mem_use_of(st, j, sc_card_pool(st, job_gpu_ids(j)[0])) : 0;
}

/* The test on a card's counters. */
static bool fits(const sc_config *cfg, int n, int cores_used, int64_t mem_committed, double total_mem, int64_t mem,
                 int cores)
{
    if (n >= cfg->max_tenants) /* split_count, else the most a card's count holds */
        return false;
    if (!cfg->hami) /* a card a job across nodes holds (SC_CORES_HELD) fails the core test below under HAMi */
        return cores_used != SC_CORES_HELD;
    if (total_mem - (double)mem_committed < (double)mem)
        return false;
    if (cfg->total_cores - cores_used < cores)
        return false;
    if (cores == 100 && n > 0 && cfg->total_cores == 100)
        return false;
    if (cores == 0 && cores_used >= cfg->total_cores)
        return false;
    return true;
}

bool sc_card_fits(const sc_state *st, const sc_card *c, double total_mib, int64_t mem, int cores)
{
    return fits(&st->cfg, c->n, c->cores_used, c->mem_committed, total_mib, mem, cores);
}

bool sc_host_fits(const sim_node *n, double cpu, double mem_gib)
{
    return (n->cpu_total < 0 || n->cpu_total - n->cpu_used >= cpu - 1e-9) &&
           (n->mem_total_gib < 0 || n->mem_total_gib - n->mem_used_gib >= mem_gib - 1e-9);
}

bool sc_can_ever_fit(const sc_state *st, const job *j)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    for (int p = 0; p < cl->npools; p++) {
        if (!(j->pools >> p & 1) || !sim_cluster_can_ever_fit(cl, 1ULL << p, j->req.gpus, j->req.cpu, j->req.mem_gib))
            continue;
        int64_t phys = cl->pools[p].model->memory_mib;
        if (st->cfg.hami && ((double)sc_mem_of(st, j, p) > st->pool_total_mib[p] || sc_task_cores(st, j) > st->cfg.total_cores))
            continue;
        /* mps: a client's pinned memory limit is known before it starts: a
         * request above it could only crash, every time */
        if (st->cfg.mps && st->cfg.mps_split > 0 && sc_mem_of(st, j, p) > phys / st->cfg.mps_split)
            continue;
        return true;
    }
    return false;
}

void sc_reject_reason(const sc_state *st, const job *j, char *why, size_t cap)
{
    const sim_cluster *cl = sim_cluster_of(st->s);
    for (int p = 0; p < cl->npools; p++) {
        if (!(j->pools >> p & 1) || !sim_cluster_can_ever_fit(cl, 1ULL << p, j->req.gpus, j->req.cpu, j->req.mem_gib))
            continue; /* GPUs, CPU or memory no node has: the core's reason */
        int64_t phys = cl->pools[p].model->memory_mib, mem = sc_mem_of(st, j, p);
        if (st->cfg.hami && (double)mem > st->pool_total_mib[p])
            snprintf(why, cap, "asks %lld MiB per GPU, a %s admits %.0f", (long long)mem, cl->pools[p].model->name,
                     st->pool_total_mib[p]);
        else if (st->cfg.hami && sc_task_cores(st, j) > st->cfg.total_cores)
            snprintf(why, cap, "asks %d%% of a card's cores, a card has %d", sc_task_cores(st, j), st->cfg.total_cores);
        else if (st->cfg.mps && st->cfg.mps_split > 0 && mem > phys / st->cfg.mps_split)
            snprintf(why, cap, "asks %lld MiB per GPU, an MPS client of a %s is limited to %lld (replicas=%d)",
                     (long long)mem, cl->pools[p].model->name, (long long)(phys / st->cfg.mps_split), st->cfg.mps_split);
        return;
    }
}

double sc_mem_per_card_mib(const void *state, const struct gpu_model *m, const job_req *r)
{
    const sc_state *st = state;
    double card = (double)m->memory_mib;
    if (st->cfg.mps && st->cfg.mps_split > 0) { /* as sc_can_ever_fit: the limit is known before it starts */
        int64_t limit = (int64_t)m->memory_mib / st->cfg.mps_split;
        return job_req_gpumem_mib(r, (int64_t)m->memory_mib) > limit ? 0 : (double)limit;
    }
    if (r->gpumem_mib > 0)
        return fmin((double)r->gpumem_mib, card);
    if (r->gpumem_pct > 0 && st->cfg.hami) /* of the registered memory, as it books it */
        return fmin((double)((int64_t)((double)m->memory_mib * st->cfg.mem_scaling) * r->gpumem_pct / 100), card);
    return r->gpumem_pct > 0 ? card * r->gpumem_pct / 100.0 : card;
}
