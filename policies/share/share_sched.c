/* share_sched.c - the life cycle the shared-card policies run: placement,
 * OOM kill and retry, release and the report (see share_sched.h).
 *
 * OOM: a task whose memory would take the card's memory in use past the
 * physical card (timeslice always; vgpu with oversub=oom) is admitted, then
 * killed by a timer at the same instant (a kill inside a placement pass
 * would re-enter the queue dispatch). It is counted in jobs.oom_killed; with
 * oom_retry = N it is resubmitted from scratch (all its work again) up to N
 * times, each after oom_backoff_s, waiting as a suspended job in between.
 *
 * mps: no fault isolation between the clients of a card. A client killed
 * by an OOM (the card's memory, or its own client memory limit) takes every
 * other client on its cards down with it at the same instant; each is
 * killed as if by its own OOM (retried or failed), and jobs failed for good
 * are counted by cause.
 *
 * The queue is the core's (pol_space.place): this file answers whether a task
 * can ever fit, places it, and takes it back.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/gs_rng.h"
#include "../../sim/sim_module.h"
#include "../../sim/sim_report.h"
#include "share_fit.h"
#include "share_frag.h"
#include "share_index.h"
#include "share_place.h"
#include "share_preempt.h"
#include "share_room.h"
#include "share_rule.h"
#include "share_sched.h"
#include "share_select.h"
#include "share_task.h"
#include "share_tenants.h"

#define MIB 1048576.0

enum { TAG_OOM = 1, TAG_RETRY = 2, TAG_SWAPIN = 3 };

/* The share of a host link's nominal rate that pinned copies achieve, by
 * link kind (reference/mechanics.md section 8: Gen3 12 of 15.75 GB/s, Gen4
 * 24 of 31.5, Gen5 52 of 63, NVLink-C2C 400 of 450 [U]). */
static double link_fraction(const char *kind)
{
    if (!strcmp(kind, "pcie3"))
        return 12.0 / 15.75;
    if (!strcmp(kind, "pcie5"))
        return 52.0 / 63.0;
    if (!strncmp(kind, "nvlink", 6))
        return 400.0 / 450.0;
    return 24.0 / 31.5; /* pcie4, and a link of unknown kind */
}

void sc_param_common(const sim *s, sc_config *c)
{
    c->node_spread = sim_param_choice(s, "node_policy") == 1;
    c->card_spread = sim_param_choice(s, "card_policy") == 1;
    c->oom_retry = (int)sim_param_int(s, "oom_retry");
    c->oom_backoff_us = sim_param_us(s, "oom_backoff_s");
    c->fifo = sim_param_choice(s, "queue") == 1;
}

