/* metrics.c - see metrics.h.
 * SPDX-License-Identifier: MIT */
#include "metrics.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"

#define C METRICS_COMPARE
#define H METRICS_HTML
#define LO METRICS_LOWER
#define HI METRICS_HIGHER
#define EI METRICS_EITHER
#define ST METRICS_STATS
#define TK METRICS_TOKENS
#define SV METRICS_SERVED

/* {path, compare key, --slo alias, words, unit, better, flags}. The rows
 * shown by compare come first, in the order a planner reads them; a
 * statistic's row under its object's row (jobs.queue_s.p99 under
 * jobs.queue_s) leaves the direction to the object's (metrics.h). */
const metrics_row metrics[] = {
    {"gpu.alloc_ratio", "utilization", "utilization", "GPU-time allocated / capacity", "ratio", HI, C | H},
    {"gpu.busy_ratio", "busy_ratio", "busy_ratio", "GPU-time busy / capacity (sharing policies)", "ratio", HI, C | H},
    {"jobs.queue_s", NULL, NULL, "job wait from arrival to start", "s", LO, ST},
    {"jobs.queue_s.mean", NULL, "queue_mean", "job wait, mean", "s", EI, H},
    {"jobs.queue_s.p50", "queue_p50_s", "queue_p50", "job wait, median", "s", EI, C | H},
    {"jobs.queue_s.p99", "queue_p99_s", "queue_p99", "job wait, 99th percentile", "s", EI, C | H},
    {"jobs.jct_s", NULL, NULL, "job completion time, arrival to end", "s", LO, ST},
    {"jobs.jct_s.p50", NULL, NULL, "job completion time, median", "s", EI, H},
    {"jobs.jct_s.p99", "jct_p99_s", "jct_p99", "job completion time, 99th percentile", "s", EI, C | H},
    {"requests.latency_s", NULL, NULL, "request latency, all services", "s", LO, ST},
    {"requests.latency_s.p50", NULL, NULL, "request latency, median", "s", EI, H},
    {"requests.latency_s.p99", "latency_p99_s", "latency_p99", "request latency, 99th percentile", "s", EI, C | H},
    {"requests.ttft_s", NULL, NULL, "time to first token, all services", "s", LO, ST | TK},
    {"requests.ttft_s.p99", "ttft_p99_s", "ttft_p99", "time to first token, 99th percentile", "s", EI, C | H | TK},
    {"requests.tpot_s", NULL, NULL, "time per output token, all services", "s", LO, ST | TK},
    {"requests.slo_attainment", "slo_attainment", "slo_attainment", "requests served within their SLO / arrived",
     "ratio", HI, C | H | SV},
    {"jobs.slowdown", NULL, NULL, "job completion time / its run time alone", "ratio", LO, ST},
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
    {"jobs.rejected_reasons.*.count", NULL, NULL, "jobs rejected for one reason (the reason is the key)", "jobs", LO,
     0},
    {"jobs.by_size.*.count", NULL, NULL, "jobs of one size class (GPUs: 1, 2-8, 9-64, ...) that arrived", "jobs", EI,
     0},
    {"jobs.by_size.*.queue_s", NULL, NULL, "job wait of one size class", "s", LO, ST},
    {"jobs.by_size.*.jct_s", NULL, NULL, "job completion time of one size class", "s", LO, ST},
    {"jobs.by_priority.*.queue_s", NULL, NULL, "job wait of one priority", "s", LO, ST},
    {"jobs.by_priority.*.jct_s", NULL, NULL, "job completion time of one priority", "s", LO, ST},
    /* a trace with a class column: one object per class, by name */
    {"jobs.class.*.arrivals", NULL, NULL, "jobs of one class (the trace's class column) that arrived", "jobs", EI, 0},
    {"jobs.class.*.completed", NULL, NULL, "jobs of one class completed", "jobs", HI, 0},
    {"jobs.class.*.queue_s", NULL, NULL, "job wait of one class", "s", LO, ST},
    {"jobs.class.*.jct_s", NULL, NULL, "job completion time of one class", "s", LO, ST},
    /* an imported trace's observed_start: the run's queue times against the real cluster's */
    {"jobs.queue_vs_observed.jobs", NULL, NULL, "jobs with an observed start (the trace's observed_start)", "jobs",
     EI, 0},
    {"jobs.queue_vs_observed.started", NULL, NULL, "jobs with an observed start that started in the run", "jobs", EI,
     0},
    {"jobs.queue_vs_observed.observed_s", NULL, NULL, "job wait as the real cluster queued them (observed_start)",
     "s", EI, ST},
    {"jobs.queue_vs_observed.simulated_s", NULL, NULL, "job wait in the run, of the jobs with an observed start",
     "s", LO, ST},
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
    {"services.*.latency_s", NULL, NULL, "request latency of one service", "s", LO, ST},
    {"services.*.latency_cdf_s.*", NULL, NULL, "request latency of one service, a quantile (p1 .. p99_9)", "s",
     LO, 0},
    {"services.*.ttft_s", NULL, NULL, "time to first token of one service", "s", LO, ST | TK},
    {"services.*.ttft_cdf_s.*", NULL, NULL, "time to first token of one service, a quantile (p1 .. p99_9)", "s",
     LO, TK},
    {"services.*.tpot_s", NULL, NULL, "time per output token of one service", "s", LO, ST | TK},
    {"services.*.tpot_cdf_s.*", NULL, NULL, "time per output token of one service, a quantile (p1 .. p99_9)", "s",
     LO, TK},
    {"services.*.slo_attainment", NULL, NULL, "requests of one service within its SLO", "ratio", HI, SV},
    {"services.*.slo_attainment_ttft", NULL, NULL, "requests of one service within its TTFT SLO", "ratio", HI,
     TK | SV},
    {"services.*.slo_attainment_tpot", NULL, NULL, "requests of one service within its TPOT SLO", "ratio", HI,
     TK | SV},
    {"services.*.served", NULL, NULL, "requests of one service served", "requests", HI, 0},
    {"services.*.queued", NULL, NULL, "requests of one service waiting at the end", "requests", LO, 0},
    {"services.*.dropped_queue_full", NULL, NULL, "requests of one service dropped: queue full", "requests", LO, 0},
    {"services.*.dropped_timeout", NULL, NULL, "requests of one service dropped: timeout", "requests", LO, 0},
    {"services.*.dropped_after_end", NULL, NULL, "requests of one service dropped: service end", "requests", LO, 0},
    {"services.*.dropped_replica_lost", NULL, NULL, "requests of one service dropped: replica lost", "requests", LO,
     0},
    {"services.*.dropped_unplaceable", NULL, NULL, "requests of one service dropped: fits no card", "requests", LO,
     0},

    /* {==== failing hardware (failures=on), nodes that leave service ====} */
    {"jobs.goodput", NULL, "goodput", "useful GPU-time / GPU-time held by jobs (failures on)", "ratio", HI, 0},
    {"failures.interruptions", NULL, NULL, "node failures", "failures", LO, 0},
    {"failures.by_cause.*", NULL, NULL, "node failures, by cause", "failures", LO, 0},
    {"failures.jobs_interrupted", NULL, NULL, "jobs interrupted by a node failure", "jobs", LO, 0},
    {"failures.lost_gpu_hours", NULL, NULL, "GPU-hours of work redone after failures", "GPU-h", LO, 0},
    {"failures.restart_gpu_hours", NULL, NULL, "GPU-hours held restarting and reading checkpoints", "GPU-h", LO, 0},
    {"failures.checkpoint_write_gpu_hours", NULL, NULL, "GPU-hours held writing periodic checkpoints", "GPU-h", LO,
     0},
    {"failures.held_gpu_hours", NULL, NULL, "GPU-hours held by jobs", "GPU-h", EI, 0},
    {"failures.node_down_hours", NULL, NULL, "node-hours in repair", "node-h", LO, 0},
    {"failures.spare_swaps", NULL, NULL, "hot spares brought into service", "swaps", EI, 0},
    {"failures.rates.*.per_node_day", NULL, NULL, "failures per node-day of a node group", "1/day", LO, 0},
    {"failures.rates.*.spares", NULL, NULL, "hot spares of a node group", "nodes", EI, 0},
    {"failures.rates.*.group", NULL, NULL, "a node group's index in the cluster file", "index", EI, 0},
    {"nodes.out_of_service_gpu_hours", NULL, NULL, "GPU-hours of nodes out of service", "GPU-h", LO, 0},
    {"nodes.interruptions", NULL, NULL, "jobs stopped by a node leaving service", "jobs", LO, 0},
    {"nodes.lost_gpu_hours", NULL, NULL, "GPU-hours of work redone after nodes left service", "GPU-h", LO, 0},
    {"nodes.checkpoint_read_gpu_hours", NULL, NULL, "GPU-hours reading checkpoints after nodes left", "GPU-h", LO, 0},

    /* {==== preemption, quotas, swap ====} */
    {"preemption.decisions", NULL, NULL, "preemption decisions", "decisions", LO, 0},
    {"preemption.preemptions", NULL, NULL, "jobs preempted", "jobs", LO, 0},
    {"preemption.preemptor_misses", NULL, NULL, "preemptors that did not start at once", "jobs", LO, 0},
    {"preemption.preemptor_wait_s", NULL, NULL, "preemptor wait for its victims", "s", LO, ST},
    {"preemption.restarts_from_scratch", NULL, NULL, "victims restarted with no checkpoint", "jobs", LO, 0},
    {"preemption.lost_gpu_hours", NULL, NULL, "GPU-hours of work lost by preemption", "GPU-h", LO, 0},
    {"preemption.eviction_hold_gpu_hours", NULL, NULL, "GPU-hours held by evictions", "GPU-h", LO, 0},
    {"preemption.checkpoint_write_gpu_hours", NULL, NULL, "GPU-hours writing checkpoints", "GPU-h", LO, 0},
    {"preemption.checkpoint_read_gpu_hours", NULL, NULL, "GPU-hours reading checkpoints", "GPU-h", LO, 0},
    {"preemption.checkpoint_written_gb", NULL, NULL, "checkpoint data written", "GB", LO, 0},
    {"preemption.checkpoint_writes_cut", NULL, NULL, "checkpoint writes cut short", "writes", LO, 0},
    {"preemption.checkpoint_gb", NULL, NULL, "checkpoint size", "GB", LO, ST},
    {"preemption.checkpoint_write_s", NULL, NULL, "checkpoint write time", "s", LO, ST},
    {"tenants.*.quota_blocked_queue_s", NULL, NULL, "wait of a tenant's jobs held by its quota", "s", LO, ST},
    {"tenants.*.quota_rejected", NULL, NULL, "a tenant's jobs over its quota forever", "jobs", LO, 0},
    {"swap.wait_s", NULL, NULL, "time waiting for swap", "s", LO, 0},
    {"swap.swap_in_wait_s", NULL, NULL, "wait per swap-in", "s", LO, ST},
    {"swap.idle_evictions", NULL, NULL, "idle tenants evicted to host memory", "evictions", LO, 0},

    /* {==== elastic capacity (sim/sim_elastic.h) ====} */
    {"elastic.total.cost_usd", NULL, "elastic_cost_usd", "the bill of every node group to the end of the run",
     "USD", LO, H},
    {"elastic.total.node_hours", NULL, NULL, "node-hours billed, every group", "node-h", LO, 0},
    {"elastic.total.gpu_hours_used", NULL, NULL, "GPU-hours jobs held on the groups' nodes", "GPU-h", EI, 0},
    {"elastic.total.gpu_hours_idle", NULL, NULL, "GPU-hours billed and not held by a job", "GPU-h", LO, H},
    {"elastic.total.scale_outs", NULL, NULL, "nodes the autoscaler asked for", "nodes", EI, 0},
    {"elastic.total.scale_ins", NULL, NULL, "idle nodes the autoscaler removed", "nodes", EI, 0},
    {"elastic.total.reclaims", NULL, NULL, "spot nodes taken back", "nodes", LO, 0},
    {"elastic.by_tier.*.cost_usd", NULL, NULL, "the bill of one tier (reserved, on-demand, spot)", "USD", LO, 0},
    {"elastic.by_tier.*.node_hours", NULL, NULL, "node-hours billed in one tier", "node-h", LO, 0},
    {"elastic.by_tier.*.gpu_hours_used", NULL, NULL, "GPU-hours held on one tier's nodes", "GPU-h", EI, 0},
    {"elastic.by_tier.*.gpu_hours_idle", NULL, NULL, "GPU-hours billed and idle in one tier", "GPU-h", LO, 0},
    {"elastic.by_tier.*.scale_outs", NULL, NULL, "nodes asked for in one tier", "nodes", EI, 0},
    {"elastic.by_tier.*.scale_ins", NULL, NULL, "idle nodes removed in one tier", "nodes", EI, 0},
    {"elastic.by_tier.*.reclaims", NULL, NULL, "spot nodes taken back", "nodes", LO, 0},
    {"elastic.groups.*.cost_usd", NULL, NULL, "the bill of one node group", "USD", LO, 0},
    {"elastic.groups.*.node_hours", NULL, NULL, "node-hours billed in one group", "node-h", LO, 0},
    {"elastic.groups.*.gpu_hours_used", NULL, NULL, "GPU-hours held on one group's nodes", "GPU-h", EI, 0},
    {"elastic.groups.*.gpu_hours_idle", NULL, NULL, "GPU-hours billed and idle in one group", "GPU-h", LO, 0},
    {"elastic.groups.*.scale_outs", NULL, NULL, "nodes one group was asked for", "nodes", EI, 0},
    {"elastic.groups.*.scale_ins", NULL, NULL, "idle nodes one group removed", "nodes", EI, 0},
    {"elastic.groups.*.reclaims", NULL, NULL, "spot nodes of one group taken back", "nodes", LO, 0},
    {"elastic.groups.*.peak_nodes", NULL, "burst_peak_nodes", "most nodes one group had at once", "nodes", EI, 0},
    {"elastic.groups.*.nodes_at_end", NULL, NULL, "nodes of one group at the end", "nodes", EI, 0},
    {"elastic.groups.*.checkpoints_within_notice", NULL, NULL, "jobs that wrote their checkpoint within a notice",
     "jobs", HI, 0},
    {"elastic.groups.*.jobs_interrupted", NULL, NULL, "jobs a spot reclaim stopped without a checkpoint written",
     "jobs", LO, 0},
    {"elastic.groups.*.provision_wait_s", NULL, NULL, "job wait for a node of one group being provisioned", "s", LO,
     0},
    {"elastic.groups.*.price_per_gpu_hour_usd", NULL, NULL, "one group's price", "USD/GPU-h", EI, 0},
    {"elastic.groups.*.gpus_per_node", NULL, NULL, "GPUs of each node of one group", "GPUs", EI, 0},
    {"elastic.groups.*.nodes", NULL, NULL, "nodes of a fixed group", "nodes", EI, 0},
    {"elastic.groups.*.group", NULL, NULL, "the group's place in the cluster file's nodes", "index", EI, 0},
    {"elastic.groups.*.autoscale.*", NULL, NULL, "one group's autoscale settings", "setting", EI, 0},

    /* {==== policy sections ====} */
    {"policy.blocked_by_layout.wait_s", NULL, NULL, "wait of requests the MIG layout blocked", "s", LO, 0},
    {"policy.waited_beside_idle_instances.requests", NULL, NULL, "requests that waited beside idle MIG instances",
     "requests", LO, 0},
    {"policy.waited_beside_idle_instances.wait_s", NULL, NULL, "their wait", "s", LO, 0},
    {"policy.slice_util.compute", NULL, NULL, "MIG compute slices used / held", "ratio", HI, 0},
    {"policy.slice_util.memory", NULL, NULL, "MIG memory slices used / held", "ratio", HI, 0},
    {"policy.dualpod.evictions.*", NULL, NULL, "dual-pod evictions, by cause", "evictions", LO, 0},
    {"policy.dualpod.first_request_latency_s.*", NULL, NULL, "latency of a model's first request, by path", "s", LO,
     ST},
    {"policy.hibernate.sessions_rejected", NULL, NULL, "agent sessions rejected", "sessions", LO, 0},
    {"policy.hibernate.wakes_failed", NULL, NULL, "wakes that failed", "wakes", LO, 0},
    {"policy.hibernate.wakes_waited", NULL, NULL, "wakes that waited for room", "wakes", LO, 0},
    {"policy.hibernate.wake_latency_s", NULL, NULL, "wake latency", "s", LO, ST},

    /* {==== cost by who held the cards (sim/sim_cost.h) ====} */
    {"cost.span_s", NULL, NULL, "simulated span the costs cover", "s", EI, 0},
    {"cost.span_hours", NULL, NULL, "simulated span the costs cover", "h", EI, 0},
    {"cost.month_hours", NULL, NULL, "hours in a month (8760 / 12)", "h", EI, 0},
    {"cost.month_scale", NULL, NULL, "month hours / span hours: what scales a span's cost to a month", "ratio", EI, 0},
    {"cost.billed_gpu_hours", NULL, NULL, "GPU-hours node groups were billed (nodes that come and go)", "GPU-h", EI,
     0},
    {"cost.cluster_usd", NULL, NULL, "the cluster's cost over the span (its bill when nodes come and go)", "USD", LO,
     0},
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

    /* {==== the rest of the report: known paths, no direction (must not move) ====} */
    {"jobs.running", NULL, NULL, "jobs running at the end", "jobs", EI, 0},
    {"jobs.not_arrived", NULL, NULL, "trace rows after --until", "jobs", EI, 0},
    {"jobs.bursts", NULL, NULL, "agent bursts in the trace", "bursts", EI, 0},
    {"jobs.by_priority.*.priority", NULL, NULL, "the priority of a class", "priority", EI, 0},
    {"jobs.by_priority.*.arrivals", NULL, NULL, "jobs of one priority that arrived", "jobs", EI, 0},
    {"gpu.capacity_gpu_hours", NULL, NULL, "GPU-hours the cluster offered", "GPU-h", EI, 0},
    {"gpu.peak_alloc", NULL, NULL, "GPUs allocated, most at once", "GPUs", EI, 0},
    {"gpu.mem_used_ratio", NULL, NULL, "GPU memory used / capacity", "ratio", EI, 0},
    {"gpu.frag_pct_mean", NULL, NULL, "fragmented GPUs, time-weighted mean", "% of capacity", EI, 0},
    {"gpu.frag_pct_peak", NULL, NULL, "fragmented GPUs, peak", "% of capacity", EI, 0},
    {"gpu.frag_pct_end", NULL, NULL, "fragmented GPUs at the end", "% of capacity", EI, 0},
    {"gpu.frag_of_idle_pct_end", NULL, NULL, "fragmented GPUs at the end / idle GPUs", "% of idle", EI, 0},
    {"gpu.frag_gpus_end", NULL, NULL, "fragmented GPUs at the end", "GPUs", EI, 0},
    {"gpu.frag_shapes", NULL, NULL, "request shapes fragmentation is measured over", "shapes", EI, 0},
    {"requests.generated", NULL, NULL, "requests generated from service rows", "requests", EI, 0},
    {"requests.in_service", NULL, NULL, "requests in service at the end", "requests", EI, 0},
    {"requests.services_unplaceable", NULL, NULL, "services whose replica fits no card", "services", EI, 0},
    {"requests.replica_hours", NULL, NULL, "replica-hours of every service", "replica-h", EI, 0},
    {"requests.gpu_hours", NULL, NULL, "GPU-hours of every service's replicas", "GPU-h", EI, 0},
    {"requests.gpu_hours_per_million_requests", NULL, NULL, "replica GPU-hours / requests served x 1e6", "GPU-h",
     EI, 0},
    {"requests.cold_starts", NULL, NULL, "replica cold starts, every service", "starts", EI, 0},
    {"services.*.arrived", NULL, NULL, "requests of one service that arrived", "requests", EI, 0},
    {"services.*.generated", NULL, NULL, "requests of one service generated", "requests", EI, 0},
    {"services.*.in_service", NULL, NULL, "requests of one service in service at the end", "requests", EI, 0},
    {"services.*.kv_kib_per_token", NULL, NULL, "KV cache per token", "KiB", EI, 0},
    {"services.*.weights_gib", NULL, NULL, "model weights", "GiB", EI, 0},
    {"services.*.slo_ms", NULL, NULL, "the service's end-to-end latency SLO", "ms", EI, 0},
    {"services.*.slo_ttft_ms", NULL, NULL, "the service's TTFT SLO", "ms", EI, TK},
    {"services.*.slo_tpot_ms", NULL, NULL, "the service's TPOT SLO", "ms", EI, TK},
    {"services.*.slo_attainment_both", NULL, NULL, "requests of one service within both token SLOs", "ratio", HI,
     TK | SV},
    {"services.*.replicas.min", NULL, NULL, "the service's configured minimum replicas", "replicas", EI, 0},
    {"services.*.replicas.max", NULL, NULL, "the service's configured maximum replicas", "replicas", EI, 0},
    {"services.*.replicas.peak", NULL, NULL, "replicas, most at once", "replicas", EI, 0},
    {"services.*.replicas.at_end", NULL, NULL, "replicas at the end", "replicas", EI, 0},
    {"services.*.replicas.cold_starts", NULL, NULL, "replica cold starts", "starts", EI, 0},
    {"services.*.replicas.scale_outs", NULL, NULL, "autoscaler scale-outs", "replicas", EI, 0},
    {"services.*.replicas.scale_ins", NULL, NULL, "autoscaler scale-ins", "replicas", EI, 0},
    {"services.*.replicas.unplaceable", NULL, NULL, "replicas that could not be placed", "replicas", EI, 0},
    {"services.*.replicas.lost", NULL, NULL, "replicas lost (their card taken back)", "replicas", EI, 0},
    {"services.*.replicas.drains", NULL, NULL, "scale-ins that waited for the replica's requests (kpa, hpa)",
     "replicas", EI, 0},
    {"services.*.replicas.panic_s", NULL, NULL, "time the kpa autoscaler spent in panic mode", "s", EI, 0},
    {"services.*.replica_hours", NULL, NULL, "replica-hours of one service", "replica-h", EI, 0},
    {"services.*.gpu_hours", NULL, NULL, "GPU-hours of one service's replicas", "GPU-h", EI, 0},
    {"services.*.gpu_hours_per_million_requests", NULL, NULL, "its GPU-hours / requests served x 1e6", "GPU-h",
     EI, 0},
    {"services.*.warmup_s", NULL, NULL, "generated traffic begins this long after the service's row", "s", EI, 0},
    {"services.*.arrived_before_ready", NULL, NULL, "requests that came before the first replica was ready",
     "requests", LO, 0},
    {"services.*.model.tp", NULL, NULL, "tensor parallelism of a catalog model's replica", "GPUs", EI, 0},
    {"services.*.model.pp", NULL, NULL, "pipeline parallelism of a catalog model's replica", "GPUs", EI, 0},
    {"services.*.model.ep", NULL, NULL, "expert parallelism of a catalog model's replica", "GPUs", EI, 0},
    {"services.*.pd.*.replicas", NULL, NULL, "replicas of a disaggregated pool (prefill, decode)", "replicas", EI, 0},
    {"services.*.pd.*.gpu_hours", NULL, NULL, "GPU-hours of a disaggregated pool", "GPU-h", EI, 0},
    {"services.*.pd.*.busy_ratio", NULL, NULL, "busy share of a disaggregated pool", "ratio", HI, 0},
    {"services.*.pd.*.queue_peak", NULL, NULL, "most requests waiting for a disaggregated pool", "requests", LO, 0},
    {"services.*.pd.*.queue_wait_s", NULL, NULL, "wait for a disaggregated pool", "s", LO, ST},
    {"services.*.pd.kv_transferred_gib", NULL, NULL, "KV cache moved from prefill to decode", "GiB", EI, 0},
    {"services.*.pd.kv_transfers_nvlink", NULL, NULL, "KV transfers within a node", "transfers", EI, 0},
    {"services.*.pd.kv_transfers_network", NULL, NULL, "KV transfers over the network", "transfers", EI, 0},
    {"services.*.pd.kv_transfer_s", NULL, NULL, "time to move one prompt's KV cache", "s", LO, ST},
    {"services.*.prefix_cache.evictions", NULL, NULL, "prefix-cache blocks evicted", "blocks", LO, 0},
    {"services.*.prefix_cache.*", NULL, NULL, "prefix cache: blocks, hits, tokens saved, rates", "blocks", EI, 0},
    {"preemption.min_runtime_s", NULL, NULL, "the min_runtime parameter", "s", EI, 0},
    {"preemption.checkpoint_writes_completed", NULL, NULL, "checkpoint writes that completed", "writes", EI, 0},
    {"tenants.*.arrivals", NULL, NULL, "a tenant's jobs that arrived", "jobs", EI, 0},
    {"tenants.*.peak_gpus", NULL, NULL, "a tenant's GPUs, most at once", "GPUs", EI, 0},
    {"tenants.*.peak_gpu_mem_gib", NULL, NULL, "a tenant's GPU memory, most at once", "GiB", EI, 0},
    {"tenants.*.quota_blocked", NULL, NULL, "a tenant's jobs held by its quota at least once", "jobs", EI, 0},
    {"tenants.*.quota_gpus", NULL, NULL, "a tenant's GPU quota", "GPUs", EI, 0},
    {"tenants.*.quota_gpu_mem_gib", NULL, NULL, "a tenant's GPU memory quota", "GiB", EI, 0},
    {"tenants.*.quota_cards.*", NULL, NULL, "a tenant's card quota of one model", "GPUs", EI, 0},
    {"swap.swap_ins", NULL, NULL, "swap-ins", "swaps", EI, 0},
    {"swap.bytes_in", NULL, NULL, "bytes swapped in", "bytes", EI, 0},
    {"swap.bytes_out", NULL, NULL, "bytes swapped out", "bytes", EI, 0},
    {"swap.swapped_in_mib", NULL, NULL, "memory swapped in", "MiB", EI, 0},
    {"swap.host_mib_mean", NULL, NULL, "host memory holding swapped data, mean", "MiB", EI, 0},
    {"swap.host_mib_peak", NULL, NULL, "host memory holding swapped data, peak", "MiB", EI, 0},
    {"swap.idle_freed_mib", NULL, NULL, "memory freed by idle evictions", "MiB", EI, 0},
    {"swap.thrash_s", NULL, NULL, "time spent thrashing", "s", EI, 0},
    {"sim.timeseries_rows", NULL, NULL, "rows in timeseries.csv", "rows", EI, 0},
    {"sim.timeseries_max_rows", NULL, NULL, "the timeseries row cap", "rows", EI, 0},
    {"sim.timeseries_step_s", NULL, NULL, "the timeseries step at the end", "s", EI, 0},
    {"sim.wall_s", NULL, NULL, "wall time of the event loop (timing, not compared)", "s", EI, 0},
    {"sim.setup_s", NULL, NULL, "wall time of the setup (timing, not compared)", "s", EI, 0},
    {"sim.cpu_s", NULL, NULL, "CPU time of the event loop (timing, not compared)", "s", EI, 0},
    {"sim.events_per_s", NULL, NULL, "events per wall second (timing, not compared)", "events/s", EI, 0},
    {"sim.peak_rss_mib", NULL, NULL, "peak resident memory (timing, not compared)", "MiB", EI, 0},
    {"derived.window_s", NULL, NULL, "the longest simulated span of a batch of runs", "s", EI, 0},
    {NULL, NULL, NULL, NULL, NULL, EI, 0},
};

