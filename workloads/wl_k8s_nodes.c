/* wl_k8s_nodes.c - Node objects to node records, and the cluster file.
 *
 * A node's GPUs, per the documents its labels and resources come from:
 *   model: the label nvidia.com/gpu.product of GPU feature discovery (the
 *     device name, spaces as '-'; "-SHARED" appended under time-slicing;
 *     under the MIG "single" strategy "<name>-MIG-<profile>"; GFD README
 *     "Generated Labels", internal/lm/resource.go), else the device type in
 *     HAMi's hami.io/node-nvidia-register annotation (HAMi
 *     docs/develop/protocol.md);
 *   cards: the label nvidia.com/gpu.count (GFD counts MIG-enabled cards
 *     too), else HAMi's registered devices (its annotation as JSON or in
 *     the older colon form), else status.capacity
 *     nvidia.com/gpu divided by the label nvidia.com/gpu.replicas;
 *     capacity above the cards (time-slicing replicas, HAMi's vGPUs) marks
 *     the node shared;
 *   MIG: under "mixed", status.capacity nvidia.com/mig-<profile> counts
 *     the instances of each profile (GPU operator, "MIG support in
 *     Kubernetes"): spread evenly over the MIG cards they give each card's
 *     layout; under "single", every nvidia.com/gpu is one instance of the
 *     product's profile, the card cut into that profile only.
 * CPU and memory come from status.capacity (cpu, memory). A node tainted
 * as control plane is set aside; a cordoned one (spec.unschedulable) is kept
 * and counted. O(nodes log nodes) for the sort by topology, O(nodes) memory.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "../base/gs_num.h"
#include "wl_k8s_types.h"
#include "wl_value.h"

int k8s_model_of(wl_k8s *k, const char *product)
{
    const char *name = k->o->names->model(k->o->names->ud, product);
    if (!name)
        return -1;
    for (int i = 0; i < k->nmodels; i++)
        if (!strcmp(k->models[i], name))
            return i;
    if (k->nmodels == K8S_MAX_MODELS)
        return -1;
    snprintf(k->models[k->nmodels], sizeof k->models[0], "%s", name);
    return k->nmodels++;
}

static const char *label(const cJSON *it, const char *key)
{
    const char *p[] = {"metadata", "labels", key};
    return wl_value_json_str(it, p, 3);
}

/* A quantity from status.capacity[key]: 0 when absent, 1 when read, or
 * GS_EINPUT naming the place. */
static int capacity(wl_jlist *l, const cJSON *it, const char *name, const char *key, double *v, gs_error *err)
{
    const char *p[] = {"status", "capacity", key};
    const cJSON *q = wl_value_json_at(it, p, 3);
    if (!q)
        return 0;
    if (!cJSON_IsString(q) || !wl_value_quantity(q->valuestring, v))
        return wl_jlist_fail(l, err, name, p, 3, "expected a quantity such as \"8\", \"96\" or \"2063Gi\"");
    return 1;
}

/* HAMi writes "NVIDIA-" before a device name that does not start with
 * "NVIDIA" (register.go); the name itself is what the driver reports. */
static void hami_type(char *type, size_t cap, const char *t, size_t tl)
{
    if (tl > 7 && !strncmp(t, "NVIDIA-", 7))
        t += 7, tl -= 7;
    snprintf(type, cap, "%.*s", (int)(tl < cap ? tl : cap - 1), t);
}

/* The number of devices and the first device type in HAMi's register
 * annotation: a JSON array of {"id", "count", "devmem", "devcore", "type",
 * ...} (pkg/device/devices.go MarshalNodeDevices, what the device plugin
 * writes now), or the older "UUID,split,mem,cores,type,numa,healthy:..."
 * (docs/develop/protocol.md); 0 if none. */
