/* metrics.h - the report's metrics, declared once: path, compare key, --slo
 * short name, words, unit, which way is better and where each is shown.
 * `compare` (its base rows), `plot` (the report's key metrics table),
 * `check` (the bad direction of every number it compares) and `plan` and
 * `compare --slo` (short names, implicit terms) all read metrics[].
 *
 * A row's path is a report path in which "*" stands for one segment (an
 * array index or an id: services.*.latency_s). A row flagged METRICS_STATS
 * names a statistic object (jobs.queue_s: count, mean, p50, p95, p99, max)
 * and gives the direction of every statistic in it but its count (a sample
 * size, either way); a row naming one statistic (jobs.queue_s.p99) is there
 * to be shown and states no direction of its own. The rows cover every
 * number of the report's own sections (jobs, gpu, requests, services,
 * preemption, tenants, swap, sim, derived), so a misspelled path is known
 * for one before any run; the sections a policy or the input writes
 * (policy, hardware, inputs, fill) are the report's to say. A path no row
 * covers is compared by `check` as "either way": it must not move.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_METRICS_H
#define GPUSIM_CLI_METRICS_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/gs.h"

typedef enum {
    METRICS_EITHER = 0, /* must not move: a count of inputs, an end time, GPU-hours */
    METRICS_LOWER,      /* better when lower: waits, latencies, rejections, cost */
    METRICS_HIGHER,     /* better when higher: utilization, attainment, completions */
} metrics_better;

enum {
    METRICS_COMPARE = 1, /* shown: a base row of `compare` (and `sweep collect`), under its key */
    METRICS_HTML = 2,    /* shown: a row of the key metrics table of plot's report.html */
    METRICS_STATS = 4,   /* the path is a statistic object (count, mean, p50, p95, p99, max), not a number */
    METRICS_TOKENS = 8,  /* measured only for requests with token counts (TTFT, TPOT) */
    METRICS_SERVED = 16, /* a share of the requests served (its sibling "served"): of none, absent */
};

typedef struct metrics_row {
    const char *path;  /* report path, "*" = one segment */
    const char *key;   /* compare.json row key; NULL: none */
    const char *alias; /* --slo short name (queue_p99); NULL: none */
    const char *label; /* what it is, in words */
    const char *unit;  /* s, ratio, jobs, requests, GPU-h, USD, ... */
    metrics_better better;
    unsigned flags;    /* where shown (METRICS_COMPARE, METRICS_HTML); METRICS_STATS */
} metrics_row;

/* The table, in the order compare prints its rows; ends with a NULL path. */
extern const metrics_row metrics[];

/* A number at a dotted path ("jobs.queue_s.p99", "services.0.ttft_s.p99");
 * in an array, a segment of digits is an index and any other segment the
 * element whose "id" it is ("services.chat70b.ttft_s.p99"). False if absent
 * or not a number. */
bool metrics_get(const cJSON *root, const char *path, double *v);
/* Like metrics_get, but a statistic over an empty sample is absent: a p99 or
 * mean whose sibling count is 0, a share of the requests served when none
 * was (METRICS_SERVED), was never measured (every request dropped, no job
 * started), so it cannot meet an SLO and prints as "-". */
bool metrics_measured(const cJSON *root, const char *path, double *v);

/* Which way path is better: its statistic object's row, else its own row,
 * else METRICS_EITHER; a statistic object's "count" is METRICS_EITHER. */
metrics_better metrics_direction(const char *path);
/* The row whose path matches path exactly ("*" matching any segment), or
 * NULL. O(rows). */
const metrics_row *metrics_find(const char *path);
/* The report path a --slo short name stands for, or NULL. */
const char *metrics_alias(const char *name);
/* Is path measured only for requests that carry token counts? */
bool metrics_needs_tokens(const char *path);
/* The unit of path's row (its statistic object's for a statistic), or NULL
 * when no row covers it. */
const char *metrics_unit(const char *path);

typedef enum {
    METRICS_KNOWN,   /* a row covers it (a statistic of a statistic object's row included) */
    METRICS_OPEN,    /* in a section the table does not list (inputs, policy, hardware, fill): the
                      * report itself decides */
    METRICS_UNKNOWN, /* in a listed section, but no row covers it: a misspelling */
} metrics_known_t;
/* Whether path can name a number of a report, before any run. O(rows). */
metrics_known_t metrics_known(const char *path);
/* Up to n known paths nearest to path (edit distance over the table's
 * paths, each statistic object's statistics spelled out, a "*" segment
 * taking path's own segment, the --slo short names too), nearest first.
 * Returns how many. O(rows x length^2). */
int metrics_nearest(const char *path, char (*out)[128], int n);
/* Up to n numeric paths of report nearest to path, as metrics_nearest. */
int metrics_nearest_in(const cJSON *report, const char *path, char (*out)[128], int n);
/* 0 when path can name a number (METRICS_KNOWN or METRICS_OPEN); else
 * GS_EUSAGE with "WHAT: no metric 'PATH' (nearest: A, B, C)" in err. With
 * report non-NULL, path must be a number of it (a policy's section too),
 * and the nearest names are the report's. */
int metrics_check_path(const char *what, const char *path, const cJSON *report, gs_error *err);

#endif
