/* wl_k8s_cluster.c - the node records and tenants as a cluster file.
 *
 * Nodes keep the node List's order (kubectl lists them by name) or, with
 * --topology-label, are sorted by their domains widest first, then name;
 * runs of identical consecutive nodes become one group. CPU-only nodes
 * join the pool of the most common GPU model with no cards (the cluster
 * format names a model per group; they still host CPU pods). Topology
 * domains must be regular (every domain of a level holds as many of the
 * next), as the cluster file's "topology" describes them; an irregular one
 * is an error naming the domain. O(nodes log nodes).
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../base/gs_json.h"
#include "wl_k8s_types.h"

static int by_topo(const void *pa, const void *pb, void *kp)
{
    const wl_k8s *k = kp;
    const k8s_node *a = &k->nodes[*(const size_t *)pa], *b = &k->nodes[*(const size_t *)pb];
    for (int i = 0; i < k->o->ntopo; i++) {
        int c = strcmp(a->topo[i], b->topo[i]);
        if (c)
            return c;
    }
    return strcmp(a->name, b->name);
}

/* Whether nodes a and b share their domains down to level lvl. */
static bool same_domain(const k8s_node *a, const k8s_node *b, int lvl)
{
    for (int i = 0; i <= lvl; i++)
        if (strcmp(a->topo[i], b->topo[i]))
            return false;
    return true;
}

/* sizes[i]: how many level i+1 domains (nodes, for the last level) each
 * level-i domain holds: the same for every domain but the last, which may
 * hold fewer (the cluster file's rule: nodes in file order fill racks of
 * sizes[last], racks fill blocks); anything else is an error naming the
 * domain. */
static int topo_sizes(const wl_k8s *k, const size_t *ord, int *sizes, gs_error *err)
{
    for (int lvl = 0; lvl < k->o->ntopo; lvl++) {
        int want = -1, prev = -1;
        size_t prev_first = 0;
        for (size_t i = 0; i < k->nnodes;) {
            size_t j = i;
            int children = 0;
            while (j < k->nnodes && same_domain(&k->nodes[ord[i]], &k->nodes[ord[j]], lvl)) {
                if (lvl == k->o->ntopo - 1 || j == i ||
                    !same_domain(&k->nodes[ord[j - 1]], &k->nodes[ord[j]], lvl + 1))
                    children++;
                j++;
            }
            want = want < 0 ? children : want;
            /* a domain before the last that is not full, or one fuller than the first */
            bool short_before = prev >= 0 && prev != want, over = children > want;
            if (short_before || over)
                return gs_err(err, GS_EINPUT, "node list '%s': topology level '%s': domain '%s' holds %d %s, the "
                              "first %d; the cluster file's topology needs domains of one size (only the last may "
                              "hold fewer)", k->o->nodes, k->o->topo[lvl],
                              k->nodes[ord[short_before ? prev_first : i]].topo[lvl], short_before ? prev : children,
                              lvl == k->o->ntopo - 1 ? "nodes" : "domains", want);
            prev = children;
            prev_first = i;
            i = j;
        }
        sizes[lvl] = want;
    }
    return 0;
}

/* The GPU model with the most nodes, for the CPU-only nodes' groups. */
static int common_model(const wl_k8s *k)
{
    long cnt[K8S_MAX_MODELS] = {0};
    int best = 0;
    for (size_t i = 0; i < k->nnodes; i++)
        if (k->nodes[i].model >= 0)
            cnt[k->nodes[i].model]++;
    for (int m = 1; m < k->nmodels; m++)
        if (cnt[m] > cnt[best])
            best = m;
    return best;
}

static bool same_group(const k8s_node *a, const k8s_node *b)
{
    return a->model == b->model && a->cards == b->cards && a->cpu == b->cpu && a->mem_gib == b->mem_gib &&
           !strcmp(a->mig, b->mig);
}

