/* svc_autoscale.c - the autoscalers users run on a serving deployment,
 * chosen by svc_autoscaler (the threshold rule stays in svc_scale.c):
 *
 * kpa, the Knative Pod Autoscaler (knative/serving
 * pkg/autoscaler/scaling/autoscaler.go; defaults from
 * config/core/configmaps/autoscaler.yaml; knative.dev/docs/serving/
 * autoscaling/kpa-specific): every tick (2 s) the mean concurrency (requests
 * in flight, queued ones included) over the stable window (60 s) and the
 * panic window (10% of it, 6 s), each over the target per replica
 * (containerConcurrency = max_batch, x the target percentage 70%), rounded
 * up: the stable and panic pod counts, each kept within [ready / max down
 * rate 2, ready x max up rate 1000]. A panic count at least 200% of the
 * ready replicas starts panic mode, which lasts until a stable window has
 * passed below that threshold and never scales down while it lasts.
 * Zero replicas only after a whole stable window without a request and then
 * the scale-to-zero grace period (30 s).
 *
 * hpa, the Kubernetes HorizontalPodAutoscaler (kubernetes.io/docs/tasks/
 * run-application/horizontal-pod-autoscale): every sync period (15 s,
 * svc_scale_period_s) desired = ceil(ready x metric / target) unless the
 * ratio is within the tolerance (0.1) of 1; the metric is the replicas'
 * batch-slot occupancy (requests held / max_batch, the pod metric of a
 * serving engine) over the period; scale-up at most max(2x, +4) a period,
 * scale-down to the highest recommendation of the stabilization window
 * (5 min).
 *
 * Both scale in by their target: a replica that holds requests is drained
 * (no new ones; retired when its last ends), so a batching replica whose
 * sequences never all end at once still goes at a trough.
 * SPDX-License-Identifier: MIT */
#include "svc_types.h"

#include <math.h>
#include <stdlib.h>

static void snap_push(svc_as *a, gs_time_us t, int rec);

void svc_as_init(sim *s, service *v)
{
    svc_layer *L = v->L;
    if (L->scaler == SVC_SCALER_THRESHOLD)
        return;
    svc_as *a = xcalloc(1, sizeof *a);
    /* enough ticks to reach back over the longest window, and one more */
    double span_s = L->scaler == SVC_SCALER_KPA ? L->kpa_stable_s : L->hpa_down_s;
    if (span_s < L->period_s)
        span_s = L->period_s;
    a->cap = (int)ceil(span_s / L->period_s) + 2;
    a->ring = xcalloc((size_t)a->cap, sizeof *a->ring);
    a->last_us = sim_now(s);
    a->zero_at_us = -1;
    if (L->scaler == SVC_SCALER_HPA)
        a->mx = xcalloc((size_t)a->cap, sizeof *a->mx);
    a->head = -1;
    snap_push(a, sim_now(s), -1);
    v->as = a;
}

void svc_as_free(service *v)
{
    if (v->as) {
        free(v->as->ring);
        free(v->as->mx);
    }
    free(v->as);
}

/* The window maximum's k-th entry, 0 the oldest */
static svc_as_rec *mx_at(const svc_as *a, int k) { return &a->mx[(a->mx_first + k) % a->cap]; }

/* Puts recommendation rec of snapshot seq at t in the window maximum:
 * drops what the ring no longer keeps and what rec matches or beats. */
static void mx_push(svc_as *a, int64_t seq, gs_time_us t, int rec)
{
    while (a->mx_n > 0 && mx_at(a, 0)->seq <= seq - a->cap) {
        a->mx_first = (a->mx_first + 1) % a->cap;
        a->mx_n--;
    }
    while (a->mx_n > 0 && mx_at(a, a->mx_n - 1)->rec <= rec)
        a->mx_n--;
    *mx_at(a, a->mx_n++) = (svc_as_rec){.t_us = t, .seq = seq, .rec = rec};
}

