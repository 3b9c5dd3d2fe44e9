/* wl_k8s_pod.c - one Pod object (Kubernetes API reference, Pod v1) to one
 * pod record: the mapping rules of `gpusim import k8s`, each in its own
 * function below.
 *   resources   GPU keys from each container's resources.limits (else
 *               requests, as the device plugin reads them): nvidia.com/gpu,
 *               HAMi's nvidia.com/gpumem (MiB per GPU),
 *               nvidia.com/gpumem-percentage (over 100: 100, as HAMi
 *               clamps), nvidia.com/gpucores (percent), the GPU operator's
 *               nvidia.com/mig-<profile>; cpu and memory from requests (else
 *               limits: the API defaults requests to limits). A pod asks the
 *               sum over its containers and sidecars (init containers with
 *               restartPolicy Always), at least its largest init container,
 *               plus spec.overhead. GPU containers of one share merge (their
 *               GPUs add up); of different shares, the pod is skipped
 *   priority    spec.priority (the admission plugin resolves it), else the
 *               priorityClassName's value, else the globalDefault class, else
 *               0; above 2e9 (system-node-critical is 2000001000) clamped
 *   times       submit metadata.creationTimestamp, start status.startTime,
 *               end the latest containerStatuses[].state.terminated.
 *               finishedAt (Succeeded, Failed), else the latest condition's
 *               lastTransitionTime; Running (and Pending with a startTime):
 *               the snapshot
 *   class       the controlling owner's kind: a ReplicaSet whose name is
 *               the pod-template-hash label's Deployment is "Deployment"; a
 *               StatefulSet labelled leaderworkerset.sigs.k8s.io/name is
 *               "LeaderWorkerSet"; a Job labelled jobset.sigs.k8s.io/
 *               jobset-name is "JobSet"; no owner: "Pod"
 *   gpu_model   nodeSelector and required nodeAffinity on
 *               nvidia.com/gpu.product (In, NotIn), HAMi's annotations
 *               nvidia.com/use-gputype and nouse-gputype (a card matches
 *               when its type contains an entry, case-insensitively)
 *   ref_gpu     the model of the node it ran on (spec.nodeName): the card
 *               its measured duration belongs to
 *   tenant      the namespace; time_limit spec.activeDeadlineSeconds;
 *               tier no-spot when pinned to on-demand capacity
 *               (karpenter.sh/capacity-type, eks.amazonaws.com/capacityType)
 * O(size of the object).
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
#include "wl_k8s_types.h"
#include "wl_value.h"

/* A container's GPU ask. */
typedef struct gpu_ask {
    long n, mem_mib, pct, cores, mig_n;
    char mig[32];
    bool two_migs;
} gpu_ask;

/* Which container list and element a value sits in, for messages. */
typedef struct ctr_ref {
    const char *list;
    char idx[16];
} ctr_ref;

/* The quantity resources.{limits,requests}[key] of a container (the other
 * map when the first lacks it): 1 with *v, 0 when absent, or GS_EINPUT. */
static int res_val(wl_jlist *l, const k8s_pod *p, const cJSON *ctr, const ctr_ref *r, const char *key,
                   bool limits_first, double *v, gs_error *err)
{
    const char *maps[2] = {limits_first ? "limits" : "requests", limits_first ? "requests" : "limits"};
    for (int m = 0; m < 2; m++) {
        const char *rel[] = {"resources", maps[m], key};
        const cJSON *q = wl_value_json_at(ctr, rel, 3);
        if (!q)
            continue;
        const char *path[] = {"spec", r->list, r->idx, "resources", maps[m], key};
        if (!cJSON_IsString(q) || !wl_value_quantity(q->valuestring, v))
            return wl_jlist_fail(l, err, p->label, path, 6, "expected a quantity such as \"1\", \"500m\" or \"16Gi\"");
        return 1;
    }
    return 0;
}

