/* metrics.c - see metrics.h.
 * SPDX-License-Identifier: MIT */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#define C METRICS_COMPARE
#define H METRICS_HTML
#define LO METRICS_LOWER
#define HI METRICS_HIGHER
#define EI METRICS_EITHER

/* {path, compare key, --slo alias, words, unit, better, shown}. The rows
 * shown by compare come first, in the order a planner reads them; a
 * statistic's row under its object's row (jobs.queue_s.p99 under
 * jobs.queue_s) leaves the direction to the object's (metrics.h). */
const metrics_row metrics[] = {
    {"gpu.alloc_ratio", "utilization", "utilization", "GPU-time allocated / capacity", "ratio", HI, C | H},
    {"gpu.busy_ratio", "busy_ratio", "busy_ratio", "GPU-time busy / capacity (sharing policies)", "ratio", HI, C | H},
    {"jobs.queue_s", NULL, NULL, "job wait from arrival to start", "s", LO, 0},
    {"jobs.queue_s.mean", NULL, "queue_mean", "job wait, mean", "s", EI, H},
    {"jobs.queue_s.p50", "queue_p50_s", "queue_p50", "job wait, median", "s", EI, C | H},
    {"jobs.queue_s.p99", "queue_p99_s", "queue_p99", "job wait, 99th percentile", "s", EI, C | H},
    {"jobs.jct_s", NULL, NULL, "job completion time, arrival to end", "s", LO, 0},
    {"jobs.jct_s.p50", NULL, NULL, "job completion time, median", "s", EI, H},
    {"jobs.jct_s.p99", "jct_p99_s", "jct_p99", "job completion time, 99th percentile", "s", EI, C | H},
    {"requests.latency_s", NULL, NULL, "request latency, all services", "s", LO, 0},
    {"requests.latency_s.p50", NULL, NULL, "request latency, median", "s", EI, H},
    {"requests.latency_s.p99", "latency_p99_s", "latency_p99", "request latency, 99th percentile", "s", EI, C | H},
    {"requests.ttft_s", NULL, NULL, "time to first token, all services", "s", LO, 0},
    {"requests.ttft_s.p99", "ttft_p99_s", "ttft_p99", "time to first token, 99th percentile", "s", EI, C | H},
    {"requests.tpot_s", NULL, NULL, "time per output token, all services", "s", LO, 0},
    {"requests.slo_attainment", "slo_attainment", "slo_attainment", "requests served within their SLO / arrived",
     "ratio", HI, C | H},
    {"jobs.slowdown", NULL, NULL, "job completion time / its run time alone", "ratio", LO, 0},
    {"jobs.slowdown.mean", "slowdown_mean", NULL, "job slowdown, mean", "ratio", EI, C | H},
    {"jobs.arrived", NULL, NULL, "jobs in the trace that arrived", "jobs", EI, H},
    {"jobs.completed", "completed", NULL, "jobs completed", "jobs", HI, C | H},
    {"jobs.rejected", "rejected", NULL, "jobs that could never be placed on this cluster", "jobs", LO, C | H},
    {"jobs.failed", "failed", NULL, "jobs killed before completing (OOM under sharing, timed out)", "jobs", LO, C},
    {"jobs.suspended", "suspended", NULL, "jobs stopped with work left at the end", "jobs", LO, C},
    {"derived.requests_dropped", "dropped_requests", NULL,
     "inference requests dropped (queue full, timeout, service end, fits no card)", "requests", LO, C},
    {"gpu.gpu_hours", "gpu_hours", NULL, "GPU-hours allocated", "GPU-h", EI, C | H},
    /* the cluster as configured is paid for the whole window, however soon a policy drains */
    {"derived.cost_per_day_usd", "cost_per_day_usd", NULL, "the cluster's cost per day", "USD", LO, C},
    {"derived.cost_per_completed_job_usd", "cost_per_completed_job_usd", NULL,
     "cost of the cards jobs held / jobs completed", "USD", LO, C},
    {"derived.cost_per_million_requests_usd", "cost_per_million_requests_usd", NULL,
     "cost of the cards services held / requests served x 1e6", "USD", LO, C},
    {"derived.cost_usd", NULL, "cost_usd", "the cluster's cost to the end of the run", "USD", LO, H},
    {"derived.replicas_unplaceable", NULL, NULL,
     "service replicas that could not be placed, and services whose replica fits no card", "replicas", LO, 0},

    /* {==== jobs ====} */
    {"jobs.mean_queued", NULL, NULL, "jobs waiting, time-weighted mean", "jobs", LO, H},
    {"jobs.peak_queued", NULL, NULL, "jobs waiting, most at once", "jobs", LO, H},
    {"jobs.queued", NULL, NULL, "jobs waiting at the end", "jobs", LO, 0},
    {"jobs.oom_killed", NULL, NULL, "jobs killed out of memory", "jobs", LO, 0},
    {"jobs.failed_by_cause.*", NULL, NULL, "jobs killed, by cause", "jobs", LO, 0},
    {"jobs.rejected_reasons.*", NULL, NULL, "jobs rejected, by reason", "jobs", LO, 0},
    {"jobs.by_priority.*.queue_s", NULL, NULL, "job wait of one priority", "s", LO, 0},
    {"jobs.by_priority.*.jct_s", NULL, NULL, "job completion time of one priority", "s", LO, 0},
    {"gpu.count", NULL, NULL, "GPUs in the cluster", "GPUs", EI, H},
    {"gpu.mem_alloc_ratio", NULL, NULL, "GPU memory allocated / capacity", "ratio", HI, 0},

    /* {==== requests and services ====} */
    {"requests.arrived", NULL, NULL, "inference requests that arrived", "requests", EI, H},
    {"requests.served", NULL, NULL, "inference requests served", "requests", HI, H},
    {"requests.queued", NULL, NULL, "requests waiting at the end", "requests", LO, 0},
    {"requests.dropped_queue_full", NULL, NULL, "requests dropped: queue full", "requests", LO, 0},
    {"requests.dropped_timeout", NULL, NULL, "requests dropped: waited past the timeout", "requests", LO, 0},
    {"requests.dropped_after_end", NULL, NULL, "requests dropped: the service ended", "requests", LO, 0},
    {"requests.dropped_replica_lost", NULL, NULL, "requests dropped: their replica was lost", "requests", LO, 0},
    {"requests.dropped_unplaceable", NULL, NULL, "requests dropped: the service fits no card", "requests", LO, 0},
    {"services.*.latency_s", NULL, NULL, "request latency of one service", "s", LO, 0},
    {"services.*.latency_cdf_s", NULL, NULL, "request latency of one service, quantiles", "s", LO, 0},
    {"services.*.ttft_s", NULL, NULL, "time to first token of one service", "s", LO, 0},
    {"services.*.ttft_cdf_s", NULL, NULL, "time to first token of one service, quantiles", "s", LO, 0},
    {"services.*.tpot_cdf_s", NULL, NULL, "time per output token of one service, quantiles", "s", LO, 0},
    {"services.*.tpot_s", NULL, NULL, "time per output token of one service", "s", LO, 0},
    {"services.*.slo_attainment", NULL, NULL, "requests of one service within its SLO", "ratio", HI, 0},
    {"services.*.slo_attainment_ttft", NULL, NULL, "requests of one service within its TTFT SLO", "ratio", HI, 0},
    {"services.*.slo_attainment_tpot", NULL, NULL, "requests of one service within its TPOT SLO", "ratio", HI, 0},
    {"services.*.served", NULL, NULL, "requests of one service served", "requests", HI, 0},
    {"services.*.queued", NULL, NULL, "requests of one service waiting at the end", "requests", LO, 0},
    {"services.*.dropped_queue_full", NULL, NULL, "requests of one service dropped: queue full", "requests", LO, 0},
    {"services.*.dropped_timeout", NULL, NULL, "requests of one service dropped: timeout", "requests", LO, 0},
    {"services.*.dropped_after_end", NULL, NULL, "requests of one service dropped: service end", "requests", LO, 0},
    {"services.*.dropped_replica_lost", NULL, NULL, "requests of one service dropped: replica lost", "requests", LO,
     0},
    {"services.*.dropped_unplaceable", NULL, NULL, "requests of one service dropped: fits no card", "requests", LO,
     0},

    /* {==== preemption, quotas, swap ====} */
    {"preemption.decisions", NULL, NULL, "preemption decisions", "decisions", LO, 0},
    {"preemption.preemptions", NULL, NULL, "jobs preempted", "jobs", LO, 0},
    {"preemption.preemptor_misses", NULL, NULL, "preemptors that did not start at once", "jobs", LO, 0},
    {"preemption.preemptor_wait_s", NULL, NULL, "preemptor wait for its victims", "s", LO, 0},
    {"preemption.restarts_from_scratch", NULL, NULL, "victims restarted with no checkpoint", "jobs", LO, 0},
    {"preemption.lost_gpu_hours", NULL, NULL, "GPU-hours of work lost by preemption", "GPU-h", LO, 0},
    {"preemption.eviction_hold_gpu_hours", NULL, NULL, "GPU-hours held by evictions", "GPU-h", LO, 0},
    {"preemption.checkpoint_write_gpu_hours", NULL, NULL, "GPU-hours writing checkpoints", "GPU-h", LO, 0},
    {"preemption.checkpoint_read_gpu_hours", NULL, NULL, "GPU-hours reading checkpoints", "GPU-h", LO, 0},
    {"preemption.checkpoint_written_gb", NULL, NULL, "checkpoint data written", "GB", LO, 0},
    {"preemption.checkpoint_writes_cut", NULL, NULL, "checkpoint writes cut short", "writes", LO, 0},
    {"preemption.checkpoint_gb", NULL, NULL, "checkpoint size", "GB", LO, 0},
    {"preemption.checkpoint_write_s", NULL, NULL, "checkpoint write time", "s", LO, 0},
    {"tenants.*.quota_blocked_queue_s", NULL, NULL, "wait of a tenant's jobs held by its quota", "s", LO, 0},
    {"tenants.*.quota_rejected", NULL, NULL, "a tenant's jobs over its quota forever", "jobs", LO, 0},
    {"swap.wait_s", NULL, NULL, "time waiting for swap", "s", LO, 0},
    {"swap.swap_in_wait_s", NULL, NULL, "wait per swap-in", "s", LO, 0},
    {"swap.idle_evictions", NULL, NULL, "idle tenants evicted to host memory", "evictions", LO, 0},

    /* {==== policy sections ====} */
    {"policy.blocked_by_layout.wait_s", NULL, NULL, "wait of requests the MIG layout blocked", "s", LO, 0},
    {"policy.waited_beside_idle_instances.requests", NULL, NULL, "requests that waited beside idle MIG instances",
     "requests", LO, 0},
    {"policy.waited_beside_idle_instances.wait_s", NULL, NULL, "their wait", "s", LO, 0},
    {"policy.slice_util.compute", NULL, NULL, "MIG compute slices used / held", "ratio", HI, 0},
    {"policy.slice_util.memory", NULL, NULL, "MIG memory slices used / held", "ratio", HI, 0},
    {"policy.dualpod.evictions.*", NULL, NULL, "dual-pod evictions, by cause", "evictions", LO, 0},
    {"policy.dualpod.first_request_latency_s.*", NULL, NULL, "latency of a model's first request, by path", "s", LO,
     0},
    {"policy.hibernate.sessions_rejected", NULL, NULL, "agent sessions rejected", "sessions", LO, 0},
    {"policy.hibernate.wakes_failed", NULL, NULL, "wakes that failed", "wakes", LO, 0},
    {"policy.hibernate.wakes_waited", NULL, NULL, "wakes that waited for room", "wakes", LO, 0},
    {"policy.hibernate.wake_latency_s", NULL, NULL, "wake latency", "s", LO, 0},

    /* {==== cost by who held the cards (sim/sim_cost.h) ====} */
    {"cost.span_s", NULL, NULL, "simulated span the costs cover", "s", EI, 0},
    {"cost.span_hours", NULL, NULL, "simulated span the costs cover", "h", EI, 0},
    {"cost.month_hours", NULL, NULL, "hours in a month (8760 / 12)", "h", EI, 0},
    {"cost.month_scale", NULL, NULL, "month hours / span hours: what scales a span's cost to a month", "ratio", EI, 0},
    {"cost.cluster_usd", NULL, NULL, "the cluster's cost over the span", "USD", LO, 0},
    {"cost.cluster_usd_per_month", NULL, NULL, "the cluster's cost per month", "USD", LO, 0},
    {"cost.holders.*.gpu_hours", NULL, NULL, "GPU-hours one holder held (idle: nobody)", "GPU-h", EI, 0},
    {"cost.holders.*.gpu_hours_by_model.*", NULL, NULL, "GPU-hours one holder held on one card model", "GPU-h", EI,
     0},
    {"cost.holders.*.share", NULL, NULL, "one holder's GPU-hours / capacity", "ratio", EI, 0},
    {"cost.holders.*.usd", NULL, NULL, "cost of the cards one holder held over the span", "USD", EI, 0},
    {"cost.holders.*.usd_per_month", NULL, NULL, "the same scaled to a month", "USD", EI, 0},
    {"cost.holders.*.per_completed_job_usd", NULL, NULL, "cost of the cards jobs held / jobs completed", "USD", LO,
     0},
    {"cost.holders.*.completed", NULL, NULL, "trace jobs completed (sessions apart)", "jobs", EI, 0},
    {"cost.holders.*.sessions_completed", NULL, NULL, "agent sessions completed", "sessions", EI, 0},
    {"cost.holders.*.per_completed_session_usd", NULL, NULL, "cost of the cards agents held / sessions completed",
     "USD", LO, 0},
    {"cost.holders.*.per_million_requests_usd", NULL, NULL,
     "cost of the cards a service held / its requests served x 1e6", "USD", LO, 0},

    {"cost.tco.owned_usd_per_month", NULL, NULL, "owning the cards per month: capital and power (sim/sim_tco.h)",
     "USD", LO, 0},
    {"cost.tco.capital_usd_per_month", NULL, NULL, "owning: straight-line depreciation per month", "USD", LO, 0},
    {"cost.tco.power_usd_per_month", NULL, NULL, "owning: power at each card's power x PUE per month", "USD", LO, 0},
    {"cost.tco.owned_usd", NULL, NULL, "owning the cards over the span", "USD", LO, 0},
    {"cost.tco.rented_usd_per_month", NULL, NULL, "renting the same cards at their prices per month", "USD", LO, 0},
    {"cost.tco.owned_over_rented", NULL, NULL, "owning / renting", "ratio", LO, 0},

    /* {==== the run ====} */
    {"sim.end_s", NULL, NULL, "simulated time at the end", "s", EI, H},
    {"sim.events", NULL, NULL, "events processed", "events", EI, H},
    {NULL, NULL, NULL, NULL, NULL, EI, 0},
};

