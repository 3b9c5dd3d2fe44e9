/* sim.c - the event loop and the job life cycle it offers policies and
 * modules (see sim.h). Part of the engine core (sim_struct.h); node states
 * and the jobs CSV are reached through hooks set once (struct sim.node_job,
 * job_row), so the loop names no code above it.
 *
 * Three event kinds drive a run: ARRIVAL (the next trace row; only one is
 * pending at a time, so the trace is streamed), DONE (a job's work ran out at
 * its current rate) and TIMER (a policy's own wake-up). Events for a job that
 * has ended, or a DONE whose rate has since changed, are recognised by
 * generation numbers and dropped when popped (lazy cancellation).
 * SPDX-License-Identifier: MIT */
#include "sim.h"
#include "sim_struct.h"

#include "sim_gang.h"
#include "sim_module.h"
#include "sim_queue.h"
#include "sim_backfill.h"
#include "sim_reject.h"

_Static_assert(SIM_MAX_MODS == SIM_MAX_MODULES, "sim.h and sim_module.h disagree");

#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NO_SLOT SIM_NO_SLOT

/* The run's space policy's questions (pol_space). */
static const pol_space *space_of(const sim *s) { return s->pol[0]->space; }

/* j's row in the jobs CSV when the run writes one (sim_jobs_csv.h). */
static inline void job_row(const sim *s, const job *j, const char *outcome, const char *reason)
{
    if (s->job_row)
        s->job_row(s->job_rows_ud, s, j, outcome, reason);
}

/* {==== jobs slab ====} */


/* Chunks are carved from blocks of JOB_CHUNKS_PER_BLOCK: a chunk alone
 * (1,024 slots, a whole number of pages) would cost the allocator a page of
 * its own for its header. Free slots form a stack threaded through the slots
 * themselves (a free slot's `starts` holds the next one), so the lowest slot
 * is reused first and a slot costs nothing beyond itself. */
#define JOB_CHUNKS_PER_BLOCK 16u

/* Asks the kernel for the pages of [p, p + bytes) in one call before the
 * chunk's slots are threaded onto the free stack: the loop that threads them
 * would otherwise take one page fault per 4 KiB page, each a trap into the
 * kernel, paid by every chunk while tens of thousands of jobs are in flight.
 * The pages would be touched anyway; where the call is unknown (Linux before
 * 5.14) the faults come one by one. */
static void populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1),
              e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

static job *job_new(sim *s)
{
    if (s->free_head == NO_SLOT) {
        if (s->nslots > SIM_MAX_SLOTS - JOB_CHUNK)
            GS_BUG("sim: more than SIM_MAX_SLOTS jobs in flight");
        if (s->nchunks % JOB_CHUNKS_PER_BLOCK == 0) {
            s->chunks = xrealloc(s->chunks, (s->nchunks + JOB_CHUNKS_PER_BLOCK) * sizeof *s->chunks);
            job *block = xcalloc((size_t)JOB_CHUNK * JOB_CHUNKS_PER_BLOCK, sizeof *block);
            for (uint32_t k = 0; k < JOB_CHUNKS_PER_BLOCK; k++)
                s->chunks[s->nchunks + k] = block + (size_t)k * JOB_CHUNK;
        }
        job *c = s->chunks[s->nchunks++];
        populate(c, (size_t)JOB_CHUNK * sizeof *c);
        /* push in reverse so the lowest slot is reused first */
        for (uint32_t i = JOB_CHUNK; i-- > 0;) {
            c[i].slot = s->nslots + i;
            c[i].state = JOB_DONE;
            c[i].starts = s->free_head;
            s->free_head = s->nslots + i;
        }
        s->nslots += JOB_CHUNK;
    }
    job *j = sim_slot_job(s, s->free_head);
    s->free_head = j->starts;
    uint32_t slot = j->slot, gen = j->gen, tok = j->done_tok;
    gs_zero(j, sizeof *j);
    j->slot = slot;
    j->gen = gen;
    j->done_tok = tok;
    j->state = JOB_NEW;
    j->node = -1;
    j->speed = 1;
    j->q_class = -1;
    j->req.id = j->req.tenant = j->req.mig = sim_str_none;
    return j;
}

_Static_assert(CL_MAX_NODE_GPUS < JOB_SPANS, "job.ngpu_ids is a uint8_t, JOB_SPANS apart");
_Static_assert(CL_MAX_NODE_GPUS <= JOB_REQ_GPUS_MAX, "job_req.gpus holds any request a node can take");
_Static_assert(CL_MAX_NODE_GPUS <= UINT8_MAX, "job_req.gpus_per_node is a uint8_t");
_Static_assert(SIM_MAX_MODS + SIM_MAX_POLICIES <= 32, "job.task_owner is 5 bits");

static inline int cost_holder(sim *s, job *j);
static inline void alloc_add(sim *s, job *j, int pool, double dv);
static const sim_queue_host *host_room_of(const sim *s);

static void job_free(sim *s, job *j)
{
    sim_job_drop_gpus(j);
    sim_str_drop(&s->strs, j->req.id);
    j->req.id = sim_str_none;
    if (j->more) { /* kept for the next job that needs one: no allocation a row */
        j->more->kept_next = s->more_kept;
        s->more_kept = j->more;
        j->more = NULL;
    }
    j->gen++;
    j->done_tok++;
    j->state = JOB_DONE;
    j->starts = s->free_head; /* a free slot's link (job_new) */
    s->free_head = j->slot;
}

/* {==== the event heap's void completions ====} */

/* A completion event its job still waits for (sim_run's test), or a
 * module event its module does not call void (sim_module.event_void):
 * other events are kept. */
static bool event_wanted(const sim_event *e, void *ud)
{
    sim *s = ud;
    if (e->type >= EV_MODULE) {
        int mi = e->type >= EV_MODULE_WEAK ? (int)(e->type - EV_MODULE_WEAK) : (int)(e->type - EV_MODULE);
        const sim_module *mod = s->mod[mi];
        if (!mod->event_void || !mod->event_void(s->mst[mi], e->slot, e->gen, e->aux))
            return true;
        s->weak_pending -= e->type >= EV_MODULE_WEAK;
        return false;
    }
    if (e->type != EV_DONE)
        return true;
    const job *j = sim_slot_job(s, e->slot);
    return j->gen == e->gen && e->aux == j->done_tok;
}

/* The heap is full (sim_heap.reclaim). A rate change leaves the job's
 * earlier completion event void in the heap until its time comes: on
 * shared cards, where every join and leave changes its co-tenants' rates
 * (timeslice: four tenants a card), most of the heap can be void. When at
 * least a sixteenth may be, they go instead of the heap growing, and what
 * stays pops in the same order (sim_heap_filter): a pass over the heap paid
 * by as many rate changes as a sixteenth of it. While rates change the heap
 * grows by a sixteenth, not double, when it is still short of room: the
 * void events that fill it are cleared again before it grows further, so it
 * stays within about an eighth of the live events (the threshold's figures:
 * scripts/README.md). Without rate changes (whole cards) it doubles, past
 * this one test. */
static bool heap_reclaim(sim_heap *h, void *ud)
{
    sim *s = ud;
    if (s->done_voided == 0)
        return false;
    if (s->done_voided >= h->n / 16) {
        sim_heap_filter(h, event_wanted, s);
        s->done_voided = 0;
    }
    if (h->cap - h->n < h->cap / 16)
        sim_heap_reserve(h, h->cap + h->cap / 16);
    return true;
}

/* Module events voided in bulk (a replica's block end moved earlier at
 * every join): once a quarter of the heap may be void they go at once,
 * a pass paid by as many voids as a quarter of the heap. */
void sim_event_voided(sim *s)
{
    if (++s->done_voided >= 4096 && s->done_voided >= s->heap.n / 4) {
        sim_heap_filter(&s->heap, event_wanted, s);
        s->done_voided = 0;
    }
}

job_more *sim_job_more_kept(struct sim *s, job *j)
{
    if (!j->more && s->more_kept) {
        j->more = s->more_kept;
        s->more_kept = j->more->kept_next;
        sim_job_more_reset(j->more);
    }
    return sim_job_more(j); /* touched */
}

/* A fresh record at its defaults, for more_for_row (out of line: the
 * records kept serve most rows). */
static __attribute__((noinline)) job_more *more_new(void)
{
    job_more *m = xmalloc(sizeof *m);
    sim_job_more_reset(m);
    return m;
}

/* The record row r's rare columns go into (req_of_row writes them all):
 * the job's own (a task's), else one kept from an ended job, reset in
 * full only when touched: an untouched one differs from the defaults in
 * the row's members, ref and hw_on_ref alone (job_more), the first
 * rewritten, the others cleared here. Left untouched. */
static inline job_more *more_for_row(sim *s, job *j)
{
    if (j->more)
        return j->more;
    job_more *m = s->more_kept;
    if (m)
        s->more_kept = m->kept_next;
    else
        m = more_new();
    if (m->touched)
        sim_job_more_reset(m);
    m->ref = NULL;
    m->hw_on_ref = -1;
    return j->more = m;
}

/* The run's copy of name text, by the reader's number sym (interned on
 * the name's first row, then an array lookup; sym 0: interned each time). */