static int res_int(wl_jlist *l, const k8s_pod *p, const cJSON *ctr, const ctr_ref *r, const char *key, long *v,
                   gs_error *err)
{
    double d = 0;
    int rc = res_val(l, p, ctr, r, key, true, &d, err);
    if (rc <= 0) {
        *v = 0;
        return rc;
    }
    if (d != (double)(long)d || d > 1e9) {
        const char *path[] = {"spec", r->list, r->idx, "resources", "limits", key};
        return wl_jlist_fail(l, err, p->label, path, 6, "expected a whole number");
    }
    *v = (long)d;
    return 1;
}

/* The GPU keys of one container. */
static int gpu_of(wl_jlist *l, const k8s_pod *p, const cJSON *ctr, const ctr_ref *r, gpu_ask *g, gs_error *err)
{
    memset(g, 0, sizeof *g);
    if (res_int(l, p, ctr, r, "nvidia.com/gpu", &g->n, err) < 0 ||
        res_int(l, p, ctr, r, "nvidia.com/gpumem", &g->mem_mib, err) < 0 ||
        res_int(l, p, ctr, r, "nvidia.com/gpumem-percentage", &g->pct, err) < 0 ||
        res_int(l, p, ctr, r, "nvidia.com/gpucores", &g->cores, err) < 0)
        return GS_EINPUT;
    for (int m = 0; m < 2; m++) {
        const char *rel[] = {"resources", m ? "requests" : "limits"};
        const cJSON *q;
        cJSON_ArrayForEach(q, wl_value_json_at(ctr, rel, 2)) {
            if (strncmp(q->string, "nvidia.com/mig-", 15) || (m == 1 && g->mig_n))
                continue;
            long cnt = 0;
            if (res_int(l, p, ctr, r, q->string, &cnt, err) < 0)
                return GS_EINPUT;
            if (cnt == 0)
                continue;
            if (g->mig_n && strcmp(g->mig, q->string + 15))
                g->two_migs = true;
            snprintf(g->mig, sizeof g->mig, "%s", q->string + 15);
            g->mig_n += cnt;
        }
    }
    return 0;
}

static bool same_share(const gpu_ask *a, const gpu_ask *b)
{
    return a->mem_mib == b->mem_mib && a->pct == b->pct && a->cores == b->cores && !strcmp(a->mig, b->mig);
}

/* Sums (or, for plain init containers, maxes) one container into the pod. */
typedef struct pod_sum {
    gpu_ask gpu;        /* the merged share and its GPUs */
    long init_gpus;     /* the largest init container's */
    int gpu_ctrs;
    bool shapes_differ, two_migs;
    double cpu, mem, init_cpu, init_mem;
} pod_sum;

static int add_container(wl_jlist *l, k8s_pod *p, const cJSON *ctr, const ctr_ref *r, bool init, pod_sum *s,
                         gs_error *err)
{
    gpu_ask g;
    double cpu = 0, mem = 0;
    if (!cJSON_IsObject(ctr)) {
        const char *path[] = {"spec", r->list, r->idx};
        return wl_jlist_fail(l, err, p->label, path, 3, "expected a container object");
    }
    if (gpu_of(l, p, ctr, r, &g, err) || res_val(l, p, ctr, r, "cpu", false, &cpu, err) < 0 ||
        res_val(l, p, ctr, r, "memory", false, &mem, err) < 0)
        return GS_EINPUT;
    s->two_migs |= g.two_migs || (g.n && g.mig_n) || (g.mig_n && s->gpu_ctrs && strcmp(s->gpu.mig, g.mig));
    long n = g.n + g.mig_n;
    if (n > 0) {
        if (s->gpu_ctrs++ && !same_share(&s->gpu, &g))
            s->shapes_differ = true;
        long keep = s->gpu.n;
        s->gpu = g;
        s->gpu.n = keep + (init ? 0 : n);
        if (init && n > s->init_gpus)
            s->init_gpus = n;
    }
    if (init) {
        s->init_cpu = cpu > s->init_cpu ? cpu : s->init_cpu;
        s->init_mem = mem > s->init_mem ? mem : s->init_mem;
    } else {
        s->cpu += cpu;
        s->mem += mem;
    }
    return 0;
}

