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

#include "../policies/policy.h"
#include "sim_job.h"

typedef struct sim sim;
typedef struct svc_layer svc_layer;

/* Core parameters of the service layer (--set), {NULL}-terminated. */
extern const pol_param svc_params[];

/* Reads the svc_* parameters; 0 or GS_EUSAGE. */
int svc_layer_new(sim *s, svc_layer **out, gs_error *err);
void svc_layer_free(svc_layer *L);
/* A `service` row arrived: declare the service, start its initial replicas.
 * A `request` row arrived: route it. GS_EINPUT for a request to an unknown
 * service or a bad service row. */
int svc_on_row(sim *s, const wl_row *row);
/* Whether a popped service event still matters (stale ones are dropped
 * before the clock moves, like stale job events). */
bool svc_event_live(sim *s, uint32_t slot, uint32_t gen, uint32_t aux);
/* A service event (EV_SVC) fired. */
void svc_on_event(sim *s, uint32_t slot, uint32_t gen, uint32_t aux);
/* Hooks from the core for replica tasks (j->owner set). */
void svc_task_started(sim *s, job *j);
void svc_task_rate_changed(sim *s, job *j);
void svc_task_rejected(sim *s, job *j);
/* The replica's task was killed (its card ran out of memory): the requests
 * it held are dropped and counted, and a replacement starts if the service
 * is below its minimum. */
void svc_task_lost(sim *s, job *j);
/* Replicas ready or starting (for the timeseries). */
int svc_replicas(const svc_layer *L);
/* Trace rows consumed by the layer (service + request rows). */
uint64_t svc_rows(const svc_layer *L);
/* Adds "services" (per service and overall) and "requests" to the report. */
void svc_report(const svc_layer *L, const sim *s, cJSON *root);

#endif
