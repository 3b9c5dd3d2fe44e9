/* svc_hw.h - what the card means for an inference service: whether its
 * replica fits (weights + a KV-cache reserve in the memory it is given), how
 * many tokens of KV cache its batch may hold, and how fast it prefills and
 * decodes there (a measured profile where one exists, else for a catalog
 * model the shape model, models/perf/perf_shape.h, else the roofline
 * scaling of the service's reference times), and which of these each card's
 * figures are (svc_hw_source). Computed once per service row
 * and once per replica placement; the batching loop only reads the result.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SVC_HW_H
#define GPUSIM_SVC_HW_H

#include "../../models/perf/perf_fit.h"
#include "../../workloads/wl_svc_rows.h"
#include "../sim.h"

typedef struct svc_shape {
    double weights_gib;
    double kv_bytes_tok;  /* KV-cache bytes per token (column, else svc_kv_kib_per_token) */
    double reserve_tok;   /* KV tokens a replica must have room for to be placed */
    double mem_util;      /* share of the memory given that weights + KV may use (vLLM's 0.9) */
    double decode_share, prefill_share; /* per-phase bandwidth shares of the roofline fallback */
    const gpu_model *ref; /* the card the stated times are measured on */
    perf_cfg model;       /* a catalog model's configuration (model.gpu unset); model.llm NULL: none */
    char profile[32];     /* the measured profile its times may come from: the row's, else the model's; "" none */
    /* owned, never NULL once svc_hw_shape succeeded (svc_hw_shape_free); on
     * the heap at their length, not at the most they may hold: a long tail
     * of services keeps one shape each */
    char *fit_models; /* '|'-separated cluster models a replica fits on ("" = none), at most 255 bytes */
    char *reason;     /* why it fits nowhere, "" when it fits somewhere, at most 199 bytes */
} svc_shape;

typedef struct svc_place {
    double prefill_x, decode_x; /* time factors on this placement (x the reference) */
    const perf_entry *prof;     /* measured times to use (then x its own factors), or NULL */
    double kv_cap_tok;          /* KV tokens the batch may hold here */
    bool shape;                 /* no profile here: iteration times from the shape model at cfg (x the factors) */
    perf_cfg cfg;
} svc_place;

/* Where a service's speed on a card comes from. */
enum svc_speed_src {
    SVC_SPEED_STATED,   /* the row's own times, on its reference card */
    SVC_SPEED_MEASURED, /* a measured profile of that card and TP */
    SVC_SPEED_MODEL,    /* the shape model, inside its validated range */
    SVC_SPEED_EXTRAP,   /* the shape model outside it, or stated times scaled to another card */
};
const char *svc_speed_name(int src);

/* The run's parameters every shape takes (svc_bytes_per_param,
 * svc_kv_reserve_tokens, svc_kv_mem_util, svc_decode_mem_bound,
 * svc_prefill_mem_bound), read by name once per run (svc_hw_params_read),
 * not once per service row. */
typedef struct svc_hw_params {
    double bpp, reserve_tok, mem_util, decode_share, prefill_share;
} svc_hw_params;
void svc_hw_params_read(const sim *s, svc_hw_params *hp);

/* The service row's shape and fit over the cluster's models under the run's
 * space policy. perf: the loaded profiles (may be NULL when the row names
 * none). model: its catalog model's configuration (NULL: none); a card that
 * cannot run it (no FP8 tensor cores) is no fit, the reason said when no
 * card fits. GS_EINPUT for a profile name no table has. */
int svc_hw_shape(sim *s, const svc_hw_params *hp, const wl_service *row, double weights_gib, double kv_kib_per_token,
                 const perf_set *perf, const perf_cfg *model, svc_shape *out, gs_error *err);
/* Where the service's speed on card m comes from (enum svc_speed_src); *why
 * the reason for SVC_SPEED_EXTRAP (static text), else NULL. */
int svc_hw_source(const svc_shape *sh, const perf_set *perf, const gpu_model *m, const char **why);
/* Frees what svc_hw_shape made; a zeroed shape is fine. */
void svc_hw_shape_free(svc_shape *sh);
/* The replica task t has just started on its placement: its speed factors,
 * profile entry and KV capacity. */
void svc_hw_place(sim *s, const svc_shape *sh, const wl_service *row, const perf_set *perf, const job *t,
                  svc_place *out);
/* The memory (MiB) a replica is given on model m under the run's space
 * policy: gpus x card memory (whole), x the row's gpumem (shared cards), x
 * the MIG profile or gpumem (MIG policies). */
double svc_hw_mem_given_mib(const sim *s, const gpu_model *m, const wl_replica_ask *ask);

#endif