static int walk_containers(wl_jlist *l, k8s_pod *p, const cJSON *spec, const char *list, pod_sum *s, gs_error *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(spec, list), *c;
    const char *path[] = {"spec", list};
    if (arr && !cJSON_IsArray(arr))
        return wl_jlist_fail(l, err, p->label, path, 2, "expected an array of containers");
    int i = 0;
    cJSON_ArrayForEach(c, arr) {
        ctr_ref r = {list, ""};
        snprintf(r.idx, sizeof r.idx, "#%d", i++);
        const char *rp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "restartPolicy"));
        bool init = !strcmp(list, "initContainers") && !(rp && !strcmp(rp, "Always"));
        if (add_container(l, p, c, &r, init, s, err))
            return GS_EINPUT;
    }
    return 0;
}

/* resources: the pod's GPU share, CPU and memory. */
static int map_resources(wl_jlist *l, k8s_pod *p, const cJSON *it, gs_error *err)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(it, "spec");
    const char *ps[] = {"spec"};
    if (!cJSON_IsObject(spec))
        return wl_jlist_fail(l, err, p->label, ps, 1, "expected the pod's spec");
    pod_sum s;
    memset(&s, 0, sizeof s);
    if (walk_containers(l, p, spec, "containers", &s, err) || walk_containers(l, p, spec, "initContainers", &s, err))
        return GS_EINPUT;
    double oc = 0, om = 0;
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(spec, "overhead");
    const char *po[] = {"spec", "overhead", "cpu"}, *pm[] = {"spec", "overhead", "memory"};
    const cJSON *q;
    if ((q = cJSON_GetObjectItemCaseSensitive(ov, "cpu")) && (!cJSON_IsString(q) || !wl_value_quantity(q->valuestring, &oc)))
        return wl_jlist_fail(l, err, p->label, po, 3, "expected a quantity");
    if ((q = cJSON_GetObjectItemCaseSensitive(ov, "memory")) && (!cJSON_IsString(q) || !wl_value_quantity(q->valuestring, &om)))
        return wl_jlist_fail(l, err, p->label, pm, 3, "expected a quantity");
    p->cpu = (s.cpu > s.init_cpu ? s.cpu : s.init_cpu) + oc;
    p->mem_gib = ((s.mem > s.init_mem ? s.mem : s.init_mem) + om) / 1073741824.0;
    long gpus = s.gpu.n > s.init_gpus ? s.gpu.n : s.init_gpus;
    p->merged = s.gpu_ctrs > 1;
    if (s.two_migs)
        p->reason = WL_K8S_SKIP_MIXED;
    else if (s.shapes_differ)
        p->reason = WL_K8S_SKIP_SHAPES;
    else if (gpus > 64)
        p->reason = WL_K8S_SKIP_TOO_MANY;
    else if (s.gpu.cores > 100)
        p->reason = WL_K8S_SKIP_CORES;
    p->gpus = (int)(gpus > 64 ? 64 : gpus);
    p->gpumem_mib = s.gpu.mem_mib;
    p->gpumem_pct = (int)(s.gpu.pct > 100 ? 100 : s.gpu.pct);
    p->gpucores = (int)s.gpu.cores;
    snprintf(p->mig, sizeof p->mig, "%s", s.gpu.mig);
    return 0;
}

/* {==== times ====} */

/* A timestamp at path (relative to base, full path for messages); 1 read,
 * 0 absent or null, GS_EINPUT. Keeps the latest seen in p->latest_us. */
static int stamp(wl_jlist *l, k8s_pod *p, const cJSON *v, const char *const *path, int n, int64_t *us, gs_error *err)
{
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v) || !wl_value_time(v->valuestring, 1, us))
        return wl_jlist_fail(l, err, p->label, path, n, "expected an RFC 3339 time such as \"2024-05-01T10:00:00Z\"");
    if (*us > p->latest_us)
        p->latest_us = *us;
    return 1;
}

/* The latest finishedAt of the containers' terminated states (end) and
 * every other timestamp of the statuses (for the snapshot's time). */