static int hami_devices(const cJSON *it, char *type, size_t cap)
{
    const char *p[] = {"metadata", "annotations", "hami.io/node-nvidia-register"};
    const char *s = wl_value_json_str(it, p, 3);
    int n = 0;
    if (s && *s == '[') {
        cJSON *a = cJSON_Parse(s), *d;
        cJSON_ArrayForEach(d, a) {
            const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "type"));
            if (n++ == 0 && t)
                hami_type(type, cap, t, strlen(t));
        }
        cJSON_Delete(a);
        return n;
    }
    for (const char *dev = s; dev && *dev && *dev != ' '; n++) {
        const char *end = strchr(dev, ':');
        size_t len = end ? (size_t)(end - dev) : strlen(dev);
        const char *f = dev;
        for (int i = 0; i < 4 && f; i++) {
            f = memchr(f, ',', len - (size_t)(f - dev));
            f = f ? f + 1 : NULL;
        }
        if (n == 0 && f) {
            const char *fe = memchr(f, ',', len - (size_t)(f - dev));
            hami_type(type, cap, f, fe ? (size_t)(fe - f) : len - (size_t)(f - dev));
        }
        dev = end ? end + 1 : NULL;
    }
    return n;
}

static bool control_plane(const cJSON *it)
{
    const char *p[] = {"spec", "taints"};
    const cJSON *t = wl_value_json_at(it, p, 2), *x;
    cJSON_ArrayForEach(x, t) {
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "key"));
        const char *eff = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "effect"));
        if (key && eff && (!strcmp(key, "node-role.kubernetes.io/control-plane") ||
                           !strcmp(key, "node-role.kubernetes.io/master")) &&
            (!strcmp(eff, "NoSchedule") || !strcmp(eff, "NoExecute")))
            return true;
    }
    return false;
}

/* A whole count label ("8"), or -1 when absent; -2 when malformed. */
static long count_label(const cJSON *it, const char *key)
{
    const char *s = label(it, key);
    long v;
    if (!s)
        return -1;
    return wl_value_quantity_int(s, &v) ? v : -2;
}

/* Under the mixed strategy: each profile's instances spread over the MIG
 * cards give one card's layout, placed by the catalog's rules. */
static int mixed_layout(wl_k8s *k, wl_jlist *l, const cJSON *it, k8s_node *nd, long cap_gpu, gs_error *err)
{
    const char *pc[] = {"status", "capacity"};
    const cJSON *c, *cap = wl_value_json_at(it, pc, 2);
    const char *profiles[8];
    int np = 0, starts[8];
    long mig_cards = nd->cards - cap_gpu;
    cJSON_ArrayForEach(c, cap) {
        if (strncmp(c->string, "nvidia.com/mig-", 15))
            continue;
        long cnt;
        const char *pq[] = {"status", "capacity", c->string};
        if (!cJSON_IsString(c) || !wl_value_quantity_int(c->valuestring, &cnt))
            return wl_jlist_fail(l, err, nd->name, pq, 3, "expected a whole number of MIG devices");
        if (cnt == 0)
            continue;
        if (cap_gpu > 0 || mig_cards <= 0)
            return wl_jlist_fail(l, err, nd->name, pq, 3, "%ld whole GPUs beside MIG devices on %d cards: a node "
                                 "group has one layout for every card (split such nodes by hand)", cap_gpu,
                                 nd->cards);
        if (cnt % mig_cards)
            return wl_jlist_fail(l, err, nd->name, pq, 3, "%ld instances over %ld MIG cards: the cards' layouts "
                                 "differ, and a node group has one layout for every card", cnt, mig_cards);
        for (long i = 0; i < cnt / mig_cards; i++) {
            if (np == 8)
                return wl_jlist_fail(l, err, nd->name, pq, 3, "more than 8 MIG instances per card");
            profiles[np++] = c->string + 15;
        }
    }
    if (np == 0)
        return 0;
    const char *model = k->models[nd->model];
    if (!k->o->names->mig_starts(k->o->names->ud, model, profiles, np, starts))
        return wl_jlist_fail(l, err, nd->name, pc, 2, "the MIG instances of one card (%d, %s first) do not fit a %s "
                             "card by the catalog's placement rules (gpusim models)", np, profiles[0], model);
    bool same = true;
    for (int i = 1; i < np; i++)
        same = same && !strcmp(profiles[i], profiles[0]);
    if (same && np == k->o->names->mig_all(k->o->names->ud, model, profiles[0])) {
        snprintf(nd->mig, sizeof nd->mig, "\"all-%s\"", profiles[0]);
        return 0;
    }
    size_t w = (size_t)snprintf(nd->mig, sizeof nd->mig, "[");
    for (int i = 0; i < np && w < sizeof nd->mig; i++)
        w += (size_t)snprintf(nd->mig + w, sizeof nd->mig - w, "%s{\"profile\": \"%s\", \"start\": %d}", i ? ", " : "",
                              profiles[i], starts[i]);
    if (w + 2 >= sizeof nd->mig)
        return wl_jlist_fail(l, err, nd->name, pc, 2, "MIG layout too long");
    snprintf(nd->mig + w, sizeof nd->mig - w, "]");
    return 0;
}

