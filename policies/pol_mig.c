/* pol_mig.c - static MIG partitions (NVIDIA device plugin, mixed strategy).
 *
 * Each MIG-enabled card carries the layout of its node group in the cluster
 * file (see workloads/README.md), configured before the run. A request takes
 * an idle instance of its profile; a memory request maps, per card, to the
 * smallest profile the card's layout offers that holds it, and waits for an
 * instance of that profile even while instances of other profiles are idle.
 *
 * Layout schedules switch a group's cards by time of day. When a switch is
 * due a card takes no new work (draining); once its last job has left, its
 * instances are destroyed and the new layout applied, which takes reconfig_s
 * (reference/mechanics.md section 3: the mig-manager relabel cycle, 120 s, marked
 * unverified there). Drain and reconfiguration time are reported.
 *
 * Cost: a placement walks the index of cards with an idle instance of the
 * profile the request maps to (mig_index.h), not every card; the one global
 * view is a layout switch, which visits every MIG card once (O(MIG cards) per
 * switch, a few switches a day).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "mig_common.h"

enum { TAG_SWITCH = 1, TAG_RECONF = 2 };
#define TAG(kind, id) ((uint32_t)(kind) << 20 | (uint32_t)(id))
#define DAY_US (24LL * 3600 * GS_US_PER_S)

typedef struct static_state {
    mig_base b;
    gs_time_us reconfig_us;
    double drain_s, reconfig_s;
    uint64_t switches, reconfigs;
} static_state;

static const pol_param params[] = {
    {"reconfig_s", "120",
     "time to apply a new layout on a drained card (reference/mechanics.md 3: mig-manager relabel cycle, 120 s [U])", P_DURATION(0, 1e9)},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

/* The slot of an idle instance of profile p on g, or -1. */
static int idle_instance(const mig_gpu *g, int p)
{
    for (int q = 0; q < MIG_MAX_SLICES; q++)
        if (g->inst[q].state == MI_IDLE && g->inst[q].prof == p)
            return q;
    return -1;
}

static bool layout_has(const mig_layout_spec *l, int p)
{
    for (int k = 0; k < l->n; k++)
        if (l->prof[k] == p)
            return true;
    return false;
}

/* The profile the request maps to on a card with layout l: the first
 * candidate (smallest that holds it) the layout offers; -1 if none. */
static int mapped_in(const int *cand, int n, const mig_layout_spec *l)
{
    for (int i = 0; i < n; i++)
        if (layout_has(l, cand[i]))
            return cand[i];
    return -1;
}

static int mapped_profile(const gpu_model *m, const mig_layout_spec *l, const job *j)
{
    int cand[MIG_MAX_PROFILES];
    char kind;
    return mapped_in(cand, mig_candidates(m, &j->req, cand, &kind), l);
}

/* As mapped_profile, with the candidates resolved once per job (per card
 * they would be resolved again: profile names compared per card). */
static int mapped_cached(mig_base *b, const mig_gpu *g, const job *j)
{
    const int *cand;
    int n = mig_candidates_of(b, b->groups[g->ix.group].model, j, &cand);
    return mapped_in(cand, n, &b->groups[g->ix.group].layout[g->layout_cur]);
}

static bool st_pick(mig_base *b, mig_gpu *g, job *j, mig_pick *pk)
{
    if (g->draining || g->reconfiguring)
        return false; /* a switch is due: no new work */
    int p = mapped_cached(b, g, j);
    int slot = p >= 0 ? idle_instance(g, p) : -1;
    if (slot < 0)
        return false;
    *pk = (mig_pick){p, slot};
    return true;
}

static void st_commit(mig_base *b, mig_gpu *g, job *j, const mig_pick *pk) { mig_inst_hold(b, g, pk->start, j); }

static void st_placed(mig_base *b, job *j) { sim_job_start(b->s, j, 1.0); }