static int container_times(wl_jlist *l, k8s_pod *p, const cJSON *st, const char *list, int64_t *end, gs_error *err)
{
    const cJSON *c;
    int i = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(st, list)) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", i++);
        static const char *const where[][2] = {{"state", "terminated"}, {"state", "running"}, {"lastState", "terminated"}};
        for (int w = 0; w < 3; w++) {
            const cJSON *s = wl_value_json_at(c, where[w], 2);
            for (int f = 0; f < 2; f++) {
                const char *key = f ? "startedAt" : "finishedAt";
                const char *path[] = {"status", list, idx, where[w][0], where[w][1], key};
                int64_t t;
                int rc = stamp(l, p, cJSON_GetObjectItemCaseSensitive(s, key), path, 6, &t, err);
                if (rc < 0)
                    return rc;
                if (rc && w == 0 && f == 0 && !strcmp(list, "containerStatuses") && t > *end)
                    *end = t;
            }
        }
    }
    return 0;
}

static int other_times(wl_jlist *l, k8s_pod *p, const cJSON *it, int64_t *cond_latest, gs_error *err)
{
    const char *pc[] = {"status", "conditions"}, *pm[] = {"metadata", "managedFields"};
    const cJSON *c;
    int i = 0;
    cJSON_ArrayForEach(c, wl_value_json_at(it, pc, 2)) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", i++);
        const char *path[] = {"status", "conditions", idx, "lastTransitionTime"};
        int64_t t;
        int rc = stamp(l, p, cJSON_GetObjectItemCaseSensitive(c, "lastTransitionTime"), path, 4, &t, err);
        if (rc < 0)
            return rc;
        if (rc && t > *cond_latest)
            *cond_latest = t;
    }
    i = 0;
    cJSON_ArrayForEach(c, wl_value_json_at(it, pm, 2)) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", i++);
        const char *path[] = {"metadata", "managedFields", idx, "time"};
        int64_t t;
        if (stamp(l, p, cJSON_GetObjectItemCaseSensitive(c, "time"), path, 4, &t, err) < 0)
            return GS_EINPUT;
    }
    return 0;
}

/* times: created, started, ended (or running) by the phase. */
static int map_times(wl_jlist *l, k8s_pod *p, const cJSON *it, gs_error *err)
{
    const char *pc[] = {"metadata", "creationTimestamp"}, *ps[] = {"status", "startTime"}, *pp[] = {"status", "phase"};
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "status");
    int rc = stamp(l, p, wl_value_json_at(it, pc, 2), pc, 2, &p->created_us, err);
    if (rc == 0)
        return wl_jlist_fail(l, err, p->label, pc, 2, "expected the pod's creation time");
    int64_t end = -1, cond = -1;
    p->start_us = -1;
    if (rc < 0 || stamp(l, p, wl_value_json_at(it, ps, 2), ps, 2, &p->start_us, err) < 0 ||
        container_times(l, p, st, "containerStatuses", &end, err) ||
        container_times(l, p, st, "initContainerStatuses", &end, err) || other_times(l, p, it, &cond, err))
        return GS_EINPUT;
    const char *phase = wl_value_json_str(it, pp, 2);
    if (!phase)
        phase = "Pending";
    bool done = !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed");
    if (!done && strcmp(phase, "Running") && strcmp(phase, "Pending") && strcmp(phase, "Unknown"))
        return wl_jlist_fail(l, err, p->label, pp, 2, "expected Pending, Running, Succeeded, Failed or Unknown");
    p->end_us = -1;
    if (!strcmp(phase, "Unknown"))
        p->reason = p->reason < 0 ? WL_K8S_SKIP_PHASE : p->reason;
    else if (p->start_us < 0)
        p->reason = p->reason < 0 ? WL_K8S_SKIP_PENDING : p->reason;
    else if (done) {
        /* no container end: the last condition change, if after the start (the Ready -> False of the end) */
        p->end_us = end >= 0 ? end : cond > p->start_us ? cond : -1;
        p->end_from_conditions = end < 0 && p->end_us >= 0;
        if (p->end_us < 0 && p->reason < 0)
            p->reason = WL_K8S_SKIP_NO_END;
        p->failed = !strcmp(phase, "Failed");
    }
    return 0;
}