/* Under the single strategy each nvidia.com/gpu is one instance of the
 * profile in the product label; cards = instances / instances per card. */
static int single_layout(wl_k8s *k, wl_jlist *l, k8s_node *nd, long devices, gs_error *err)
{
    const char *p[] = {"metadata", "labels", "nvidia.com/gpu.product"};
    if (!strcmp(nd->single_profile, "INVALID"))
        return wl_jlist_fail(l, err, nd->name, p, 3, "GPU feature discovery marks the node's MIG configuration "
                             "invalid for the single strategy");
    int per = k->o->names->mig_all(k->o->names->ud, k->models[nd->model], nd->single_profile);
    if (per <= 0)
        return wl_jlist_fail(l, err, nd->name, p, 3, "MIG profile '%s' is not one of %s's (gpusim models)",
                             nd->single_profile, k->models[nd->model]);
    if (devices % per)
        return wl_jlist_fail(l, err, nd->name, p, 3, "%ld MIG devices of %s are not whole cards of %d", devices,
                             nd->single_profile, per);
    nd->cards = (int)(devices / per);
    snprintf(nd->mig, sizeof nd->mig, "\"all-%s\"", nd->single_profile);
    return 0;
}

/* The node's product: the GFD label with its suffixes cut, else HAMi's. */
static void product_of(const cJSON *it, k8s_node *nd, char *hami_type, bool *single)
{
    const char *prod = label(it, "nvidia.com/gpu.product");
    snprintf(nd->product, sizeof nd->product, "%s", prod ? prod : hami_type);
    size_t pl = strlen(nd->product);
    if (pl > 7 && !strcmp(nd->product + pl - 7, "-SHARED"))
        nd->product[pl - 7] = 0;
    char *mig = strstr(nd->product, "-MIG-");
    *single = mig != NULL;
    if (mig) {
        snprintf(nd->single_profile, sizeof nd->single_profile, "%s", mig + 5);
        *mig = 0;
    }
}

