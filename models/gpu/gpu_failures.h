/* gpu_failures.h - how often a node of a GPU model is interrupted, by
 * cause, and how long each cause takes it out of service: a model file's
 * "failures" block, and a cluster node group's override of it.
 *
 * A cause is counted per GPU (a faulty GPU, its HBM) or per node (a NIC, a
 * power supply, the host's software): a node of g GPUs is interrupted at
 * g x (sum of per-GPU rates) + (sum of per-node rates) per day. A model
 * file states what was observed (GPUs, GPUs per node, days) and each
 * cause's count, so each rate is count / (GPUs x days) or count / (nodes x
 * days) and the file reads as its source's table; an override states rates
 * (per_day) directly. A model without a block takes GPU_FAIL_DEFAULT_MODEL's
 * (an assumption no other card's published figures replace).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GPU_FAILURES_H
#define GPUSIM_GPU_FAILURES_H

#include <cJSON.h>
#include <stdbool.h>

#include "../../base/gs.h"

/* The one model with published per-cause rates (Dubey et al. 2024, the
 * Llama 3 paper, section 3.3.4): the others' stand-in. */
#define GPU_FAIL_DEFAULT_MODEL "H100-SXM5-80GB"
#define GPU_FAIL_MAX_CAUSES 32

typedef struct gpu_fail_cause {
    char name[48];
    bool per_node;   /* a rate per node-day; else per GPU-day */
    double per_day;  /* interruptions per GPU-day (per node-day when per_node) */
    double repair_s; /* the node out of service after one */
} gpu_fail_cause;

typedef struct gpu_failures {
    int n;
    gpu_fail_cause cause[GPU_FAIL_MAX_CAUSES];
    double scale; /* every rate x this (an override's "scale"; 1 in a model file) */
} gpu_failures;

/* A model file's block: {"source", "observed": {"gpus", "gpus_per_node",
 * "days"}, "causes": [{"cause", "per": "gpu"|"node", "count", "repair_h"}]}.
 * 0, or -1 with the offending field's path and what it should be in
 * field/want (the caller names the file). */
int gpu_failures_parse_model(const cJSON *j, gpu_failures *out, char *field, size_t nfield, const char **want);
/* A node group's override onto base (a copy of the model's): {"scale",
 * "causes": [{"cause", "per", "per_day", "repair_h"}]}; a cause named as in
 * base replaces the figures it gives, a new name is added (then per and
 * per_day are required). 0, or -1 as above. */
int gpu_failures_parse_override(const cJSON *j, gpu_failures *base, char *field, size_t nfield, const char **want);
/* Interruptions per day of one node of `gpus` GPUs, and of cause i. */
double gpu_failures_node_per_day(const gpu_failures *f, int gpus);
double gpu_failures_cause_per_day(const gpu_failures *f, int i, int gpus);

#endif