/* {==== who and where ====} */

static int map_priority(wl_k8s *k, wl_jlist *l, k8s_pod *p, const cJSON *it, gs_error *err)
{
    const char *pp[] = {"spec", "priority"}, *pc[] = {"spec", "priorityClassName"};
    const cJSON *v = wl_value_json_at(it, pp, 2);
    const char *cls = wl_value_json_str(it, pc, 2);
    const k8s_class *c = NULL;
    for (int i = 0; cls && i < k->nclasses; i++)
        if (!strcmp(k->classes[i].name, cls))
            c = &k->classes[i];
    if (!cls && k->global_default >= 0)
        c = &k->classes[k->global_default];
    p->never_preempt = c && c->never;
    if (v) {
        if (!k8s_json_long(v, -2147483648L, 2147483647L, &p->priority))
            return wl_jlist_fail(l, err, p->label, pp, 2, "expected a whole number (int32)");
    } else if (c) {
        p->priority = c->value;
    } else if (cls && strcmp(cls, "system-cluster-critical") && strcmp(cls, "system-node-critical")) {
        p->reason = p->reason < 0 ? WL_K8S_SKIP_PRIORITY : p->reason;
    } else if (cls) { /* the built-in classes (Kubernetes "Pod Priority and Preemption") */
        p->priority = !strcmp(cls, "system-node-critical") ? 2000001000L : 2000000000L;
    }
    p->clamped = p->priority > 2000000000L || p->priority < -2000000000L;
    if (p->clamped)
        p->priority = p->priority > 0 ? 2000000000L : -2000000000L;
    return 0;
}

static const char *pod_label(const cJSON *it, const char *key)
{
    const char *p[] = {"metadata", "labels", key};
    return wl_value_json_str(it, p, 3);
}

/* class and owner: the controlling ownerReference, seen through the
 * labels its controllers put on the pods. */
static void map_owner(k8s_pod *p, const cJSON *it)
{
    const char *po[] = {"metadata", "ownerReferences"};
    const cJSON *refs = wl_value_json_at(it, po, 2), *r, *ctl = NULL;
    cJSON_ArrayForEach(r, refs) if (!ctl || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "controller"))) ctl = r;
    const char *kind = ctl ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctl, "kind")) : NULL;
    const char *name = ctl ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctl, "name")) : NULL;
    const char *hash = pod_label(it, "pod-template-hash"), *lws = pod_label(it, "leaderworkerset.sigs.k8s.io/name"),
               *js = pod_label(it, "jobset.sigs.k8s.io/jobset-name");
    char owner[256] = "";
    if (!kind || !name) {
        kind = "Pod";
    } else if (!strcmp(kind, "ReplicaSet") && hash && strlen(name) > strlen(hash) + 1 &&
               !strcmp(name + strlen(name) - strlen(hash), hash) && name[strlen(name) - strlen(hash) - 1] == '-') {
        kind = "Deployment";
        snprintf(owner, sizeof owner, "%.*s", (int)(strlen(name) - strlen(hash) - 1), name);
    } else if (!strcmp(kind, "StatefulSet") && lws) {
        kind = "LeaderWorkerSet";
        name = lws;
    } else if (!strcmp(kind, "Job") && js) {
        kind = "JobSet";
        name = js;
    }
    if (!owner[0] && name)
        snprintf(owner, sizeof owner, "%s", name);
    snprintf(p->klass, sizeof p->klass, "%s", kind);
    for (char *c = p->klass; *c; c++)
        if (*c == ',' || *c == '"' || (unsigned char)*c < 0x20)
            *c = '_';
    snprintf(p->owner, sizeof p->owner, "%s/%s", p->ns, owner);
}

/* HAMi's card-type match: type contains one comma-separated entry of
 * list, ignoring case (its checkType). */
static bool type_matches(const char *type, const char *list)
{
    for (const char *e = list; *e;) {
        const char *end = strchr(e, ',');
        size_t n = end ? (size_t)(end - e) : strlen(e);
        while (n && *e == ' ')
            e++, n--;
        for (const char *t = type; n && *t; t++)
            if (!strncasecmp(t, e, n))
                return true;
        e = end ? end + 1 : e + n;
    }
    return false;
}