/* The element of array a whose "id" is id, or NULL. O(elements). */
static const cJSON *by_id(const cJSON *a, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        const cJSON *i = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (cJSON_IsString(i) && !strcmp(i->valuestring, id))
            return e;
    }
    return NULL;
}

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
        long ix;
        if (cJSON_IsArray(o) && key[0] >= '0' && key[0] <= '9') /* "models.0.price": an index, all digits ("0x", "1e3" name nothing) */
            o = gs_num_long(key, 0, INT_MAX, &ix) ? cJSON_GetArrayItem(o, (int)ix) : NULL;
        else if (cJSON_IsArray(o)) /* "services.chat70b.ttft_s.p99": the element with that id */
            o = by_id(o, key);
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

/* The number beside path's leaf named sib (the sample's count, the
 * requests served), or true when there is none. */
static bool sibling_positive(const cJSON *root, const char *path, const char *sib)
{
    const char *dot = strrchr(path, '.');
    char p[200];
    size_t l = dot ? (size_t)(dot - path) : 0;
    if (!dot || l + strlen(sib) + 2 > sizeof p)
        return true;
    memcpy(p, path, l);
    snprintf(p + l, sizeof p - l, ".%s", sib);
    double n;
    return !metrics_get(root, p, &n) || n > 0;
}

