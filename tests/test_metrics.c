/* test_metrics.c - the metrics table (cli/metrics.h): every kind of number a
 * report holds gets the direction a reader would give it, written out here
 * by hand (not from the table), including the names the old substring rule
 * got wrong (warm_pool.reserved is not "served", min_runtime_s is a setting);
 * the table's own rules (a shown statistic states no direction of its own,
 * keys and short names unique); dotted paths with array indices; a statistic
 * over an empty sample is absent.
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "../cli/metrics.h"
#include "check.h"

static void directions(void)
{
    static const struct {
        const char *path;
        metrics_better want;
    } cases[] = {
        {"jobs.queue_s.p99", METRICS_LOWER},
        {"jobs.queue_s.mean", METRICS_LOWER},
        {"jobs.queue_s.count", METRICS_EITHER},
        {"jobs.jct_s.max", METRICS_LOWER},
        {"jobs.slowdown.p95", METRICS_LOWER},
        {"jobs.by_priority.3.queue_s.p99", METRICS_LOWER},
        {"jobs.by_priority.3.priority", METRICS_EITHER},
        {"jobs.completed", METRICS_HIGHER},
        {"jobs.arrived", METRICS_EITHER},
        {"jobs.rejected", METRICS_LOWER},
        {"jobs.failed_by_cause.oom", METRICS_LOWER},
        {"jobs.running", METRICS_EITHER},
        {"gpu.alloc_ratio", METRICS_HIGHER},
        {"gpu.busy_ratio", METRICS_HIGHER},
        {"gpu.gpu_hours", METRICS_EITHER},
        {"gpu.count", METRICS_EITHER},
        {"requests.latency_s.p99", METRICS_LOWER},
        {"requests.ttft_s.p50", METRICS_LOWER},
        {"requests.slo_attainment", METRICS_HIGHER},
        {"requests.served", METRICS_HIGHER},
        {"requests.dropped_timeout", METRICS_LOWER},
        {"requests.arrived", METRICS_EITHER},
        {"services.1.latency_cdf_s.p97_5", METRICS_LOWER},
        {"services.0.slo_attainment", METRICS_HIGHER},
        {"services.0.replicas.max", METRICS_EITHER},
        {"services.0.weights_gib", METRICS_EITHER},
        {"preemption.preemptor_wait_s.p99", METRICS_LOWER},
        {"preemption.lost_gpu_hours", METRICS_LOWER},
        {"preemption.min_runtime_s", METRICS_EITHER},           /* a setting, not an outcome */
        {"preemption.checkpoint_writes_completed", METRICS_EITHER}, /* neither way is better */
        {"tenants.2.quota_blocked_queue_s.mean", METRICS_LOWER},
        {"swap.swap_in_wait_s.p99", METRICS_LOWER},
        {"policy.hibernate.warm_pool.reserved.gpu_hours", METRICS_EITHER}, /* "reserved" is not "served" */
        {"policy.hibernate.wake_latency_s.p99", METRICS_LOWER},
        {"policy.dualpod.first_request_latency_s.cold.p50", METRICS_LOWER},
        {"policy.dualpod.actuation_s.cold.total_s.p50", METRICS_EITHER},
        {"policy.slice_util.compute", METRICS_HIGHER},
        {"policy.slice_util.memory_slices_total", METRICS_EITHER}, /* a capacity */
        {"sim.events", METRICS_EITHER},
        {"sim.end_s", METRICS_EITHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        metrics_better got = metrics_direction(cases[i].path);
        if (got != cases[i].want)
            fprintf(stderr, "    %s: %d, expected %d\n", cases[i].path, (int)got, (int)cases[i].want);
        CHECK(got == cases[i].want);
    }
}

/* Is row m a statistic (its last segment) of another row's object? */
static const metrics_row *object_of(const metrics_row *m)
{
    const char *dot = strrchr(m->path, '.');
    if (!dot)
        return NULL;
    for (const metrics_row *o = metrics; o->path; o++)
        if (strlen(o->path) == (size_t)(dot - m->path) && !strncmp(o->path, m->path, (size_t)(dot - m->path)))
            return o;
    return NULL;
}

static void table_rules(void)
{
    int rows = 0, compare = 0, html = 0;
    for (const metrics_row *m = metrics; m->path; m++) {
        rows++;
        CHECK(m->label && m->label[0] && m->unit && m->unit[0]);
        CHECK(!(m->shown & METRICS_COMPARE) || m->key); /* a compare row has its compare.json key */
        compare += !!(m->shown & METRICS_COMPARE);
        html += !!(m->shown & METRICS_HTML);
        const metrics_row *o = object_of(m);
        if (o && o->better != METRICS_EITHER) /* one fact: the object's row gives the direction */
            CHECK(m->better == METRICS_EITHER);
        CHECK(metrics_find(m->path) == m); /* no earlier row shadows it */
        for (const metrics_row *n = m + 1; n->path; n++) {
            CHECK(strcmp(m->path, n->path) != 0);
            CHECK(!m->key || !n->key || strcmp(m->key, n->key) != 0);
            CHECK(!m->alias || !n->alias || strcmp(m->alias, n->alias) != 0);
        }
        if (m->alias)
            CHECK(!strcmp(metrics_alias(m->alias), m->path));
    }
    CHECK(rows > 50);
    CHECK_EQ_INT(compare, 18); /* compare's base rows */
    CHECK(html > 10);
    CHECK(!metrics_alias("queue_p99x"));
    CHECK(!strcmp(metrics_alias("queue_p99"), "jobs.queue_s.p99"));
}

static void paths_and_empty_samples(void)
{
    cJSON *r = cJSON_Parse("{\"jobs\":{\"queue_s\":{\"count\":0,\"p99\":0},\"jct_s\":{\"count\":3,\"p99\":7}},"
                           "\"services\":[{\"id\":\"a\",\"served\":5},{\"id\":\"b\",\"served\":6}]}");
    double v = -1;
    CHECK(metrics_get(r, "jobs.queue_s.p99", &v) && v == 0);
    CHECK(!metrics_measured(r, "jobs.queue_s.p99", &v)); /* nothing measured: absent, not 0 */
    CHECK(metrics_measured(r, "jobs.queue_s.count", &v) && v == 0);
    CHECK(metrics_measured(r, "jobs.jct_s.p99", &v) && v == 7);
    CHECK(metrics_get(r, "services.1.served", &v) && v == 6);
    CHECK(!metrics_get(r, "services.2.served", &v));
    CHECK(!metrics_get(r, "services.1.id", &v)); /* a string is not a number */
    CHECK(!metrics_get(r, "jobs.queue_s", &v));  /* an object neither */
    CHECK(metrics_find("services.7.latency_s") && !metrics_find("services.7"));
    cJSON_Delete(r);
}

const test_case tests_metrics[] = {
    {"metrics/directions_by_hand", directions},
    {"metrics/table_rules", table_rules},
    {"metrics/paths_and_empty_samples", paths_and_empty_samples},
    {NULL, NULL},
};