int sc_new(sim *s, const sc_config *cfg, int pol_index, sc_state **out, gs_error *err)
{
    if (cfg->total_cores > SC_CARD_CORES_MAX) /* core_scaling's range (pol_vgpu.c) keeps it there */
        GS_BUG("share_sched: total_cores above SC_CARD_CORES_MAX");
    sc_state *st = xcalloc(1, sizeof *st);
    st->s = s;
    st->cfg = *cfg;
    st->pol_index = pol_index;
    st->ncards = sim_cluster_of(s)->ngpus;
    sim_sketch_init(&st->swapin_wait_s);
    st->cfg.max_tenants = cfg->split_count > 0 ? cfg->split_count : SC_CARD_TENANTS_MAX;
    if (st->cfg.max_tenants > SC_CARD_TENANTS_MAX) /* the parameters' ranges keep it there (share_state.h) */
        GS_BUG("share_sched: split_count above SC_CARD_TENANTS_MAX");
    for (int lg = 0; lg <= SC_ARR_LG_MAX; lg++)
        st->arr[lg].free = UINT32_MAX;
    /* calloc'd and never written before a task joins: writing every card
     * would touch the page of every card, used or not (a cluster half idle
     * keeps half its cards' pages untouched: timeslice, four tenants a card,
     * touches a quarter of them) */
    st->cards = xcalloc((size_t)st->ncards + 1, sizeof *st->cards);
    st->swap = cfg->swap ? xcalloc((size_t)st->ncards + 1, sizeof *st->swap) : NULL;
    st->pool1 = -1;
    for (int ni = 0; ni < sim_cluster_of(s)->nnodes; ni++) {
        const sim_node *n = &sim_cluster_of(s)->nodes[ni];
        const gpu_model *m = sim_cluster_of(s)->pools[n->pool].model;
        st->pool_phys_mib[n->pool] = m->memory_mib;
        /* HAMi registers physical x mem_scaling, truncated to MiB
         * (pkg/device-plugin/nvidiadevice/nvinternal/plugin/register.go) */
        st->pool_total_mib[n->pool] =
            cfg->hami ? (double)(int64_t)((double)m->memory_mib * cfg->mem_scaling) : (double)m->memory_mib;
        if (n->ngpus > 0 && (st->nrange == 0 || st->range_pool[st->nrange - 1] != n->pool)) {
            /* the cards' pools by ranges of consecutive cards (sc_card_pool) */
            if ((st->nrange & (st->nrange - 1)) == 0) { /* 0, 1, 2, 4, ...: doubled */
                size_t cap = st->nrange ? 2 * (size_t)st->nrange : 1;
                st->range_first = xrealloc(st->range_first, cap * sizeof *st->range_first);
                st->range_pool = xrealloc(st->range_pool, cap * sizeof *st->range_pool);
            }
            st->range_first[st->nrange] = n->gpu0;
            st->range_pool[st->nrange++] = (uint8_t)n->pool;
        }
        for (int g = n->gpu0; g < n->gpu0 + n->ngpus; g++) {
            if (st->swap) {
                /* a model without a host-link figure falls back to PCIe Gen4
                 * achievable bandwidth (reference/mechanics.md section 8) */
                sc_card_swap *w = &st->swap[g];
                w->link_bps = (m->host_link_gbps_per_dir > 0 ? m->host_link_gbps_per_dir : 24.0) * 1e9;
                w->swapin_bps = m->host_link_gbps_per_dir > 0 ? w->link_bps * link_fraction(m->host_link_kind) : 24.0e9;
            }
            st->total_phys_mib += (double)m->memory_mib;
        }
    }
    if (st->nrange == 1)
        st->pool1 = st->range_pool[0];
    *out = st;
    int rc = sc_index_init(st, err);
    if (rc) {
        sc_fini(st);
        *out = NULL;
    }
    return rc;
}

void sc_fini(void *state)
{
    sc_state *st = state;
    if (!st)
        return;
    sc_tasks_free(st);
    sc_tenants_free(st);
    free(st->cards);
    free(st->range_first);
    free(st->range_pool);
    free(st->swap);
    free(st->scratch_bounds);
    free(st->scratch_rates);
    sim_sketch_free(&st->swapin_wait_s);
    sc_index_free(st);
    free(st->rank);
    if (st->rng)
        gs_rng_free(st->rng);
    free(st);
}

/* Where j goes now (into st->pick), within sim_admit_pools (quotas, the
 * preemption hand-over): the node, or -1. */
static int choose(sc_state *st, job *j)
{
    uint64_t pools = sim_admit_pools(st->s, j);
    if (!pools)
        return -1;
    return st->cfg.select == SC_SEL_HAMI ? sc_place_hami(st, j, pools) : sc_place_select(st, j, pools);
}

/* The ledger's free cards are the cards no work uses (sim_gang.h): a card
 * leaves them with its first tenant (joined) and comes back with its last. */
static void ledger_mark(sc_state *st, const job *j, bool joined)
{
    const int *ids = job_gpu_ids(j);
    for (int i = 0; i < j->ngpu_ids; i++)
        if (st->cards[ids[i]].n == (joined ? 1u : 0u))
            sim_cluster_hold_card(sim_cluster_of(st->s), j->node, ids[i], joined);
}

/* A job across nodes took (held) or gave back whole cards of node: no
 * tenant joins them meanwhile (share_room.c). */
static void gang_cards(void *state, sim *s, int node, const int *ids, int n, bool held)
{
    (void)s;
    sc_state *st = state;
    for (int i = 0; i < n; i++)
        sc_room_hold(st, ids[i], node, held);
    sc_index_node(st, node);
}

static void reject_reason(const void *state, const sim *s, const job *j, char *why, size_t cap)
{
    (void)s;
    sc_reject_reason(state, j, why, cap);
}

