/* wl_import_k8s.h - a Kubernetes cluster's own snapshot to a cluster file
 * and a trace: `kubectl get nodes -o json`, `kubectl get pods -A -o json`
 * (one or more snapshots), and optionally PriorityClass, ResourceQuota and
 * Event Lists. The mapping, rule by rule, is in workloads/README.md
 * ("Kubernetes").
 *
 * Memory: the node, PriorityClass, ResourceQuota and Event Lists are held
 * as small records (O(nodes + classes + quotas + events)); the pod Lists
 * stream one object at a time (wl_jlist.h) into an external merge sort
 * (wl_sort_runs.h), so a snapshot of millions of pods takes O(sort_lines).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_IMPORT_K8S_H
#define GPUSIM_WL_IMPORT_K8S_H

#include <stdio.h>

#include "../base/gs.h"
#include "wl_gpu_names.h"

/* Reasons a pod is not converted (each counted; each but NO_GPU and
 * DAEMONSET also warned about, naming file, item and pod). */
enum {
    WL_K8S_SKIP_NO_GPU = 0,   /* asks for no GPU (kept with cpu_pods) */
    WL_K8S_SKIP_DAEMONSET,    /* a DaemonSet's pod: one per node, bound to it */
    WL_K8S_SKIP_PENDING,      /* not started by the last snapshot (no status.startTime) */
    WL_K8S_SKIP_NO_END,       /* Succeeded or Failed with no container end and no condition time */
    WL_K8S_SKIP_PHASE,        /* phase Unknown (its node lost) */
    WL_K8S_SKIP_MIXED,        /* whole GPUs beside MIG devices, or two MIG profiles */
    WL_K8S_SKIP_SHAPES,       /* GPU containers ask for different per-GPU shares */
    WL_K8S_SKIP_TOO_MANY,     /* more than 64 GPUs in one pod (one node's most) */
    WL_K8S_SKIP_CORES,        /* nvidia.com/gpucores above 100: fits no card */
    WL_K8S_SKIP_MODEL,        /* its GPU product constraint names no GPU of the node list */
    WL_K8S_SKIP_PRIORITY,     /* priorityClassName not among the PriorityClass objects, no spec.priority */
    WL_K8S_NREASONS
};
extern const char *const wl_k8s_reason[WL_K8S_NREASONS];

#define WL_K8S_MAX_FILES 64
#define WL_K8S_MAX_TOPO 2 /* the cluster file's levels: block and rack, or rack */

/* `--service NAMESPACE/DEPLOYMENT=KEY=VALUE,...`: that Deployment's pods
 * become one service row; columns are written after the derived ones. */
typedef struct wl_k8s_service {
    char ns_name[320];           /* namespace/deployment */
    char columns[16][2][64];     /* key, value; keys among wl_k8s_service_keys */
    int ncolumns;
} wl_k8s_service;
/* The service columns a --service may set (NULL-ended). */
extern const char *const wl_k8s_service_keys[];

typedef struct wl_k8s_opts {
    const char *nodes;                     /* Node List */
    const char *pods[WL_K8S_MAX_FILES];    /* Pod Lists, oldest snapshot first */
    int npods;
    const char *events[WL_K8S_MAX_FILES];  /* Event Lists (may be none) */
    int nevents;
    const char *priority_classes, *quotas; /* PriorityClass and ResourceQuota Lists, or NULL */
    const char *topo[WL_K8S_MAX_TOPO];     /* node labels naming topology domains, widest first */
    double topo_bw_gbps[WL_K8S_MAX_TOPO];  /* per level: the per-GPU bandwidth of a ring across its domains */
    int ntopo;
    const wl_k8s_service *services;
    int nservices;
    bool cpu_pods;                         /* convert pods that ask for no GPU */
    size_t sort_lines;                     /* pods sorted in memory at once */
    const wl_gpu_names *names;
} wl_k8s_opts;

typedef struct wl_k8s_counts {
    long nodes_in, nodes_gpu, nodes_cpu_only, nodes_control_plane, nodes_shared, nodes_mig, nodes_cordoned;
    long gpus, groups, tenants, quota_keys_ignored;
    long classes, events_in, event_pods_missing; /* event pods in no snapshot */
    long pods_in, duplicates, pods, converted, running, failed, end_from_conditions, merged_containers;
    long replicas, services, services_unmatched, priority_clamped, preempt_never, waited_events, preempted_events, clock_skew;
    long skipped, skipped_by[WL_K8S_NREASONS];
    int64_t origin_us;                     /* trace time 0 (the earliest converted creation) */
    int64_t snapshot_us[WL_K8S_MAX_FILES]; /* each pod List's latest timestamp */
    int runs;                              /* sorted runs spilled */
} wl_k8s_counts;

typedef struct wl_k8s wl_k8s;

/* Reads the node List and the small Lists (classes, quotas, events),
 * checks every object; NULL with err (GS_EINPUT naming file, line, column,
 * item and what was expected). warn (may be NULL) gets one line per node
 * or object set aside. */
wl_k8s *wl_k8s_new(const wl_k8s_opts *o, FILE *warn, wl_k8s_counts *n, gs_error *err);
/* The cluster file: node groups (runs of identical nodes, in topology
 * order when labels are given), ResourceQuotas as tenants. */
int wl_k8s_write_cluster(wl_k8s *k, FILE *out, gs_error *err);
/* The trace, sorted by submit. 0, GS_EINPUT or GS_EWRITE. */
int wl_k8s_write_trace(wl_k8s *k, FILE *out, gs_error *err);
void wl_k8s_free(wl_k8s *k);

#endif
