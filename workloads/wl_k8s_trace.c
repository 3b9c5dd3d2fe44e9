/* wl_k8s_trace.c - the pod Lists to trace rows.
 *
 * Pass 1 reads every snapshot one pod at a time (wl_jlist) and adds one
 * line per pod, converted or not, to an external sort keyed by creation
 * time (wl_sort_runs). Pass 2 merges: the copies of one pod (one uid in
 * several snapshots, necessarily of one creation time) are adjacent among
 * equal keys, and the latest snapshot's copy decides; then the pod is a
 * row, a replica of a mapped service, or a skip counted by reason. A
 * Deployment mapped by --service becomes one service row, emitted at its
 * first replica's creation, replicas = the most of its pods running at
 * once; its pods are held as small records in pass 1 (O(its pods)).
 *
 * Trace time 0 is the first row's creation. A running pod's duration ends
 * at its snapshot's time: the latest timestamp the snapshot holds (a lower
 * bound of when it was taken); its class gets ":running". Memory:
 * O(sort_lines + pods created in one second + replicas of mapped services).
 * SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wl_k8s_types.h"
#include "wl_sort_runs.h"
#include "wl_value.h"

const char *const wl_k8s_reason[WL_K8S_NREASONS] = {
    "asks for no GPU (--cpu-pods keeps such pods)",
    "a DaemonSet's pod (one per node, bound to it)",
    "not started by the last snapshot (no status.startTime)",
    "ended (Succeeded or Failed) with no container end time and no condition time",
    "phase Unknown (its node lost contact)",
    "whole GPUs beside MIG devices, or two MIG profiles",
    "GPU containers ask for different per-GPU shares",
    "more than 64 GPUs in one pod",
    "nvidia.com/gpucores above 100 (fits no card)",
    "its GPU product constraint names no GPU of the node list",
    "priorityClassName not among the PriorityClass objects, and no spec.priority",
};

const char *const wl_k8s_service_keys[] = {"replicas_min", "replicas_max", "replicas_init", "max_batch", "slo_ms",
                                           "weights_gib", "rate", "pattern", "svc_mean_ms", "input_tokens",
                                           "output_tokens", "profile", "slo_ttft_ms", "slo_tpot_ms", NULL};

enum { F_COND_END = 1, F_MERGED = 2, F_NEVER = 4, F_CLAMPED = 8, F_FAILED = 16, F_WAITED = 32, F_PREEMPTED = 64,
       F_SKEW = 128 };

/* A replica of a mapped service, as pass 1 saw it. */
typedef struct replica {
    char uid[80];
    int snap, reason;
    int64_t created_us, start_us, end_us;
    char tail[600];
} replica;

typedef struct svc_acc {
    replica *r;
    size_t n, cap;
    /* after pass 1 */
    bool live, emitted;
    int64_t created_us, start_us, end_us; /* end < 0: runs past the last snapshot */
    int peak;
    char tail[600];
} svc_acc;

typedef struct trace_ctx {
    wl_k8s *k;
    FILE *out;
    svc_acc *svc;
    int64_t origin_us;         /* -1 until the first row */
    /* the group of lines with one creation key */
    char **grp;
    size_t ngrp, capgrp;
    double grp_key;
} trace_ctx;

/* The row columns after duration that pass 1 can write already. */
static void tail_of(const k8s_pod *p, char *buf, size_t cap)
{
    char mem[24] = "", cores[8] = "", pct[8] = "", tl[24] = "";
    if (p->gpus && p->gpumem_mib)
        snprintf(mem, sizeof mem, "%ld", p->gpumem_mib);
    if (p->gpus && p->gpucores)
        snprintf(cores, sizeof cores, "%d", p->gpucores);
    if (p->gpus && p->gpumem_pct)
        snprintf(pct, sizeof pct, "%d", p->gpumem_pct);
    if (p->time_limit_s > 0)
        snprintf(tl, sizeof tl, "%ld", p->time_limit_s);
    snprintf(buf, cap, "%d,%s,%s,%s,%s,%ld,1,%s,%s,%.12g,%.12g,%s,%s,%s", p->gpus, mem, cores, pct,
             p->gpus ? p->mig : "", p->priority, p->ns, p->gpus ? p->gpu_model : "", p->cpu, p->mem_gib, tl,
             p->no_spot ? "no-spot" : "", p->ref_gpu);
}

