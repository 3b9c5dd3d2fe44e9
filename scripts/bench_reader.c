/* bench_reader.c - `make bench`: the trace reader alone (wl_trace_open and
 * wl_trace_next over every row, no simulation), so that a layout's reading
 * is told apart from the work its columns switch on in the engine.
 * Usage: bench_reader TRACE REPS; prints the least CPU seconds of REPS
 * whole reads and the rows read. Unknown columns are ignored.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../workloads/wl_trace.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: bench_reader TRACE REPS\n");
        return 2;
    }
    double best_s = -1;
    long rows = 0;
    for (int r = 0; r < atoi(argv[2]); r++) {
        gs_error err = {0};
        double t0_s = cpu_s();
        wl_trace *t = wl_trace_open(argv[1], &(wl_opts){.allow_extra_columns = true}, &err);
        const wl_row *row;
        int rc = t ? 0 : -1;
        rows = 0;
        while (t && (rc = wl_trace_next(t, &row, &err)) == 1)
            rows++;
        wl_trace_close(t);
        double s = cpu_s() - t0_s;
        if (rc < 0) {
            fprintf(stderr, "bench_reader: %s\n", err.msg);
            return 1;
        }
        if (best_s < 0 || s < best_s)
            best_s = s;
    }
    printf("%.6f %ld\n", best_s, rows);
    return 0;
}