static bool st_ever(const mig_base *b, const mig_group *gr, const job *j)
{
    (void)b;
    for (int e = 0; e < gr->nsched; e++)
        if (mapped_profile(gr->model, &gr->layout[e], j) >= 0)
            return true;
    return false;
}

/* On a card serving layout entry e, j takes an idle instance of the profile
 * it maps to there. */
static int st_wanted(mig_base *b, const mig_group *gr, int e, const job *j, int *out)
{
    const int *cand;
    int n = mig_candidates_of(b, gr->model, j, &cand);
    int p = mapped_in(cand, n, &gr->layout[e]);
    if (p < 0)
        return 0;
    out[0] = p;
    return 1;
}

/* Counts a request that waits while a card it may use, whose layout offers
 * the profile it maps to there, has an idle instance of another profile
 * (once per request): over the index's counts of in-service cards with an
 * idle instance per (group, layout entry, profile).
 * Cost: O(groups x schedule entries x profiles of the layout). */
static void st_blocked(mig_base *b, job *j)
{
    mig_jobinfo *in = mig_info(b, j);
    if (in->other_idle)
        return;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(j->pools >> gr->pool & 1))
            continue;
        for (int e = 0; e < gr->nsched; e++) {
            int p;
            if (!st_wanted(b, gr, e, j, &p))
                continue; /* these cards offer nothing that holds the request */
            for (int q = 0; q < gr->model->mig->nprofiles; q++)
                if (q != p && mig_index_count(&b->idx, gi, e, q) > 0) {
                    in->other_idle = true;
                    b->other_idle_waits++;
                    mig_set_pending(b, in, j, false);
                    return;
                }
        }
    }
}

/* The index's view of a card: in service with its schedule entry, its idle
 * profiles, and the largest of them (memory slices) for the queue's room. */
static void st_avail(const mig_base *b, const mig_gpu *g, int *entry, uint16_t *avail, uint16_t *aux, int *room)
{
    (void)b;
    *entry = g->draining || g->reconfiguring ? -1 : g->layout_cur;
    *avail = *aux = 0;
    *room = 0;
    if (*entry < 0)
        return;
    for (int q = 0; q < MIG_MAX_SLICES; q++)
        if (g->inst[q].state == MI_IDLE) {
            *avail |= (uint16_t)(1u << g->inst[q].prof);
            if (g->lay.t->profiles[g->inst[q].prof].size > *room)
                *room = g->lay.t->profiles[g->inst[q].prof].size;
        }
}

/* What st_blocked looks at for j: the in-service cards of each (group,
 * entry) that maps j to p, with an idle instance of another profile q of
 * that layout. */
static int st_watch(mig_base *b, const job *j)
{
    int n = 0;
    for (int gi = 0; gi < b->ngroups; gi++) {
        const mig_group *gr = &b->groups[gi];
        if (!gr->mig || !(j->pools >> gr->pool & 1))
            continue;
        for (int e = 0; e < gr->nsched; e++) {
            int p;
            if (!st_wanted(b, gr, e, j, &p))
                continue;
            uint32_t seen = 0;
            for (int k = 0; k < gr->layout[e].n; k++) {
                int q = gr->layout[e].prof[k];
                if (q != p && !(seen >> q & 1)) {
                    seen |= 1u << q;
                    n = mig_keys_add(b, n, gi, e, q);
                }
            }
        }
    }
    return n;
}

static void apply_layout(static_state *st, mig_gpu *g, int entry, bool count)
{
    const mig_layout_spec *l = &st->b.groups[g->ix.group].layout[entry];
    for (int k = 0; k < l->n; k++)
        mig_inst_create(&st->b, g, l->prof[k], l->start[k], MI_IDLE);
    if (count)
        st->b.creations += (uint64_t)l->n;
    g->layout_cur = entry;
    mig_card_changed(&st->b, g);
}

