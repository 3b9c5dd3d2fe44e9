/* sim_timeseries.h - the timeseries CSV, bounded.
 *
 * One row per step of simulated time is only bounded by the trace: a job
 * submitted at 9e12 s, or a step of a microsecond, would write rows until
 * the disk fills. So the series holds at most SIM_TS_MAX_ROWS rows: when a
 * new row would pass the cap, every second row is dropped (those kept are
 * the multiples of twice the step, so the spacing stays even) and the step
 * doubles. The file never holds more than the cap, and the report says the
 * step in force at the end (sim.timeseries_step_s) and the rows written.
 * Rows are kept in memory (about 64 bytes each) and written, header first,
 * when the run ends: a column the run turns out to need (largest_gang, once
 * a job across nodes arrived) is then in the header and every row.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_TIMESERIES_H
#define GPUSIM_SIM_TIMESERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/gs.h"

#define SIM_TS_MAX_ROWS 100000

typedef struct sim_ts_row {
    gs_time_us t_us;
    double alloc, ratio, frag;
    uint64_t queued, running;
    int replicas;
    int largest_gang; /* the most GPUs one new job could get (sim_gang_largest) */
} sim_ts_row;

typedef struct sim_timeseries {
    FILE *out;           /* NULL: no timeseries */
    bool frag;           /* the policy measures fragmentation: one more column */
    bool gang;           /* a job across nodes arrived: largest_gang is written (sim_ts_write) */
    gs_time_us step_us;  /* in force now (the requested step, doubled at each cap) */
    gs_time_us next_us;  /* time of the next row */
    sim_ts_row *rows;
    size_t n, max_rows;
} sim_timeseries;

/* Starts a series to out with the given step and cap (SIM_TS_MAX_ROWS
 * outside tests). */
void sim_ts_start(sim_timeseries *ts, FILE *out, gs_time_us step_us, size_t max_rows, bool frag);
/* Is a row due before t (or at t, when inclusive)? */
static inline bool sim_ts_due(const sim_timeseries *ts, gs_time_us t, bool inclusive)
{
    return ts->out && ts->step_us > 0 && (ts->next_us < t || (inclusive && ts->next_us == t));
}
/* Adds the row for time ts->next_us (r->t_us is set here) and moves on. */
void sim_ts_add(sim_timeseries *ts, sim_ts_row *r);
/* Writes the header and the rows to out. Returns 0 or GS_EWRITE. */
int sim_ts_write(sim_timeseries *ts);
void sim_ts_free(sim_timeseries *ts);

#endif
