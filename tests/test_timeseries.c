/* test_timeseries.c - the bounded timeseries (sim/sim_timeseries.c): the
 * cap holds, the kept rows stay evenly spaced at the doubled step, and a
 * whole run with a far submit time writes at most the cap.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../sim/sim_timeseries.h"
#include "check.h"
#include "testutil.h"

static void cap_holds_and_spacing_stays_even(void)
{
    FILE *f = tmpfile();
    sim_timeseries ts = {0};
    sim_ts_start(&ts, f, 10, 8, false);
    size_t most = 0;
    /* driven as the event loop drives it: rows due up to each time t */
    for (gs_time_us t = 0; t <= 10000; t += 7) {
        while (sim_ts_due(&ts, t, true)) {
            sim_ts_row r = {.alloc = (double)ts.next_us};
            sim_ts_add(&ts, &r);
        }
        if (ts.n > most)
            most = ts.n;
        CHECK(ts.n <= 8);
        for (size_t k = 0; k < ts.n; k++)
            CHECK_EQ_INT(ts.rows[k].t_us, (long long)k * ts.step_us);
    }
    CHECK_EQ_INT(most, 8);
    /* 1001 rows asked for (0..10000 at step 10), 8 at most kept: the step
     * doubled to 10 x 2^k, the first that covers 0..9996 (the last t) in
     * 8 rows: 10 x 128 = 1280 (8 x 1280 = 10240 > 9996, 8 x 640 < 9996) */
    CHECK_EQ_INT(ts.step_us, 1280);
    CHECK_EQ_INT(ts.n, 8);
    /* every row holds the value sampled at its own time */
    for (size_t k = 0; k < ts.n; k++)
        CHECK_NEAR(ts.rows[k].alloc, (double)ts.rows[k].t_us, 0, 0);
    CHECK_EQ_INT(sim_ts_write(&ts), 0);
    sim_ts_free(&ts);
    fclose(f);
}

static void odd_cap_is_made_even(void)
{
    sim_timeseries ts = {0};
    sim_ts_start(&ts, NULL, 1, 7, true);
    CHECK_EQ_INT(ts.max_rows, 6);
    sim_ts_free(&ts);
}

/* A job at 9e12 s: before the cap, one row a minute until then (1.5e11
 * rows); now the file holds at most the cap and the report says the step. */
static void far_submit_is_bounded(void)
{
    const char *trace = tu_write_tmp("id,submit,duration,gpus\na,0,10,1\nb,9000000000000,10,1\n");
    char path[1100];
    snprintf(path, sizeof path, "%s/ts.csv", tu_tmp_dir());
    FILE *ts = fopen(path, "w+");
    sim_config cfg = {.trace_path = trace, .policy = "whole", .seed = 1, .sample_us = 60 * GS_US_PER_S,
                      .ts_max_rows = 1000};
    sim_cluster cl;
    gs_error err;
    CHECK_EQ_INT(sim_cluster_from_spec(&cl, "H100-SXM5-80GB:8", 8, tu_catalog(), &err), 0);
    sim s;
    CHECK_EQ_INT(tu_sim_init(&s, &cfg, tu_catalog(), &cl, ts, &err), 0);
    CHECK_EQ_INT(sim_run(&s), 0);
    CHECK(s.ts.n <= 1000 && s.ts.n >= 500);
    CHECK((double)s.ts.step_us * 1000 >= 9e12 * 1e6 / 2); /* the rows span the run */
    fflush(ts);
    rewind(ts);
    char line[256];
    int lines = 0;
    while (fgets(line, sizeof line, ts))
        lines++;
    CHECK_EQ_INT(lines, (long long)s.ts.n + 1); /* and the header */
    fclose(ts);
    sim_free(&s);
    sim_cluster_free(&cl);
}

const test_case tests_timeseries[] = {
    {"timeseries/cap_holds_and_spacing_stays_even", cap_holds_and_spacing_stays_even},
    {"timeseries/odd_cap_is_made_even", odd_cap_is_made_even},
    {"timeseries/far_submit_is_bounded", far_submit_is_bounded},
    {NULL, NULL},
};
