/* sim_service_actuator.h - what a time policy may plug into the service
 * layer to take over how replicas come and go (dual-pod actuation,
 * policies/pol_dualpod.c; installed with svc_set_actuator, sim_service.h).
 * Its own header so that the layer's lower files (sim_service_types.h) can
 * hold one without including the layer's public face.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_SERVICE_ACTUATOR_H
#define GPUSIM_SIM_SERVICE_ACTUATOR_H

#include "sim_job.h"

typedef struct sim sim;

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

#endif