/* The GPU side of one node: model, cards, MIG layout. */
static int node_gpus(wl_k8s *k, wl_jlist *l, const cJSON *it, k8s_node *nd, gs_error *err)
{
    double gpu = 0;
    int rc = capacity(l, it, nd->name, "nvidia.com/gpu", &gpu, err);
    if (rc < 0)
        return rc;
    long cap_gpu = (long)gpu, count = count_label(it, "nvidia.com/gpu.count");
    long replicas = count_label(it, "nvidia.com/gpu.replicas");
    char hami_type[128] = "";
    int hami = hami_devices(it, hami_type, sizeof hami_type);
    const char *pl[] = {"metadata", "labels", "nvidia.com/gpu.count"};
    const char *pg[] = {"status", "capacity", "nvidia.com/gpu"};
    if (gpu != (double)cap_gpu || gpu > 1e6)
        return wl_jlist_fail(l, err, nd->name, pg, 3, "expected a whole number of GPUs");
    if (count == -2 || replicas == -2)
        return wl_jlist_fail(l, err, nd->name, pl, 2, "the labels nvidia.com/gpu.count and nvidia.com/gpu.replicas "
                             "must be whole numbers");
    bool single;
    product_of(it, nd, hami_type, &single);
    const char *strategy = label(it, "nvidia.com/mig.strategy");
    single = single || (strategy && !strcmp(strategy, "single") && cap_gpu > 0);
    bool has_mig = false;
    const char *pc[] = {"status", "capacity"};
    const cJSON *c;
    cJSON_ArrayForEach(c, wl_value_json_at(it, pc, 2)) has_mig = has_mig || !strncmp(c->string, "nvidia.com/mig-", 15);
    nd->cards = count >= 0 ? (int)count : hami > 0 ? hami : replicas > 1 ? (int)(cap_gpu / replicas) : (int)cap_gpu;
    if (cap_gpu == 0 && !has_mig)
        nd->cards = 0;
    nd->model = -1;
    if (has_mig && !single && count < 0)
        return wl_jlist_fail(l, err, nd->name, pl, 2, "MIG devices without the label nvidia.com/gpu.count: "
                             "the number of cards they are cut from is unknown");
    if (nd->cards == 0 && !single)
        return 0;
    const char *pp[] = {"metadata", "labels", "nvidia.com/gpu.product"};
    if (!nd->product[0])
        return wl_jlist_fail(l, err, nd->name, pp, 2, "a node with GPUs needs the label nvidia.com/gpu.product "
                             "(GPU feature discovery) or HAMi's hami.io/node-nvidia-register annotation");
    if ((nd->model = k8s_model_of(k, nd->product)) < 0)
        return wl_jlist_fail(l, err, nd->name, pp, 3, "unknown GPU product '%s': it is no `gpusim models` name or "
                             "alias; map it with --gpu-product '%s=MODEL'", nd->product, nd->product);
    if (single) {
        if ((rc = single_layout(k, l, nd, cap_gpu, err)))
            return rc;
    } else if (has_mig) {
        if ((rc = mixed_layout(k, l, it, nd, cap_gpu, err)))
            return rc;
    }
    if (nd->cards > 64)
        return wl_jlist_fail(l, err, nd->name, pl, 0, "%d GPUs on one node; the cluster file allows 0..64", nd->cards);
    k->n->nodes_shared += !nd->mig[0] && cap_gpu > nd->cards;
    k->n->nodes_mig += nd->mig[0] != 0;
    return 0;
}

static int node_from(wl_k8s *k, wl_jlist *l, const cJSON *it, k8s_node *nd, bool *skip, gs_error *err)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
    const char *pk[] = {"kind"}, *pn[] = {"metadata", "name"};
    if (kind && strcmp(kind, "Node"))
        return wl_jlist_fail(l, err, NULL, pk, 1, "expected a Node, found '%s'", kind);
    const char *name = wl_value_json_str(it, pn, 2);
    if (!name || !gs_text_field_ok(name, sizeof nd->name - 1))
        return wl_jlist_fail(l, err, NULL, pn, 2, "expected the node's name");
    memset(nd, 0, sizeof *nd);
    snprintf(nd->name, sizeof nd->name, "%s", name);
    *skip = control_plane(it);
    if (*skip)
        return 0;
    const char *pc[] = {"status", "capacity"};
    if (!cJSON_IsObject(wl_value_json_at(it, pc, 2)))
        return wl_jlist_fail(l, err, nd->name, pc, 2, "expected an object of quantities");
    nd->cpu = nd->mem_gib = -1;
    int rc = capacity(l, it, nd->name, "cpu", &nd->cpu, err);
    if (rc >= 0 && (rc = capacity(l, it, nd->name, "memory", &nd->mem_gib, err)) > 0)
        nd->mem_gib /= 1073741824.0;
    if (rc < 0 || (rc = node_gpus(k, l, it, nd, err)))
        return rc;
    for (int i = 0; i < k->o->ntopo; i++) {
        const char *v = label(it, k->o->topo[i]);
        const char *pt[] = {"metadata", "labels", k->o->topo[i]};
        if (!v || !*v || strlen(v) >= sizeof nd->topo[i])
            return wl_jlist_fail(l, err, nd->name, pt, 2, "no topology label '%s' (--topology-label): every node "
                                 "needs one", k->o->topo[i]);
        snprintf(nd->topo[i], sizeof nd->topo[i], "%s", v);
    }
    const char *pu[] = {"spec", "unschedulable"};
    k->n->nodes_cordoned += cJSON_IsTrue(wl_value_json_at(it, pu, 2));
    return 0;
}