/* The models among the node list whose products satisfy match(). */
static uint64_t models_where(const wl_k8s *k, const char *list, bool want)
{
    uint64_t m = 0;
    for (size_t i = 0; i < k->nnodes; i++) {
        const k8s_node *nd = &k->nodes[i];
        if (nd->model >= 0 && type_matches(nd->product, list) == want)
            m |= 1ull << nd->model;
    }
    return m;
}

/* Models a product value names: itself (resolved by the catalog, MIG
 * suffix cut); the MIG profile it carries goes to *mig. */
static uint64_t models_of_product(wl_k8s *k, const char *v, char *mig, size_t mcap)
{
    char prod[128];
    snprintf(prod, sizeof prod, "%s", v);
    char *suf = strstr(prod, "-MIG-");
    if (suf) {
        if (mig && !mig[0])
            snprintf(mig, mcap, "%s", suf + 5);
        *suf = 0;
    }
    size_t pl = strlen(prod);
    if (pl > 7 && !strcmp(prod + pl - 7, "-SHARED"))
        prod[pl - 7] = 0;
    int m = k8s_model_of(k, prod);
    return m >= 0 ? 1ull << m : 0;
}

/* Required node affinity on the product: terms OR, In and NotIn. */
static uint64_t affinity_models(wl_k8s *k, const cJSON *it, char *mig, size_t mcap)
{
    const char *pt[] = {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                        "nodeSelectorTerms"};
    const cJSON *terms = wl_value_json_at(it, pt, 5), *t, *e, *v;
    if (!cJSON_IsArray(terms) || !cJSON_GetArraySize(terms))
        return k->all_models;
    uint64_t any = 0;
    cJSON_ArrayForEach(t, terms) {
        uint64_t m = k->all_models;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "matchExpressions")) {
            const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "key"));
            const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "operator"));
            if (!key || !op || strcmp(key, "nvidia.com/gpu.product") || (strcmp(op, "In") && strcmp(op, "NotIn")))
                continue;
            uint64_t named = 0;
            cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(e, "values")) if (cJSON_IsString(v))
                named |= models_of_product(k, v->valuestring, mig, mcap);
            m &= !strcmp(op, "In") ? named : ~named;
        }
        any |= m;
    }
    return any;
}

static void map_models(wl_k8s *k, k8s_pod *p, const cJSON *it)
{
    const char *ps[] = {"spec", "nodeSelector", "nvidia.com/gpu.product"};
    const char *pu[] = {"metadata", "annotations", "nvidia.com/use-gputype"};
    const char *pn[] = {"metadata", "annotations", "nvidia.com/nouse-gputype"};
    const char *sel = wl_value_json_str(it, ps, 3), *use = wl_value_json_str(it, pu, 3), *nouse = wl_value_json_str(it, pn, 3);
    char mig[32] = "";
    uint64_t m = affinity_models(k, it, mig, sizeof mig) & k->all_models;
    if (sel)
        m &= models_of_product(k, sel, mig, sizeof mig);
    if (use)
        m &= models_where(k, use, true);
    if (nouse)
        m &= models_where(k, nouse, false);
    if (!p->mig[0] && mig[0] && p->gpus > 0)
        snprintf(p->mig, sizeof p->mig, "%s", mig);
    p->gpu_model[0] = 0;
    if (m == 0 && p->gpus > 0 && p->reason < 0)
        p->reason = WL_K8S_SKIP_MODEL;
    if (m == k->all_models || m == 0)
        return;
    size_t w = 0;
    for (int i = 0; i < k->nmodels && w < sizeof p->gpu_model - 50; i++)
        if (m & (1ull << i))
            w += (size_t)snprintf(p->gpu_model + w, sizeof p->gpu_model - w, "%s%s", w ? "|" : "", k->models[i]);
}