/* A drained card: destroy its instances and apply the wanted layout after
 * reconfig_s. */
static void begin_reconfig(static_state *st, mig_gpu *g)
{
    sim *s = st->b.s;
    st->drain_s += gs_us_to_s(sim_now(s) - mig_cold(&st->b, g)->drain_since_us);
    for (int q = 0; q < MIG_MAX_SLICES; q++)
        if (g->inst[q].state != MI_NONE) {
            mig_inst_destroy(&st->b, g, q);
            st->b.destructions++;
        }
    g->reconfiguring = true;
    g->layout_cur = -1;
    mig_card_changed(&st->b, g);
    sim_timer_weak(s, st->b.pol_index, sim_now(s) + st->reconfig_us, TAG(TAG_RECONF, g - st->b.gpus));
}

static void st_unplaced(mig_base *b, mig_gpu *g, int slot)
{
    (void)slot;
    if (g->draining && !g->reconfiguring && g->nheld == 0)
        begin_reconfig(b->owner, g);
}

static const mig_hooks hooks = {
    .pick = st_pick,
    .commit = st_commit,
    .placed = st_placed,
    .ever = st_ever,
    .blocked = st_blocked,
    .unplaced = st_unplaced,
    .avail = st_avail,
    .wanted = st_wanted,
    .watch = st_watch,
    .frees_slices = false,
};

/* The next switch of gr strictly after now, or -1 when it has one layout. */
static gs_time_us next_switch(const mig_group *gr, gs_time_us now)
{
    if (gr->nsched < 2)
        return -1;
    gs_time_us day0 = now - now % DAY_US;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < gr->nsched; k++)
            if (day0 + d * DAY_US + gr->at_us[k] > now)
                return day0 + d * DAY_US + gr->at_us[k];
    return -1;
}

static int st_init(sim *s, int index, void **state, gs_error *err)
{
    static_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->reconfig_us = sim_param_us(s, "reconfig_s"); /* typed and range-checked by the core */
    int rc = mig_base_init(&st->b, s, index, &hooks, st, err);
    if (rc)
        return rc;
    if (st->b.ngpus >= (1 << 20))
        return gs_err(err, GS_EINPUT, "cluster '%s': mig supports fewer than 2^20 MIG cards", sim_cluster_of(s)->path);
    for (int gi = 0; gi < st->b.ngroups; gi++) /* "dynamic" leaves the cards empty: only dynmig fills them */
        for (int k = 0; st->b.groups[gi].mig && k < st->b.groups[gi].nsched; k++)
            if (st->b.groups[gi].layout[k].n == 0)
                return gs_err(err, GS_EUSAGE,
                              "cluster '%s': nodes[%d].mig: layout 'dynamic' (no instances) is for --policy dynmig; "
                              "give mig a layout such as all-1g.10gb or balanced",
                              sim_cluster_of(s)->name, gi);
    for (int i = 0; i < st->b.ngpus; i++) { /* configured before the run: not counted as creations */
        mig_gpu *g = &st->b.gpus[i];
        apply_layout(st, g, mig_sched_entry(&st->b.groups[g->ix.group], 0), false);
        mig_cold(&st->b, g)->layout_want = g->layout_cur;
    }
    for (int gi = 0; gi < st->b.ngroups; gi++) {
        gs_time_us t = st->b.groups[gi].mig ? next_switch(&st->b.groups[gi], 0) : -1;
        if (t >= 0) /* weak: switches alone do not keep the run going */
            sim_timer_weak(s, st->b.pol_index, t, TAG(TAG_SWITCH, gi));
    }
    return 0;
}

static void st_fini(void *state)
{
    static_state *st = state;
    if (!st)
        return;
    mig_base_free(&st->b);
    free(st);
}

/* The memory slices layout l occupies on card g. */
static double layout_slices(const mig_gpu *g, const mig_layout_spec *l)
{
    double n = 0;
    for (int k = 0; k < l->n; k++)
        n += g->lay.t->profiles[l->prof[k]].size;
    return n;
}