bool metrics_get(const cJSON *root, const char *path, double *v)
{
    const cJSON *o = root;
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t l = dot ? (size_t)(dot - p) : strlen(p);
        char key[128];
        if (l >= sizeof key)
            return false;
        memcpy(key, p, l);
        key[l] = 0;
        if (cJSON_IsArray(o) && key[0] >= '0' && key[0] <= '9') /* "models.0.price" */
            o = cJSON_GetArrayItem(o, atoi(key));
        else
            o = cJSON_GetObjectItemCaseSensitive(o, key);
        p += l + (dot ? 1 : 0);
        if (!dot)
            break;
    }
    if (!cJSON_IsNumber(o))
        return false;
    *v = o->valuedouble;
    return true;
}

bool metrics_measured(const cJSON *root, const char *path, double *v)
{
    if (!metrics_get(root, path, v))
        return false;
    const char *dot = strrchr(path, '.');
    if (!dot || !strcmp(dot + 1, "count"))
        return true;
    char parent[160];
    size_t l = (size_t)(dot - path);
    if (l + sizeof ".count" > sizeof parent)
        return true;
    memcpy(parent, path, l);
    strcpy(parent + l, ".count");
    double n;
    return !metrics_get(root, parent, &n) || n > 0;
}

/* Does pattern (with "*" segments) match the first n bytes of path, segment
 * for segment? */