static const char *name_of(sim *s, sim_symmap *m, uint32_t sym, const char *text)
{
    uint64_t v;
    if (sim_symmap_get(m, sym, &v))
        return (const char *)(uintptr_t)v;
    const char *p = sim_str_intern(&s->strs, text);
    sim_symmap_put(m, sym, (uint64_t)(uintptr_t)p);
    return p;
}

/* The job's request from row r: the columns jobs use, names interned, the
 * id copied (see job_req in sim_job.h); the rare columns out of line only
 * when the row gives one. nm: the row's mig, ref_gpu and speedup names,
 * interned (mig checked by the caller). Inline in both callers: as a call
 * it costs the arrival its fields' stores twice over. */
static inline __attribute__((always_inline)) void req_of_row(sim *s, job *j, const wl_row *r,
                                                              const struct sim_row_names *nm)
{
    job_req *q = &j->req;
    sim_str_drop(&s->strs, q->id);
    job_req_numbers(q, r);
    q->id = sim_str_id(&s->strs, r->id);
    /* most rows name neither: no call for an empty one */
    q->tenant = r->tenant[0] ? name_of(s, &s->sym_tenant, r->tenant_sym, r->tenant) : sim_str_none;
    q->mig = nm->mig;
    if (r->checkpoint_gib >= 0 || r->params_b >= 0 || r->mem_bound >= 0 || r->ref_gpu[0] || r->speedup[0] ||
        r->comm >= 0 || r->time_limit_us > 0) {
        job_more *m = more_for_row(s, j);
        m->checkpoint_gib = r->checkpoint_gib;
        m->params_b = r->params_b;
        m->mem_bound = r->mem_bound;
        m->comm = r->comm;
        m->time_limit_us = r->time_limit_us > 0 ? r->time_limit_us : -1;
        m->ref_gpu = nm->ref_gpu;
        m->speedup = nm->speedup;
    }
}

/* Row r's ref_gpu and speedup names, interned (by their name numbers) */
static void rare_names(sim *s, const wl_row *r, struct sim_row_names *nm)
{
    nm->ref_gpu = r->ref_gpu[0] ? name_of(s, &s->sym_ref_gpu, r->ref_gpu_sym, r->ref_gpu) : sim_str_none;
    nm->speedup = r->speedup[0] ? name_of(s, &s->sym_speedup, r->speedup_sym, r->speedup) : sim_str_none;
}

void sim_job_set_id(sim *s, job *j, const char *id)
{
    sim_str_drop(&s->strs, j->req.id);
    j->req.id = sim_str_id(&s->strs, id);
}

/* {==== the run as seen from outside the engine ====} */

sim *sim_create(void) { return xcalloc(1, sizeof(sim)); }

void sim_set_progress(sim *s, void (*progress)(void *ud, const sim *s), void *ud)
{
    s->progress = progress;
    s->progress_ud = ud;
}

void sim_destroy(sim *s)
{
    if (!s)
        return;
    sim_free(s);
    free(s);
}

const sim_observer *sim_observer_of(const sim *s) { return s->obs; }

/* {==== the run's policies, from --policy ====} */