static bool place_start(void *state, sim *s, job *j)
{
    sc_state *st = state;
    int node = choose(st, j);
    if (node < 0)
        return false;
    sim_cluster_take(sim_cluster_of(s), node, 0, j->req.cpu, j->req.mem_gib, NULL); /* host CPU and memory only */
    j->node = node;
    int n = j->req.gpus;
    int *ids = sim_job_hold_gpus(j, n);
    if (n > 0)
        memcpy(ids, st->pick, (size_t)n * sizeof *ids);
    bool doomed = false;
    int64_t use = sc_task_use(st, j);
    if (!st->cfg.swap)
        for (int i = 0; i < n; i++)
            if (st->cards[ids[i]].mem_used + use > sc_card_phys_mib(st, ids[i]))
                doomed = true; /* its allocation crosses the physical card */
    /* a record when it has something to keep (share_state.h); an OOM-killed
     * task's retry has its own still, with the count */
    if (!sc_task_of(st, j) && (doomed || sc_task_wide(j)))
        sc_task_set(st, j, sc_task_new(st, j));
    sc_task *t = sc_task_of(st, j);
    if (t)
        t->doomed = doomed;
    double rate = sc_join(st, j);
    ledger_mark(st, j, true);
    sc_index_changed(st, j);
    st->placements++;
    sim_job_start(s, j, rate);
    if (doomed)
        sim_timer(s, st->pol_index, j, sim_now(s), TAG_OOM);
    return true;
}

/* Requests of one shape share a queue class (see sim_queue.h). */
static uint64_t shape_key(const void *state, const job *j)
{
    (void)state;
    uint64_t k = (uint64_t)j->req.gpus * 0x9E3779B97F4A7C15ULL ^ j->pools * 0xC2B2AE3D27D4EB4FULL;
    k ^= (uint64_t)j->req.gpumem_mib * 0x165667B19E3779F9ULL ^ (uint64_t)j->req.gpumem_pct * 0x27D4EB2F165667C5ULL;
    k ^= (uint64_t)j->req.gpucores * 0x94D049BB133111EBULL;
    k ^= (uint64_t)j->tenant_ix * 0xD6E8FEB86659FD93ULL; /* quotas admit per tenant */
    uint64_t c, m;
    memcpy(&c, &j->req.cpu, sizeof c);
    memcpy(&m, &j->req.mem_gib, sizeof m);
    return k ^ (c * 0xBF58476D1CE4E5B9ULL) ^ (m * 0x2545F4914F6CDD1DULL) ^ (m >> 17);
}

static bool can_ever_fit(void *state, const sim *s, const job *j)
{
    (void)s;
    return sc_can_ever_fit(state, j);
}

static bool fifo(const void *state) { return ((const sc_state *)state)->cfg.fifo; }

/* A running replica went idle or busy. */
static void load_changed(void *state, sim *s, job *j)
{
    sc_state *st = state;
    sc_task *t = sc_task_of(st, j);
    if (!t || t->doomed)
        return;
    double wait_s = sc_residency(st, j);
    if (wait_s > 0) /* held at rate 0 (card_update) until its memory is back */
        sim_timer(s, st->pol_index, j, sim_now(s) + (gs_time_us)llround(wait_s * 1e6), TAG_SWAPIN);
    sc_refresh(st, j);
}

static void unplace(void *state, sim *s, job *j)
{
    sc_state *st = state;
    sc_task *t = sc_task_of(st, j);
    sim_cluster_give(sim_cluster_of(s), j->node, NULL, 0, j->req.cpu, j->req.mem_gib);
    sc_leave(st, j);
    ledger_mark(st, j, false);
    sc_index_changed(st, j);
    sim_job_drop_gpus(j);
    j->node = -1;
    if (!t)
        return; /* a plain task: nothing kept */
    t->doomed = false;
    /* done or failed: the task ends here. Suspended: it comes back as a
     * new arrival, or ends without telling us (a paused session that ends,
     * a wait given up), so its record goes too, unless it carries an OOM
     * count to the retry (whose timer is ours) */
    if (j->state != JOB_SUSPENDED || t->ooms == 0) {
        sc_task_free(st, t);
        sc_task_set(st, j, NULL);
    }
}

/* What an OOM kill means under cfg: the one way each policy lets memory in
 * use pass the physical card. */
static void oom_cause(const sc_config *cfg, char *buf, size_t n)
{
    if (cfg->hami && cfg->swap)
        snprintf(buf, n, "none: memory past the physical card goes to host (oversub=swap)");
    else if (cfg->hami)
        snprintf(buf, n, "memory overcommitted (mem_scaling=%g): tenants' memory in use passed the physical card "
                 "(oversub=oom)", cfg->mem_scaling);
    else if (cfg->mps)
        snprintf(buf, n, "no memory isolation between MPS clients: their memory in use passed the physical card");
    else
        snprintf(buf, n, "no memory isolation under time-slicing: tenants' memory in use passed the physical card");
}

