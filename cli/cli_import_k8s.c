/* cli_import_k8s.c - `gpusim import k8s --nodes NODES.json --pods PODS.json`:
 * a Kubernetes cluster's own snapshot to a cluster file and a trace (see
 * workloads/wl_import_k8s.h; the mapping in workloads/README.md,
 * "Kubernetes").
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../workloads/wl_import_k8s.h"
#include "../workloads/wl_value.h"
#include "cli.h"
#include "import_gpu.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import k8s --nodes NODES.json --pods PODS.json [--pods LATER.json ...]\n"
            "                         [--events EVENTS.json ...] [--priority-classes PC.json] [--quotas RQ.json]\n"
            "                         [--topology-label BLOCK_LABEL] [--topology-label RACK_LABEL]\n"
            "                         [--topology-bw-gbps BLOCK,RACK] [--service NS/DEPLOYMENT[=KEY=VALUE,...] ...]\n"
            "                         [--gpu-product PRODUCT=MODEL ...] [--cpu-pods] [--sort-lines N]\n"
            "                         [--out-trace T.csv] [--out-cluster C.json]\n"
            "\n"
            "  The JSON of `kubectl get nodes -o json` -> a cluster file: GPU model from the label\n"
            "  nvidia.com/gpu.product (GPU feature discovery), cards from nvidia.com/gpu.count or the capacity,\n"
            "  MIG layouts from nvidia.com/mig-<profile> (mixed strategy) or the product (single), CPU and memory\n"
            "  from status.capacity, racks (and blocks) from the --topology-label labels, widest first, with\n"
            "  their bandwidths;\n"
            "  ResourceQuotas (requests.nvidia.com/gpu, HAMi's limits.nvidia.com/gpumem) as tenant quotas.\n"
            "  `kubectl get pods -A -o json` (snapshots, oldest first) -> one row per pod: nvidia.com/gpu, HAMi's\n"
            "  gpumem, gpumem-percentage and gpucores, MIG resources, CPU and memory requests, priority (spec or\n"
            "  PriorityClass), namespace as tenant, submit = creation, observed_start = status.startTime,\n"
            "  duration to the last container's finishedAt (running pods: to the snapshot, class ':running'),\n"
            "  the owner's kind as class. A --service Deployment becomes one service row with those columns\n"
            "  (%s...). Pods not converted are counted by reason.\n",
            wl_k8s_service_keys[0]);
}

typedef struct k8s_cli {
    wl_k8s_opts o;
    wl_k8s_service services[16];
    import_gpu gpus;
    const char *out_cluster;
    int nsvc, nbw;
} k8s_cli;

static bool add_file(const char *opt, const char **list, int *n, const char *v)
{
    if (!*v || *n == WL_K8S_MAX_FILES) {
        fprintf(stderr, "gpusim: error: %s: expected a file name (at most %d)\n", opt, WL_K8S_MAX_FILES);
        return false;
    }
    list[(*n)++] = v;
    return true;
}

static bool pods_opt(const char *opt, const char *v, void *p)
{
    k8s_cli *c = p;
    return add_file(opt, c->o.pods, &c->o.npods, v);
}

static bool events_opt(const char *opt, const char *v, void *p)
{
    k8s_cli *c = p;
    return add_file(opt, c->o.events, &c->o.nevents, v);
}

static bool topo_opt(const char *opt, const char *v, void *p)
{
    k8s_cli *c = p;
    if (!*v || strlen(v) > 63 || strpbrk(v, ",\"") || c->o.ntopo == WL_K8S_MAX_TOPO) {
        fprintf(stderr, "gpusim: error: %s: expected a node label key, at most %d (block, then rack)\n", opt,
                WL_K8S_MAX_TOPO);
        return false;
    }
    c->o.topo[c->o.ntopo++] = v;
    return true;
}

/* --topology-bw-gbps B[,R]: one per-GPU bandwidth per --topology-label. */
static bool topo_bw_opt(const char *opt, const char *v, void *p)
{
    k8s_cli *c = p;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", v);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma = 0;
    c->nbw = 0;
    if (!cli_opt_num(opt, buf, 1e-6, 1e6, &c->o.topo_bw_gbps[c->nbw++]) ||
        (comma && !cli_opt_num(opt, comma + 1, 1e-6, 1e6, &c->o.topo_bw_gbps[c->nbw++])))
        return false;
    return true;
}

static bool product_opt(const char *opt, const char *v, void *p)
{
    k8s_cli *c = p;
    char why[1200];
    if (!import_gpu_map(&c->gpus, v, why, sizeof why)) {
        fprintf(stderr, "gpusim: error: %s: %s\n", opt, why);
        return false;
    }
    return true;
}