static const pol_ops *find_policy(const sim *s, const char *name)
{
    for (const pol_ops *const *p = s->cfg->registry; *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

static void list_policies(const sim *s, char *buf, size_t n, int kind)
{
    size_t used = 0;
    buf[0] = 0;
    for (const pol_ops *const *p = s->cfg->registry; *p && used < n; p++)
        if ((*p)->kind == kind)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", (*p)->name);
    if (!buf[0])
        snprintf(buf, n, "(none yet)");
}

static bool policy_listed(const sim *s, const pol_ops *p)
{
    for (int i = 0; i < s->npol; i++)
        if (s->pol[i] == p)
            return true;
    return false;
}

static int resolve_policies(sim *s, const char *spec, gs_error *err)
{
    char *copy = xstrdup(spec), *save = NULL;
    int rc = 0, nact = 0;
    for (char *tok = strtok_r(copy, "+", &save); tok && rc == 0; tok = strtok_r(NULL, "+", &save)) {
        const pol_ops *p = find_policy(s, tok);
        int want = s->npol == 0 ? POL_SPACE : POL_TIME;
        if (!p || p->kind != want) {
            char names[512];
            list_policies(s, names, sizeof names, want);
            rc = gs_err(err, GS_EUSAGE, "unknown %s policy '%s' (valid: %s)",
                        want == POL_SPACE ? "space" : "time or actuator", tok, names);
        } else if (s->npol == SIM_MAX_POLICIES) {
            rc = gs_err(err, GS_EUSAGE, "--policy '%s': at most %d policies", spec, SIM_MAX_POLICIES);
        } else if (p->abi != POL_ABI || !p->init || !p->fini ||
                   (p->kind == POL_SPACE && (!p->space || !p->space->place || !p->space->can_ever_fit ||
                                             !p->space->unplace || !p->space->shape_key)) ||
                   (p->kind == POL_TIME && !p->time == !p->actuator)) {
            GS_BUG("policy record misses a required member");
        } else if (p->actuator && nact++) {
            rc = gs_err(err, GS_EUSAGE, "--policy '%s': at most one service actuator (%s)", spec, tok);
        } else if (policy_listed(s, p)) { /* two instances would act on the same jobs twice */
            rc = gs_err(err, GS_EUSAGE, "--policy '%s': '%s' is named twice", spec, tok);
        } else {
            s->pol[s->npol++] = p;
        }
    }
    free(copy);
    if (rc == 0 && s->npol == 0)
        rc = gs_err(err, GS_EUSAGE, "--policy is empty");
    return rc;
}

static void schedule_arrival(sim *s)
{
    if (s->have_next)
        sim_heap_push_side(&s->heap, (sim_event){.t_us = s->next_row->submit_us, .type = EV_ARRIVAL, .slot = NO_SLOT});
}

static int read_next(sim *s)
{
    int rc = wl_trace_next(s->tr, &s->next_row, &s->err); /* the reader's row: a job keeps only its job_req */
    if (rc < 0)
        return rc;
    s->have_next = rc == 1;
    return 0;
}

static void queue_answers(sim *s);

static int init_modules(sim *s, gs_error *err)
{
    for (int m = 0; m < s->nmod; m++)
        if (s->mod[m]->init) {
            int rc = s->mod[m]->init(s, m, &s->mst[m], err);
            if (rc)
                return rc;
        }
    return 0;
}

/* {==== the trace's columns ====} */

/* Of SIM_COLS_DECLARED, the columns this run reads from rows of kind
 * `kind`: the core's CPU and memory asks of placed work where a node
 * limits either (a fit index; elsewhere every ask fits the host, and no
 * reason names one), time limits under backfilling, and what each module
 * and policy says it reads (one
 * that says nothing reads them all). */
static uint64_t columns_read(const sim *s, int kind)
{
    uint64_t read = 0;
    if (sim_kind_placed(kind) && s->cl->fit_slot)
        read |= WL_COL_BIT(WL_COL_CPU) | WL_COL_BIT(WL_COL_MEM_GIB);
    if (sim_kind_placed(kind) && space_of(s)->backfill && space_of(s)->backfill(s->pst[0]) > 0)
        read |= WL_COL_BIT(WL_COL_TIME_LIMIT); /* what backfilling plans with */
    for (int m = 0; m < s->nmod; m++)
        read |= s->mod[m]->columns_read ? s->mod[m]->columns_read(s->mst[m], kind) : SIM_COLS_DECLARED;
    for (int p = 0; p < s->npol; p++)
        read |= s->pol[p]->columns_read ? s->pol[p]->columns_read(s->pst[p], kind) : SIM_COLS_DECLARED;
    return read & SIM_COLS_DECLARED;
}

/* The trace opened, its header read, the columns no layer reads left
 * unread (unless check_all_columns), and what the header's class and
 * observed_start columns turn on. */
static int open_trace(sim *s, gs_error *err)
{
    wl_opts o = {.allow_extra_columns = s->cfg->allow_extra_columns};
    for (int k = 0; k < WL_NKINDS && !s->cfg->check_all_columns; k++)
        o.unread[k] = SIM_COLS_DECLARED & ~columns_read(s, k);
    s->tr = wl_trace_open(s->cfg->trace_path, &o, err);
    if (!s->tr)
        return GS_EINPUT;
    sim_classes_init(&s->classes, wl_trace_column(s->tr, "class"));
    s->row_extras = s->classes.on || wl_trace_column(s->tr, "observed_start") > 0;
    if (wl_trace_column(s->tr, "observed_start") > 0) /* until a row leaves it empty */
        sim_observed_share(&s->observed, &s->queue_s);
    return 0;
}

uint64_t sim_unread_columns(const sim *s) { return s->tr ? wl_trace_unread(s->tr) : 0; }

int sim_init_with(sim *s, const sim_config *cfg, const gpu_catalog *cat, sim_cluster *cl, FILE *ts,
                  const sim_module *const *modules, gs_error *err)
{
    memset(s, 0, sizeof *s);
    if (!cfg->registry)
        GS_BUG("sim_init: sim_config.registry is required (the caller's policy table)");
    s->cfg = cfg;
    s->cat = cat;
    s->cl = cl;
    for (; modules && *modules; modules++) {
        if (s->nmod == SIM_MAX_MODULES)
            GS_BUG("sim_init_with: too many modules");
        s->mod[s->nmod++] = *modules;
    }
    sim_module_hooks_note(s);
    sim_heap_init(&s->heap);
    s->heap.reclaim = heap_reclaim;
    s->heap.reclaim_ud = s;
    s->free_head = NO_SLOT;
    memset(s->names_key, 0xff, sizeof s->names_key); /* row_names: no row matches yet */
    sim_strtab_init(&s->strs);
    sim_queue_init(&s->queue);
    sim_sketch_init(&s->queue_s);
    sim_sketch_init(&s->jct_s);
    sim_sketch_init(&s->slowdown);
    sim_cost_init(&s->cost, cl->npools);
    for (int c = 0; c < SIM_SIZE_CLASSES; c++) {
        sim_sketch_init(&s->size_queue_s[c]);
        sim_sketch_init(&s->size_jct_s[c]);
    }
    s->size_only = -1;
    s->gang_floor = s->gpn_floor = CL_MAX_NODE_GPUS;
    for (int p = 0; p < cl->npools; p++) {
        if (cl->pools[p].nnodes > 0 && cl->pools[p].max_node_gpus < s->gang_floor)
            s->gang_floor = cl->pools[p].max_node_gpus;
        if (cl->pools[p].max_node_gpus < s->gpn_floor)
            s->gpn_floor = cl->pools[p].max_node_gpus;
    }
    int rc = resolve_policies(s, cfg->policy, err);
    if (rc == 0)
        rc = sim_params_check(s, err);
    if (rc)
        return rc;
    sim_observed_init(&s->observed);
    /* the modules first: a policy may use one from its init() (place a
     * task, sim_admit_pools) */
    if ((rc = init_modules(s, err)) != 0)
        return rc;
    for (int p = 0; p < s->npol; p++) {
        if ((rc = s->pol[p]->init(s, p, &s->pst[p], err)) != 0)
            return rc;
        if (p == 0) /* before a time policy's init may place a task */
            queue_answers(s);
    }
    /* the trace once every layer can say which columns it reads */
    if ((rc = open_trace(s, err)) != 0)
        return rc;
    sim_gang_init(cl); /* what jobs across nodes could ever get, once the policies withheld theirs */
    s->queue.host_blind = s->q_host == NULL;
    int look_ahead = space_of(s)->backfill ? space_of(s)->backfill(s->pst[0]) : 0;
    if (look_ahead > 0)
        s->bf = sim_bf_new(&s->now, s->cl, (size_t)look_ahead);
    sim_set_timeseries(s, ts);
    if ((rc = read_next(s)) != 0) {
        *err = s->err;
        return rc;
    }
    schedule_arrival(s);
    return 0;
}

double sim_frag_gpus(const sim *s)
{
    return s->npol > 0 && space_of(s)->frag_gpus ? space_of(s)->frag_gpus(s->pst[0]) : -1;
}

void sim_set_job_rows(sim *s, void (*row)(void *ud, const sim *s, const job *j, const char *outcome, const char *reason),
                      int (*end)(void *ud, const sim *s), void *ud)
{
    s->job_row = row;
    s->job_rows_end = end;
    s->job_rows_ud = ud;
}

void sim_set_timeseries(sim *s, FILE *ts)
{
    /* frag_gpus only when the policy measures it */
    sim_ts_start(&s->ts, ts, s->cfg->sample_us, s->cfg->ts_max_rows ? s->cfg->ts_max_rows : SIM_TS_MAX_ROWS,
                 sim_frag_gpus(s) >= 0);
}

/* {==== calls into the modules ====} */

/* Each module with the hook (s->with_<hook>), in index order. */
#define EACH_MODULE(s, member, ...)                                                                       \
    do {                                                                                                  \
        for (uint32_t b_ = (s)->with_##member; b_; b_ &= b_ - 1) {                                        \
            int m_ = __builtin_ctz(b_);                                                                   \
            (s)->mod[m_]->member((s)->mst[m_], __VA_ARGS__);                                              \
        }                                                                                                 \
    } while (0)

static bool modules_admit(sim *s, job *j)
{
    for (uint32_t b = s->with_admit; b; b &= b - 1) {
        int m = __builtin_ctz(b);
        if (!s->mod[m]->admit(s->mst[m], s, j))
            return false;
    }
    return true;
}

/* Tells the owner of internal task j (a module or a time policy) that it
 * started, changed rate, was rejected or was killed. */
enum { TASK_STARTED, TASK_RATE, TASK_REJECTED, TASK_LOST };
static void task_event(sim *s, job *j, int what)
{
    int o = j->task_owner;
    if (o >= 0 && o < SIM_MAX_MODS) {
        const sim_module *m = s->mod[o];
        void (*f)(void *, sim *, job *) = what == TASK_STARTED    ? m->task_started
                                          : what == TASK_RATE     ? m->task_rate_changed
                                          : what == TASK_REJECTED ? m->task_rejected
                                                                  : m->task_lost;
        if (f)
            f(s->mst[o], s, j);
    } else if (o >= SIM_MAX_MODS && o - SIM_MAX_MODS < s->npol && what != TASK_RATE) {
        int p = o - SIM_MAX_MODS;
        if (s->pol[p]->time && s->pol[p]->time->job_event)
            s->pol[p]->time->job_event(s->pst[p], s, j,
                                 what == TASK_STARTED ? POL_TASK_STARTED
                                 : what == TASK_REJECTED ? POL_TASK_REJECTED : POL_TASK_LOST);
    }
}

/* {==== the space policy: queue, admission, hand-over ====}
 * The space policy answers questions (pol_space); the core runs the queue
 * once for every policy: reject what can never fit, start what fits in
 * priority and submit order (strict FIFO, or skipping a shape whose head
 * does not fit), queue the rest, dispatch after every release, start only
 * the nominee during a hand-over, and withdraw waits given up. */

/* A job across nodes: the core's gang placer on the ledger's whole free
 * cards (sim_gang.h), the policy told which it holds. */
static __attribute__((noinline)) bool gang_start(sim *s, job *j)
{
    uint64_t pools = sim_admit_pools(s, j); /* quotas, preemption hand-over */
    if (!pools || !sim_gang_place(s->cl, j, pools))
        return false;
    sim_alloc_add_for(s, j, s->cl->nodes[j->node].pool, (double)j->gpu.span->ngpus); /* one model: the first part's pool */
    if (s->bf)
        sim_bf_taken(s->bf, j);
    const pol_space *p = space_of(s);
    if (p->gang_cards) {
        const job_span *sp = j->gpu.span;
        for (int i = 0; i < sp->nparts; i++)
            p->gang_cards(s->pst[0], s, sp->part[i].node, job_span_ids(sp) + sp->part[i].first_id,
                          sp->part[i].ngpus, true);
    }
    sim_job_start(s, j, 1.0);
    return true;
}

static __attribute__((noinline)) void gang_unplace(sim *s, job *j)
{
    const pol_space *p = space_of(s);
    if (p->gang_cards) {
        const job_span *sp = j->gpu.span;
        for (int i = 0; i < sp->nparts; i++)
            p->gang_cards(s->pst[0], s, sp->part[i].node, job_span_ids(sp) + sp->part[i].first_id,
                          sp->part[i].ngpus, false);
    }
    if (s->bf)
        sim_bf_given(s->bf, j);
    int pool = s->cl->nodes[j->node].pool, ngpus = j->gpu.span->ngpus;
    sim_gang_release(s->cl, j);
    sim_alloc_add_for(s, j, pool, -(double)ngpus);
}

/* The space policy places j, or the core when j spans nodes. */
static inline bool space_place(sim *s, job *j)
{
    if (__builtin_expect(j->req.spans, 0))
        return gang_start(s, j);
    return space_of(s)->place(s->pst[0], s, j);
}

static bool place_cb(void *ud, job *j) { return space_place(ud, j); }

static bool space_fifo(const sim *s) { return space_of(s)->fifo && space_of(s)->fifo(s->pst[0]); }

/* The demand index is used only where a skipped try changes nothing: a
 * refused try under tenant quotas counts the request as quota-blocked. */
static bool demand_index(const sim *s)
{
    const pol_space_index *x = space_of(s)->index;
    return x && x->queue_demand && x->queue_room && !s->cl->quota;
}

static uint32_t room_cb(void *ud)
{
    sim *s = ud;
    return space_of(s)->index->queue_room(s->pst[0], s);
}

static void host_room_cb(void *ud, double *cpu, double *mem)
{
    sim_cluster_host_room(((sim *)ud)->cl, cpu, mem);
}

static bool host_fits_cb(void *ud, double cpu, double mem)
{
    return sim_cluster_host_fits_any(((sim *)ud)->cl, cpu, mem);
}

static uint64_t host_gives_cb(void *ud) { return ((sim *)ud)->cl->gives; }

static int host_given_free_cb(void *ud, uint64_t since, double *cpu, double *mem, int max)
{
    return sim_cluster_given_since(((sim *)ud)->cl, since, cpu, mem, max);
}

/* The host room joins the demand index where the policy enforces CPU and
 * memory on every placement (pol_space_index.queue_host). */
static const sim_queue_host host_room = {host_room_cb, host_fits_cb, host_gives_cb, host_given_free_cb};

/* None on a cluster whose nodes set no CPU or memory (no fit index): every
 * ask fits the host there, as the room's INFINITY answers would say. */
static const sim_queue_host *host_room_of(const sim *s)
{
    return demand_index(s) && space_of(s)->index->queue_host && s->cl->fit_slot ? &host_room : NULL;
}

/* The queue's questions the space policy answers once for the run
 * (sim.q_strict, q_room, q_host): no per-pass asking. */
static void queue_answers(sim *s)
{
    s->q_strict = space_fifo(s);
    s->q_room = demand_index(s) ? room_cb : NULL;
    s->q_host = host_room_of(s);
}

/* A dispatch pass: the request the policy holds room for first, then the
 * queue in order. */
static void space_dispatch(sim *s)
{
    const pol_space *p = space_of(s);
    if (p->dispatch_held) {
        job *h = p->dispatch_held(s->pst[0], s);
        if (h)
            sim_queue_remove(&s->queue, h);
    }
    if (s->bf) { /* EASY backfilling (sim_backfill.h) */
        sim_bf_ops ops = {place_cb, s->q_room, s->q_host, s};
        sim_bf_dispatch(s->bf, &s->queue, &ops);
        return;
    }
    if (sim_queue_len(&s->queue) > 0) /* else no pass: nothing waits */
        sim_queue_dispatch_host(&s->queue, s->q_strict, s->q_room, s->q_host, place_cb, s);
}

static void space_queue(sim *s, job *j)
{
    sim_job_queued(s, j);
    /* a job across nodes is never beyond the policy's room (its cards on
     * one node): the queue tries it, and the gang placer's first test is
     * the pool's count of nodes with room for a part; under backfilling,
     * whose passes try many requests, its largest part is its demand (no
     * node with that many free: it cannot start) */
    uint32_t demand = !s->q_room     ? 0
                      : j->req.spans ? (s->bf ? sim_bf_demand(s->bf, j) : 0)
                                     : space_of(s)->index->queue_demand(s->pst[0], j);
    uint64_t key = space_of(s)->shape_key(s->pst[0], j);
    sim_queue_push(&s->queue, j, s->bf ? key ^ sim_bf_class_key(j) : key, demand);
}

/* A newcomer under backfilling while others wait: one try under the kept
 * reservation, or a pass. */
static void bf_arrive(sim *s, job *j)
{
    sim_bf_ops ops = {place_cb, s->q_room, s->q_host, s};
    int what = sim_bf_arrive(s->bf, &s->queue, j, &ops);
    if (what == BF_STARTED)
        return;
    space_queue(s, j);
    if (what == BF_PASS)
        space_dispatch(s);
}

/* Rejects j (new) for `why` (NULL: the reason the policy or the core
 * derives); a trace job's reason is counted (sim_reject.h). */
static void reject_why(sim *s, job *j, const char *why)
{
    if (!j->internal) {
        sim_reject_ctx x = {s, s->cl, s->pol[0], s->pst[0]};
        s->end_why = sim_reject_note(&s->rejects, &x, j, why); /* the jobs CSV's reason: the report's text */
    }
    sim_job_reject(s, j);
}

/* A job across nodes: could the gang placer ever place it (under a
 * policy that lets the core place them)? Else rejected, with the reason. */
static __attribute__((noinline)) bool gang_ever(sim *s, job *j)
{
    char why[400];
    if (!(space_of(s)->caps & POL_CAP_GANG))
        snprintf(why, sizeof why, "needs %d GPUs across nodes: space policy '%s' places no job across nodes",
                 j->req.gpus, s->pol[0]->name);
    else if (sim_gang_ever(s->cl, j, why, sizeof why))
        return true;
    else if (j->tenant_ix) { /* its pools are those its tenant's quota lets it ever use */
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, ", within the quota of tenant '%.60s'", j->req.tenant);
    }
    reject_why(s, j, why);
    return false;
}

/* Could j ever fit: the space policy's answer, or the gang placer's. */
static inline bool space_ever(sim *s, job *j)
{
    if (__builtin_expect(j->req.spans, 0))
        return gang_ever(s, j);
    if (space_of(s)->can_ever_fit(s->pst[0], s, j))
        return true;
    reject_why(s, j, NULL);
    return false;
}

/* Is j's demand beyond the demand index's room now (no: no index, or a
 * job across nodes, whose demand is no bound there)? */
static __attribute__((noinline)) bool beyond_room(sim *s, job *j)
{
    return s->q_room && !j->req.spans && space_of(s)->index->queue_demand(s->pst[0], j) > s->q_room(s);
}

static void space_arrive(sim *s, job *j)
{
    if (!space_ever(s, j))
        return;
    if (sim_queue_len(&s->queue) == 0) { /* nothing waits: it starts if it fits */
        if (!space_place(s, j))
            space_queue(s, j);
        return;
    }
    if (s->bf) {
        bf_arrive(s, j);
        return;
    }
    if (!s->q_strict) {
        /* every queued request was tried at the last release and did not
         * fit, so a newcomer that fits may start at once; one beyond the
         * demand index's room (most often the cluster is full then) is not
         * tried: its try would fail, and change nothing (the index is on
         * only where a failed try counts for nothing) */
        if (beyond_room(s, j) || !space_place(s, j))
            space_queue(s, j);
        return;
    }
    space_queue(s, j);
    sim_queue_dispatch_host(&s->queue, true, s->q_room, s->q_host, place_cb, s);
}

static void space_release(sim *s, job *j)
{
    const pol_space *p = space_of(s);
    if (__builtin_expect(s->node_job != NULL, 0))
        s->node_job(s, j, false);
    if (j->req.spans)
        gang_unplace(s, j);
    else
        p->unplace(s->pst[0], s, j);
    job *n = sim_nominee(s);
    if (n) { /* a hand-over: what was freed is the nominee's */
        if (space_place(s, n)) {
            sim_queue_remove(&s->queue, n);
            /* placed: what the next victims free is not its own now. A
             * policy may start it later (still queued): it must not be
             * placed again */
            s->nominee = NULL;
        } else if (p->nominee_missed)
            p->nominee_missed(s->pst[0], s, n);
        return;
    }
    space_dispatch(s);
}

uint64_t sim_admit_pools(sim *s, job *j)
{
    if (s->handing_over && j != s->nominee)
        return 0; /* what is being freed is reserved for the nominee */
    uint64_t pools = j->pools;
    for (uint32_t b = s->with_narrow_pools; b; b &= b - 1) {
        int m = __builtin_ctz(b);
        pools = s->mod[m]->narrow_pools(s->mst[m], s, j, pools);
    }
    return pools;
}

job *sim_nominee(const sim *s)
{
    return s->handing_over && s->nominee && s->nominee->state == JOB_QUEUED ? s->nominee : NULL;
}

void sim_hand_over_begin(sim *s, job *nominee)
{
    s->handing_over = true;
    s->nominee = nominee;
}

void sim_hand_over_end(sim *s)
{
    s->handing_over = false;
    s->nominee = NULL;
}

/* {==== services for policies ====} */

/* Tells the time policies (pol[1..]) what happened to j (pol_time.job_event). */
static void notify_time(sim *s, job *j, int ev)
{
    for (int p = 1; p < s->npol; p++)
        if (s->pol[p]->time && s->pol[p]->time->job_event)
            s->pol[p]->time->job_event(s->pst[p], s, j, ev);
}


gs_time_us sim_next_strong_us(const sim *s)
{
    gs_time_us t = s->heap.has_side ? s->heap.side.t_us : GS_TIME_MAX;
    for (size_t i = 0; i < s->heap.n; i++)
        if (s->heap.ev[i].type != EV_TIMER_WEAK && s->heap.ev[i].t_us < t)
            t = s->heap.ev[i].t_us;
    return t;
}


gs_time_us sim_time_after(sim *s, double off_us, const char *id, const char *cause)
{
    gs_time_us at;
    if (gs_time_add(s->now, off_us, &at))
        return at;
    if (!s->err.code)
        gs_err(&s->err, GS_EINPUT, "trace '%s': row '%s': %s ends %.6g s after %.6f s, past the simulator's clock "
               "(int64 microseconds, %.4g s)", s->cfg->trace_path, id, cause, off_us / 1e6, gs_us_to_s(s->now),
               gs_us_to_s(GS_TIME_MAX));
    return GS_TIME_MAX;
}

static void schedule_done(sim *s, job *j)
{
    if (j->rate <= 0 || isinf(j->work_left_us))
        return; /* paused, or a task with no end of its own (a service replica) */
    double dt = j->work_left_us / job_drain_rate(j);
    gs_time_us at;
    if (!gs_time_add(s->now, ceil(dt - 1e-6), &at)) {
        char cause[160];
        snprintf(cause, sizeof cause, "its 'duration' (%.6g s of work left) at %.3g of full speed",
                 j->work_left_us / 1e6, job_drain_rate(j));
        at = sim_time_after(s, ceil(dt - 1e-6), j->req.id, cause);
    }
    sim_heap_push(&s->heap, (sim_event){.t_us = at, .type = EV_DONE, .slot = j->slot, .gen = j->gen,
                                        .aux = j->done_tok});
}

/* A job's first start beyond the run's figures, when the trace has a
 * class or observed_start column (sim.row_extras): its class's queue
 * time, its observed queue's. The value and its bucket are the run's
 * sketch's last ones, found once for all. Inline behind the flag's test:
 * a call would cost more than its counts (the plain run measures the same). */
static inline void started_extras(sim *s, const job *j)
{
    if (s->classes.on)
        sim_class_started(&s->classes, j, s->queue_s.last_x, s->queue_s.last_bucket);
    sim_observed_started_at(&s->observed, j->slot, s->queue_s.last_x, s->queue_s.last_bucket);
}

/* Its completion, likewise (the run's jct_s just took the value). */
static inline void done_extras(sim *s, const job *j)
{
    if (s->classes.on)
        sim_class_done(&s->classes, j, s->jct_s.last_x, s->jct_s.last_bucket);
}

void sim_job_start(sim *s, job *j, double rate)
{
    if (j->state != JOB_NEW && j->state != JOB_QUEUED)
        GS_BUG("sim_job_start: job is not new or queued");
    if (j->state == JOB_QUEUED && !j->internal) {
        s->queued--;
        sim_gauge_set(&s->g_queued, s->now, (double)s->queued);
    }
    j->state = JOB_RUNNING;
    j->starts++;
    j->rate = rate;
    j->rate_since_us = s->now;
    j->speed = 1.0; /* once per placement, not per event: the modules' factors (the card's speed) */
    for (uint32_t b = j->internal ? 0 : s->with_speed; b; b &= b - 1) {
        int m = __builtin_ctz(b);
        j->speed *= s->mod[m]->speed(s->mst[m], s, j);
    }
    if (__builtin_expect(j->req.spans, 0)) /* the network, across racks or blocks */
        j->speed *= sim_gang_net_factor(s->cl, j);
    if (__builtin_expect(s->node_job != NULL, 0))
        s->node_job(s, j, true);
    if (j->internal) {
        j->started = true;
        j->start_us = s->now;
        task_event(s, j, TASK_STARTED);
        return;
    }
    s->running++;
    sim_gauge_set(&s->g_running, s->now, (double)s->running);
    if (!j->started) { /* queue time is submit to first start */
        j->started = true;
        j->start_us = s->now;
        sim_sketch_add(&s->queue_s, gs_us_to_s(s->now - j->req.submit_us));
        /* the value's bucket, found once for all */
        if (s->size_only == SIM_SIZE_CLASSES) /* several sizes so far: each its own figures */
            sim_sketch_count(&s->size_queue_s[sim_size_class(j->req.gpus)], s->queue_s.last_x, s->queue_s.last_bucket);
        if (__builtin_expect(s->row_extras, 0))
            started_extras(s, j);
    }
    schedule_done(s, j);
    EACH_MODULE(s, started, s, j);
    notify_time(s, j, POL_JOB_STARTED); /* time policies see every (re)start */
}

void sim_job_queued(sim *s, job *j)
{
    if (j->state != JOB_NEW)
        GS_BUG("sim_job_queued: job is not new");
    j->state = JOB_QUEUED;
    if (j->internal)
        return;
    s->queued++;
    sim_gauge_set(&s->g_queued, s->now, (double)s->queued);
}

void sim_job_reject(sim *s, job *j)
{
    if (j->state != JOB_NEW)
        GS_BUG("sim_job_reject: job is not new");
    j->state = JOB_REJECTED;
    job_row(s, j, "rejected", s->end_why);
    s->end_why = NULL;
    if (j->internal) {
        task_event(s, j, TASK_REJECTED);
        return;
    }
    s->rejected++;
}

static void drain_progress(sim *s, job *j)
{
    j->work_left_us -= job_drain_rate(j) * (double)(s->now - j->rate_since_us);
    if (j->work_left_us < 0)
        j->work_left_us = 0;
    j->rate_since_us = s->now;
}

void sim_job_suspend(sim *s, job *j)
{
    if (j->state != JOB_RUNNING)
        GS_BUG("sim_job_suspend: job is not running");
    drain_progress(s, j);
    s->done_voided += j->rate > 0;
    j->rate = 0;
    j->done_tok++; /* voids the pending DONE event */
    j->state = JOB_SUSPENDED;
    s->running--;
    s->suspended++;
    sim_gauge_set(&s->g_running, s->now, (double)s->running);
    EACH_MODULE(s, stopped, s, j);
    space_release(s, j);
}

void sim_task_set_busy(sim *s, job *j, bool busy)
{
    if (j->idle == !busy)
        return;
    j->idle = !busy;
    if (j->state == JOB_RUNNING && space_of(s)->load_changed)
        space_of(s)->load_changed(s->pst[0], s, j);
}

void sim_job_fail_why(sim *s, job *j, const char *why)
{
    s->end_why = why;
    sim_job_fail(s, j);
}

void sim_job_fail(sim *s, job *j)
{
    job_row(s, j, j->internal ? "lost" : "failed", s->end_why); /* before it gives back its placement */
    s->end_why = NULL;
    if (j->internal) { /* a service replica killed (OOM on a card without memory isolation) */
        if (j->state != JOB_RUNNING)
            GS_BUG("sim_job_fail: internal task is not running");
        drain_progress(s, j);
        j->state = JOB_FAILED;
        space_release(s, j);
        task_event(s, j, TASK_LOST);
        job_free(s, j);
        return;
    }
    switch (j->state) {
    case JOB_RUNNING:
        drain_progress(s, j);
        j->state = JOB_FAILED;
        s->running--;
        sim_gauge_set(&s->g_running, s->now, (double)s->running);
        EACH_MODULE(s, stopped, s, j);
        space_release(s, j);
        break;
    case JOB_QUEUED:
        s->queued--;
        sim_gauge_set(&s->g_queued, s->now, (double)s->queued);
        break;
    case JOB_SUSPENDED:
        s->suspended--;
        break;
    default:
        GS_BUG("sim_job_fail: job is not running, queued or suspended");
    }
    j->state = JOB_FAILED;
    s->failed++;
    notify_time(s, j, POL_JOB_ENDING);
    job_free(s, j);
}

/* services a time policy needs to end sessions and give up waits. */
bool sim_job_withdraw(sim *s, job *j)
{
    if (j->state != JOB_QUEUED)
        GS_BUG("sim_job_withdraw: job is not queued");
    return sim_queue_remove(&s->queue, j);
}

void sim_job_complete(sim *s, job *j)
{
    if (j->state != JOB_SUSPENDED)
        GS_BUG("sim_job_complete: job is not suspended");
    s->suspended--;
    j->work_left_us = 0;
    j->state = JOB_DONE;
    s->completed++;
    sim_cost_done(&s->cost, cost_holder(s, j));
    sim_sketch_add(&s->jct_s, gs_us_to_s(s->now - j->req.submit_us));
    if (s->size_only == SIM_SIZE_CLASSES)
        sim_sketch_count(&s->size_jct_s[sim_size_class(j->req.gpus)], s->jct_s.last_x, s->jct_s.last_bucket);
    if (__builtin_expect(s->row_extras, 0))
        done_extras(s, j);
    job_row(s, j, "completed", NULL);
    notify_time(s, j, POL_JOB_ENDING);
    job_free(s, j);
}

bool sim_job_resume(sim *s, job *j)
{
    if (j->state != JOB_SUSPENDED)
        GS_BUG("sim_job_resume: job is not suspended");
    s->suspended--;
    j->state = JOB_NEW;
    space_arrive(s, j);
    if (j->state == JOB_NEW)
        GS_BUG("the space policy left a resumed job neither started, queued nor rejected");
    if (j->state == JOB_REJECTED) {
        job_free(s, j);
        return false;
    }
    EACH_MODULE(s, arrived, s, j); /* a resumed job left queued may preempt too */
    return true;
}

void sim_job_set_rate(sim *s, job *j, double rate)
{
    if (j->state != JOB_RUNNING)
        GS_BUG("sim_job_set_rate: job is not running");
    drain_progress(s, j);
    s->done_voided += j->rate > 0;
    j->rate = rate;
    j->done_tok++; /* voids the pending DONE event */
    schedule_done(s, j);
    if (j->internal)
        task_event(s, j, TASK_RATE);
    else
        EACH_MODULE(s, rate_changed, s, j);
}

void sim_place_whole(sim *s, job *j, int node)
{
    j->node = node;
    int *ids = sim_job_hold_gpus(j, j->req.gpus);
    sim_cluster_take(s->cl, node, j->req.gpus, j->req.cpu, j->req.mem_gib, ids);
    alloc_add(s, j, s->cl->nodes[node].pool, j->req.gpus);
    if (s->bf)
        sim_bf_taken(s->bf, j);
}

void sim_release_whole(sim *s, job *j)
{
    if (j->node < 0)
        GS_BUG("sim_release_whole: job holds no node");
    if (s->bf)
        sim_bf_given(s->bf, j);
    sim_cluster_give(s->cl, j->node, job_gpu_ids(j), j->ngpu_ids, j->req.cpu, j->req.mem_gib);
    alloc_add(s, j, s->cl->nodes[j->node].pool, -(double)j->ngpu_ids);
    sim_job_drop_gpus(j);
    j->node = -1;
}

job *sim_task_new(sim *s, int owner)
{
    job *j = job_new(s);
    j->internal = true;
    if (owner < 0 || owner >= 32)
        GS_BUG("sim_task_new: owner out of range");
    j->task_owner = (uint8_t)owner & 31u;
    j->work_left_us = INFINITY;
    j->req.kind = WL_KIND_JOB;
    j->req.submit_us = s->now;
    j->pools = sim_cluster_all_pools(s->cl);
    sim_job_more(j); /* its owner record lives there */
    return j;
}

void sim_task_set_row(sim *s, job *j, const wl_row *r)
{
    struct sim_row_names nm = {.mig = r->mig[0] ? name_of(s, &s->sym_mig, r->mig_sym, r->mig) : sim_str_none};
    rare_names(s, r, &nm);
    req_of_row(s, j, r, &nm);
    j->pools = sim_cluster_all_pools(s->cl);
    if (r->gpu_model[0]) /* names were checked when the service row was read */
        j->pools = sim_cluster_model_mask(s->cl, s->cat, r->gpu_model, NULL);
}

void sim_task_submit(sim *s, job *j)
{
    if (j->pools == 0)
        reject_why(s, j, NULL);
    else {
        if (j->req.gpus > s->gang_floor && sim_gang_spans(s->cl, j)) /* a replica wider than a node (tp x pp) */
            j->req.spans = s->spanned = true;
        space_arrive(s, j);
    }
    if (j->state == JOB_NEW)
        GS_BUG("the space policy left a task neither started, queued nor rejected");
    if (j->state == JOB_REJECTED)
        job_free(s, j);
}

void sim_task_end(sim *s, job *j)
{
    if (j->state != JOB_RUNNING || !j->internal)
        GS_BUG("sim_task_end: not a running internal task");
    drain_progress(s, j);
    job_row(s, j, "ended", NULL);
    j->state = JOB_DONE;
    space_release(s, j);
    job_free(s, j);
}

void sim_dispatch(sim *s) { space_dispatch(s); }

const sim_queue *sim_space_queue(const sim *s) { return &s->queue; }

void sim_task_end_reserved(sim *s, job *t)
{
    bool was = s->handing_over;
    job *nominee = s->nominee;
    sim_hand_over_begin(s, NULL); /* sim_admit_pools gives 0 to every request */
    sim_task_end(s, t);
    s->handing_over = was;
    s->nominee = nominee;
}

/* cost_holder for no job, or an internal task */
static __attribute__((noinline)) int cost_holder_other(sim *s, job *j)
{
    if (!j)
        return sim_cost_holder_of(&s->cost, "other", "");
    job_more *m = sim_job_more(j);
    if (m->cost_holder < 0) {
        int o = j->task_owner;
        const char *owner = o < SIM_MAX_MODS ? (o < s->nmod ? s->mod[o]->name : "?")
                                             : (o - SIM_MAX_MODS < s->npol ? s->pol[o - SIM_MAX_MODS]->name : "?");
        m->cost_holder = sim_cost_holder_of(&s->cost, "task", owner);
    }
    return m->cost_holder;
}

/* The holder job j's allocation is charged to (sim_cost.h): a trace job's
 * by its kind, inline; an internal task's is looked up once and kept in
 * its job_more. */
static inline int cost_holder(sim *s, job *j)
{
    if (j && !j->internal)
        return j->req.kind == WL_KIND_SESSION ? SIM_COST_AGENTS : SIM_COST_JOBS;
    return cost_holder_other(s, j);
}

/* sim_alloc_add_for, inline where the core places whole cards */
static inline void alloc_add(sim *s, job *j, int pool, double dv)
{
    sim_gauge_add(&s->g_alloc, s->now, dv);
    if (pool < 0 || pool >= s->cost.npools)
        GS_BUG("sim_alloc_add_for: no such pool");
    sim_cost_add(&s->cost, cost_holder(s, j), pool, s->now, dv);
}

void sim_alloc_add_for(sim *s, job *j, int pool, double dv) { alloc_add(s, j, pool, dv); }

void sim_alloc_add(sim *s, double dv) { sim_alloc_add_for(s, NULL, 0, dv); }

void sim_task_cost_holder(sim *s, job *t, const char *kind, const char *name)
{
    if (!t->internal)
        GS_BUG("sim_task_cost_holder: not an internal task");
    sim_job_more(t)->cost_holder = sim_cost_holder_of(&s->cost, kind, name);
}

/* {==== the loop ====} */

static int module_replicas(const sim *s)
{
    int n = 0;
    for (int m = 0; m < s->nmod; m++)
        if (s->mod[m]->replicas)
            n += s->mod[m]->replicas(s->mst[m]);
    return n;
}

/* The timeseries rows due before t (at t too when inclusive). */
static __attribute__((noinline)) void sample_rows(sim *s, gs_time_us t, bool inclusive)
{
    while (sim_ts_due(&s->ts, t, inclusive)) {
        sim_ts_row r = {.alloc = s->g_alloc.value,
                        .ratio = s->cl->ngpus ? s->g_alloc.value / s->cl->ngpus : 0.0,
                        .queued = s->queued,
                        .running = s->running,
                        .replicas = module_replicas(s),
                        .frag = sim_frag_gpus(s),
                        .largest_gang = sim_gang_largest(s->cl),
                        .nodes_down = s->node_jobs ? s->node_count[NODE_DOWN] : 0};
        if (__builtin_expect(s->ts_fill != NULL, 0)) {
            s->ts_fill(s->ts_fill_ud, s->ts_vals);
            r.extra = s->ts_vals;
        }
        sim_ts_add(&s->ts, &r);
    }
}

/* sample_rows, its test inline: most events fall between rows (or the run
 * writes none) */
static inline void sample_until(sim *s, gs_time_us t, bool inclusive)
{
    if (sim_ts_due(&s->ts, t, inclusive))
        sample_rows(s, t, inclusive);
}

void sim_ts_columns(sim *s, const char *header, int ncols, void (*fill)(void *ud, double *out), void *ud)
{
    if (s->ts_fill)
        GS_BUG("sim_ts_columns: one set of extra columns per run");
    sim_ts_extra(&s->ts, header, ncols);
    s->ts_fill = fill;
    s->ts_fill_ud = ud;
    s->ts_vals = xcalloc((size_t)ncols, sizeof *s->ts_vals);
}

/* gpu_model names must exist in the catalog (an input error otherwise); a
 * known model absent from this cluster just leaves the job nowhere to go.
 * The pools row r may use into *pools. */
static __attribute__((noinline)) int resolve_models_new(sim *s, const wl_row *r, uint64_t *pools);
static inline int resolve_models(sim *s, const wl_row *r, uint64_t *pools)
{
    if (!r->gpu_model[0]) {
        *pools = sim_cluster_all_pools(s->cl);
        return 0;
    }
    if (sim_symmap_get(&s->sym_pools, r->gpu_model_sym, pools))
        return 0; /* resolved on the name's first row */
    return resolve_models_new(s, r, pools);
}

/* resolve_models for a name not resolved yet (or a row with no name number) */
static int resolve_models_new(sim *s, const wl_row *r, uint64_t *pools)
{
    char *copy = xstrdup(r->gpu_model), *save = NULL;
    *pools = 0;
    for (char *tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
        const gpu_model *m = gpu_catalog_find(s->cat, tok);
        if (!m) {
            char names[2048];
            gpu_catalog_names(s->cat, names, sizeof names);
            gs_err(&s->err, GS_EINPUT, "trace '%s' line %ld, column %d ('gpu_model'): expected known GPU "
                   "models separated by '|' (%s), found '%s'", s->cfg->trace_path, r->line,
                   r->gpu_model_col, names, tok);
            free(copy);
            return GS_EINPUT;
        }
        *pools |= sim_cluster_pools_of(s->cl, m);
    }
    free(copy);
    sim_symmap_put(&s->sym_pools, r->gpu_model_sym, *pools);
    return 0;
}

/* A mig name no card of the catalog offers is an input error (a typo would
 * otherwise be a rejection under the MIG policies and ignored elsewhere).
 * Checked on the name's first row: later rows find it interned (sym_mig). */
static int check_mig(sim *s, const wl_row *r)
{
    uint64_t v;
    if (!r->mig[0] || sim_symmap_get(&s->sym_mig, r->mig_sym, &v) || gpu_catalog_has_mig_profile(s->cat, r->mig))
        return 0;
    return gs_err(&s->err, GS_EINPUT, "trace '%s' line %ld, column %d ('mig'): expected a MIG profile a card of the "
                  "catalog offers, such as '1g.10gb' (gpusim models), found '%s'", s->cfg->trace_path, r->line,
                  r->mig_col, r->mig);
}

/* mig_of for a name not kept yet: checked, then interned and kept; NULL
 * after the input error. */
static __attribute__((noinline)) const char *mig_new(sim *s, const wl_row *r)
{
    if (check_mig(s, r) != 0)
        return NULL;
    const char *p = sim_str_intern(&s->strs, r->mig);
    sim_symmap_put(&s->sym_mig, r->mig_sym, (uint64_t)(uintptr_t)p);
    return p;
}

/* Row r's mig name checked (check_mig) and interned: one lookup for a name
 * kept on an earlier row. NULL after the input error. */
static inline const char *mig_of(sim *s, const wl_row *r)
{
    uint64_t v;
    if (!r->mig[0])
        return sim_str_none;
    if (sim_symmap_get(&s->sym_mig, r->mig_sym, &v))
        return (const char *)(uintptr_t)v;
    return mig_new(s, r);
}

/* j was not admitted: none of its models is in the cluster (asked: its
 * pools before admission), or its tenant's quota never admits it. */
static __attribute__((noinline)) void reject_unadmitted(sim *s, job *j, uint64_t asked)
{
    char why[160];
    if (asked)
        snprintf(why, sizeof why, "over the quota of tenant '%.60s' even with nothing running", j->req.tenant);
    if (s->admit_why) /* a module said why (sim_module.admit) */
        reject_why(s, j, s->admit_why);
    else
        reject_why(s, j, asked ? why : "none of the GPU models it may use is in the cluster");
    s->admit_why = NULL;
}

/* The first job of a second size class: the one so far takes its own
 * copies of the run's queue and completion sketches (sim.size_only). */
static void size_split(sim *s, int c)
{
    if (s->size_only < 0) {
        s->size_only = c;
        return;
    }
    if (s->size_only < SIM_SIZE_CLASSES) {
        sim_sketch_copy(&s->size_queue_s[s->size_only], &s->queue_s);
        sim_sketch_copy(&s->size_jct_s[s->size_only], &s->jct_s);
        s->size_only = SIM_SIZE_CLASSES;
    }
}

static inline void size_arrive(sim *s, int c)
{
    if (s->size_only != c)
        size_split(s, c);
    s->size_arrived[c]++;
}

/* The first arrival without an observed start, j, ends the observed
 * figures' sharing of the run's queue sketch: every job in flight that has
 * not started arrived with one, and is marked (sim_observed_unshare). */
static __attribute__((noinline, cold)) void observed_unshare(sim *s, const job *j)
{
    sim_observed_unshare(&s->observed);
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        const job *w = sim_slot_job(s, slot);
        if (w != j && w->state < JOB_DONE && !w->started && !w->internal)
            sim_observed_mark(&s->observed, slot);
    }
}

