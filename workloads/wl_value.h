/* wl_value.h - the scalar formats of the Kubernetes API and Slurm's
 * accounting, read strictly (false on anything else, the caller names the
 * file and the place):
 *   time      RFC 3339 "2024-05-01T10:00:00Z" (metav1.Time; MicroTime adds
 *             ".123456"; an offset "+02:00" instead of Z), or without a
 *             zone when zone_ok is false ... as Slurm prints
 *             "2024-05-01T10:00:00" (SLURM_TIME_FORMAT unset: "%FT%T"),
 *             read as UTC: only differences are used
 *   quantity  resource.Quantity "<number><suffix>": Ki Mi Gi Ti Pi Ei, m k M
 *             G T P E, or e<N>; no sign (a request is never negative)
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_WL_VALUE_H
#define GPUSIM_WL_VALUE_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A date and time to microseconds since 1970-01-01 UTC. zone: 1 requires
 * "Z" or an offset, 0 forbids one (Slurm), -1 allows either. */
bool wl_value_time(const char *s, int zone, int64_t *us);
/* us as "YYYY-MM-DDTHH:MM:SSZ" (whole seconds) into buf (>= 21 bytes). */
void wl_value_time_format(int64_t us, char *buf, size_t n);
/* us as decimal seconds, a fraction only when there is one ("12",
 * "12.500000"): how the importers write trace times. */
void wl_value_seconds(int64_t us, char *buf, size_t n);
/* A quantity to its value in base units (cores, bytes, devices). */
bool wl_value_quantity(const char *s, double *v);
/* A quantity that is a whole number 0..2^31 (extended resources). */
bool wl_value_quantity_int(const char *s, long *v);

/* cJSON lookups by a path of object keys; NULL when any step is absent. */
const cJSON *wl_value_json_at(const cJSON *o, const char *const *path, int n);
/* The string at path, or NULL (absent or not a string). */
const char *wl_value_json_str(const cJSON *o, const char *const *path, int n);

#endif