bool metrics_measured(const cJSON *root, const char *path, double *v)
{
    if (!metrics_get(root, path, v))
        return false;
    const char *dot = strrchr(path, '.');
    if (!dot || !strcmp(dot + 1, "count"))
        return true;
    const metrics_row *m = metrics_find(path);
    if (m && (m->flags & METRICS_SERVED))
        return sibling_positive(root, path, "served");
    return sibling_positive(root, path, "count");
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

/* A statistic of a statistic object (sim_report_add_stats) but its count. */
static bool is_statistic(const char *leaf)
{
    static const char *const st[] = {"mean", "p50", "p95", "p99", "max", NULL};
    for (const char *const *s = st; *s; s++)
        if (!strcmp(leaf, *s))
            return true;
    return false;
}

/* The statistic object's row matching the first n bytes of path, or NULL. */
static const metrics_row *stats_object(const char *path, size_t n)
{
    for (const metrics_row *m = metrics; m->path; m++)
        if ((m->flags & METRICS_STATS) && match(m->path, path, n))
            return m;
    return NULL;
}

metrics_better metrics_direction(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *leaf = dot ? dot + 1 : path;
    if (!strcmp(leaf, "count") && dot && stats_object(path, (size_t)(dot - path)))
        return METRICS_EITHER; /* how many samples a statistic has */
    const metrics_row *o = dot && is_statistic(leaf) ? stats_object(path, (size_t)(dot - path)) : NULL;
    if (o)
        return o->better;
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

/* The row covering path: its own, or its statistic object's (a "count"
 * included). */
static const metrics_row *covering(const char *path)
{
    const metrics_row *m = metrics_find(path);
    if (m)
        return m;
    const char *dot = strrchr(path, '.');
    if (dot && (is_statistic(dot + 1) || !strcmp(dot + 1, "count")))
        return stats_object(path, (size_t)(dot - path));
    return NULL;
}

bool metrics_needs_tokens(const char *path)
{
    const metrics_row *m = covering(path);
    return m && (m->flags & METRICS_TOKENS);
}

const char *metrics_unit(const char *path)
{
    const metrics_row *m = covering(path);
    return m ? m->unit : NULL;
}

metrics_known_t metrics_known(const char *path)
{
    static const char *const open[] = {"inputs", "policy", "hardware", "fill", NULL};
    size_t l = strcspn(path, ".");
    for (const char *const *o = open; *o; o++)
        if (strlen(*o) == l && !strncmp(*o, path, l))
            return METRICS_OPEN;
    return covering(path) ? METRICS_KNOWN : METRICS_UNKNOWN;
}

/* {==== nearest names ====} */

/* Levenshtein distance of a and b (each under 256 bytes). O(|a| |b|). */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255 || lb > 255)
        return 1 << 20;
    int prev[256], cur[256];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]), del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