static unsigned flags_of(wl_k8s *k, const k8s_pod *p)
{
    unsigned f = (p->end_from_conditions ? F_COND_END : 0) | (p->merged ? F_MERGED : 0) |
                 (p->never_preempt ? F_NEVER : 0) | (p->clamped ? F_CLAMPED : 0) | (p->failed ? F_FAILED : 0);
    k8s_event *e = k8s_event_find(k, p->uid);
    if (!e)
        e = k8s_event_find(k, p->label);
    if (e) {
        e->flags |= K8S_EV_SEEN;
        f |= (e->flags & K8S_EV_FAILED_SCHEDULING ? F_WAITED : 0) | (e->flags & K8S_EV_PREEMPTED ? F_PREEMPTED : 0);
    }
    return f;
}

static void replica_add(svc_acc *s, const k8s_pod *p, int snap, const char *tail)
{
    if (s->n == s->cap)
        s->r = xrealloc(s->r, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof *s->r);
    replica *r = &s->r[s->n++];
    snprintf(r->uid, sizeof r->uid, "%s", p->uid);
    r->snap = snap;
    r->reason = p->reason;
    r->created_us = p->created_us;
    r->start_us = p->start_us;
    r->end_us = p->end_us;
    snprintf(r->tail, sizeof r->tail, "%s", tail);
}