/* One KEY=VALUE of a --service: a known service column and a value the
 * trace can hold unquoted. */
static bool service_column(const char *opt, wl_k8s_service *s, char *kv)
{
    char *eq = strchr(kv, '=');
    bool known = false;
    if (eq)
        *eq = 0;
    for (int i = 0; eq && wl_k8s_service_keys[i]; i++)
        known = known || !strcmp(kv, wl_k8s_service_keys[i]);
    if (!known || !eq[1] || strlen(eq + 1) >= sizeof s->columns[0][1] || strpbrk(eq + 1, "\"\n") ||
        s->ncolumns == 16) {
        fprintf(stderr, "gpusim: error: %s: '%s%s%s': expected KEY=VALUE with KEY one of", opt, kv, eq ? "=" : "",
                eq ? eq + 1 : "");
        for (int i = 0; wl_k8s_service_keys[i]; i++)
            fprintf(stderr, " %s", wl_k8s_service_keys[i]);
        fputc('\n', stderr);
        return false;
    }
    snprintf(s->columns[s->ncolumns][0], sizeof s->columns[0][0], "%s", kv);
    snprintf(s->columns[s->ncolumns++][1], sizeof s->columns[0][1], "%s", eq + 1);
    return true;
}

/* --service NAMESPACE/DEPLOYMENT[=KEY=VALUE,KEY=VALUE...] */
static bool service_opt(const char *opt, const char *v, void *p)
{
    k8s_cli *c = p;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", v);
    char *eq = strchr(buf, '=');
    if (eq)
        *eq = 0;
    const char *slash = strchr(buf, '/');
    if (c->nsvc == 16 || !slash || slash == buf || !slash[1] || strpbrk(buf, ",\" ") ||
        strlen(buf) >= sizeof c->services[0].ns_name) {
        fprintf(stderr, "gpusim: error: %s: expected NAMESPACE/DEPLOYMENT[=KEY=VALUE,...] (at most 16), found '%s'\n",
                opt, v);
        return false;
    }
    wl_k8s_service *s = &c->services[c->nsvc];
    memset(s, 0, sizeof *s);
    snprintf(s->ns_name, sizeof s->ns_name, "%.*s", (int)(sizeof s->ns_name - 1), buf);
    char *save = NULL;
    for (char *kv = eq ? strtok_r(eq + 1, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save))
        if (!service_column(opt, s, kv))
            return false;
    c->nsvc++;
    return true;
}

typedef struct k8s_job {
    wl_k8s *k;
    int (*write)(wl_k8s *, FILE *, gs_error *);
} k8s_job;

static int emit(FILE *out, void *ud, gs_error *err)
{
    k8s_job *j = ud;
    return j->write(j->k, out, err);
}

static void print_nodes(const wl_k8s_counts *n, const char *out_cluster)
{
    fprintf(stderr, "import k8s: %ld nodes read: %ld with GPUs (%ld GPUs; %ld shared by time-slicing or HAMi, %ld "
                    "MIG-enabled), %ld CPU-only, %ld cordoned, %ld control-plane left out; %ld tenant quotas (%ld "
                    "quota keys not modeled)%s%s\n", n->nodes_in, n->nodes_gpu, n->gpus, n->nodes_shared,
            n->nodes_mig, n->nodes_cpu_only, n->nodes_cordoned, n->nodes_control_plane, n->tenants,
            n->quota_keys_ignored, out_cluster ? ", written to " : "", out_cluster ? out_cluster : "");
}