typedef struct nearest {
    char (*out)[128];
    int *dist;
    int n, have;
    const char *path;
} nearest;

/* Offers candidate c: kept if among the n nearest so far (ties: the first). */
static void offer(nearest *nr, const char *c)
{
    for (int i = 0; i < nr->have; i++)
        if (!strcmp(nr->out[i], c))
            return;
    int d = distance(nr->path, c), at = nr->have;
    while (at > 0 && nr->dist[at - 1] > d)
        at--;
    if (at >= nr->n)
        return;
    int last = nr->have < nr->n ? nr->have : nr->n - 1;
    for (int i = last; i > at; i--) {
        memcpy(nr->out[i], nr->out[i - 1], sizeof nr->out[i]);
        nr->dist[i] = nr->dist[i - 1];
    }
    snprintf(nr->out[at], sizeof nr->out[at], "%s", c);
    nr->dist[at] = d;
    if (nr->have < nr->n)
        nr->have++;
}

/* pat with each "*" replaced by path's segment at that place ("0" past its
 * end), then suffix. */
static void spell(char *buf, size_t n, const char *pat, const char *path, const char *suffix)
{
    size_t k = 0;
    const char *seg = path;
    while (*pat) {
        size_t pl = strcspn(pat, "."), sl = seg ? strcspn(seg, ".") : 0;
        bool star = pl == 1 && *pat == '*';
        const char *w = star ? (sl ? seg : "0") : pat;
        int wl = star ? (sl ? (int)sl : 1) : (int)pl;
        k += (size_t)snprintf(buf + k, n - k, "%s%.*s", k ? "." : "", wl, w);
        if (k >= n)
            return; /* cut short; snprintf ended it */
        pat += pl + (pat[pl] == '.');
        seg = seg && seg[sl] ? seg + sl + 1 : NULL;
    }
    snprintf(buf + k, n - k, "%s", suffix);
}