/* The index of the schedule point at time of day of t (a switch time). */
static int k0_of(const mig_group *gr, gs_time_us t)
{
    for (int k = 0; k < gr->nsched; k++)
        if (gr->at_us[k] == t % DAY_US)
            return k;
    return 0;
}

/* Whether every card of group gi is in service with nothing on it, and
 * each switch of its schedule ends before the next begins (reconfig_s
 * shorter than every gap): then a day of switches changes nothing but
 * the counters, the same way every day. */
static bool group_quiet(const static_state *st, int gi)
{
    const mig_group *gr = &st->b.groups[gi];
    for (int k = 0; k < gr->nsched; k++) {
        gs_time_us gap = (k + 1 < gr->nsched ? gr->at_us[k + 1] : gr->at_us[0] + DAY_US) - gr->at_us[k];
        if (gap <= st->reconfig_us)
            return false;
    }
    for (int i = 0; i < st->b.ngpus; i++) {
        const mig_gpu *g = &st->b.gpus[i];
        if (g->ix.group == gi && (g->draining || g->reconfiguring || g->nheld))
            return false;
    }
    return true;
}

/* A far arrival after an idle stretch (a valid submit time years out)
 * would have the schedule step through every switch of every day up to
 * it. When nothing runs or waits and the next event other than a layout
 * timer is more than two days away, the whole days between are jumped: a
 * day's switches on idle cards add the same counts every day (each card
 * whose wanted layout changes is switched, drained at once, destroyed and
 * rebuilt after reconfig_s), so days x one day's counts are added, the
 * events they would have been counted, and the switch due now moves to the
 * same time of day before that event, the cards in the layout they would
 * be in. O(schedule x MIG cards) per jump instead of per day. */
static bool try_jump(static_state *st, int gi)
{
    sim *s = st->b.s;
    const mig_group *gr = &st->b.groups[gi];
    gs_time_us now = sim_now(s), next = sim_next_strong_us(s);
    if (!sim_idle(s) || next == GS_TIME_MAX || next - now < 3 * DAY_US || !group_quiet(st, gi))
        return false;
    int64_t days = (next - now) / DAY_US - 1;
    uint64_t sw = 0, cr = 0, de = 0, ev = (uint64_t)gr->nsched; /* one day's; each switch of the group is an event */
    double area = 0; /* a day's memory-occupied slice-seconds when stepped, less the same day at the layout of now */
    int k0 = k0_of(gr, now);
    for (int i = 0; i < st->b.ngpus; i++) {
        const mig_gpu *g = &st->b.gpus[i];
        if (g->ix.group != gi)
            continue;
        int cur = g->layout_cur, start = cur;
        for (int k = 0; k < gr->nsched; k++) { /* the day's switches from now on, in order */
            gs_time_us off = (gr->at_us[(k0 + k) % gr->nsched] - gr->at_us[k0] + DAY_US) % DAY_US;
            gs_time_us end = k + 1 < gr->nsched
                                 ? (gr->at_us[(k0 + k + 1) % gr->nsched] - gr->at_us[k0] + DAY_US) % DAY_US
                                 : DAY_US;
            int want = mig_sched_entry(gr, now + off);
            gs_time_us empty = want == cur ? 0 : st->reconfig_us; /* destroyed, then rebuilt after reconfig_s */
            area += layout_slices(g, &gr->layout[want]) * gs_us_to_s(end - off - empty);
            if (want == cur)
                continue;
            sw++, ev++; /* and its reconfiguration's own event */
            de += (uint64_t)gr->layout[cur].n;
            cr += (uint64_t)gr->layout[want].n;
            cur = want;
        }
        area -= layout_slices(g, &gr->layout[start]) * gs_us_to_s(DAY_US);
    }
    st->b.mem_occupied.area += area * (double)days;
    st->switches += sw * (uint64_t)days;
    st->reconfigs += sw * (uint64_t)days;
    st->reconfig_s += (double)(sw * (uint64_t)days) * gs_us_to_s(st->reconfig_us);
    st->b.creations += cr * (uint64_t)days;
    st->b.destructions += de * (uint64_t)days;
    sim_count_skipped_events(s, ev * (uint64_t)days - 1); /* the switch due now is counted when it comes again */
    sim_timer_weak(s, st->b.pol_index, now + days * DAY_US, TAG(TAG_SWITCH, gi));
    return true;
}