static int by_name(const void *pa, const void *pb, void *kp)
{
    const wl_k8s *k = kp;
    return strcmp(k->nodes[*(const size_t *)pa].name, k->nodes[*(const size_t *)pb].name);
}

int k8s_read_nodes(wl_k8s *k, gs_error *err)
{
    wl_jlist *l = wl_jlist_open(k->o->nodes, "node list", err);
    if (!l)
        return GS_EINPUT;
    size_t cap = 0;
    cJSON *it;
    int got, rc = 0;
    while (rc == 0 && (got = wl_jlist_next(l, &it, err)) > 0) {
        k->n->nodes_in++;
        if (k->nnodes == cap)
            k->nodes = xrealloc(k->nodes, (cap = cap ? 2 * cap : 64) * sizeof *k->nodes);
        bool skip = false;
        k8s_node *nd = &k->nodes[k->nnodes];
        rc = node_from(k, l, it, nd, &skip, err);
        cJSON_Delete(it);
        if (rc == 0 && skip) {
            k->n->nodes_control_plane++;
            if (k->warn)
                fprintf(k->warn, "gpusim: warning: node list '%s' items[%ld] (%s): a control-plane node (tainted "
                        "NoSchedule); left out\n", k->o->nodes, wl_jlist_count(l) - 1, nd->name);
            continue;
        }
        if (rc == 0) {
            k->nnodes++;
            k->n->nodes_gpu += nd->cards > 0;
            k->n->nodes_cpu_only += nd->cards == 0;
            k->n->gpus += nd->cards;
            if (nd->model >= 0)
                k->all_models |= 1ull << nd->model;
        }
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    if (rc == 0)
        rc = wl_jlist_expect_kind(l, "Node", err);
    if (rc == 0 && k->n->nodes_gpu == 0)
        rc = gs_err(err, GS_EINPUT, "node list '%s': no node with GPUs (%ld nodes read)", k->o->nodes, k->n->nodes_in);
    wl_jlist_close(l);
    if (rc)
        return rc;
    k->by_name = xmalloc((k->nnodes ? k->nnodes : 1) * sizeof *k->by_name);
    for (size_t i = 0; i < k->nnodes; i++)
        k->by_name[i] = i;
    qsort_r(k->by_name, k->nnodes, sizeof *k->by_name, by_name, k);
    for (size_t i = 1; i < k->nnodes; i++)
        if (!strcmp(k->nodes[k->by_name[i]].name, k->nodes[k->by_name[i - 1]].name))
            return gs_err(err, GS_EINPUT, "node list '%s': node '%s' is listed twice", k->o->nodes,
                          k->nodes[k->by_name[i]].name);
    return 0;
}

const k8s_node *k8s_node_find(const wl_k8s *k, const char *name)
{
    size_t lo = 0, hi = k->nnodes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(k->nodes[k->by_name[mid]].name, name);
        if (c == 0)
            return &k->nodes[k->by_name[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