/* Pass 1 on one snapshot. */
static int read_snapshot(wl_k8s *k, int snap, wl_runs *runs, svc_acc *svc, gs_error *err)
{
    wl_jlist *l = wl_jlist_open(k->o->pods[snap], "pod list", err);
    if (!l)
        return GS_EINPUT;
    cJSON *it;
    int got, rc = 0;
    k8s_pod p;
    while (rc == 0 && (got = wl_jlist_next(l, &it, err)) > 0) {
        k->n->pods_in++;
        rc = k8s_pod_map(k, l, it, &p, err);
        cJSON_Delete(it);
        if (rc)
            break;
        if (p.latest_us > k->n->snapshot_us[snap])
            k->n->snapshot_us[snap] = p.latest_us;
        char tail[600], line[1800];
        tail_of(&p, tail, sizeof tail);
        snprintf(line, sizeof line, "%s\t%d\t%ld\t%d\t%" PRId64 "\t%" PRId64 "\t%u\t%d\t%s\t%s\t%s", p.uid, snap,
                 wl_jlist_count(l) - 1, p.reason, p.start_us, p.end_us, flags_of(k, &p), p.service, p.label, p.klass,
                 tail);
        if (p.service >= 0)
            replica_add(&svc[p.service], &p, snap, tail);
        rc = wl_runs_add(runs, (double)p.created_us / 1e6, line, err);
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    if (rc == 0)
        rc = wl_jlist_expect_kind(l, "Pod", err);
    wl_jlist_close(l);
    return rc;
}

static int by_uid_snap(const void *pa, const void *pb)
{
    const replica *a = pa, *b = pb;
    int c = strcmp(a->uid, b->uid);
    return c ? c : (a->snap > b->snap) - (a->snap < b->snap);
}

typedef struct edge {
    int64_t t;
    int d;
} edge;

static int by_time(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->d - b->d; /* an end before a start at the same time */
}

/* A mapped service's figures from its replicas' latest copies. */
static void service_finish(const wl_k8s *k, svc_acc *s)
{
    if (s->n == 0)
        return;
    qsort(s->r, s->n, sizeof *s->r, by_uid_snap);
    edge *e = xmalloc((2 * s->n + 1) * sizeof *e);
    size_t ne = 0;
    s->created_us = INT64_MAX;
    s->end_us = 0;
    for (size_t i = 0; i < s->n; i++) {
        const replica *r = &s->r[i];
        if ((i + 1 < s->n && !strcmp(r->uid, s->r[i + 1].uid)) || r->reason >= 0)
            continue; /* an older copy, or not converted */
        int64_t end = r->end_us >= 0 ? r->end_us : k->n->snapshot_us[r->snap];
        if (r->end_us < 0 && r->snap == k->o->npods - 1)
            s->end_us = -1;
        else if (s->end_us >= 0 && end > s->end_us)
            s->end_us = end;
        if (r->created_us < s->created_us) {
            s->created_us = r->created_us;
            snprintf(s->tail, sizeof s->tail, "%s", r->tail);
        }
        if (!s->live || r->start_us < s->start_us)
            s->start_us = r->start_us;
        s->live = true;
        e[ne++] = (edge){r->start_us, +1};
        e[ne++] = (edge){end, -1};
    }
    qsort(e, ne, sizeof *e, by_time);
    int cur = 0;
    for (size_t i = 0; i < ne; i++)
        if ((cur += e[i].d) > s->peak)
            s->peak = cur;
    free(e);
}

/* {==== pass 2 ====} */

static void row_id(char *buf, size_t cap, const char *label, const char *uid)
{
    if (strlen(label) < 120)
        snprintf(buf, cap, "%s", label);
    else /* ids stay under the trace's 128 characters: a cut name and the uid's start */
        snprintf(buf, cap, "%.100s~%.8s", label, uid);
}

static int emit_service(trace_ctx *c, int i)
{
    wl_k8s *k = c->k;
    svc_acc *s = &c->svc[i];
    const wl_k8s_service *sv = &k->o->services[i];
    s->emitted = true;
    if (c->origin_us < 0)
        c->origin_us = s->created_us;
    int64_t end = s->end_us >= 0 ? s->end_us : k->n->snapshot_us[k->o->npods - 1];
    char sub[32], dur[32], obs[32], id[160];
    wl_value_seconds(s->created_us - c->origin_us, sub, sizeof sub);
    wl_value_seconds(end > s->created_us ? end - s->created_us : 0, dur, sizeof dur);
    wl_value_seconds((s->start_us > s->created_us ? s->start_us : s->created_us) - c->origin_us, obs, sizeof obs);
    row_id(id, sizeof id, sv->ns_name, "");
    fprintf(c->out, "%s,%s,%s,%s,Deployment%s,%s,service", id, sub, dur, s->tail, s->end_us < 0 ? ":running" : "",
            obs);
    for (int kk = 0; wl_k8s_service_keys[kk]; kk++) {
        const char *v = NULL;
        for (int j = 0; j < sv->ncolumns; j++)
            if (!strcmp(sv->columns[j][0], wl_k8s_service_keys[kk]))
                v = sv->columns[j][1];
        if (v)
            fprintf(c->out, ",%s", v);
        else if (kk < 3)
            fprintf(c->out, ",%d", s->peak);
        else
            fputc(',', c->out);
    }
    fputc('\n', c->out);
    k->n->services++;
    return 0;
}

/* The services whose first replica was created by key, in order. */
static void services_due(trace_ctx *c, double key)
{
    for (;;) {
        int best = -1;
        for (int i = 0; i < c->k->o->nservices; i++) {
            const svc_acc *s = &c->svc[i];
            if (s->live && !s->emitted && (double)s->created_us / 1e6 <= key &&
                (best < 0 || s->created_us < c->svc[best].created_us))
                best = i;
        }
        if (best < 0)
            return;
        emit_service(c, best);
    }
}

/* One line's fields (tab-separated, see read_snapshot). */
typedef struct line_f {
    const char *uid, *label, *klass, *tail;
    int snap, reason, svc;
    long item;
    int64_t start_us, end_us;
    unsigned flags;
} line_f;

static void split(char *line, line_f *f)
{
    char *t[11];
    int n = 0;
    for (char *s = line; n < 11; n++) {
        t[n] = s;
        char *tab = n < 10 ? strchr(s, '\t') : NULL;
        if (tab) {
            *tab = 0;
            s = tab + 1;
        }
    }
    f->uid = t[0];
    f->snap = atoi(t[1]);
    f->item = atol(t[2]);
    f->reason = atoi(t[3]);
    f->start_us = strtoll(t[4], NULL, 10);
    f->end_us = strtoll(t[5], NULL, 10);
    f->flags = (unsigned)strtoul(t[6], NULL, 10);
    f->svc = atoi(t[7]);
    f->label = t[8];
    f->klass = t[9];
    f->tail = t[10];
}

static void count_flags(wl_k8s_counts *n, unsigned f)
{
    n->end_from_conditions += !!(f & F_COND_END);
    n->merged_containers += !!(f & F_MERGED);
    n->preempt_never += !!(f & F_NEVER);
    n->priority_clamped += !!(f & F_CLAMPED);
    n->failed += !!(f & F_FAILED);
    n->waited_events += !!(f & F_WAITED);
    n->preempted_events += !!(f & F_PREEMPTED);
}

static void emit_pod(trace_ctx *c, const line_f *f, double key)
{
    wl_k8s *k = c->k;
    wl_k8s_counts *n = k->n;
    if (f->reason >= 0) {
        n->skipped++;
        n->skipped_by[f->reason]++;
        if (k->warn && f->reason != WL_K8S_SKIP_NO_GPU && f->reason != WL_K8S_SKIP_DAEMONSET)
            fprintf(k->warn, "gpusim: warning: pod list '%s' items[%ld] (%s): %s; not converted\n",
                    k->o->pods[f->snap], f->item, f->label, wl_k8s_reason[f->reason]);
        return;
    }
    services_due(c, key);
    if (f->svc >= 0) {
        n->replicas++;
        return;
    }
    int64_t created = (int64_t)(key * 1e6 + (key >= 0 ? 0.5 : -0.5)), start = f->start_us;
    if (c->origin_us < 0)
        c->origin_us = created;
    bool running = f->end_us < 0;
    int64_t end = running ? n->snapshot_us[f->snap] : f->end_us;
    if (start < created || end < start) /* clocks of the API server and the kubelet disagree */
        n->clock_skew++;
    if (start < created)
        start = created;
    char id[340], sub[32], dur[32], obs[32];
    row_id(id, sizeof id, f->label, f->uid);
    wl_value_seconds(created - c->origin_us, sub, sizeof sub);
    wl_value_seconds(end > start ? end - start : 0, dur, sizeof dur);
    wl_value_seconds(start - c->origin_us, obs, sizeof obs);
    fprintf(c->out, "%s,%s,%s,%s,%s%s,%s%s\n", id, sub, dur, f->tail, f->klass, running ? ":running" : "", obs,
            k->o->nservices ? ",,,,,,,,,,,,,,," : "");
    n->converted++;
    n->running += running;
    count_flags(n, f->flags);
}

typedef struct grp_ref {
    line_f f;
    size_t order;
} grp_ref;

static int by_uid_order(const void *pa, const void *pb)
{
    const grp_ref *a = pa, *b = pb;
    int c = strcmp(a->f.uid, b->f.uid);
    if (c)
        return c;
    if (a->f.snap != b->f.snap)
        return a->f.snap < b->f.snap ? -1 : 1;
    return a->order < b->order ? -1 : 1;
}

static int by_order(const void *pa, const void *pb)
{
    const grp_ref *a = pa, *b = pb;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* The group of one creation time: each uid's latest copy, in file order. */
static void flush_group(trace_ctx *c)
{
    grp_ref *g = xmalloc((c->ngrp ? c->ngrp : 1) * sizeof *g);
    for (size_t i = 0; i < c->ngrp; i++) {
        split(c->grp[i], &g[i].f);
        g[i].order = i;
    }
    qsort(g, c->ngrp, sizeof *g, by_uid_order);
    size_t keep = 0;
    for (size_t i = 0; i < c->ngrp; i++) {
        if (i + 1 < c->ngrp && !strcmp(g[i].f.uid, g[i + 1].f.uid)) {
            c->k->n->duplicates++;
            continue;
        }
        g[keep++] = g[i];
    }
    qsort(g, keep, sizeof *g, by_order);
    c->k->n->pods += (long)keep;
    for (size_t i = 0; i < keep; i++)
        emit_pod(c, &g[i].f, c->grp_key);
    free(g);
    for (size_t i = 0; i < c->ngrp; i++)
        free(c->grp[i]);
    c->ngrp = 0;
}

static int on_line(void *ud, double key, const char *line)
{
    trace_ctx *c = ud;
    if (c->ngrp && key != c->grp_key)
        flush_group(c);
    if (c->ngrp == c->capgrp)
        c->grp = xrealloc(c->grp, (c->capgrp = c->capgrp ? 2 * c->capgrp : 64) * sizeof *c->grp);
    c->grp[c->ngrp++] = xstrdup(line);
    c->grp_key = key;
    return ferror(c->out) ? GS_EWRITE : 0;
}

static void write_header(const wl_k8s *k, FILE *out)
{
    fprintf(out, "id,submit,duration,gpus,gpumem,gpucores,gpumem_pct,mig,priority,preemptible,tenant,gpu_model,cpu,"
                 "mem_gib,time_limit,tier,ref_gpu,class,observed_start");
    if (k->o->nservices) {
        fprintf(out, ",kind");
        for (int i = 0; wl_k8s_service_keys[i]; i++)
            fprintf(out, ",%s", wl_k8s_service_keys[i]);
    }
    fputc('\n', out);
}

int wl_k8s_write_trace(wl_k8s *k, FILE *out, gs_error *err)
{
    wl_runs *runs = wl_runs_new(k->o->sort_lines ? k->o->sort_lines : 65536);
    trace_ctx c = {.k = k, .out = out, .origin_us = -1};
    c.svc = xcalloc((size_t)k->o->nservices + 1, sizeof *c.svc);
    int rc = 0;
    for (int s = 0; rc == 0 && s < k->o->npods; s++)
        rc = read_snapshot(k, s, runs, c.svc, err);
    for (size_t i = 0; i < k->ev_cap; i++)
        k->n->event_pods_missing += k->events[i].key[0] && !(k->events[i].flags & K8S_EV_SEEN);
    for (int i = 0; rc == 0 && i < k->o->nservices; i++) {
        service_finish(k, &c.svc[i]);
        if (!c.svc[i].live) {
            k->n->services_unmatched++;
            if (k->warn)
                fprintf(k->warn, "gpusim: warning: --service %s: no started pod of this Deployment in the snapshots; "
                        "no service row\n", k->o->services[i].ns_name);
        }
    }
    if (rc == 0) {
        write_header(k, out);
        rc = wl_runs_merge(runs, on_line, &c, err);
        if (rc == 0 && c.ngrp)
            flush_group(&c);
        if (rc == 0)
            services_due(&c, 1e300);
        k->n->runs = wl_runs_spilled(runs);
        if (rc == GS_EWRITE || (rc == 0 && (fflush(out) != 0 || ferror(out))))
            rc = gs_err(err, GS_EWRITE, "cannot write the converted trace");
    }
    if (rc == 0 && k->n->converted + k->n->services == 0)
        rc = gs_err(err, GS_EINPUT, "pod list '%s': no pod converted (%ld read, %ld skipped): nothing to replay",
                    k->o->pods[0], k->n->pods_in, k->n->skipped);
    k->n->origin_us = c.origin_us;
    for (size_t i = 0; i < c.ngrp; i++)
        free(c.grp[i]);
    free(c.grp);
    for (int i = 0; i < k->o->nservices; i++)
        free(c.svc[i].r);
    free(c.svc);
    wl_runs_free(runs);
    return rc;
}

wl_k8s *wl_k8s_new(const wl_k8s_opts *o, FILE *warn, wl_k8s_counts *n, gs_error *err)
{
    memset(n, 0, sizeof *n);
    wl_k8s *k = xcalloc(1, sizeof *k);
    k->o = o;
    k->warn = warn;
    k->n = n;
    k->global_default = -1;
    if (k8s_read_nodes(k, err) || k8s_topology(k, err) || k8s_read_classes(k, err) || k8s_read_quotas(k, err) || k8s_read_events(k, err)) {
        wl_k8s_free(k);
        return NULL;
    }
    return k;
}

void wl_k8s_free(wl_k8s *k)
{
    if (!k)
        return;
    free(k->nodes);
    free(k->by_name);
    free(k->order);
    free(k->classes);
    free(k->tenants);
    free(k->events);
    free(k);
}
