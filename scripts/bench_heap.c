/* bench_heap.c - the floor for `make bench`: a bare M/M/c simulation on a
 * binary heap keyed by (time, seq), with no trace parsing, no policy, no
 * metrics. gpusim's events/s is reported as a fraction of this loop's on the
 * same workload (same job count, servers and load).
 * Usage: bench_heap JOBS SERVERS UTIL
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct ev {
    int64_t t_us;
    uint64_t seq;
    int type;
} ev;

static ev *heap;
static size_t n;
static uint64_t seq;

static int less(const ev *a, const ev *b) { return a->t_us < b->t_us || (a->t_us == b->t_us && a->seq < b->seq); }

static void push(int64_t t, int type)
{
    ev e = {t, seq++, type};
    size_t i = n++;
    while (i && less(&e, &heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = e;
}

static ev pop(void)
{
    ev top = heap[0], last = heap[--n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && less(&heap[c + 1], &heap[c]))
            c++;
        if (!less(&heap[c], &last))
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (n)
        heap[i] = last;
    return top;
}

static uint64_t rs = 88172645463325252ULL;
static double expo(double mean)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return -mean * log(((double)(rs >> 11) + 0.5) / 9007199254740992.0);
}

int main(int argc, char **argv)
{
    long jobs = argc > 1 ? atol(argv[1]) : 1000000;
    int c = argc > 2 ? atoi(argv[2]) : 1024;
    double util = argc > 3 ? atof(argv[3]) : 0.9;
    heap = malloc((size_t)(jobs + c + 16) * sizeof *heap);
    int64_t *queue = malloc((size_t)jobs * sizeof *queue);
    size_t qh = 0, qt = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double mean_ia = 1.0 / (util * c), t_arr = 0;
    long arrived = 0, events = 0;
    int free_servers = c;
    double wait_sum = 0;
    t_arr += expo(mean_ia);
    push((int64_t)(t_arr * 1e6), 0);
    while (n) {
        ev e = pop();
        events++;
        if (e.type == 0) {
            arrived++;
            if (free_servers) {
                free_servers--;
                push(e.t_us + (int64_t)(expo(1.0) * 1e6), 1);
            } else {
                queue[qt++] = e.t_us;
            }
            if (arrived < jobs) {
                t_arr += expo(mean_ia);
                push((int64_t)(t_arr * 1e6), 0);
            }
        } else if (qh < qt) {
            wait_sum += (double)(e.t_us - queue[qh++]);
            push(e.t_us + (int64_t)(expo(1.0) * 1e6), 1);
        } else {
            free_servers++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%ld %.6f %.0f %.6f\n", events, wall, events / wall, wait_sum / 1e6 / (double)jobs);
    free(heap);
    free(queue);
    return 0;
}