int metrics_nearest(const char *path, char (*out)[128], int n)
{
    static const char *const stats[] = {".count", ".mean", ".p50", ".p95", ".p99", ".max", NULL};
    int dist[16];
    nearest nr = {out, dist, n < 16 ? n : 16, 0, path};
    char buf[256];
    for (const metrics_row *m = metrics; m->path; m++) {
        for (const char *const *st = stats; *st; st++) {
            spell(buf, sizeof buf, m->path, path, (m->flags & METRICS_STATS) ? *st : "");
            offer(&nr, buf);
            if (!(m->flags & METRICS_STATS))
                break;
        }
        if (m->alias)
            offer(&nr, m->alias);
    }
    return nr.have;
}

static void offer_numbers(nearest *nr, const cJSON *o, char *prefix, size_t len)
{
    const cJSON *it;
    int index = 0;
    cJSON_ArrayForEach(it, o)
    {
        char key[32];
        snprintf(key, sizeof key, "%d", index++);
        int l = snprintf(prefix + len, 256 - len, "%s%s", len ? "." : "", it->string ? it->string : key);
        if (l < 0 || len + (size_t)l >= 255)
            continue;
        if (cJSON_IsNumber(it))
            offer(nr, prefix);
        else if (cJSON_IsObject(it) || cJSON_IsArray(it))
            offer_numbers(nr, it, prefix, len + (size_t)l);
    }
    prefix[len] = 0;
}

int metrics_nearest_in(const cJSON *report, const char *path, char (*out)[128], int n)
{
    int dist[16];
    nearest nr = {out, dist, n < 16 ? n : 16, 0, path};
    char prefix[256] = "";
    offer_numbers(&nr, report, prefix, 0);
    return nr.have;
}

int metrics_check_path(const char *what, const char *path, const cJSON *report, gs_error *err)
{
    double v;
    if (report ? metrics_get(report, path, &v) : metrics_known(path) != METRICS_UNKNOWN)
        return 0;
    char near[3][128];
    int n = report ? metrics_nearest_in(report, path, near, 3) : metrics_nearest(path, near, 3);
    char list[420] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", near[i]);
    return gs_err(err, GS_EUSAGE, "%s: no metric '%s'%s (nearest: %s; the report's paths: cli/README.md, "
                  "\"The report\")", what, path, report ? " in the report" : "", n ? list : "none");
}
