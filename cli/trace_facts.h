/* trace_facts.h - what plan, compare and run check in a trace before
 * trusting a verdict on it, from one pass of the reader: the rows that name
 * no card their durations were measured on (ref_gpu), the median job
 * duration (a trace in milliseconds reads as weeks), and each service's SLO
 * columns and whether its requests carry token counts (TTFT and TPOT need
 * them).
 *
 * Memory: O(services) plus the sampled durations (at most
 * TRACE_FACTS_SAMPLE); time: one read of the rows asked for.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_TRACE_FACTS_H
#define GPUSIM_TRACE_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/gs.h"

#define TRACE_FACTS_SAMPLE 100000 /* job durations kept for the median */
#define TRACE_FACTS_CLASSES 1025  /* class names kept: one past what a run takes (sim_class.h) */
/* a median job duration above this reads as milliseconds taken for seconds */
#define TRACE_FACTS_MS_HINT_S (7 * 86400.0)

typedef struct trace_service {
    char id[64];
    long line;        /* its service row */
    bool tokens;      /* its requests carry output_tokens (request rows, or the row's generated means) */
    bool token_slo;   /* the row states slo_ttft_ms or slo_tpot_ms */
} trace_service;

typedef struct trace_facts {
    long rows, jobs;          /* rows read; job and session rows among them */
    long no_ref;              /* job, session and service rows with no ref_gpu */
    long first_no_ref_line;   /* 0: none */
    double dur_median_s;      /* median duration of the first TRACE_FACTS_SAMPLE job rows; NAN: no job */
    long dur_sampled;
    trace_service *svc;
    int nsvc;
    /* the class column (job and session rows): whether the header has it,
     * and the classes its jobs name, in order of first appearance ("-" for
     * a job that leaves it empty, as the run's report names it); at most
     * TRACE_FACTS_CLASSES kept */
    bool has_class;
    char (*cls)[64];
    int ncls;
    bool cls_more;          /* more classes than were kept */
    unsigned char *cls_seen; /* by the reader's name number: [ncls_seen] */
    uint32_t ncls_seen;
    /* private: service ids -> index + 1, open addressing */
    int *slot;
    int nslot;
} trace_facts;

/* Reads path (the first max_rows rows; 0: all) into out. 0, or GS_EINPUT
 * (the reader's message: file, line, column); out is freed on failure. */
int trace_facts_read(const char *path, long max_rows, bool allow_extra_columns, trace_facts *out, gs_error *err);
/* trace_facts_read for the job durations alone (dur_median_s, dur_sampled):
 * the other columns left unread, read after all only where that fails. */
int trace_facts_read_durations(const char *path, long max_rows, bool allow_extra_columns, trace_facts *out,
                               gs_error *err);
void trace_facts_free(trace_facts *f);
/* The service with that id, or NULL. O(1) expected. */
const trace_service *trace_facts_service(const trace_facts *f, const char *id);
/* A metric or SLO path checked against the trace: "services.<id or
 * index>" names one of its services, "jobs.class.<name>" one of its jobs'
 * classes, and a metric measured only with token counts (TTFT, TPOT:
 * metrics_needs_tokens) is asked of services whose requests carry them. 0;
 * GS_EUSAGE (no such service or class, listing the trace's); GS_EINPUT
 * naming the service row (no token counts: the figure would never be
 * measured). */
int trace_facts_check_path(const trace_facts *f, const char *trace, const char *what, const char *path,
                           gs_error *err);
/* A service whose row states a TTFT or TPOT SLO while its requests carry no
 * token counts: GS_EINPUT naming the row (its attainment would be another
 * SLO's); else 0. */
int trace_facts_check_services(const trace_facts *f, const char *trace, gs_error *err);
/* A one-line hint when the median job duration reads as milliseconds
 * ("" otherwise) into buf. */
void trace_facts_units_hint(const trace_facts *f, const char *trace, char *buf, size_t n);

#endif
