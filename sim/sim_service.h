/* sim_service.h - inference services: model deployments whose replicas are
 * placed by the space policy like any task, and requests served by those
 * replicas with continuous batching, queueing, timeouts and autoscaling.
 *
 * A replica is an internal job (never counted as a trace job) with unbounded
 * work: the space policy places it, may change its progress rate (a shared
 * card slows it down) and gets it back when the service scales in. The
 * service layer owns requests; they never reach the space policy.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_SERVICE_H
#define GPUSIM_SIM_SERVICE_H

#include <cJSON.h>

#include "sim_job.h"
#include "sim_module.h"
#include "sim_policy.h"

typedef struct sim sim;
typedef struct svc_layer svc_layer;
/* The layer's parameters (--set), {NULL}-terminated. */
extern const pol_param svc_params[];
/* The layer as an engine module (sim_module.h): service and request rows,
 * replica tasks, its own events, "services" and "requests" in the report. */
extern const sim_module svc_module;
/* {==== actuation hooks ====}
 * A time policy may take over how a service's replicas come and go (dual-pod
 * actuation, policies/pol_dualpod.c). Without an actuator the layer behaves
 * exactly as before: every activation is a cold start and scale-in ends the
 * replica's task at once. Every member is optional (NULL). */

/* How a replica became ready; SVC_PATH_AWAKE: a request found one ready. */
enum svc_path { SVC_PATH_AWAKE = 0, SVC_PATH_HOT = 1, SVC_PATH_WARM = 2, SVC_PATH_COLD = 3 };

/* What an actuator may know about a service. */
typedef struct svc_desc {
    const char *id;
    double weights_gib;
    int gpus;
    gs_time_us start_us, end_us; /* declared; end GS_TIME_MAX without duration */
} svc_desc;

typedef struct svc_actuator {
    void *ud;
    /* Every service keeps at least this many replicas (always-on: 1). */
    int min_replicas;
    /* Replica task j of service svc is about to be handed to the space
     * policy: the actuator may set j->prefer_node. */
    void (*placing)(void *ud, sim *s, job *j, int svc);
    /* Task j was placed (j->node, j->gpu_ids): returns the path (enum
     * svc_path, not AWAKE) and writes in *ready_s the seconds until it
     * serves. cold_s is the layer's own cold start for this service. */
    int (*activate)(void *ud, sim *s, job *j, int svc, double cold_s, double *ready_s);
    /* The layer scales in the idle replica running on task j (ending: the
     * service reached its end). The replica already takes no requests.
     * Returns false: the layer ends j now (sim_task_end); true: the actuator
     * took j and ends it itself later (after the instance slept). */
    bool (*retire)(void *ud, sim *s, job *j, int svc, bool ending);
    /* A "first request" was served: one that arrived svc_idle_s or more after
     * the previous request to its service (or was its first). path: the
     * activation it waited for (the replica that was placing or starting
     * when it arrived, or the one its arrival started), or SVC_PATH_AWAKE
     * when a ready replica took it. latency_s: arrival to served. */
    void (*first_served)(void *ud, sim *s, int svc, int path, double latency_s);
} svc_actuator;

/* Installs the actuator (a time policy does so from init(); the layer
 * exists by then). One per run; NULL removes it. */
void svc_set_actuator(sim *s, const svc_actuator *a);
/* Services declared so far, and one's description (svc < svc_count). */
int svc_count(const sim *s);
void svc_describe(const sim *s, int svc, svc_desc *out);

#endif