static cJSON *group_json(const wl_k8s *k, const k8s_node *nd, int common, long count, size_t idx)
{
    cJSON *o = cJSON_CreateObject();
    char name[32];
    snprintf(name, sizeof name, "g%zu-", idx);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "model", k->models[nd->model >= 0 ? nd->model : common]);
    cJSON_AddNumberToObject(o, "count", (double)count);
    cJSON_AddNumberToObject(o, "gpus", nd->cards);
    if (nd->cpu >= 0)
        cJSON_AddNumberToObject(o, "cpu", nd->cpu);
    if (nd->mem_gib >= 0)
        cJSON_AddNumberToObject(o, "mem_gib", nd->mem_gib);
    if (nd->mig[0])
        cJSON_AddItemToObject(o, "mig", cJSON_Parse(nd->mig));
    return o;
}

static void add_tenants(const wl_k8s *k, cJSON *root)
{
    if (k->ntenants == 0)
        return;
    cJSON *arr = cJSON_AddArrayToObject(root, "tenants");
    for (int i = 0; i < k->ntenants; i++) {
        const k8s_tenant *t = &k->tenants[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", t->ns);
        if (t->gpus >= 0)
            cJSON_AddNumberToObject(o, "gpus", (double)t->gpus);
        if (t->gpu_mem_gib >= 0)
            cJSON_AddNumberToObject(o, "gpu_mem_gib", t->gpu_mem_gib);
        cJSON_AddItemToArray(arr, o);
    }
}

/* "topology": {"levels": ["block", "rack"] or ["rack"], "sizes", "bw_gbps"}:
 * the widest label names blocks when there are two. */
static void add_topology(const wl_k8s *k, cJSON *root, const int *sizes)
{
    cJSON *t = cJSON_AddObjectToObject(root, "topology"), *lv = cJSON_AddArrayToObject(t, "levels"),
          *sz = cJSON_AddArrayToObject(t, "sizes"), *bw = cJSON_AddArrayToObject(t, "bw_gbps");
    for (int i = 0; i < k->o->ntopo; i++) {
        cJSON_AddItemToArray(lv, cJSON_CreateString(i == k->o->ntopo - 1 ? "rack" : "block"));
        cJSON_AddItemToArray(sz, cJSON_CreateNumber(sizes[i]));
        cJSON_AddItemToArray(bw, cJSON_CreateNumber(k->o->topo_bw_gbps[i]));
    }
}

int k8s_topology(wl_k8s *k, gs_error *err)
{
    k->order = xmalloc((k->nnodes ? k->nnodes : 1) * sizeof *k->order);
    for (size_t i = 0; i < k->nnodes; i++)
        k->order[i] = i;
    if (!k->o->ntopo)
        return 0;
    qsort_r(k->order, k->nnodes, sizeof *k->order, by_topo, k);
    return topo_sizes(k, k->order, k->topo_sizes, err);
}

int wl_k8s_write_cluster(wl_k8s *k, FILE *out, gs_error *err)
{
    const size_t *ord = k->order;
    int rc = 0;
    cJSON *root = cJSON_CreateObject(), *arr;
    cJSON_AddStringToObject(root, "name", "k8s");
    char comment[160];
    snprintf(comment, sizeof comment, "converted by gpusim import k8s from a Kubernetes node list (%zu nodes, %ld "
             "GPUs)", k->nnodes, k->n->gpus);
    cJSON_AddStringToObject(root, "comment", comment);
    arr = cJSON_AddArrayToObject(root, "nodes");
    int common = common_model(k);
    long groups = 0;
    for (size_t i = 0; i < k->nnodes;) {
        size_t j = i + 1;
        while (j < k->nnodes && same_group(&k->nodes[ord[i]], &k->nodes[ord[j]]))
            j++;
        cJSON_AddItemToArray(arr, group_json(k, &k->nodes[ord[i]], common, (long)(j - i), (size_t)groups++));
        i = j;
    }
    k->n->groups = groups;
    if (k->o->ntopo)
        add_topology(k, root, k->topo_sizes);
    add_tenants(k, root);
    size_t len;
    char *text = gs_json_print(root, &len);
    cJSON_Delete(root);
    if (fwrite(text, 1, len, out) != len || fflush(out) != 0)
        rc = gs_err(err, GS_EWRITE, "cannot write the cluster");
    free(text);
    return rc;
}