/* A group's switch time: its cards start draining toward the entry now in
 * force. O(MIG cards) per switch. */
static void on_switch(static_state *st, int gi)
{
    sim *s = st->b.s;
    const mig_group *gr = &st->b.groups[gi];
    if (try_jump(st, gi))
        return;
    int want = mig_sched_entry(gr, sim_now(s));
    for (int i = 0; i < st->b.ngpus; i++) {
        mig_gpu *g = &st->b.gpus[i];
        if (g->ix.group != gi)
            continue;
        mig_cold(&st->b, g)->layout_want = want;
        if (g->reconfiguring)
            continue; /* applies the latest wanted layout when done */
        if (want == g->layout_cur) {
            if (g->draining) { /* switched back before it drained */
                st->drain_s += gs_us_to_s(sim_now(s) - mig_cold(&st->b, g)->drain_since_us);
                g->draining = false;
                mig_card_changed(&st->b, g);
            }
            continue;
        }
        st->switches++;
        if (!g->draining) {
            g->draining = true;
            mig_cold(&st->b, g)->drain_since_us = sim_now(s);
            mig_card_changed(&st->b, g);
        }
        if (g->nheld == 0)
            begin_reconfig(st, g);
    }
    /* the next switch; weak, so the run still ends when the trace is drained
     * and no work is left */
    gs_time_us t = next_switch(gr, sim_now(s));
    if (t >= 0)
        sim_timer_weak(s, st->b.pol_index, t, TAG(TAG_SWITCH, gi));
    sim_dispatch(s); /* cards back in service */
}

static void st_timer(void *state, sim *s, job *j, uint32_t tag)
{
    (void)j;
    static_state *st = state;
    uint32_t kind = tag >> 20, id = tag & 0xfffffu;
    if (kind == TAG_SWITCH) {
        on_switch(st, (int)id);
    } else if (kind == TAG_RECONF) {
        mig_gpu *g = &st->b.gpus[id];
        apply_layout(st, g, mig_cold(&st->b, g)->layout_want, true);
        g->reconfiguring = g->draining = false;
        mig_card_changed(&st->b, g);
        st->reconfig_s += gs_us_to_s(st->reconfig_us);
        st->reconfigs++;
        (void)s;
        sim_dispatch(s);
    }
}

static void st_report(const void *state, const sim *s, cJSON *root)
{
    const static_state *st = state;
    cJSON *pol = cJSON_GetObjectItemCaseSensitive(root, "policy");
    mig_base_report(&st->b, pol);
    double drain_s = st->drain_s;
    for (int i = 0; i < st->b.ngpus; i++) /* still draining at the end */
        if (st->b.gpus[i].draining && !st->b.gpus[i].reconfiguring)
            drain_s += gs_us_to_s(sim_now(s) - mig_cold(&st->b, &st->b.gpus[i])->drain_since_us);
    cJSON *r = cJSON_AddObjectToObject(pol, "layout_switches");
    cJSON_AddNumberToObject(r, "card_switches", (double)st->switches);
    cJSON_AddNumberToObject(r, "reconfigurations", (double)st->reconfigs);
    cJSON_AddNumberToObject(r, "drain_card_s", drain_s);
    cJSON_AddNumberToObject(r, "reconfig_card_s", st->reconfig_s);
}

