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
#include "../sim/sim_report.h"
#include "check.h"
#include "testutil.h"

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
        {"jobs.rejected_reasons.no card fits.count", METRICS_LOWER},
        {"jobs.by_size.9-64.queue_s.p99", METRICS_LOWER},
        {"jobs.by_size.9-64.count", METRICS_EITHER},
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
        {"services.chat70b.slo_attainment_ttft", METRICS_HIGHER},
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

/* Counts (and names on stderr) each number under prefix that no row covers. */
static void walk_numbers(const cJSON *o, char *prefix, size_t len, int *unknown)
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
        if (cJSON_IsNumber(it) && metrics_known(prefix) == METRICS_UNKNOWN) {
            fprintf(stderr, "    no row for %s\n", prefix);
            (*unknown)++;
        } else if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            walk_numbers(it, prefix, len + (size_t)l, unknown);
        }
    }
    prefix[len] = 0;
}

/* Is row m a statistic (its last segment) of another row's object? */
static const metrics_row *object_of(const metrics_row *m)
{
    const char *dot = strrchr(m->path, '.');
    if (!dot)
        return NULL;
    for (const metrics_row *o = metrics; o->path; o++)
        if ((o->flags & METRICS_STATS) && strlen(o->path) == (size_t)(dot - m->path) &&
            !strncmp(o->path, m->path, (size_t)(dot - m->path)))
            return o;
    return NULL;
}

static void table_rules(void)
{
    int rows = 0, compare = 0, html = 0;
    for (const metrics_row *m = metrics; m->path; m++) {
        rows++;
        CHECK(m->label && m->label[0] && m->unit && m->unit[0]);
        CHECK(!(m->flags & METRICS_COMPARE) || m->key); /* a compare row has its compare.json key */
        compare += !!(m->flags & METRICS_COMPARE);
        html += !!(m->flags & METRICS_HTML);
        const metrics_row *o = object_of(m);
        if (o) /* one fact: the object's row gives the direction */
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
    CHECK(metrics_get(r, "services.b.served", &v) && v == 6); /* by id */
    cJSON *z = cJSON_Parse("{\"requests\":{\"served\":0,\"slo_attainment\":0},\"services\":[{\"id\":\"a\","
                           "\"served\":2,\"slo_attainment\":0.5}]}");
    CHECK(!metrics_measured(z, "requests.slo_attainment", &v)); /* a share of nothing served */
    CHECK(metrics_measured(z, "services.a.slo_attainment", &v) && v == 0.5);
    cJSON_Delete(z);
    CHECK(!metrics_get(r, "services.c.served", &v));
    CHECK(!metrics_get(r, "services.2.served", &v));
    CHECK(!metrics_get(r, "services.1.id", &v)); /* a string is not a number */
    CHECK(!metrics_get(r, "jobs.queue_s", &v));  /* an object neither */
    CHECK(metrics_find("services.7.latency_s") && !metrics_find("services.7"));
    cJSON_Delete(r);
}

/* Before any run: a path of the report's own sections is known or a
 * misspelling (with the nearest names); a policy's section is the report's
 * to say. */
static void known_and_nearest(void)
{
    CHECK(metrics_known("jobs.queue_s.p99") == METRICS_KNOWN);
    CHECK(metrics_known("jobs.queue_s.count") == METRICS_KNOWN);
    CHECK(metrics_known("services.chat70b.ttft_s.p99") == METRICS_KNOWN);
    CHECK(metrics_known("services.0.latency_cdf_s.p99_9") == METRICS_KNOWN);
    CHECK(metrics_known("jobs.queue_s.p999") == METRICS_UNKNOWN);
    CHECK(metrics_known("jobs.completed.p99") == METRICS_UNKNOWN); /* a count has no statistics */
    CHECK(metrics_known("queue_p99x") == METRICS_UNKNOWN);
    CHECK(metrics_known("jbos.queue_s.p99") == METRICS_UNKNOWN);
    CHECK(metrics_known("policy.hibernate.pauses") == METRICS_OPEN);
    CHECK(metrics_known("hardware.placements") == METRICS_OPEN);
    char near[3][128];
    CHECK_EQ_INT(metrics_nearest("jobs.queue_s.p999", near, 3), 3);
    CHECK(!strcmp(near[0], "jobs.queue_s.p99"));
    CHECK_EQ_INT(metrics_nearest("queue_p99x", near, 3), 3);
    CHECK(!strcmp(near[0], "queue_p99"));
    CHECK_EQ_INT(metrics_nearest("services.chat.ttft_s.p999", near, 1), 1);
    CHECK(!strcmp(near[0], "services.chat.ttft_s.p99")); /* the id kept */
    CHECK(!strcmp(metrics_unit("jobs.queue_s.p99"), "s") && !strcmp(metrics_unit("gpu.alloc_ratio"), "ratio"));
    cJSON *r = cJSON_Parse("{\"policy\":{\"hibernate\":{\"pauses\":3,\"wakes\":2}}}");
    gs_error err;
    CHECK_EQ_INT(metrics_check_path("--slo", "policy.hibernate.pauses", r, &err), 0);
    CHECK_EQ_INT(metrics_check_path("--slo", "policy.hibernate.pause", r, &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "nearest: policy.hibernate.pauses");
    CHECK_EQ_INT(metrics_check_path("--metrics", "jobs.queue_s.p999", NULL, &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "--metrics: no metric 'jobs.queue_s.p999' (nearest: jobs.queue_s.p99");
    cJSON_Delete(r);
}

/* Every number the report's own sections hold, in runs of the examples
 * under the space policies (services, MIG, preemption and quotas, swap,
 * agent sessions), has a row: the table is the report's vocabulary, so a
 * new report field without a row fails here. */
static void every_report_number_has_a_row(void)
{
    static const struct {
        const char *trace, *gpus, *policy;
        const char *sets[4];
    } runs[] = {
        {"workloads/examples/day.csv", "H100-SXM5-80GB:64,A100-SXM4-80GB:32", "whole", {NULL}},
        {"workloads/examples/day.csv", "H100-SXM5-80GB:64", "vgpu", {"mem_scaling=1.5", "oversub=swap", NULL}},
        {"workloads/examples/inference.csv", "H100-SXM5-80GB:16", "timeslice", {NULL}},
        {"workloads/examples/preempt.csv", "H100-SXM5-80GB:16", "whole", {"preempt=on", NULL}},
        {"workloads/examples/agents.csv", "H100-SXM5-80GB:16", "whole+hibernate", {NULL}},
        {"workloads/examples/mig-mix.csv", "A100-SXM4-80GB:16", "mps", {NULL}},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        tu_run r;
        CHECK_EQ_INT(tu_run_trace(&r, runs[i].trace, runs[i].gpus, 8, runs[i].policy, runs[i].sets, NULL, NULL), 0);
        cJSON *rep = sim_report_build(&r.s, 0, 0);
        char prefix[256] = "";
        int unknown = 0;
        walk_numbers(rep, prefix, 0, &unknown);
        CHECK_EQ_INT(unknown, 0);
        cJSON_Delete(rep);
        tu_run_free(&r);
    }
}

const test_case tests_metrics[] = {
    {"metrics/directions_by_hand", directions},
    {"metrics/table_rules", table_rules},
    {"metrics/paths_and_empty_samples", paths_and_empty_samples},
    {"metrics/known_and_nearest", known_and_nearest},
    {"metrics/every_report_number_has_a_row", every_report_number_has_a_row},
    {NULL, NULL},
};
