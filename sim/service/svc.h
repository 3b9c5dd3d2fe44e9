/* svc.h - inference services: model deployments whose replicas are
 * placed by the space policy like any task, and requests served by those
 * replicas with continuous batching, queueing, timeouts and autoscaling.
 *
 * A replica is an internal job (never counted as a trace job) with unbounded
 * work: the space policy places it, may change its progress rate (a shared
 * card slows it down) and gets it back when the service scales in. The
 * service layer owns requests; they never reach the space policy.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SVC_H
#define GPUSIM_SVC_H

#include <cJSON.h>

#include "../sim_job.h"
#include "../sim_module.h"
#include "../sim_policy.h"
#include "svc_actuator.h"

typedef struct sim sim;
typedef struct svc_layer svc_layer;
/* The layer's parameters (--set), {NULL}-terminated. */
extern const pol_param svc_params[];
/* The layer as an engine module (sim_module.h): service and request rows,
 * replica tasks, its own events, "services" and "requests" in the report. */
extern const sim_module svc_module;
/* {==== actuation ====}
 * A service actuator may take over how a service's replicas come and go
 * (dual-pod actuation, policies/pol_dualpod.c): a policy whose record has
 * an `actuator` (svc_actuator.h), named in --policy after the space
 * policy; the layer finds it among the run's policies. Without one every
 * activation is a cold start and scale-in ends the replica's task at once.
 * What an actuator may ask the layer: */
/* Services declared so far, and one's description (svc < svc_count). */
int svc_count(const sim *s);
void svc_describe(const sim *s, int svc, svc_desc *out);
/* The worst P99 latency (ms) of the services' latest closed scaling windows
 * (svc_scale_period_s; a service with a TTFT SLO: its TTFT), 0 when none:
 * what a pooled cluster autoscaler reads (sim_elastic.h). O(services). */
double svc_p99_ms_last(const sim *s);

#endif