/* Kills running j as an OOM does: resubmitted after the backoff while it has
 * retries left, else failed (counted by cause under mps). */
static void kill_task(sc_state *st, sim *s, job *j, sc_task *t, int cause)
{
    t->ooms++;
    if (t->ooms <= st->cfg.oom_retry && !j->internal) {
        /* a service replica is not retried here: the service layer
         * replaces a lost replica itself (sim/service/svc.c) */
        sim_job_suspend(s, j);
        sim_timer(s, st->pol_index, j, sim_now(s) + st->cfg.oom_backoff_us, TAG_RETRY);
    } else {
        if (!j->internal && st->failed_by[cause]++ == 0) { /* once per cause: stderr and the report's warnings */
            char why[200];
            oom_cause(&st->cfg, why, sizeof why);
            if (cause == SC_CAUSE_OOM)
                sim_warn(s, "%s: jobs failed by OOM, %s; counts in jobs.failed_by_cause", st->cfg.name, why);
            else
                sim_warn(s, "%s: jobs failed as co-tenants of a client's OOM (no fault isolation); counts in "
                         "jobs.failed_by_cause", st->cfg.name);
        }
        sim_job_fail_why(s, j, cause == SC_CAUSE_OOM ? "oom" : "co_tenant_fault");
    }
}

/* mps: the other clients on j's cards (each once), as (slot, gen) so that
 * one taken down meanwhile is recognized. Returns how many; *out is malloc'd. */
static int co_tenants(const sc_state *st, const job *j, uint32_t **out)
{
    int n = 0, cap = 0;
    uint32_t *v = NULL;
    const int *cards = job_gpu_ids(j);
    for (int i = 0; i < j->ngpu_ids; i++) {
        const sc_card *c = &st->cards[cards[i]];
        for (int k = 0; k < c->n; k++) {
            const job *o = sc_card_tenant(st, c, k);
            bool seen = o == j;
            for (int q = 0; q < n && !seen; q++)
                seen = v[2 * q] == o->slot && v[2 * q + 1] == o->gen;
            if (seen)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                v = xrealloc(v, (size_t)cap * 2 * sizeof *v);
            }
            v[2 * n] = o->slot;
            v[2 * n + 1] = o->gen;
            n++;
        }
    }
    *out = v;
    return n;
}

void sc_timer(void *state, sim *s, job *j, uint32_t tag)
{
    sc_state *st = state;
    sc_task *t = j ? sc_task_of(st, j) : NULL;
    if (!t && tag == TAG_OOM)
        return; /* suspended at the same instant (preempted): no longer doomed, its record gone */
    if (!t)
        GS_BUG("share_sched: timer without a task");
    if (tag == TAG_OOM) {
        if (!t->doomed || j->state != JOB_RUNNING)
            return; /* taken down by a co-tenant's fault at the same instant */
        st->oom_killed++;
        uint32_t *co = NULL;
        int nco = st->cfg.mps ? co_tenants(st, j, &co) : 0; /* before j leaves: a job started in its room is not hit */
        kill_task(st, s, j, t, SC_CAUSE_OOM);
        for (int i = 0; i < nco; i++) {
            job *o = sim_job_at(s, co[2 * i], co[2 * i + 1]);
            if (o && o->state == JOB_RUNNING && o->node >= 0) {
                st->fault_killed++;
                if (!sc_task_of(st, o)) /* a plain task: a record for its kill count */
                    sc_task_set(st, o, sc_task_new(st, o));
                kill_task(st, s, o, sc_task_of(st, o), SC_CAUSE_CO_TENANT);
            }
        }
        free(co);
    } else if (tag == TAG_SWAPIN) {
        if (t->swapping)
            sc_swapped_in(st, j);
    } else if (tag == TAG_RETRY) {
        j->work_left_us = (double)j->req.dur_us; /* resubmitted from scratch: all its work again */
        sim_job_resume(s, j);
    }
}

