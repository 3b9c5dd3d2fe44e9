/* pol_hibernate.c - time policy: pause idle agent sandboxes, wake them on
 * demand (OpenKruise Agents auto-pause semantics,
 * reference/mechanics.md section 6; exact rules in policies/README.md).
 *
 * A session (trace kind `session`) is a job the space policy places; its
 * bursts (kind `burst`) reach this policy through pol_time.row. A pause
 * suspends the session's job (the space policy gives back its CPU, memory and
 * GPUs); a wake hands it back to the space policy (sim_job_resume), which may
 * start it, queue it (the wake waits; past wake_timeout it fails) or reject
 * it. The session ends at first start + duration whatever happened between.
 *
 * Per-session timers carry a 4-bit kind and a 20-bit generation in the tag:
 * a timer whose generation is stale (the session did something since) is
 * ignored, so nothing is ever cancelled. Per-event work is O(1) (hash lookup
 * by session id) plus O(pending scheduled bursts of that session).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h"
#include "../sim/sim_report.h"
#include "../sim/sim_policy.h"

enum hs_state { HS_FIRST = 0, HS_READY, HS_PAUSING, HS_PAUSED, HS_PLACING, HS_RESUMING };
enum { T_PROBE = 1, T_DEADLINE, T_PAUSED, T_READY, T_TIMEOUT, T_END, T_SCHED_WAKE, T_SCHED_DUE, T_REFILL };
#define TGEN_MASK 0xfffffu

typedef struct sched_burst {
    gs_time_us due_us, dur_us;
} sched_burst;

typedef struct hsess {
    struct hsess *next; /* hash chain */
    job *j;
    char id[WL_ID_MAX];
    int state;
    uint32_t tgen;
    gs_time_us start_us, end_us; /* first start; start + duration */
    gs_time_us ready_us;         /* last time the sandbox became ready: probes tick from here */
    gs_time_us busy_until_us;    /* end of the activity seen so far */
    double used_s;               /* union of burst intervals, seconds */
    bool placed;
    gs_time_us placed_since_us;
    int node;
    bool after_pause; /* the next burst served is the first after a pause */
    bool claim;       /* this wake claimed a warm-pool sandbox */
    /* bursts waiting for the sandbox */
    int npend;
    gs_time_us pend_first_us, pend_max_us;
    /* scheduled bursts registered, not yet due (sorted by due) */
    sched_burst *sch;
    int nsch, capsch;
} hsess;

/* A warm-pool sandbox is an internal task placed by the space policy like
 * any request, so the card it holds is booked once, by the space policy. */
typedef struct pool_slot {
    job *task; /* NULL: empty (claimed or killed, refill pending) */
    bool ready; /* the space policy started it: it holds its room */
} pool_slot;

typedef struct hib {
    sim *s;
    int self; /* index in s->pol: for sim_timer */
    /* parameters, microseconds */
    gs_time_us pause_after_us, probe_us, pause_time_us, pause_us, resume_us, lead_us, timeout_us, claim_us,
        refill_us;
    double snap_s_per_gib;
    bool keep_memory;
    int pool_n, pool_gpus;
    double pool_cpu, pool_mem_gib;
    /* sessions by id */
    hsess **tab;
    size_t tab_cap, nsess;
    /* warm pool */
    pool_slot *pool;
    int pool_avail;
    sim_gauge g_pool;
    /* density */
    int *per_node;
    int peak_per_node;
    sim_gauge g_placed;
    /* figures */
    uint64_t sessions, sessions_rejected, bursts, orphan_bursts, pauses, wakes, resumes, waited, failed,
        interrupted, state_lost, claims, dup_ids;
    double interrupted_s;
    double held_s[3], used_s[3], base_s[3]; /* cpu core-s, mem GiB-s, GPU-s of ended sessions */
    sim_sketch wake_s;
} hib;

