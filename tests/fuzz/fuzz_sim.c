/* fuzz_sim.c - a whole small simulation: the input's first byte picks the
 * policy and a few parameters, the rest is the trace. The run must end
 * (events bounded by the trace: inputs asking for more than a small budget
 * of generated requests or replicas are skipped, as is a hang the budget
 * cannot tell), account for every job, and write a report that passes the
 * report checker and prints as valid UTF-8.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/gs_json.h"
#include "../../base/gs_utf8.h"
#include "../../cli/cli_docs.h"
#include "../../policies/registry.h"
#include "../../sim/sim_cluster_file.h"
#include "../../sim/sim_report.h"
#include "../../sim/sim_struct.h"
#include "../../workloads/wl_trace.h"
#include "fuzz_util.h"

/* Work budget per input: generated requests (rate x duration), replicas. */
#define MAX_GENERATED 20000.0
#define MAX_REPLICAS 256

static bool within_budget(const char *path)
{
    gs_error err;
    wl_opts o = {0};
    wl_trace *t = wl_trace_open(path, &o, &err);
    if (!t)
        return true; /* sim_init reports it */
    const wl_row *r;
    double gen = 0;
    bool ok = true;
    while (ok && wl_trace_next(t, &r, &err) > 0) {
        if (r->kind == WL_KIND_SERVICE) {
            gen += r->rate * (r->has_duration ? gs_us_to_s(r->dur_us) : 0);
            ok = r->replicas_max <= MAX_REPLICAS && r->replicas_min <= MAX_REPLICAS && r->replicas_init <= MAX_REPLICAS;
        }
        ok = ok && gen <= MAX_GENERATED;
    }
    wl_trace_close(t);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const policies[] = {"whole", "vgpu", "timeslice", "mig", "dynmig", "whole+hibernate",
                                           "vgpu+dualpod", "whole"};
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    const char *trace = fz_write(data + 1, size - 1, "sim.csv");
    if (!within_budget(trace))
        return 0;
    const char *policy = policies[sel & 7];
    bool mig = (sel & 7) == 3 || (sel & 7) == 4;
    sim_config cfg = {.trace_path = trace, .policy = policy, .seed = 1 + (sel >> 6), .registry = pol_all(),
                      .sample_us = 60 * GS_US_PER_S, .until_us = 7 * 86400 * GS_US_PER_S,
                      .allow_extra_columns = sel & 8};
    static char k_preempt[] = "preempt", v_on[] = "on", k_queue[] = "queue", v_fifo[] = "fifo";
    if (sel & 16) { /* a preemption run */
        cfg.sets[cfg.nsets].key = k_preempt;
        cfg.sets[cfg.nsets++].value = v_on;
    }
    if (sel & 32 && !mig) {
        cfg.sets[cfg.nsets].key = k_queue;
        cfg.sets[cfg.nsets++].value = v_fifo;
    }
    sim_cluster cl;
    gs_error err = {0};
    int rc;
    if (mig) {
        char p[512];
        if (!gs_exe_relative(p, sizeof p, "workloads/examples/cluster-mig.json"))
            snprintf(p, sizeof p, "workloads/examples/cluster-mig.json");
        rc = sim_cluster_load(&cl, p, fz_catalog(), &err);
    } else {
        rc = sim_cluster_from_spec(&cl, "H100-SXM5-80GB:8,A100-SXM4-80GB:8", 8, fz_catalog(), &err);
    }
    if (rc) {
        fprintf(stderr, "fuzz: cannot build the cluster: %s\n", err.msg);
        abort();
    }
    FILE *ts = fopen("/dev/null", "w");
    sim s;
    rc = sim_init(&s, &cfg, fz_catalog(), &cl, ts, &err);
    if (rc == 0 && (rc = sim_run(&s)) != 0)
        err = s.err;
    if (rc) {
        fz_check_err(rc, &err);
    } else {
        cJSON *rep = sim_report_build(&s, 0, 0);
        size_t n;
        char *text = gs_json_print(rep, &n);
        cJSON *back = gs_json_parse(text, n, "report", "fuzz", &err);
        if (!gs_utf8_valid(text, n) || !back || cd_check_report(back, "fuzz", &err) != 0) {
            fprintf(stderr, "fuzz: the run's own report does not pass: %s\n", err.msg);
            abort();
        }
        cJSON_Delete(back);
        cJSON_Delete(rep);
        free(text);
    }
    sim_free(&s);
    sim_cluster_free(&cl);
    fclose(ts);
    return 0;
}
