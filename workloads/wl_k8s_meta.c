/* wl_k8s_meta.c - the small Lists beside the pods (Kubernetes API
 * reference: PriorityClass v1 scheduling.k8s.io, ResourceQuota v1, Event
 * v1):
 *   PriorityClass: name -> value (int32), globalDefault (the priority of a
 *     pod naming no class), preemptionPolicy Never (such pods never preempt:
 *     not modeled, counted);
 *   ResourceQuota: namespace -> a tenant: spec.hard requests.nvidia.com/gpu
 *     (extended resources take quota under requests. only, Kubernetes
 *     "Resource Quotas") as gpus, HAMi's limits.nvidia.com/gpumem (MiB,
 *     HAMi pkg/device/quota.go) as gpu_mem_gib; several quotas in one
 *     namespace all hold, so the smallest cap is kept; other keys and scoped
 *     quotas are counted, not modeled;
 *   Event: per pod (involvedObject, by uid) whether the scheduler reported
 *     FailedScheduling or Preempted; pods the events name but no snapshot
 *     holds are counted.
 * Memory O(classes + quotas + pods named by events).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
#include "wl_k8s_types.h"
#include "wl_value.h"

bool k8s_json_long(const cJSON *v, long lo, long hi, long *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long)v->valuedouble || v->valuedouble < (double)lo ||
        v->valuedouble > (double)hi)
        return false;
    *out = (long)v->valuedouble;
    return true;
}

/* The item's kind, when given, must be want. */
static int check_kind(wl_jlist *l, const cJSON *it, const char *want, gs_error *err)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
    const char *pk[] = {"kind"};
    if (kind && strcmp(kind, want))
        return wl_jlist_fail(l, err, NULL, pk, 1, "expected a %s, found '%s'", want, kind);
    return 0;
}

static int class_from(wl_k8s *k, wl_jlist *l, const cJSON *it, gs_error *err)
{
    const char *pn[] = {"metadata", "name"}, *pv[] = {"value"}, *pp[] = {"preemptionPolicy"};
    const char *name = wl_value_json_str(it, pn, 2);
    if (check_kind(l, it, "PriorityClass", err))
        return GS_EINPUT;
    if (!name || !*name || strlen(name) >= sizeof k->classes[0].name)
        return wl_jlist_fail(l, err, NULL, pn, 2, "expected the class's name");
    k8s_class c = {.value = 0};
    snprintf(c.name, sizeof c.name, "%s", name);
    if (!k8s_json_long(cJSON_GetObjectItemCaseSensitive(it, "value"), -2147483648L, 2147483647L, &c.value))
        return wl_jlist_fail(l, err, name, pv, 1, "expected a whole number (int32)");
    c.global_default = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "globalDefault"));
    const char *pol = wl_value_json_str(it, pp, 1);
    if (pol && strcmp(pol, "Never") && strcmp(pol, "PreemptLowerPriority"))
        return wl_jlist_fail(l, err, name, pp, 1, "expected PreemptLowerPriority or Never");
    c.never = pol && !strcmp(pol, "Never");
    for (int i = 0; i < k->nclasses; i++)
        if (!strcmp(k->classes[i].name, name))
            return wl_jlist_fail(l, err, name, pn, 2, "PriorityClass listed twice");
    if (c.global_default && k->global_default >= 0)
        return wl_jlist_fail(l, err, name, pn, 2, "a second globalDefault class (the first: '%s')",
                             k->classes[k->global_default].name);
    k->classes = xrealloc(k->classes, (size_t)(k->nclasses + 1) * sizeof *k->classes);
    if (c.global_default)
        k->global_default = k->nclasses;
    k->classes[k->nclasses++] = c;
    return 0;
}