/* the questions the core's queue asks (mig_common.c) */
static void st_reject_reason(const void *state, const sim *s, const job *j, char *why, size_t cap)
{
    (void)s;
    mig_base_reject_reason(&((const static_state *)state)->b, j, why, cap);
}

static bool st_can_ever_fit(void *state, const sim *s, const job *j)
{
    (void)s;
    return mig_base_can_ever_fit(&((static_state *)state)->b, j);
}

static bool st_place(void *state, sim *s, job *j)
{
    (void)s;
    return mig_base_place(&((static_state *)state)->b, j);
}

static void st_unplace(void *state, sim *s, job *j)
{
    (void)s;
    mig_base_unplace(&((static_state *)state)->b, j);
}

static void st_nominee_missed(void *state, sim *s, job *n)
{
    (void)s;
    mig_base_nominee_missed(&((static_state *)state)->b, n);
}

static job *st_dispatch_held(void *state, sim *s)
{
    (void)s;
    return mig_base_dispatch_held(&((static_state *)state)->b);
}

/* core preemption hooks (mig_common.c) */
static void st_node_changed(void *state, sim *s, int node, bool in_service)
{
    (void)s;
    (void)in_service; /* the index reads the node's state */
    if (state) /* NULL: a move before the policy's init, which indexes the states it finds */
        mig_node_changed(&((static_state *)state)->b, node);
}

static bool st_fits_if_released(const void *state, const sim *s, const job *j, int n, job *const *v, int nv)
{
    (void)s;
    return mig_base_fits_if_released(&((const static_state *)state)->b, j, n, v, nv);
}

/* The queue's demand index (sim_queue.h, mig_index.h). demand: gpus cards
 * and the fewest memory slices among the profiles j maps to on the cards it
 * may use (0: it may take whole cards, always tried). A card's room: its
 * largest idle instance while in service, as no request fits without an idle
 * instance of its profile. A refused try also counts the request as waiting
 * beside idle instances of other profiles (st_blocked): a queued request
 * that may still be counted so watches the sets st_blocked reads (marked here
 * as it is queued), and while one of them is not empty the room is
 * unbounded, so no try that would count is skipped. room: O(1). */
static uint32_t st_queue_demand(const void *state, const job *j)
{
    /* the core hands the policy its own state; queueing j is recorded in it */
    static_state *st = (static_state *)state;
    mig_jobinfo *in = mig_info(&st->b, j);
    if (!in->other_idle)
        mig_set_pending(&st->b, in, j, true);
    return mig_base_queue_demand(&st->b, j);
}

static uint32_t st_queue_room(const void *state, const sim *s)
{
    (void)s;
    return mig_base_queue_room(&((const static_state *)state)->b);
}

static const pol_space_index space_index = {.queue_demand = st_queue_demand, .queue_room = st_queue_room};

static const pol_space space = {
    .caps = POL_CAP_ADMIT | POL_CAP_MIG | POL_CAP_GANG | POL_CAP_NODES, /* gangs: cards without MIG, via the ledger */
    .reject_reason = st_reject_reason,
    .node_changed = st_node_changed,
    .mem_per_card_mib = mig_mem_per_card_mib,
    .fits_if_released = st_fits_if_released,
    .can_ever_fit = st_can_ever_fit,
    .place = st_place,
    .unplace = st_unplace,
    .shape_key = mig_base_shape_key,
    .nominee_missed = st_nominee_missed,
    .dispatch_held = st_dispatch_held,
    .index = &space_index,
};

const pol_ops pol_mig = {
    .abi = POL_ABI,
    .name = "mig",
    .summary = "static MIG layouts from the cluster file (device plugin, mixed); whole cards elsewhere",
    .kind = POL_SPACE,
    .params = params,
    .init = st_init,
    .fini = st_fini,
    .timer = st_timer,
    .report = st_report,
    .space = &space,
};