/* sim_class_arrived_new, out of line: the name's first job (or no class) */
static __attribute__((noinline)) int class_new(sim *s, job *j, const wl_row *row)
{
    return sim_class_arrived_new(&s->classes, &s->strs, j, row, s->cfg->trace_path, &s->err);
}

/* An arrival's class and observed queue (sim.row_extras), before it may
 * start. 0, or GS_EINPUT in the run's error (a class too many). Inline,
 * as started_extras. */
static inline int arrived_extras(sim *s, job *j, const wl_row *row)
{
    if (s->classes.on && !sim_class_arrived(&s->classes, j, row) && class_new(s, j, row) != 0)
        return GS_EINPUT;
    if (row->observed_start_us >= 0) /* the reader checks it is not before submit */
        sim_observed_arrived_at(&s->observed, j->slot, gs_us_to_s(row->observed_start_us - row->submit_us));
    else {
        if (s->observed.shared)
            observed_unshare(s, j);
        sim_observed_arrived(&s->observed, j->slot, -1);
    }
    return 0;
}

/* sim_gang_spans, for a request past the least pool's largest node or
 * with gpus_per_node: a part smaller than the request spans; otherwise
 * only more GPUs than any of its pools' nodes has, never at most the least
 * of every pool's largest node (most rows that give the column). */