/* tier: no-spot when the node selector pins on-demand capacity. */
static bool pinned_on_demand(const cJSON *it)
{
    const char *pk[] = {"spec", "nodeSelector", "karpenter.sh/capacity-type"},
               *pe[] = {"spec", "nodeSelector", "eks.amazonaws.com/capacityType"};
    const char *a = wl_value_json_str(it, pk, 3), *b = wl_value_json_str(it, pe, 3);
    return (a && !strcmp(a, "on-demand")) || (b && !strcmp(b, "ON_DEMAND"));
}

/* metadata: name, namespace, uid, the label "namespace/name". */
static int map_meta(wl_jlist *l, k8s_pod *p, const cJSON *it, gs_error *err)
{
    const char *pk[] = {"kind"}, *pn[] = {"metadata", "name"}, *pns[] = {"metadata", "namespace"},
               *pu[] = {"metadata", "uid"};
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
    if (kind && strcmp(kind, "Pod"))
        return wl_jlist_fail(l, err, NULL, pk, 1, "expected a Pod, found '%s'", kind);
    const char *name = wl_value_json_str(it, pn, 2), *ns = wl_value_json_str(it, pns, 2), *uid = wl_value_json_str(it, pu, 2);
    if (!name || !gs_text_field_ok(name, 253))
        return wl_jlist_fail(l, err, NULL, pn, 2, "expected the pod's name (a DNS subdomain)");
    if (!ns || !gs_text_field_ok(ns, sizeof p->ns - 1) || strchr(ns, '|'))
        return wl_jlist_fail(l, err, name, pns, 2, "expected the pod's namespace (a DNS label, at most 63 characters)");
    snprintf(p->ns, sizeof p->ns, "%s", ns);
    snprintf(p->label, sizeof p->label, "%s/%s", ns, name);
    if (!uid || !gs_text_field_ok(uid, sizeof p->uid - 1))
        return wl_jlist_fail(l, err, p->label, pu, 2, "expected the pod's uid");
    snprintf(p->uid, sizeof p->uid, "%s", uid);
    return 0;
}

int k8s_pod_map(wl_k8s *k, wl_jlist *l, const cJSON *it, k8s_pod *p, gs_error *err)
{
    memset(p, 0, sizeof *p);
    p->reason = -1;
    p->service = -1;
    p->time_limit_s = -1;
    if (map_meta(l, p, it, err) || map_resources(l, p, it, err) || map_times(l, p, it, err) ||
        map_priority(k, l, p, it, err))
        return GS_EINPUT;
    map_owner(p, it);
    map_models(k, p, it);
    const char *pn[] = {"spec", "nodeName"}, *pa[] = {"spec", "activeDeadlineSeconds"};
    const k8s_node *nd = k8s_node_find(k, wl_value_json_str(it, pn, 2) ? wl_value_json_str(it, pn, 2) : "");
    if (nd && nd->single_profile[0] && p->gpus > 0 && !p->mig[0]) /* single strategy: a GPU is an instance */
        snprintf(p->mig, sizeof p->mig, "%s", nd->single_profile);
    if (nd && nd->model >= 0 && p->gpus > 0) /* its duration was measured on that node's cards */
        snprintf(p->ref_gpu, sizeof p->ref_gpu, "%s", k->models[nd->model]);
    const cJSON *ad = wl_value_json_at(it, pa, 2);
    if (ad && !k8s_json_long(ad, 1, 1000000000000L, &p->time_limit_s))
        return wl_jlist_fail(l, err, p->label, pa, 2, "expected a whole number of seconds >= 1");
    p->no_spot = pinned_on_demand(it);
    if (!strcmp(p->klass, "DaemonSet"))
        p->reason = WL_K8S_SKIP_DAEMONSET;
    else if (p->gpus == 0 && !k->o->cpu_pods && (p->reason < 0 || p->reason == WL_K8S_SKIP_PENDING ||
                                                 p->reason == WL_K8S_SKIP_PRIORITY))
        p->reason = WL_K8S_SKIP_NO_GPU;
    for (int i = 0; i < k->o->nservices; i++)
        if (!strcmp(p->klass, "Deployment") && !strcmp(k->o->services[i].ns_name, p->owner))
            p->service = i;
    return 0;
}
