/* wl_k8s_types.h - private to the Kubernetes importer (wl_import_k8s.h),
 * whose files are, bottom-up:
 *   wl_value.c   RFC 3339 times, quantities, JSON lookups
 *   wl_jlist.c       a List read one item at a time
 *   wl_k8s_nodes.c   Node objects -> node records
 *   wl_k8s_cluster.c the node records and quotas -> the cluster file
 *   wl_k8s_meta.c    PriorityClass, ResourceQuota and Event Lists
 *   wl_k8s_pod.c     one Pod object -> one pod record (the mapping rules)
 *   wl_k8s_trace.c   the pod Lists -> sorted, deduplicated trace rows
 * Only these files include it.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_K8S_TYPES_H
#define GPUSIM_WL_K8S_TYPES_H

#include <stdint.h>

#include "wl_import_k8s.h"
#include "wl_jlist.h"

#define K8S_MAX_MODELS 64

/* One node as the cluster file needs it. */
typedef struct k8s_node {
    char name[256];
    char product[128];        /* GPU feature discovery's product, "-SHARED" and "-MIG-..." cut */
    int model;                /* index into wl_k8s.models, -1: no GPU */
    int cards;                /* physical GPUs */
    double cpu, mem_gib;      /* capacity; < 0 when not given */
    char mig[512];            /* the cluster file's "mig" value as JSON text, "" when none */
    char single_profile[32];  /* MIG single strategy: each nvidia.com/gpu is an instance of this */
    char topo[WL_K8S_MAX_TOPO][64];
} k8s_node;

typedef struct k8s_class {
    char name[256];
    long value;
    bool global_default, never; /* preemptionPolicy: Never */
} k8s_class;

typedef struct k8s_tenant {
    char ns[64];
    long gpus;          /* requests.nvidia.com/gpu; -1 no cap */
    double gpu_mem_gib; /* HAMi limits.nvidia.com/gpumem / 1024; < 0 no cap */
} k8s_tenant;

enum { K8S_EV_FAILED_SCHEDULING = 1, K8S_EV_PREEMPTED = 2, K8S_EV_SEEN = 4 };
typedef struct k8s_event {
    char key[80];  /* the pod's uid, or namespace/name */
    unsigned flags;
} k8s_event;

/* A pod as mapped from one snapshot's object. */
typedef struct k8s_pod {
    char uid[80], label[320], ns[64], owner[320], klass[32];
    int reason;                 /* -1: converted, else WL_K8S_SKIP_* */
    int64_t created_us, start_us, end_us; /* start < 0: never started; end < 0: running at the snapshot */
    int64_t latest_us;          /* latest timestamp in the object */
    int gpus, gpucores, gpumem_pct;
    long gpumem_mib;
    char mig[32];
    long priority;
    char gpu_model[256];
    char ref_gpu[48];           /* the model of the node it ran on (spec.nodeName): its duration's card */
    double cpu, mem_gib;
    long time_limit_s;          /* -1: none */
    bool no_spot, end_from_conditions, merged, never_preempt, clamped, failed;
    int service;                /* index into opts->services, -1: none */
} k8s_pod;

struct wl_k8s {
    const wl_k8s_opts *o;
    FILE *warn;
    wl_k8s_counts *n;
    k8s_node *nodes;
    size_t nnodes;
    size_t *by_name;            /* node indices sorted by name */
    size_t *order;              /* node indices in the cluster file's order */
    int topo_sizes[WL_K8S_MAX_TOPO];
    char models[K8S_MAX_MODELS][48];
    int nmodels;
    uint64_t all_models;        /* bit per model present on a node */
    k8s_class *classes;
    int nclasses, global_default; /* index, -1: none */
    k8s_tenant *tenants;
    int ntenants;
    k8s_event *events;          /* open addressing by key; cap a power of two */
    size_t ev_cap, ev_n;
};

/* wl_k8s_nodes.c */
int k8s_read_nodes(wl_k8s *k, gs_error *err);
const k8s_node *k8s_node_find(const wl_k8s *k, const char *name);
/* Index of the catalog model of product p among k->models, adding it;
 * -1 when p names no catalog model. */
int k8s_model_of(wl_k8s *k, const char *product);
/* wl_k8s_cluster.c: the nodes' order and their topology's sizes (an
 * irregular domain is GS_EINPUT), checked before any output. */
int k8s_topology(wl_k8s *k, gs_error *err);
/* wl_k8s_meta.c */
int k8s_read_classes(wl_k8s *k, gs_error *err);
int k8s_read_quotas(wl_k8s *k, gs_error *err);
int k8s_read_events(wl_k8s *k, gs_error *err);
k8s_event *k8s_event_find(wl_k8s *k, const char *key);
/* wl_k8s_pod.c: 0 with *p filled (p->reason says whether it converts), or
 * GS_EINPUT for an object that breaks the API's format. */
int k8s_pod_map(wl_k8s *k, wl_jlist *l, const cJSON *item, k8s_pod *p, gs_error *err);
/* A whole decimal integer in [lo, hi] from a JSON number; false if not. */
bool k8s_json_long(const cJSON *v, long lo, long hi, long *out);

#endif