static inline bool spans_nodes(const sim *s, const job *j)
{
    int g = j->req.gpus_per_node, n = j->req.gpus;
    if (g > 0 && g < n)
        return true;
    return n > s->gpn_floor && sim_gang_spans(s->cl, j);
}

/* Row r's names resolved into s->names: mig checked and interned, the
 * pools gpu_model allows, ref_gpu and speedup interned. kept: r is the
 * reader's (a name number for every name it gives): its numbers become
 * the key a later row is matched on; else no row matches. 0, or -1 after
 * an input error (mig, gpu_model). */
static __attribute__((noinline)) int names_new(sim *s, const wl_row *r, bool kept)
{
    memset(s->names_key, 0xff, sizeof s->names_key); /* no match while unresolved */
    struct sim_row_names *nm = &s->names;
    if (!(nm->mig = mig_of(s, r)) || resolve_models(s, r, &nm->pools) != 0)
        return -1;
    rare_names(s, r, nm);
    if (kept)
        memcpy(s->names_key, &r->mig_sym, sizeof s->names_key);
    return 0;
}

_Static_assert(offsetof(wl_row, gpu_model_sym) == offsetof(wl_row, mig_sym) + 4 &&
                   offsetof(wl_row, ref_gpu_sym) == offsetof(wl_row, mig_sym) + 8 &&
                   offsetof(wl_row, speedup_sym) == offsetof(wl_row, mig_sym) + 12,
               "row_names reads the four name numbers as one key");