/* Reads every item of path with one(k, l, item, err). */
static int read_list(wl_k8s *k, const char *path, const char *what, const char *kind,
                     int (*one)(wl_k8s *, wl_jlist *, const cJSON *, gs_error *), gs_error *err)
{
    wl_jlist *l = wl_jlist_open(path, what, err);
    if (!l)
        return GS_EINPUT;
    cJSON *it;
    int got, rc = 0;
    while (rc == 0 && (got = wl_jlist_next(l, &it, err)) > 0) {
        rc = one(k, l, it, err);
        cJSON_Delete(it);
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    if (rc == 0)
        rc = wl_jlist_expect_kind(l, kind, err);
    wl_jlist_close(l);
    return rc;
}

int k8s_read_classes(wl_k8s *k, gs_error *err)
{
    k->global_default = -1;
    if (!k->o->priority_classes)
        return 0;
    int rc = read_list(k, k->o->priority_classes, "PriorityClass list", "PriorityClass", class_from, err);
    k->n->classes = k->nclasses;
    return rc;
}

static k8s_tenant *tenant_of(wl_k8s *k, const char *ns)
{
    for (int i = 0; i < k->ntenants; i++)
        if (!strcmp(k->tenants[i].ns, ns))
            return &k->tenants[i];
    k->tenants = xrealloc(k->tenants, (size_t)(k->ntenants + 1) * sizeof *k->tenants);
    k8s_tenant *t = &k->tenants[k->ntenants++];
    snprintf(t->ns, sizeof t->ns, "%s", ns);
    t->gpus = -1;
    t->gpu_mem_gib = -1;
    return t;
}

static int quota_from(wl_k8s *k, wl_jlist *l, const cJSON *it, gs_error *err)
{
    const char *pn[] = {"metadata", "namespace"}, *ph[] = {"spec", "hard"}, *ps[] = {"spec", "scopes"},
               *pss[] = {"spec", "scopeSelector"};
    if (check_kind(l, it, "ResourceQuota", err))
        return GS_EINPUT;
    const char *ns = wl_value_json_str(it, pn, 2);
    if (!ns || !gs_text_field_ok(ns, sizeof k->tenants[0].ns - 1))
        return wl_jlist_fail(l, err, NULL, pn, 2, "expected the quota's namespace");
    const cJSON *hard = wl_value_json_at(it, ph, 2), *h;
    if (hard && !cJSON_IsObject(hard))
        return wl_jlist_fail(l, err, ns, ph, 2, "expected an object of quantities");
    bool scoped = wl_value_json_at(it, ps, 2) || wl_value_json_at(it, pss, 2);
    cJSON_ArrayForEach(h, hard) {
        const char *ph2[] = {"spec", "hard", h->string};
        double v;
        if (!cJSON_IsString(h) || !wl_value_quantity(h->valuestring, &v))
            return wl_jlist_fail(l, err, ns, ph2, 3, "expected a quantity");
        bool gpus = !strcmp(h->string, "requests.nvidia.com/gpu"), mem = !strcmp(h->string, "limits.nvidia.com/gpumem");
        if (scoped || (!gpus && !mem)) {
            k->n->quota_keys_ignored++;
            continue;
        }
        k8s_tenant *t = tenant_of(k, ns);
        if (gpus && (t->gpus < 0 || v < (double)t->gpus))
            t->gpus = (long)v;
        if (mem && (t->gpu_mem_gib < 0 || v / 1024 < t->gpu_mem_gib))
            t->gpu_mem_gib = v / 1024;
    }
    return 0;
}

int k8s_read_quotas(wl_k8s *k, gs_error *err)
{
    if (!k->o->quotas)
        return 0;
    int rc = read_list(k, k->o->quotas, "ResourceQuota list", "ResourceQuota", quota_from, err);
    k->n->tenants = k->ntenants;
    return rc;
}

static size_t hash_key(const char *s)
{
    size_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of key (found, or the empty one it would take). */
static k8s_event *slot(wl_k8s *k, const char *key)
{
    size_t i = hash_key(key) & (k->ev_cap - 1);
    while (k->events[i].key[0] && strcmp(k->events[i].key, key))
        i = (i + 1) & (k->ev_cap - 1);
    return &k->events[i];
}

k8s_event *k8s_event_find(wl_k8s *k, const char *key)
{
    if (!k->ev_cap)
        return NULL;
    k8s_event *e = slot(k, key);
    return e->key[0] ? e : NULL;
}

static void event_add(wl_k8s *k, const char *key, unsigned flags)
{
    if (2 * (k->ev_n + 1) > k->ev_cap) { /* load at most one half */
        size_t old = k->ev_cap;
        k8s_event *ev = k->events;
        k->ev_cap = old ? 2 * old : 1024;
        k->events = xcalloc(k->ev_cap, sizeof *k->events);
        for (size_t i = 0; i < old; i++)
            if (ev[i].key[0])
                *slot(k, ev[i].key) = ev[i];
        free(ev);
    }
    k8s_event *e = slot(k, key);
    if (!e->key[0]) {
        snprintf(e->key, sizeof e->key, "%s", key);
        k->ev_n++;
    }
    e->flags |= flags;
}

static int event_from(wl_k8s *k, wl_jlist *l, const cJSON *it, gs_error *err)
{
    const char *pk[] = {"involvedObject", "kind"}, *pu[] = {"involvedObject", "uid"},
               *pns[] = {"involvedObject", "namespace"}, *pnm[] = {"involvedObject", "name"}, *pr[] = {"reason"};
    if (check_kind(l, it, "Event", err))
        return GS_EINPUT;
    const cJSON *inv = cJSON_GetObjectItemCaseSensitive(it, "involvedObject");
    const char *pi[] = {"involvedObject"};
    if (!cJSON_IsObject(inv))
        return wl_jlist_fail(l, err, NULL, pi, 1, "expected the object the event is about");
    k->n->events_in++;
    const char *kind = wl_value_json_str(it, pk, 2), *uid = wl_value_json_str(it, pu, 2), *ns = wl_value_json_str(it, pns, 2),
               *name = wl_value_json_str(it, pnm, 2), *reason = wl_value_json_str(it, pr, 1);
    if (!kind || strcmp(kind, "Pod"))
        return 0;
    char key[80];
    if (uid && *uid)
        snprintf(key, sizeof key, "%s", uid);
    else if (ns && name)
        snprintf(key, sizeof key, "%s/%s", ns, name);
    else
        return wl_jlist_fail(l, err, NULL, pi, 1, "a Pod named by neither uid nor namespace and name");
    unsigned f = 0;
    if (reason && !strcmp(reason, "FailedScheduling"))
        f = K8S_EV_FAILED_SCHEDULING;
    else if (reason && !strcmp(reason, "Preempted"))
        f = K8S_EV_PREEMPTED;
    event_add(k, key, f);
    return 0;
}

int k8s_read_events(wl_k8s *k, gs_error *err)
{
    for (int i = 0; i < k->o->nevents; i++) {
        int rc = read_list(k, k->o->events[i], "event list", "Event", event_from, err);
        if (rc)
            return rc;
    }
    return 0;
}