static void snap_push(svc_as *a, gs_time_us t, int rec)
{
    a->head = (a->head + 1) % a->cap;
    a->ring[a->head] = (svc_as_snap){.t_us = t, .conc_area = a->conc_area, .held_area = a->held_area, .rec = rec};
    if (a->n < a->cap)
        a->n++;
    if (a->mx)
        mx_push(a, a->pushed, t, rec);
    a->pushed++;
}

/* The newest snapshot at or before t, else the oldest kept. Ticks stop
 * only while nothing is in flight, so across a gap the areas did not move
 * and the snapshot before it is exact. */
static const svc_as_snap *snap_at(const svc_as *a, gs_time_us t)
{
    for (int k = 0; k < a->n; k++) {
        const svc_as_snap *p = &a->ring[(a->head - k + a->cap) % a->cap];
        if (p->t_us <= t)
            return p;
    }
    return &a->ring[(a->head - a->n + 1 + a->cap) % a->cap];
}

/* Mean requests in flight (held: held by replicas) over the last w_s up to
 * now (ticks fall on the period's grid, and the windows are whole periods,
 * so a snapshot sits at the window's start or, across a gap, before it
 * with the same areas); over the time since the service began when it is
 * younger than that (as Knative's buckets average what they have). */
static double window_mean(const svc_as *a, gs_time_us now, double w_s, bool held)
{
    gs_time_us from = now - (gs_time_us)llround(w_s * 1e6);
    const svc_as_snap *p = snap_at(a, from);
    double dt = p->t_us <= from ? w_s : gs_us_to_s(now - p->t_us);
    if (dt <= 0)
        return 0;
    return held ? (a->held_area - p->held_area) / dt : (a->conc_area - p->conc_area) / dt;
}

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* ceil against rounding: a mean of exactly k targets asks for k replicas */
static double ceil_eps(double x) { return ceil(x - 1e-9); }

/* The KPA's desired replica count now (autoscaler.go's Scale). */
static int kpa_desired(sim *s, service *v)
{
    const svc_layer *L = v->L;
    svc_as *a = v->as;
    gs_time_us now = sim_now(s);
    double ready = v->nready > 0 ? v->nready : 1, target = L->kpa_target * v->max_batch;
    double st = window_mean(a, now, L->kpa_stable_s, false), pn = window_mean(a, now, L->kpa_panic_s, false);
    double up = ceil(L->kpa_up_rate * ready), down = floor(ready / L->kpa_down_rate);
    double dspc = ceil_eps(st / target), dppc = ceil_eps(pn / target);
    int ds = (int)clampd(dspc, down, up), dp = (int)clampd(dppc, down, up);
    bool over = dppc / ready >= L->kpa_panic_thr;
    if (over) {
        if (!a->panicking)
            a->panic_from_us = now;
        a->panicking = true;
        a->panic_at_us = now;
    } else if (a->panicking && now > a->panic_at_us + (gs_time_us)llround(L->kpa_stable_s * 1e6)) {
        a->panicking = false; /* the surge has reached the stable window */
        a->max_panic = 0;
        a->panic_s += gs_us_to_s(now - a->panic_from_us);
    }
    int d = ds;
    if (a->panicking) { /* the larger of the two, and never down while panicking */
        if (d < dp)
            d = dp;
        if (d > a->max_panic)
            a->max_panic = d;
        d = a->max_panic;
    }
    return d;
}

/* The HPA's recommendation now (replica_calculator.go's ratio with its
 * tolerance), before the scaling rules. */
static int hpa_recommend(sim *s, service *v, int cur)
{
    const svc_layer *L = v->L;
    if (v->nready == 0)
        return cur; /* no ready pod reports the metric */
    double held = window_mean(v->as, sim_now(s), L->period_s, true);
    double ratio = held / ((double)v->nready * v->max_batch * L->hpa_target);
    if (fabs(ratio - 1.0) <= L->hpa_tol)
        return cur;
    return (int)ceil_eps((double)v->nready * ratio);
}