/* Row r's names (names_new): a reader row naming the same mig, gpu_model,
 * ref_gpu and speedup as the last one resolved -- most rows of a trace,
 * whose four columns are one text or none -- takes its answers, without
 * a lookup. NULL after an input error. The key is unset at the start (no
 * name number is all ones: the reader counts names from 1). */
static inline const struct sim_row_names *row_names(sim *s, const wl_row *r, bool from_reader)
{
    if (from_reader && memcmp(&r->mig_sym, s->names_key, sizeof s->names_key) == 0)
        return &s->names;
    return names_new(s, r, from_reader) == 0 ? &s->names : NULL;
}

/* sim_submit_row; from_reader: row is the trace reader's (row_names) */
static inline __attribute__((always_inline)) int submit_row(sim *s, const wl_row *row, bool from_reader)
{
    const struct sim_row_names *nm = row_names(s, row, from_reader);
    if (!nm)
        return -1;
    job *j = job_new(s);
    req_of_row(s, j, row, nm);
    j->arrival_no = s->arrived++;
    j->work_left_us = (double)j->req.dur_us;
    j->pools = nm->pools;
    if (__builtin_expect(s->row_extras, 0) && arrived_extras(s, j, row) != 0) {
        s->arrived--;
        job_free(s, j);
        return -1;
    }
    s->arriving = row; /* a module's input error on admission names its line and column */
    uint64_t asked = j->pools; /* before a quota narrows them */
    bool admitted = j->pools != 0 && modules_admit(s, j);
    s->arriving = NULL;
    size_arrive(s, sim_size_class(j->req.gpus));
    if (!admitted) { /* no allowed model, or over its tenant's quota for good */
        if (s->err.code) { /* a bad value a module found (an unknown ref_gpu) */
            s->arrived--;
            s->size_arrived[sim_size_class(j->req.gpus)]--;
            job_free(s, j);
            return -1;
        }
        reject_unadmitted(s, j, asked);
    } else {
        if (__builtin_expect(j->req.gpus > s->gang_floor || j->req.gpus_per_node, 0) && spans_nodes(s, j))
            j->req.spans = s->spanned = true;
        space_arrive(s, j);
    }
    int state = j->state;
    if (state == JOB_NEW)
        GS_BUG("the space policy left the job neither started, queued nor rejected");
    notify_time(s, j, POL_JOB_ARRIVED);
    state = j->state;
    if (state == JOB_REJECTED)
        job_free(s, j);
    else
        EACH_MODULE(s, arrived, s, j); /* a request left queued may preempt */
    return state;
}

