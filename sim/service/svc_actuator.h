/* svc_actuator.h - a service actuator: a policy that takes over how
 * the service layer's replicas come and go (dual-pod actuation,
 * policies/pol_dualpod.c). It is a policy record (pol_ops, sim_policy.h)
 * whose `actuator` member points to one of these: it is named in --policy
 * after the space policy like a time policy (whole+dualpod), keeps its
 * parameters, init, timers and report there, and the service layer calls
 * the hooks below with the policy's state. At most one per run.
 * Its own header so that the layer's lower files (svc_types.h) and
 * a policy can name it without the layer's public face.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SVC_ACTUATOR_H
#define GPUSIM_SVC_ACTUATOR_H

#include "../sim_job.h"

typedef struct sim sim;

/* How a replica became ready; SVC_PATH_AWAKE: a request found one ready. */
enum svc_path { SVC_PATH_AWAKE = 0, SVC_PATH_HOT = 1, SVC_PATH_WARM = 2, SVC_PATH_COLD = 3 };

/* What an actuator may know about a service (svc_describe, svc.h). */
typedef struct svc_desc {
    const char *id;
    double weights_gib;
    int gpus;
    gs_time_us start_us, end_us; /* declared; end GS_TIME_MAX without duration */
} svc_desc;

/* The hooks; state is the actuator policy's own (its pol_ops.init made it).
 * Every member is required. */
typedef struct svc_actuator_ops {
    /* Every service keeps at least this many replicas (always-on: 1); asked
     * when a service is declared. */
    int (*min_replicas)(const void *state);
    /* Replica task j of service svc is about to be handed to the space
     * policy: the actuator may set j->more->prefer_node. */
    void (*placing)(void *state, sim *s, job *j, int svc);
    /* Task j was placed (j->node, job_gpu_ids(j)): returns the path (enum
     * svc_path, not AWAKE) and writes in *ready_s the seconds until it
     * serves. cold_s is the layer's own cold start for this service. */
    int (*activate)(void *state, sim *s, job *j, int svc, double cold_s, double *ready_s);
    /* The layer scales in the idle replica running on task j (ending: the
     * service reached its end). The replica already takes no requests.
     * Returns false: the layer ends j now (sim_task_end); true: the actuator
     * took j and ends it itself later (after the instance slept). */
    bool (*retire)(void *state, sim *s, job *j, int svc, bool ending);
    /* A "first request" was served: one that arrived svc_idle_s or more after
     * the previous request to its service (or was its first). path: the
     * activation it waited for (the replica that was placing or starting
     * when it arrived, or the one its arrival started), or SVC_PATH_AWAKE
     * when a ready replica took it. latency_s: arrival to served. */
    void (*first_served)(void *state, sim *s, int svc, int path, double latency_s);
} svc_actuator_ops;

#endif
