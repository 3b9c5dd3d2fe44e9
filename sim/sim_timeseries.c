/* sim_timeseries.c - see sim_timeseries.h.
 * SPDX-License-Identifier: MIT */
#include "sim_timeseries.h"

#include <stdlib.h>
#include <string.h>

void sim_ts_start(sim_timeseries *ts, FILE *out, gs_time_us step_us, size_t max_rows, bool frag)
{
    free(ts->rows);
    memset(ts, 0, sizeof *ts);
    ts->out = out;
    ts->step_us = step_us;
    ts->max_rows = max_rows < 2 ? 2 : max_rows & ~(size_t)1; /* even: see sim_ts_add */
    ts->frag = frag;
}

void sim_ts_add(sim_timeseries *ts, sim_ts_row *r)
{
    if (ts->n == ts->max_rows) {
        /* Rows start at time 0, one per step, and the cap is even: the
         * rows at even multiples of the step are every second one, half
         * the cap, and the row now due (cap x step) is an even multiple
         * too, so the spacing stays even with no row moved. */
        gs_time_us step2 = ts->step_us > GS_TIME_MAX / 2 ? GS_TIME_MAX : 2 * ts->step_us;
        size_t k = 0;
        for (size_t i = 0; i < ts->n; i++)
            if (ts->rows[i].t_us % step2 == 0)
                ts->rows[k++] = ts->rows[i];
        ts->n = k;
        ts->step_us = step2;
        if (ts->n == ts->max_rows) /* not reachable with rows from time 0; the cap holds all the same */
            ts->n--;
    }
    if (!ts->rows)
        ts->rows = xmalloc(ts->max_rows * sizeof *ts->rows);
    r->t_us = ts->next_us;
    ts->rows[ts->n++] = *r;
    ts->next_us = ts->next_us > GS_TIME_MAX - ts->step_us ? GS_TIME_MAX : ts->next_us + ts->step_us;
}

int sim_ts_write(sim_timeseries *ts)
{
    if (!ts->out)
        return 0;
    fprintf(ts->out, "time_s,gpus_alloc,alloc_ratio,queued,running,replicas%s%s\n", ts->frag ? ",frag_gpus" : "",
            ts->gang ? ",largest_gang" : "");
    for (size_t i = 0; i < ts->n; i++) {
        const sim_ts_row *r = &ts->rows[i];
        fprintf(ts->out, "%.6f,%.6g,%.6f,%llu,%llu,%d", gs_us_to_s(r->t_us), r->alloc, r->ratio,
                (unsigned long long)r->queued, (unsigned long long)r->running, r->replicas);
        if (ts->frag)
            fprintf(ts->out, ",%.6g", r->frag);
        if (ts->gang)
            fprintf(ts->out, ",%d", r->largest_gang);
        fputc('\n', ts->out);
    }
    return ferror(ts->out) ? GS_EWRITE : 0;
}

void sim_ts_free(sim_timeseries *ts)
{
    free(ts->rows);
    ts->rows = NULL;
    ts->n = 0;
}