/* The HPA's desired count: scale-up limited to max(2x, +4) a period
 * (its default scaleUp policies), scale-down to the highest recommendation
 * of the stabilization window (the current one included). */
static int hpa_desired(sim *s, service *v, int cur, int rec)
{
    svc_as *a = v->as;
    if (rec > cur) {
        int lim = 2 * cur > cur + 4 ? 2 * cur : cur + 4;
        return rec < lim ? rec : lim;
    }
    int hi = rec;
    gs_time_us from = sim_now(s) - (gs_time_us)llround(v->L->hpa_down_s * 1e6);
    /* the kept snapshots after from: windows only move on, so those before
     * it go for good; the first left is the highest */
    while (a->mx_n > 0 && mx_at(a, 0)->t_us <= from) {
        a->mx_first = (a->mx_first + 1) % a->cap;
        a->mx_n--;
    }
    if (a->mx_n > 0 && mx_at(a, 0)->rec > hi)
        hi = mx_at(a, 0)->rec;
    return hi < cur ? hi : cur;
}

/* Picks the ready replica to scale in: the one idle longest, else the one
 * holding the fewest requests (the newest among equals). NULL: none ready.
 * O(replicas). */
static replica *scale_in_victim(const service *v)
{
    replica *idle = NULL, *least = NULL;
    for (int i = 0; i < v->nreps; i++) {
        replica *p = v->reps[i];
        if (p->state != R_READY)
            continue;
        if (!p->in_block && !p->npending && !p->nactive && !p->start_pending) {
            if (!idle || p->idle_since_us < idle->idle_since_us)
                idle = p;
        } else if (!least || p->load <= least->load) {
            least = p;
        }
    }
    return idle ? idle : least;
}

void svc_drain(sim *s, replica *p)
{
    service *v = p->svc;
    if (!p->in_block && !p->npending && !p->nactive && !p->start_pending) {
        svc_replica_remove(s, p);
        return;
    }
    svc_ready_del(v, p);
    v->L->nup++; /* it keeps its GPUs until its last request ends */
    p->state = R_DRAINING;
    v->ndraining++;
    v->as->drains++;
    svc_note_scale(s, v, "drain");
}

/* The KPA's scale to zero: the last replica stays through the grace
 * period after the first tick that asked for none. */
static int kpa_zero_grace(sim *s, service *v, int d, int cur)
{
    svc_as *a = v->as;
    if (d > 0 || cur == 0) {
        a->zero_at_us = -1;
        return d;
    }
    if (a->zero_at_us < 0)
        a->zero_at_us = sim_now(s);
    return sim_now(s) - a->zero_at_us < (gs_time_us)llround(v->L->kpa_grace_s * 1e6) ? 1 : 0;
}

void svc_as_tick(sim *s, service *v)
{
    v->tick_pending = false;
    svc_compact_reps(v);
    svc_as_flow(v, sim_now(s));
    int cur = v->nlive - v->ndraining, rec = -1;
    /* a disaggregated pool keeps its fixed counts; a service that fits no card has none */
    if (!v->ended && !v->pd_role && !v->hw.reason[0]) {
        int d;
        if (v->L->scaler == SVC_SCALER_KPA) {
            d = kpa_desired(s, v);
        } else {
            rec = hpa_recommend(s, v, cur);
            d = hpa_desired(s, v, cur, rec);
        }
        d = d < v->min ? v->min : d > v->max ? v->max : d;
        if (v->L->scaler == SVC_SCALER_KPA)
            d = kpa_zero_grace(s, v, d, cur);
        for (; cur < d; cur++)
            svc_scale_out(s, v);
        for (replica *p; cur > d && (p = scale_in_victim(v)); cur--)
            svc_drain(s, p);
    }
    snap_push(v->as, sim_now(s), rec);
    if (svc_tick_needed(v))
        svc_schedule_tick(s, v);
}