void sc_report(const void *state, const sim *s, cJSON *root)
{
    const sc_state *st = state;
    gs_time_us now = sim_now(s);
    double end_s = gs_us_to_s(now);
    double mem_cap = st->total_phys_mib * end_s, card_s = (double)st->ncards * end_s;
    cJSON *gpu = cJSON_GetObjectItemCaseSensitive(root, "gpu");
    cJSON_AddNumberToObject(gpu, "mem_alloc_ratio", mem_cap > 0 ? sim_gauge_area(&st->g_mem_alloc, now) / mem_cap : 0);
    cJSON_AddNumberToObject(gpu, "mem_used_ratio", mem_cap > 0 ? sim_gauge_area(&st->g_mem_used, now) / mem_cap : 0);
    cJSON_AddNumberToObject(gpu, "busy_ratio", card_s > 0 ? sim_gauge_area(&st->g_busy, now) / card_s : 0);
    cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
    cJSON_AddNumberToObject(jobs, "oom_killed", (double)st->oom_killed);
    /* jobs failed for good (retries spent), by cause, and what the OOMs
     * mean under this policy (service replicas are replaced by the service
     * layer, not counted) */
    cJSON *fc = cJSON_AddObjectToObject(jobs, "failed_by_cause");
    cJSON_AddNumberToObject(fc, "oom", (double)st->failed_by[SC_CAUSE_OOM]);
    cJSON_AddNumberToObject(fc, "co_tenant_fault", (double)st->failed_by[SC_CAUSE_CO_TENANT]);
    char why[200];
    oom_cause(&st->cfg, why, sizeof why);
    cJSON_AddStringToObject(jobs, "oom_cause", why);
    if (st->cfg.hami) {
        double bytes = sim_gauge_area(&st->g_swap_bps, now);
        cJSON *sw = cJSON_AddObjectToObject(root, "swap");
        cJSON_AddStringToObject(sw, "mode", st->cfg.swap ? "swap" : "oom");
        cJSON_AddNumberToObject(sw, "bytes_in", bytes);
        cJSON_AddNumberToObject(sw, "bytes_out", bytes); /* each turn moves as much out as in */
        cJSON_AddNumberToObject(sw, "wait_s", sim_gauge_area(&st->g_wait, now));
        cJSON_AddNumberToObject(sw, "thrash_s", sim_gauge_area(&st->g_thrash, now));
        cJSON_AddNumberToObject(sw, "host_mib_peak", st->g_host_mib.peak);
        cJSON_AddNumberToObject(sw, "host_mib_mean", end_s > 0 ? sim_gauge_area(&st->g_host_mib, now) / end_s : 0);
        /* residency of idle replicas (oversub=swap) */
        cJSON_AddNumberToObject(sw, "idle_evictions", (double)st->evictions);
        cJSON_AddNumberToObject(sw, "idle_freed_mib", st->freed_mib);
        cJSON_AddNumberToObject(sw, "swap_ins", (double)st->swap_ins);
        cJSON_AddNumberToObject(sw, "swapped_in_mib", st->swapped_in_mib);
        sim_report_add_stats(sw, "swap_in_wait_s", &st->swapin_wait_s);
    }
    cJSON *pol = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(root, "policy"), st->cfg.name);
    cJSON_AddNumberToObject(pol, "placements", (double)st->placements);
    cJSON_AddNumberToObject(pol, "peak_tenants_per_card", st->peak_tenants);
    if (st->cfg.mps) {
        cJSON_AddNumberToObject(pol, "co_tenant_fault_killed", (double)st->fault_killed);
    }
    if (st->cfg.hami)
        cJSON_AddStringToObject(pol, "gpu_select", st->cfg.select_name);
    sc_frag_report(st, s, root);
}

static double space_frag_gpus(const void *state) { return sc_frag_gpus(state); }

/* The space record of every shared-card policy: they differ only in
 * their parameters and sc_config. */
static const pol_space_index sc_index = {
    .queue_demand = sc_queue_demand,
    .queue_room = sc_queue_room,
    .queue_host = true,
    .cards_open = sc_cards_open,
};

const pol_space sc_space = {
    .frag_gpus = space_frag_gpus, /* < 0 unless the run measures fragmentation (vgpu, frag=on) */
    .caps = POL_CAP_ADMIT | POL_CAP_GANG, /* quotas and preemption (share_preempt.c); jobs across nodes */
    .gang_cards = gang_cards,
    .reject_reason = reject_reason,
    .fits_if_released = sc_fits_if_released,
    .can_ever_fit = can_ever_fit,
    .place = place_start,
    .unplace = unplace,
    .shape_key = shape_key,
    .fifo = fifo,
    .load_changed = load_changed,
    .mem_per_card_mib = sc_mem_per_card_mib,
    .index = &sc_index,
};