int sim_submit_row(sim *s, const wl_row *row) { return submit_row(s, row, false); }

/* a row that is not a job (a burst of a session) goes to the time
 * policies; without one it is only counted. */
static int on_side_row(sim *s)
{
    s->bursts++;
    for (int p = 1; p < s->npol; p++)
        if (s->pol[p]->time && s->pol[p]->time->row)
            s->pol[p]->time->row(s->pst[p], s, s->next_row);
    int rc = read_next(s);
    if (rc == 0)
        schedule_arrival(s);
    return rc;
}

static int on_arrival(sim *s)
{
    if (s->next_row->kind == WL_KIND_BURST)
        return on_side_row(s);
    for (int m = 0; m < s->nmod && (s->row_kinds & (1u << s->next_row->kind)); m++) {
        if (!(s->mod[m]->row_kinds & (1u << s->next_row->kind)))
            continue;
        /* services and requests go to the service layer */
        int rc = s->next_row->kind == WL_KIND_SERVICE ? check_mig(s, s->next_row) : 0;
        if (rc == 0 && s->next_row->kind == WL_KIND_SERVICE && s->next_row->gpu_model[0]) {
            uint64_t pools; /* check the model names first, with the row's line and column */
            rc = resolve_models(s, s->next_row, &pools);
        }
        if (rc == 0) {
            s->module_rows++;
            rc = s->mod[m]->row(s->mst[m], s, s->next_row);
        }
        if (rc == 0)
            rc = read_next(s);
        if (rc == 0)
            schedule_arrival(s);
        return rc;
    }
    if (submit_row(s, s->next_row, true) < 0)
        return GS_EINPUT;
    int rc = read_next(s);
    if (rc == 0)
        schedule_arrival(s);
    return rc;
}

