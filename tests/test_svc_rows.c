/* test_svc_rows.c - service and request rows as their own records
 * (workloads/wl_svc_rows.h): every column of its kind survives the
 * conversion, and a replica's task row states exactly the job columns of
 * its service row (so a replica is placed, charged and sped up as before).
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "../workloads/wl_svc_rows.h"
#include "check.h"
#include "testutil.h"

/* Two service rows stating every job column between them, and a request
 * row with prefix-block ids. */
static const char *trace =
    "id,submit,duration,kind,gpus,gpumem,gpucores,gpumem_pct,mig,priority,preemptible,checkpoint_gib,tenant,"
    "gpu_model,cpu,mem_gib,util,params_b,ref_gpu,mem_bound,speedup,replicas_min,replicas_max,replicas_init,"
    "max_batch,slo_ms,weights_gib,rate,pattern,svc_mean_ms,input_tokens,output_tokens,prefill_ms_per_token,"
    "decode_ms_base,decode_ms_per_seq,slo_ttft_ms,slo_tpot_ms,kv_kib_per_token,profile,service,hash_ids\n"
    "chat,5,3600,service,2,40960,50,,,3,1,12.5,team-a,H100-SXM5-80GB|A100-SXM4-80GB,8,64,0.5,70,A100-SXM4-80GB,"
    "0.7,H100-SXM5-80GB:2,1,4,2,32,900,130,1.5,diurnal,800,1000,200,0.2,30,0.4,500,60,320,llama2-70b,,\n"
    "small,5,,service,1,,,25,1g.10gb,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n"
    "q1,6,,request,,,,,,,,,,,,,,,,,,,,,,,,,,,5,17,,,,,,,,chat,1|22|333\n";

/* The job columns of a and b agree (what the core, the space policies and
 * the hardware module read from a task's row). */
static void check_job_columns(const wl_row *a, const wl_row *b)
{
    CHECK_EQ_INT(a->line, b->line);
    CHECK_EQ_INT(a->dur_us, b->dur_us);
    CHECK_EQ_INT(a->has_duration, b->has_duration);
    CHECK_EQ_INT(a->gpus, b->gpus);
    CHECK_EQ_INT(a->gpumem_mib, b->gpumem_mib);
    CHECK_EQ_INT(a->gpucores, b->gpucores);
    CHECK_EQ_INT(a->gpumem_pct, b->gpumem_pct);
    CHECK(a->util == b->util);
    CHECK(!strcmp(a->mig, b->mig));
    CHECK(a->cpu == b->cpu && a->mem_gib == b->mem_gib);
    CHECK(!strcmp(a->gpu_model, b->gpu_model));
    CHECK_EQ_INT(a->gpu_model_col, b->gpu_model_col);
    CHECK_EQ_INT(a->priority, b->priority);
    CHECK_EQ_INT(a->preemptible, b->preemptible);
    CHECK(a->checkpoint_gib == b->checkpoint_gib && a->params_b == b->params_b);
    CHECK(!strcmp(a->tenant, b->tenant));
    CHECK(!strcmp(a->ref_gpu, b->ref_gpu));
    CHECK_EQ_INT(a->ref_gpu_col, b->ref_gpu_col);
    CHECK(a->mem_bound == b->mem_bound);
    CHECK(!strcmp(a->speedup, b->speedup));
    CHECK_EQ_INT(a->speedup_col, b->speedup_col);
}

/* wl_trace_next into a row of the caller's (a copy of the reader's). */
static int next_row(wl_trace *t, wl_row *out, gs_error *err)
{
    const wl_row *r;
    int rc = wl_trace_next(t, &r, err);
    if (rc == 1)
        *out = *r;
    return rc;
}

static void service_and_request_records(void)
{
    gs_error err = {0};
    wl_trace *t = wl_trace_open(tu_write_tmp(trace), NULL, &err);
    CHECK(t != NULL);
    if (!t)
        return;
    wl_row r, task;
    wl_service v;
    /* chat: every service column, and a task row with its job columns */
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    wl_service_of(&r, &v);
    CHECK(!strcmp(v.id, "chat"));
    CHECK_EQ_INT(v.line, 2);
    CHECK(v.has_duration && v.dur_us == 3600000000LL);
    CHECK(v.replicas_min == 1 && v.replicas_max == 4 && v.replicas_init == 2 && v.max_batch == 32);
    CHECK(v.slo_ms == 900 && v.slo_ttft_ms == 500 && v.slo_tpot_ms == 60);
    CHECK(v.weights_gib == 130 && v.params_b == 70 && v.kv_kib_per_token == 320);
    CHECK(v.rate == 1.5 && v.diurnal && v.svc_mean_ms == 800);
    CHECK(v.input_tokens == 1000 && v.output_tokens == 200);
    CHECK(v.prefill_ms_per_token == 0.2 && v.decode_ms_base == 30 && v.decode_ms_per_seq == 0.4);
    CHECK(!strcmp(v.profile, "llama2-70b"));
    CHECK(!strcmp(v.ask.tenant, "team-a") && v.ask.gpus == 2 && v.ask.priority == 3);
    wl_service_replica_row(&v, &task);
    CHECK_EQ_INT(task.kind, WL_KIND_JOB);
    check_job_columns(&task, &r);
    /* columns that are not a job's are "not given" on the task */
    CHECK(task.weights_gib < 0 && task.replicas_min < 0 && task.output_tokens < 0 && task.rate == 0);
    CHECK(!task.service[0] && !task.hash_ids && task.nhash == 0);
    /* small: MIG profile and memory share; poisson by default */
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    wl_service_of(&r, &v);
    CHECK(!v.diurnal && !v.has_duration && v.replicas_min == -1 && v.weights_gib < 0);
    CHECK(!strcmp(v.ask.mig, "1g.10gb") && v.ask.gpumem_pct == 25);
    wl_service_replica_row(&v, &task);
    check_job_columns(&task, &r);
    /* q1: a request, its ids still the reader's */
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    wl_request q;
    wl_request_of(&r, &q);
    CHECK(!strcmp(q.id, "q1") && !strcmp(q.service, "chat"));
    CHECK(q.line == 4 && q.input_tokens == 5 && q.output_tokens == 17 && !q.has_duration);
    CHECK(q.hash_ids == r.hash_ids && q.nhash == 3);
    CHECK_EQ_INT(next_row(t, &r, &err), 0);
    wl_trace_close(t);
}

const test_case tests_svc_rows[] = {
    {"svc_rows: service and request records; a replica's row keeps the job columns", service_and_request_records},
    {NULL, NULL},
};