static void print_pods(const wl_k8s_opts *o, const wl_k8s_counts *n, const char *out_trace)
{
    fprintf(stderr, "import k8s: %ld pod objects in %d snapshot(s), %ld copies of a pod in a later snapshot: %ld pods, "
                    "%ld converted (%ld running at their snapshot: duration to it, class ':running'; %ld Failed), "
                    "%ld replicas of %ld services (%ld --service with no pod), %ld skipped%s%s\n", n->pods_in,
            o->npods, n->duplicates, n->pods, n->converted, n->running, n->failed, n->replicas, n->services,
            n->services_unmatched, n->skipped,
            out_trace ? ", written to " : "", out_trace ? out_trace : "");
    for (int i = 0; i < WL_K8S_NREASONS; i++)
        if (n->skipped_by[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n->skipped_by[i], wl_k8s_reason[i]);
    char t0[32], ts[32];
    wl_value_time_format(n->origin_us, t0, sizeof t0);
    fprintf(stderr, "  trace time 0 = %s (the first converted pod's creation); snapshots at or after:", t0);
    for (int i = 0; i < o->npods; i++) {
        wl_value_time_format(n->snapshot_us[i], ts, sizeof ts);
        fprintf(stderr, " %s", ts);
    }
    fprintf(stderr, "\n  end from the pod's conditions (no container end time): %ld; GPU containers merged: %ld; "
                    "clocks disagreeing (start before creation or end before start): %ld\n", n->end_from_conditions,
            n->merged_containers, n->clock_skew);
    fprintf(stderr, "  not modeled: preemptionPolicy Never on %ld pods; priorities beyond 2e9 clamped: %ld\n",
            n->preempt_never, n->priority_clamped);
    if (o->nevents)
        fprintf(stderr, "  events: %ld read; %ld converted pods had FailedScheduling, %ld Preempted; %ld pods named "
                        "by events are in no snapshot (deleted before it: not replayed)\n", n->events_in,
                n->waited_events, n->preempted_events, n->event_pods_missing);
}

int cli_import_k8s(int argc, char **argv)
{
    k8s_cli c;
    memset(&c, 0, sizeof c);
    c.o.sort_lines = 65536;
    const cli_iopt opts[] = {
        {"nodes", CLI_IOPT_PATH, 0, 0, 0, &c.o.nodes, NULL, NULL},
        {"pods", CLI_IOPT_FN, 0, 0, 0, &c, NULL, pods_opt},
        {"events", CLI_IOPT_FN, 0, 0, 0, &c, NULL, events_opt},
        {"priority-classes", CLI_IOPT_PATH, 0, 0, 0, &c.o.priority_classes, NULL, NULL},
        {"quotas", CLI_IOPT_PATH, 0, 0, 0, &c.o.quotas, NULL, NULL},
        {"topology-label", CLI_IOPT_FN, 0, 0, 0, &c, NULL, topo_opt},
        {"topology-bw-gbps", CLI_IOPT_FN, 0, 0, 0, &c, NULL, topo_bw_opt},
        {"service", CLI_IOPT_FN, 0, 0, 0, &c, NULL, service_opt},
        {"gpu-product", CLI_IOPT_FN, 0, 0, 0, &c, NULL, product_opt},
        {"cpu-pods", CLI_IOPT_FLAG, 0, 0, 0, &c.o.cpu_pods, NULL, NULL},
        {"sort-lines", CLI_IOPT_SIZE, 1, 1e8, 0, &c.o.sort_lines, NULL, NULL},
        {"out-cluster", CLI_IOPT_PATH, 0, 0, 0, &c.out_cluster, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    gpu_catalog cat;
    gs_error err = {0};
    if (import_gpu_load(&c.gpus, &cat, &err))
        return cli_fail(&err);
    const char *in, *out_trace;
    int rc = cli_import_args(argc, argv, "k8s", NULL, opts, usage, &in, &out_trace);
    if (rc < 0 && (!c.o.nodes || !c.o.npods)) {
        fprintf(stderr, "gpusim: error: import k8s: give --nodes NODES.json and --pods PODS.json\n");
        rc = 2;
    }
    if (rc < 0 && c.nbw != c.o.ntopo) {
        fprintf(stderr, "gpusim: error: import k8s: --topology-bw-gbps gives %d bandwidths for %d --topology-label "
                        "levels (one per level, widest first, GB/s per GPU)\n", c.nbw, c.o.ntopo);
        rc = 2;
    }
    wl_gpu_names names = import_gpu_names(&c.gpus);
    c.o.names = &names;
    c.o.services = c.services;
    c.o.nservices = c.nsvc;
    wl_k8s_counts n;
    wl_k8s *k = rc < 0 ? wl_k8s_new(&c.o, stderr, &n, &err) : NULL;
    if (rc < 0 && !k)
        rc = cli_fail(&err);
    if (rc < 0) {
        k8s_job cl = {k, wl_k8s_write_cluster}, tr = {k, wl_k8s_write_trace};
        /* the trace first: the cluster was checked whole already, so only a
         * write can fail after it */
        int e = cli_emit(out_trace, emit, &tr, &err);
        if (e == 0 && c.out_cluster)
            e = cli_emit(c.out_cluster, emit, &cl, &err);
        rc = e ? cli_fail(&err) : 0;
        if (rc == 0) {
            print_nodes(&n, c.out_cluster);
            print_pods(&c.o, &n, out_trace);
        }
    }
    wl_k8s_free(k);
    gpu_catalog_free(&cat);
    return rc;
}