static void on_done(sim *s, job *j)
{
    j->work_left_us = 0;
    j->state = JOB_DONE;
    s->running--;
    sim_gauge_set(&s->g_running, s->now, (double)s->running);
    s->completed++;
    sim_cost_done(&s->cost, cost_holder(s, j));
    sim_sketch_add(&s->jct_s, gs_us_to_s(s->now - j->req.submit_us));
    if (s->size_only == SIM_SIZE_CLASSES)
        sim_sketch_count(&s->size_jct_s[sim_size_class(j->req.gpus)], s->jct_s.last_x, s->jct_s.last_bucket);
    if (__builtin_expect(s->row_extras, 0))
        done_extras(s, j);
    if (j->req.dur_us > 0) /* how much longer than alone at full speed: 1 on whole cards */
        sim_sketch_add(&s->slowdown, (double)(s->now - j->start_us) / (double)j->req.dur_us);
    job_row(s, j, "completed", NULL); /* while the job still holds its placement */
    if (s->obs && s->obs->job_done)
        s->obs->job_done(s->obs->job_done_ud, j);
    EACH_MODULE(s, stopped, s, j);
    space_release(s, j);
    notify_time(s, j, POL_JOB_ENDING);
    job_free(s, j);
}

/* Starts loading the job slot of the event after this one while this one
 * is handled: with tens of thousands of jobs in flight a slot read only at
 * its completion would be waited for. A slab of one chunk (184 KiB) stays
 * in the caches, and the loads would only cost their instructions then; a
 * module's events are handed to it whatever the slab. */
#define PREFETCH_SLOTS JOB_CHUNK
static inline int event_module(const sim_event *e)
{
    return e ? (e->type >= EV_MODULE_WEAK ? (int)(e->type - EV_MODULE_WEAK) : (int)e->type - EV_MODULE) : -1;
}

static inline void prefetch_next(const sim *s)
{
    /* the array's first, even when the trace's next arrival (beside the
     * array) comes before it: the arrival's handling then hides the load */
    if (!s->heap.n)
        return;
    const sim_event *nx = &s->heap.ev[0];
    if (nx->type >= EV_MODULE) { /* a module's event: its subject is the module's */
        int mi = event_module(nx);
        if (s->mod[mi]->prefetch)
            s->mod[mi]->prefetch(s->mst[mi], nx->slot, nx->aux, 0);
        return;
    }
    if (s->nslots > PREFETCH_SLOTS && nx->slot != NO_SLOT && nx->slot < s->nslots) {
        const char *p = (const char *)sim_slot_job(s, nx->slot);
        for (size_t off = 0; off < sizeof(job); off += 64)
            __builtin_prefetch(p + off);
    }
}

/* A module's next event, once the current one is handled: what its
 * subject's record points to (sim_module.prefetch, stage 1). */
static inline void prefetch_next_deep(const sim *s)
{
    const sim_event *nx = s->heap.n ? &s->heap.ev[0] : NULL;
    int mi = event_module(nx);
    if (mi >= 0 && s->mod[mi]->prefetch)
        s->mod[mi]->prefetch(s->mst[mi], nx->slot, nx->aux, 1);
}

int sim_run(sim *s)
{
    sim_event ev;
    gs_time_us until = s->cfg->until_us > 0 ? s->cfg->until_us : GS_TIME_MAX;
    bool stopped = false;
    /* weak timers alone keep the run going only while work is queued or running */
    while (sim_heap_len(&s->heap) > s->weak_pending ||
           (sim_heap_len(&s->heap) > 0 && (s->queued > 0 || s->running > 0))) {
        if (sim_heap_peek(&s->heap)->t_us > until) {
            stopped = true;
            break;
        }
        sim_heap_pop(&s->heap, &ev);
        prefetch_next(s);
        if (ev.type == EV_TIMER_WEAK)
            s->weak_pending--;
        int mi = ev.type >= EV_MODULE_WEAK ? (int)(ev.type - EV_MODULE_WEAK) : (int)ev.type - EV_MODULE;
        if (ev.type >= EV_MODULE_WEAK)
            s->weak_pending--;
        const sim_module *mod = mi >= 0 ? s->mod[mi] : NULL;
        if (mod && mod->event_live && !mod->event_live(s->mst[mi], s, ev.slot, ev.gen, ev.aux))
            continue;
        if (ev.type != EV_ARRIVAL && !mod) {
            job *j = ev.slot == NO_SLOT ? NULL : sim_slot_job(s, ev.slot);
            if (j && j->gen != ev.gen)
                continue; /* the job ended: stale event */
            if (ev.type == EV_DONE && ev.aux != j->done_tok)
                continue; /* rate changed since: stale completion */
        }
        sample_until(s, ev.t_us, false);
        s->now = ev.t_us;
        s->events++;
        if (s->progress && (s->events & (SIM_PROGRESS_EVENTS - 1)) == 0)
            s->progress(s->progress_ud, s);
        if (ev.type == EV_ARRIVAL) {
            if (on_arrival(s) != 0)
                return s->err.code;
        } else if (ev.type == EV_DONE) {
            on_done(s, sim_slot_job(s, ev.slot));
        } else if (mod) {
            mod->event(s->mst[mi], s, ev.slot, ev.gen, ev.aux);
            if (s->err.code)
                return s->err.code;
            prefetch_next_deep(s);
        } else {
            int p = (int)(ev.aux >> 24);
            if (s->pol[p]->timer)
                s->pol[p]->timer(s->pst[p], s, ev.slot == NO_SLOT ? NULL : sim_slot_job(s, ev.slot),
                                 ev.aux & 0xffffffu);
        }
        if (s->err.code) /* an input error found inside the run (a time past the clock) */
            return s->err.code;
    }
    if (stopped) {
        s->now = until;
        /* account for the rows the run never reached (validated all the same) */
        while (s->have_next) {
            s->not_arrived++;
            if (read_next(s) != 0)
                return s->err.code;
        }
    }
    sample_until(s, s->now, true);
    s->ts.gang = s->spanned; /* the column only where a job across nodes ran */
    s->ts.nodes = s->node_jobs != NULL;
    if (sim_ts_write(&s->ts) != 0)
        return gs_err(&s->err, GS_EWRITE, "cannot write the timeseries");
    if (s->job_rows_end && s->job_rows_end(s->job_rows_ud, s) != 0)
        return gs_err(&s->err, GS_EWRITE, "cannot write the jobs CSV");
    /* close the gauges at the end time */
    sim_gauge_add(&s->g_alloc, s->now, 0);
    sim_gauge_add(&s->g_queued, s->now, 0);
    sim_gauge_add(&s->g_running, s->now, 0);
    sim_gauge_add(&s->g_out, s->now, 0);
    if (s->arrived != s->completed + s->running + s->queued + s->rejected + s->suspended + s->failed)
        GS_BUG("job accounting does not add up");
    return 0;
}

void sim_observe(sim *s, const sim_observer *o)
{
    free(s->obs);
    s->obs = NULL;
    if (o) {
        s->obs = xmalloc(sizeof *s->obs);
        *s->obs = *o;
    }
}

void sim_warn(sim *s, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (int i = 0; i < s->nwarnings; i++)
        if (!strcmp(s->warnings[i], buf))
            return;
    if (s->nwarnings == 16)
        return;
    s->warnings = xrealloc(s->warnings, (size_t)(s->nwarnings + 1) * sizeof *s->warnings);
    s->warnings[s->nwarnings++] = xstrdup(buf);
}

void sim_free(sim *s)
{
    sim_observe(s, NULL);
    for (int i = 0; i < s->nwarnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    s->warnings = NULL;
    s->nwarnings = 0;
    for (int p = 0; p < s->npol; p++)
        if (s->pst[p])
            s->pol[p]->fini(s->pst[p]);
    for (uint32_t c = 0; c < s->nchunks; c++) {
        for (uint32_t i = 0; i < JOB_CHUNK; i++) {
            job *j = &s->chunks[c][i];
            sim_job_drop_gpus(j);
            free(j->more);
        }
    }
    for (uint32_t c = 0; c < s->nchunks; c += JOB_CHUNKS_PER_BLOCK)
        free(s->chunks[c]); /* a block's first chunk: the allocation */
    free(s->chunks);
    sim_heap_free(&s->heap);
    sim_queue_free(&s->queue);
    sim_bf_free(s->bf);
    s->bf = NULL;
    sim_ts_free(&s->ts);
    free(s->ts_vals);
    sim_sketch_free(&s->queue_s);
    sim_sketch_free(&s->jct_s);
    sim_sketch_free(&s->slowdown);
    sim_cost_free(&s->cost);
    for (int c = 0; c < SIM_SIZE_CLASSES; c++) {
        sim_sketch_free(&s->size_queue_s[c]);
        sim_sketch_free(&s->size_jct_s[c]);
    }
    sim_rejects_free(&s->rejects);
    sim_classes_free(&s->classes);
    sim_observed_free(&s->observed);
    free(s->node_jobs);
    s->node_jobs = NULL;
    for (int m = s->nmod; m-- > 0;)
        if (s->mst[m] && s->mod[m]->fini)
            s->mod[m]->fini(s->mst[m]);
    memset(s->mst, 0, sizeof s->mst);
    wl_trace_close(s->tr);
    s->tr = NULL;
    s->next_row = NULL;
    sim_strtab_free(&s->strs); /* after the slots: their ids live here */
    while (s->more_kept) {
        job_more *next = s->more_kept->kept_next;
        free(s->more_kept);
        s->more_kept = next;
    }
    sim_symmap_free(&s->sym_pools);
    sim_symmap_free(&s->sym_tenant);
    sim_symmap_free(&s->sym_mig);
    sim_symmap_free(&s->sym_ref_gpu);
    sim_symmap_free(&s->sym_speedup);
}
