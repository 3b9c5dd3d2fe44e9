/* metrics.h - the report's metrics, declared once: path, compare key, --slo
 * short name, words, unit, which way is better and where each is shown.
 * `compare` (its base rows), `plot` (the report's key metrics table),
 * `check` (the bad direction of every number it compares) and `plan` and
 * `compare --slo` (short names, implicit terms) all read metrics[].
 *
 * A row's path is a report path in which "*" stands for one segment (an
 * array index or an id: services.*.latency_s). A row whose path names a
 * statistic object (jobs.queue_s: count, mean, p50, p95, p99, max) gives the
 * direction of every statistic in it but its count (a sample size, either
 * way); a row naming one statistic (jobs.queue_s.p99) is there to be shown
 * and states no direction of its own. A path no row covers is compared by
 * `check` as "either way": it must not move.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_METRICS_H
#define GPUSIM_CLI_METRICS_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum {
    METRICS_EITHER = 0, /* must not move: a count of inputs, an end time, GPU-hours */
    METRICS_LOWER,      /* better when lower: waits, latencies, rejections, cost */
    METRICS_HIGHER,     /* better when higher: utilization, attainment, completions */
} metrics_better;

enum {
    METRICS_COMPARE = 1, /* a base row of `compare` (and `sweep collect`), under its key */
    METRICS_HTML = 2,    /* a row of the key metrics table of plot's report.html */
};

typedef struct metrics_row {
    const char *path;  /* report path, "*" = one segment */
    const char *key;   /* compare.json row key; NULL: none */
    const char *alias; /* --slo short name (queue_p99); NULL: none */
    const char *label; /* what it is, in words */
    const char *unit;  /* s, ratio, jobs, requests, GPU-h, USD, ... */
    metrics_better better;
    unsigned shown;    /* METRICS_COMPARE | METRICS_HTML */
} metrics_row;

/* The table, in the order compare prints its rows; ends with a NULL path. */
extern const metrics_row metrics[];

/* A number at a dotted path ("jobs.queue_s.p99", "services.0.ttft_s.p99");
 * a segment of digits indexes an array. False if absent or not a number. */
bool metrics_get(const cJSON *root, const char *path, double *v);
/* Like metrics_get, but a statistic over an empty sample is absent: a p99 or
 * mean whose sibling count is 0 was never measured (every request dropped,
 * no job started), so it cannot meet an SLO and prints as "-". */
bool metrics_measured(const cJSON *root, const char *path, double *v);

/* Which way path is better: its statistic object's row, else its own row,
 * else METRICS_EITHER; a "count" leaf is always METRICS_EITHER. */
metrics_better metrics_direction(const char *path);
/* The row whose path matches path exactly ("*" matching any segment), or
 * NULL. O(rows). */
const metrics_row *metrics_find(const char *path);
/* The report path a --slo short name stands for, or NULL. */
const char *metrics_alias(const char *name);

#endif