static bool match(const char *pat, const char *path, size_t n)
{
    const char *end = path + n;
    for (;;) {
        size_t pl = strcspn(pat, ".");
        const char *dot = memchr(path, '.', (size_t)(end - path));
        size_t sl = (size_t)((dot ? dot : end) - path);
        if (!(pl == 1 && *pat == '*') && (pl != sl || memcmp(pat, path, pl) != 0))
            return false;
        if (!pat[pl] || !dot)
            return !pat[pl] && !dot;
        pat += pl + 1;
        path = dot + 1;
    }
}

const metrics_row *metrics_find(const char *path)
{
    size_t n = strlen(path);
    for (const metrics_row *m = metrics; m->path; m++)
        if (match(m->path, path, n))
            return m;
    return NULL;
}

/* A statistic of a statistic object: mean, max, min, sd, pNN (p50, p99_9). */
static bool is_statistic(const char *leaf)
{
    if (!strcmp(leaf, "mean") || !strcmp(leaf, "max") || !strcmp(leaf, "min") || !strcmp(leaf, "sd"))
        return true;
    if (leaf[0] != 'p' || !leaf[1])
        return false;
    for (const char *c = leaf + 1; *c; c++)
        if (!((*c >= '0' && *c <= '9') || *c == '_'))
            return false;
    return true;
}

metrics_better metrics_direction(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *leaf = dot ? dot + 1 : path;
    if (!strcmp(leaf, "count"))
        return METRICS_EITHER; /* how many samples a statistic has */
    if (dot && is_statistic(leaf)) {
        size_t n = (size_t)(dot - path);
        for (const metrics_row *m = metrics; m->path; m++)
            if (match(m->path, path, n))
                return m->better;
    }
    const metrics_row *m = metrics_find(path);
    return m ? m->better : METRICS_EITHER;
}

const char *metrics_alias(const char *name)
{
    for (const metrics_row *m = metrics; m->path; m++)
        if (m->alias && !strcmp(m->alias, name))
            return m->path;
    return NULL;
}