static const pol_param params[] = {
    {"pause_after", "900", "idle seconds (seen by the probe) before a pause; off: no idle trigger", P_DURATION_OR(0, 1e9, "off")},
    {"probe_period", "30", "seconds between idle probes", P_DURATION(0.001, 1e9)},
    {"pause_time", "off", "seconds after the session's start at which it is paused once (may interrupt)", P_DURATION_OR(0, 1e9, "off")},
    {"pause_s", "1", "seconds a pause takes before resources are released (plus the snapshot)", P_DURATION(0, 1e9)},
    {"keep_memory", "0", "1: snapshot memory when pausing (snapshot_s_per_gib x mem_gib more)", P_INT(0, 1)},
    {"snapshot_s_per_gib", "4", "memory snapshot cost per GiB of the sandbox's memory", P_NUM(0, 1e6, "s/GiB")},
    {"resume_s", "1", "seconds from placement to a ready sandbox on a wake", P_DURATION(0, 1e9)},
    {"lead_time", "300", "a scheduled wake is resumed this many seconds before it is due", P_DURATION(0, 1e9)},
    {"wake_timeout", "300", "a wake still waiting for capacity after this many seconds fails", P_DURATION(0, 1e9)},
    {"warm_pool", "0", "pre-created sandboxes a user-driven wake can claim", P_INT(0, 1e6)},
    {"claim_s", "0.5", "seconds to claim a warm-pool sandbox", P_DURATION(0, 1e9)},
    {"pool_cpu", "2", "CPU cores of one warm-pool sandbox", P_NUM(0, 1e6, "cores")},
    {"pool_mem_gib", "4", "memory GiB of one warm-pool sandbox", P_NUM(0, 1e9, "GiB")},
    {"pool_gpus", "0", "GPUs of one warm-pool sandbox", P_INT(0, 64)},
    {"pool_refill_s", "30", "seconds to re-create a claimed warm-pool sandbox", P_DURATION(0, 1e9)},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

/* {==== parameters ====} */

/* A duration that also takes "off" (its only word): -1 when off. */
static gs_time_us param_us_or_off(const sim *s, const char *name)
{
    return sim_param_choice(s, name) == 0 ? -1 : sim_param_us(s, name);
}

/* {==== sessions by id ====} */

static size_t hash_id(const char *id)
{
    size_t h = 1469598103934665603ULL;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 1099511628211ULL;
    return h;
}

static hsess **slot_of(hib *h, const char *id)
{
    hsess **p = &h->tab[hash_id(id) & (h->tab_cap - 1)];
    while (*p && strcmp((*p)->id, id))
        p = &(*p)->next;
    return p;
}

static void grow(hib *h)
{
    size_t cap = h->tab_cap ? h->tab_cap * 2 : 256;
    hsess **tab = xcalloc(cap, sizeof *tab);
    for (size_t i = 0; i < h->tab_cap; i++)
        for (hsess *e = h->tab[i], *nx; e; e = nx) {
            nx = e->next;
            size_t b = hash_id(e->id) & (cap - 1);
            e->next = tab[b];
            tab[b] = e;
        }
    free(h->tab);
    h->tab = tab;
    h->tab_cap = cap;
}

/* The session record of job j, or NULL (not a session, or an id clash). */
static hsess *sess_of(hib *h, const job *j)
{
    if (j->req.kind != WL_KIND_SESSION || !h->tab_cap)
        return NULL;
    hsess *e = *slot_of(h, j->req.id);
    return e && e->j == j ? e : NULL;
}

static void sess_remove(hib *h, hsess *e)
{
    hsess **p = slot_of(h, e->id);
    *p = e->next;
    h->nsess--;
    free(e->sch);
    free(e);
}

/* {==== accounting ====} */

static void add_res(double acc[3], const job *j, double secs)
{
    acc[0] += j->req.cpu * secs;
    acc[1] += j->req.mem_gib * secs;
    acc[2] += j->req.gpus * secs;
}

static void place(hib *h, hsess *e)
{
    sim *s = h->s;
    e->placed = true;
    e->placed_since_us = sim_now(s);
    e->node = e->j->node;
    sim_gauge_add(&h->g_placed, sim_now(s), 1);
    if (e->node >= 0 && ++h->per_node[e->node] > h->peak_per_node)
        h->peak_per_node = h->per_node[e->node];
}

static void unplace(hib *h, hsess *e)
{
    if (!e->placed)
        return;
    sim *s = h->s;
    add_res(h->held_s, e->j, gs_us_to_s(sim_now(s) - e->placed_since_us));
    sim_gauge_add(&h->g_placed, sim_now(s), -1);
    if (e->node >= 0)
        h->per_node[e->node]--;
    e->placed = false;
}

static void timer(hib *h, hsess *e, gs_time_us at_us, int kind)
{
    sim_timer(h->s, h->self, e ? e->j : NULL, at_us, (e ? (e->tgen & TGEN_MASK) << 4 : 0) | (uint32_t)kind);
}

/* {==== the session's life ====} */

/* Idle trigger: probes tick every probe_period from the time the sandbox
 * became ready; the first tick at or after the last activity sees "idle"
 * (the condition's lastTransitionTime); the pause comes at the first tick at
 * least pause_after later. Never while a burst runs: busy_until moves the
 * whole computation (and bumps tgen, voiding the older timer). */
static void schedule_probe(hib *h, hsess *e)
{
    if (h->pause_after_us < 0 || e->state != HS_READY)
        return;
    gs_time_us idle = e->busy_until_us > e->ready_us ? e->busy_until_us : e->ready_us;
    gs_time_us P = h->probe_us > 0 ? h->probe_us : 1;
    gs_time_us k = (idle - e->ready_us + P - 1) / P;
    gs_time_us p1 = e->ready_us + k * P;
    gs_time_us at = p1 + (h->pause_after_us + P - 1) / P * P;
    if (at < e->end_us)
        timer(h, e, at, T_PROBE);
}

/* Runs a burst of dur_us from now (bursts of a session may overlap: the
 * sandbox is busy over the union of their intervals, cut at the end). */
static void serve(hib *h, hsess *e, gs_time_us dur_us)
{
    gs_time_us now = sim_now(h->s), end;
    if (!gs_time_add_us(now, dur_us, &end)) /* cut at the session's end below: a burst past the clock ends there */
        end = e->end_us;
    if (end > e->end_us)
        end = e->end_us;
    gs_time_us from = e->busy_until_us > now ? e->busy_until_us : now;
    if (end > from) {
        e->used_s += gs_us_to_s(end - from);
        e->busy_until_us = end;
    }
    e->tgen++;
    schedule_probe(h, e);
}

static void become_ready(hib *h, hsess *e)
{
    gs_time_us now = sim_now(h->s);
    e->state = HS_READY;
    e->ready_us = now;
    e->tgen++;
    if (e->npend) {
        if (e->after_pause) /* wake latency: what the first burst after the pause waited */
            sim_sketch_add(&h->wake_s, gs_us_to_s(now - e->pend_first_us));
        e->after_pause = false;
        e->npend = 0;
        serve(h, e, e->pend_max_us);
    } else {
        schedule_probe(h, e);
    }
}

static void pend(hsess *e, gs_time_us dur_us, gs_time_us now)
{
    if (!e->npend++) {
        e->pend_first_us = now;
        e->pend_max_us = 0;
    }
    if (dur_us > e->pend_max_us)
        e->pend_max_us = dur_us;
}

static void start_wake(hib *h, hsess *e, bool user);

/* A burst starts now (user-driven at its submit, scheduled at its due). */
static void burst(hib *h, hsess *e, gs_time_us dur_us, bool user)
{
    h->bursts++;
    if (e->state == HS_READY) {
        if (e->after_pause) /* woken ahead (lead_time): nothing to wait for */
            sim_sketch_add(&h->wake_s, 0);
        e->after_pause = false;
        serve(h, e, dur_us);
        return;
    }
    pend(e, dur_us, sim_now(h->s));
    if (e->state == HS_PAUSED)
        start_wake(h, e, user);
}

static void begin_pause(hib *h, hsess *e)
{
    e->state = HS_PAUSING;
    e->tgen++;
    double snap_s = h->keep_memory ? h->snap_s_per_gib * e->j->req.mem_gib : 0;
    timer(h, e, sim_now(h->s) + h->pause_us + (gs_time_us)llround(snap_s * GS_US_PER_S), T_PAUSED);
}

static bool sched_wake_due(const hib *h, const hsess *e)
{
    return e->nsch && e->sch[0].due_us - h->lead_us <= sim_now(h->s);
}

static void pause_done(hib *h, hsess *e)
{
    e->state = HS_PAUSED;
    e->tgen++;
    h->pauses++;
    h->state_lost += !h->keep_memory;
    e->after_pause = true;
    unplace(h, e);
    sim_job_suspend(h->s, e->j);
    if (e->npend) /* a burst came while pausing */
        start_wake(h, e, true);
    else if (sched_wake_due(h, e))
        start_wake(h, e, false);
}

static bool pool_claim(hib *h, const job *j)
{
    if (h->pool_avail == 0 || j->req.cpu > h->pool_cpu || j->req.mem_gib > h->pool_mem_gib ||
        j->req.gpus > h->pool_gpus)
        return false;
    for (int i = 0; i < h->pool_n; i++) {
        pool_slot *ps = &h->pool[i];
        if (!ps->ready)
            continue;
        /* the pool sandbox becomes the session's: the space policy takes it
         * back with nothing else allowed into its room, and places the
         * session next (in the same room, unless it prefers another node);
         * start_wake then lets the queue at what the session left */
        job *t = ps->task;
        ps->task = NULL;
        ps->ready = false;
        sim_gauge_add(&h->g_pool, sim_now(h->s), -1);
        h->pool_avail--;
        sim_task_end_reserved(h->s, t);
        h->claims++;
        timer(h, NULL, sim_now(h->s) + h->refill_us, T_REFILL);
        return true;
    }
    return false;
}

/* Hands slot ps's sandbox to the space policy: it starts now (POL_TASK_STARTED
 * comes before this returns), waits in the queue for room, or is rejected
 * (it can never fit: false, the slot stays empty). */
static bool pool_fill(hib *h, pool_slot *ps)
{
    sim *s = h->s;
    job *t = sim_task_new(s, SIM_OWNER_POLICY(h->self));
    char id[32];
    snprintf(id, sizeof id, "warm-pool-%d", (int)(ps - h->pool));
    sim_job_set_id(s, t, id);
    sim_task_cost_holder(s, t, "agents", "warm pool"); /* held for the sessions to come */
    t->req.submit_us = sim_now(s);
    t->req.gpus = h->pool_gpus;
    t->req.cpu = h->pool_cpu;
    t->req.mem_gib = h->pool_mem_gib;
    t->more->owner = ps;
    ps->task = t;
    sim_task_submit(s, t);
    return ps->task != NULL;
}

/* The space policy's news about a sandbox task. */
static void pool_task_event(hib *h, job *t, int ev)
{
    pool_slot *ps = job_owner(t);
    if (ev == POL_TASK_STARTED) {
        ps->ready = true;
        h->pool_avail++;
        sim_gauge_add(&h->g_pool, sim_now(h->s), 1);
        return;
    }
    if (ps->ready) { /* killed (a shared card ran out of memory): refill later */
        h->pool_avail--;
        sim_gauge_add(&h->g_pool, sim_now(h->s), -1);
        timer(h, NULL, sim_now(h->s) + h->refill_us, T_REFILL);
    }
    ps->task = NULL; /* rejected or killed: the core frees the task */
    ps->ready = false;
}

static void start_wake(hib *h, hsess *e, bool user)
{
    sim *s = h->s;
    e->state = HS_PLACING;
    e->tgen++;
    h->wakes++;
    e->claim = user && pool_claim(h, e->j);
    bool resumed = sim_job_resume(s, e->j);
    if (e->claim) /* the claimed sandbox's room was held for the session */
        sim_dispatch(s);
    if (!resumed) { /* cannot fit any more: the job (slot kept intact until reused) is gone */
        h->failed++;
        add_res(h->base_s, e->j, gs_us_to_s(e->end_us - e->start_us));
        add_res(h->used_s, e->j, e->used_s);
        sess_remove(h, e);
        return;
    }
    if (e->state == HS_PLACING) { /* queued: wait for capacity, or fail */
        h->waited++;
        timer(h, e, sim_now(s) + h->timeout_us, T_TIMEOUT);
    }
}

/* A new session record (HS_FIRST: not placed yet), or NULL when its id
 * clashes with a live session (that one is then left unmanaged). */
static hsess *sess_create(hib *h, job *j)
{
    if (!h->tab_cap)
        grow(h);
    hsess **p = slot_of(h, j->req.id);
    if (*p) {
        h->dup_ids++;
        return NULL;
    }
    hsess *e = xcalloc(1, sizeof *e);
    e->j = j;
    snprintf(e->id, sizeof e->id, "%s", j->req.id); /* a job's id is its own length */
    e->state = HS_FIRST;
    e->node = -1;
    *p = e;
    if (++h->nsess * 2 > h->tab_cap)
        grow(h);
    return e;
}

static void on_started(hib *h, job *j)
{
    hsess *e = sess_of(h, j);
    sim *s = h->s;
    gs_time_us now = sim_now(s);
    if (!e && !(e = sess_create(h, j)))
        return;
    place(h, e);
    if (e->state == HS_FIRST) {
        h->sessions++;
        e->start_us = e->ready_us = e->busy_until_us = now;
        if (!gs_time_add_us(now, j->req.dur_us, &e->end_us))
            e->end_us = sim_time_after(s, (double)j->req.dur_us, j->req.id, "the session's 'duration'");
        e->state = HS_READY;
        timer(h, e, e->end_us, T_END);
        if (h->pause_time_us >= 0 && now + h->pause_time_us < e->end_us)
            timer(h, e, now + h->pause_time_us, T_DEADLINE);
        if (e->npend) { /* bursts that came while the session waited for its first placement */
            e->npend = 0;
            serve(h, e, e->pend_max_us);
        } else {
            schedule_probe(h, e);
        }
        return;
    }
    if (e->state != HS_PLACING)
        GS_BUG("hibernate: a session started while not waking");
    /* the session keeps its end time: it drains the time left, not its work */
    h->resumes++;
    j->work_left_us = (double)(e->end_us > now ? e->end_us - now : 0);
    sim_job_set_rate(s, j, 1.0);
    e->state = HS_RESUMING;
    e->tgen++;
    gs_time_us lat = e->claim ? h->claim_us : h->resume_us;
    if (lat == 0)
        become_ready(h, e);
    else
        timer(h, e, now + lat, T_READY);
}

/* {==== callbacks ====} */

static void hib_job_event(void *state, sim *s, job *j, int ev)
{
    hib *h = state;
    (void)s;
    if (ev == POL_TASK_STARTED || ev == POL_TASK_REJECTED || ev == POL_TASK_LOST) {
        pool_task_event(h, j, ev);
        return;
    }
    if (j->req.kind != WL_KIND_SESSION)
        return;
    if (ev == POL_JOB_STARTED) {
        on_started(h, j);
    } else if (ev == POL_JOB_ARRIVED) {
        if (j->state == JOB_REJECTED)
            h->sessions_rejected++;
        else if (j->state == JOB_QUEUED && !sess_of(h, j)) /* waits for its first placement */
            sess_create(h, j);
    } else if (ev == POL_JOB_ENDING) {
        hsess *e = sess_of(h, j);
        if (!e)
            return;
        unplace(h, e);
        if (e->state != HS_FIRST)
            add_res(h->base_s, j, gs_us_to_s(e->end_us - e->start_us));
        add_res(h->used_s, j, e->used_s);
        sess_remove(h, e);
    }
}

static void hib_row(void *state, sim *s, const wl_row *r)
{
    hib *h = state;
    hsess *e = h->tab_cap ? *slot_of(h, r->session) : NULL;
    gs_time_us now = sim_now(s);
    if (!e || (e->state != HS_FIRST && now >= e->end_us)) {
        h->orphan_bursts++; /* no such live session */
        return;
    }
    if (r->wake == WL_WAKE_USER) {
        burst(h, e, r->dur_us, true);
        return;
    }
    /* scheduled: registered now, due later; resumed lead_time ahead */
    if (e->state != HS_FIRST && r->due_us >= e->end_us) {
        h->orphan_bursts++; /* due after the session's end */
        return;
    }
    if (e->nsch == e->capsch) {
        e->capsch = e->capsch ? e->capsch * 2 : 4;
        e->sch = xrealloc(e->sch, (size_t)e->capsch * sizeof *e->sch);
    }
    int i = e->nsch++;
    while (i > 0 && e->sch[i - 1].due_us > r->due_us) {
        e->sch[i] = e->sch[i - 1];
        i--;
    }
    e->sch[i] = (sched_burst){r->due_us, r->dur_us};
    gs_time_us wake_at = r->due_us - h->lead_us;
    timer(h, e, wake_at > now ? wake_at : now, T_SCHED_WAKE);
    timer(h, e, r->due_us, T_SCHED_DUE);
}

static void hib_timer(void *state, sim *s, job *j, uint32_t tag)
{
    hib *h = state;
    int kind = (int)(tag & 15u);
    if (kind == T_REFILL) { /* one timer per empty slot: fill one, or try again later */
        for (int i = 0; i < h->pool_n; i++)
            if (!h->pool[i].task) {
                pool_fill(h, &h->pool[i]); /* started, queued for room, or never fits */
                break;
            }
        return;
    }
    hsess *e = sess_of(h, j);
    if (!e)
        return;
    bool fresh = (tag >> 4) == (e->tgen & TGEN_MASK);
    switch (kind) {
    case T_PROBE:
        if (fresh && e->state == HS_READY && e->busy_until_us <= sim_now(s))
            begin_pause(h, e);
        break;
    case T_DEADLINE:
        if (e->state != HS_READY)
            break; /* already pausing or paused */
        if (e->busy_until_us > sim_now(s)) { /* cuts the burst in progress: the rest is lost */
            h->interrupted++;
            double cut_s = gs_us_to_s(e->busy_until_us - sim_now(s));
            h->interrupted_s += cut_s;
            e->used_s -= cut_s;
            e->busy_until_us = sim_now(s);
        }
        begin_pause(h, e);
        break;
    case T_PAUSED:
        if (e->state == HS_PAUSING)
            pause_done(h, e);
        break;
    case T_READY:
        if (e->state == HS_RESUMING)
            become_ready(h, e);
        break;
    case T_TIMEOUT:
        if (fresh && e->state == HS_PLACING && sim_job_withdraw(s, j)) {
            h->failed++;
            sim_job_fail_why(s, j, "its wake timed out"); /* ENDING removes e */
        }
        break;
    case T_END: /* running sessions complete now by their own DONE event */
        if (e->state == HS_PAUSED) {
            sim_job_complete(s, j);
        } else if (e->state == HS_PLACING && sim_job_withdraw(s, j)) {
            h->failed++; /* the session ran out while its wake waited */
            sim_job_fail_why(s, j, "the session ended while its wake waited");
        }
        break;
    case T_SCHED_WAKE:
        if (e->state == HS_PAUSED && sched_wake_due(h, e))
            start_wake(h, e, false);
        break;
    case T_SCHED_DUE: {
        int n = 0;
        while (n < e->nsch && e->sch[n].due_us <= sim_now(s))
            n++;
        gs_time_us dur[8];
        int take = n < 8 ? n : 8; /* more than 8 due at one instant: the rest at the next DUE timer */
        for (int i = 0; i < take; i++)
            dur[i] = e->sch[i].dur_us;
        memmove(e->sch, e->sch + take, (size_t)(e->nsch - take) * sizeof *e->sch);
        e->nsch -= take;
        for (int i = 0; i < take && sess_of(h, j) == e; i++)
            burst(h, e, dur[i], false);
        break;
    }
    }
}

/* {==== life cycle and report ====} */

static int hib_init(sim *s, int index, void **state, gs_error *err)
{
    hib *h = xcalloc(1, sizeof *h);
    *state = h;
    h->s = s;
    h->self = index;
    /* typed and range-checked by the core (the params' specs) */
    h->pause_after_us = param_us_or_off(s, "pause_after");
    h->probe_us = sim_param_us(s, "probe_period"); /* at least 1 ms */
    h->pause_time_us = param_us_or_off(s, "pause_time");
    h->pause_us = sim_param_us(s, "pause_s");
    h->resume_us = sim_param_us(s, "resume_s");
    h->lead_us = sim_param_us(s, "lead_time");
    h->timeout_us = sim_param_us(s, "wake_timeout");
    h->claim_us = sim_param_us(s, "claim_s");
    h->refill_us = sim_param_us(s, "pool_refill_s");
    h->keep_memory = sim_param_int(s, "keep_memory") == 1;
    h->snap_s_per_gib = sim_param_num(s, "snapshot_s_per_gib");
    h->pool_n = (int)sim_param_int(s, "warm_pool");
    h->pool_cpu = sim_param_num(s, "pool_cpu");
    h->pool_mem_gib = sim_param_num(s, "pool_mem_gib");
    h->pool_gpus = (int)sim_param_int(s, "pool_gpus");
    sim_sketch_init(&h->wake_s);
    h->per_node = xcalloc((size_t)sim_cluster_of(s)->nnodes + 1, sizeof *h->per_node);
    h->pool = xcalloc((size_t)h->pool_n + 1, sizeof *h->pool);
    for (int i = 0; i < h->pool_n; i++) {
        if (!pool_fill(h, &h->pool[i]) || !h->pool[i].ready) /* the cluster is empty: it starts or never fits */
            return gs_err(err, GS_EUSAGE, "--set warm_pool=%d: only %d sandboxes of %g cores, %g GiB, %d GPUs "
                          "fit in the cluster", h->pool_n, i, h->pool_cpu, h->pool_mem_gib, h->pool_gpus);
    }
    return 0;
}

static void hib_fini(void *state)
{
    hib *h = state;
    for (size_t i = 0; i < h->tab_cap; i++)
        for (hsess *e = h->tab[i], *nx; e; e = nx) {
            nx = e->next;
            free(e->sch);
            free(e);
        }
    free(h->tab);
    free(h->pool); /* the sandbox tasks are the core's, freed with the run */
    free(h->per_node);
    sim_sketch_free(&h->wake_s);
    free(h);
}

static void add_triple(cJSON *o, const char *key, const double v_s[3])
{
    cJSON *t = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(t, "cpu_core_hours", v_s[0] / 3600.0);
    cJSON_AddNumberToObject(t, "mem_gib_hours", v_s[1] / 3600.0);
    cJSON_AddNumberToObject(t, "gpu_hours", v_s[2] / 3600.0);
}

static void hib_report(const void *state, const sim *s, cJSON *root)
{
    const hib *h = state;
    gs_time_us now = sim_now(s);
    double held[3], used[3], base[3];
    memcpy(held, h->held_s, sizeof held);
    memcpy(used, h->used_s, sizeof used);
    memcpy(base, h->base_s, sizeof base);
    /* sessions still live at the end (--until): count up to now. O(live sessions). */
    for (size_t i = 0; i < h->tab_cap; i++)
        for (const hsess *e = h->tab[i]; e; e = e->next) {
            if (e->state == HS_FIRST)
                continue;
            if (e->placed)
                add_res(held, e->j, gs_us_to_s(now - e->placed_since_us));
            double over_s = e->busy_until_us > now ? gs_us_to_s(e->busy_until_us - now) : 0;
            add_res(used, e->j, e->used_s - over_s);
            add_res(base, e->j, gs_us_to_s((e->end_us < now ? e->end_us : now) - e->start_us));
        }
    double back[3];
    for (int k = 0; k < 3; k++)
        back[k] = base[k] - held[k];
    cJSON *o = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(root, "policy"), "hibernate");
    cJSON_AddNumberToObject(o, "sessions", (double)h->sessions);
    cJSON_AddNumberToObject(o, "sessions_rejected", (double)h->sessions_rejected);
    cJSON_AddNumberToObject(o, "bursts", (double)h->bursts);
    cJSON_AddNumberToObject(o, "orphan_bursts", (double)h->orphan_bursts);
    cJSON_AddNumberToObject(o, "pauses", (double)h->pauses);
    cJSON_AddNumberToObject(o, "resumes", (double)h->resumes);
    cJSON_AddNumberToObject(o, "wakes", (double)h->wakes);
    cJSON_AddNumberToObject(o, "wakes_waited", (double)h->waited);
    cJSON_AddNumberToObject(o, "wakes_failed", (double)h->failed);
    cJSON_AddNumberToObject(o, "interrupted_bursts", (double)h->interrupted);
    cJSON_AddNumberToObject(o, "interrupted_work_s", h->interrupted_s);
    cJSON_AddNumberToObject(o, "memory_state_lost", (double)h->state_lost);
    cJSON_AddNumberToObject(o, "duplicate_session_ids", (double)h->dup_ids);
    sim_report_add_stats(o, "wake_latency_s", &h->wake_s);
    add_triple(o, "held", held);
    add_triple(o, "used", used);
    add_triple(o, "held_without_policy", base);
    add_triple(o, "given_back", back);
    cJSON *d = cJSON_AddObjectToObject(o, "density");
    double end_s = gs_us_to_s(now);
    cJSON_AddNumberToObject(d, "peak_sandboxes_per_node", h->peak_per_node);
    cJSON_AddNumberToObject(d, "mean_sandboxes_per_node",
                            end_s > 0 && sim_cluster_of(s)->nnodes ? sim_gauge_area(&h->g_placed, now) / end_s / sim_cluster_of(s)->nnodes
                                                       : 0.0);
    cJSON *p = cJSON_AddObjectToObject(o, "warm_pool");
    double pool_s = sim_gauge_area(&h->g_pool, now);
    cJSON_AddNumberToObject(p, "size", h->pool_n);
    cJSON_AddNumberToObject(p, "claims", (double)h->claims);
    double res[3] = {pool_s * h->pool_cpu, pool_s * h->pool_mem_gib, pool_s * h->pool_gpus};
    add_triple(p, "reserved", res);
}

static const pol_time time_hooks = {
    .job_event = hib_job_event,
    .row = hib_row,
};

const pol_ops pol_hibernate = {
    .abi = POL_ABI,
    .name = "hibernate",
    .summary = "pause idle agent sandboxes (idle probe or deadline), wake them on demand or on schedule",
    .kind = POL_TIME,
    .params = params,
    .init = hib_init,
    .fini = hib_fini,
    .timer = hib_timer,
    .report = hib_report,
    .time = &time_hooks,
    .failures_refused = "a session the core stops and requeues (its node failed) is not one it paused: its pause and "
                        "wake states do not take it back",
};
