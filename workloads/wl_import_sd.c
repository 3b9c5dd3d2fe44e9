/* wl_import_sd.c - the Alibaba GenAI Stable Diffusion request log
 * (cluster-trace-v2026-GenAI, lora_request_trace.csv; Lin et al., SoCC '25;
 * research use) to trace format v1.
 *
 * What a row means (the trace's README): one image-generation request with
 * its measured execution time. Mapping:
 *   checkpoint_model_version_id -> a service (one per base model, 1 GPU per
 *     replica, max_batch 1: a diffusion pipeline runs one request at a time);
 *   exec_time_seconds -> the request's service time (`duration`), plus
 *     num_lora x lora_load_s for its LoRA adapters;
 *   groupId -> tenant; gmt_create -> submit (seconds since the first row kept).
 * The measured time already reflects num_images_per_prompt x
 * num_inference_steps (work scales with their product), so those columns are
 * not used to derive it. Rows that did not succeed are skipped and counted by
 * status (the README: PENDING rows never ran, FAILED ones did partly).
 *
 * Every service is declared at time 0 so that the dual-pod modes (always-on
 * keeps every model awake from the start) compare over the same window: a
 * first pass finds the models, a second converts the requests.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "wl_import.h"
#include "wl_import_csv.h"
#include "../base/gs_num.h"

const char *const wl_sd_reason[WL_SD_NREASONS] = {
    "predict_status FAILED",
    "predict_status PENDING (never ran)",
    "predict_status PROCESSING (unfinished)",
    "predict_status not SUCCEED, FAILED, PENDING or PROCESSING",
    "no checkpoint_model_version_id",
    "gmt_create earlier than the row before",
};

enum { F_TIME, F_STATUS, F_EXEC, F_GROUP, F_MODEL, F_LORA, NF };
static const char *const need[NF] = {"gmt_create", "predict_status", "exec_time_seconds", "groupId",
                                     "checkpoint_model_version_id", "num_lora"};

typedef struct sd_row {
    int64_t t_s;
    double exec_s;
    long lora;
} sd_row;

/* Parses and classifies the current record: 0 = convert (fields in *r),
 * 1 + reason = skip, < 0 = bad input. `last` is the time of the last row
 * kept (or INT64_MIN); the same sequence gives the same answers on both
 * passes. */
static int classify(const wl_csv *c, const int *ix, int64_t last, sd_row *r, gs_error *err)
{
    const char *st = c->f[ix[F_STATUS]];
    if (!wl_csv_datetime(c->f[ix[F_TIME]], &r->t_s))
        return wl_csv_bad(c, ix[F_TIME], "a date and time YYYY-MM-DD HH:MM:SS", err), -1;
    if (strcmp(st, "SUCCEED"))
        return 1 + (!strcmp(st, "FAILED")       ? WL_SD_SKIP_FAILED
                    : !strcmp(st, "PENDING")    ? WL_SD_SKIP_PENDING
                    : !strcmp(st, "PROCESSING") ? WL_SD_SKIP_PROCESSING
                                                : WL_SD_SKIP_STATUS);
    if (!c->f[ix[F_MODEL]][0])
        return 1 + WL_SD_SKIP_NO_MODEL;
    if (!gs_text_field_ok(c->f[ix[F_MODEL]], 60))
        return wl_csv_bad(c, ix[F_MODEL], "a model id without commas, quotes or control characters, at most 60 "
                          "characters", err), -1;
    if (c->f[ix[F_GROUP]][0] && !gs_text_field_ok(c->f[ix[F_GROUP]], 60))
        return wl_csv_bad(c, ix[F_GROUP], "a group id without commas, quotes or control characters, at most 60 "
                          "characters", err), -1;
    if (!wl_csv_num(c->f[ix[F_EXEC]], 0, 1e7, &r->exec_s))
        return wl_csv_bad(c, ix[F_EXEC], "a number of seconds 0..1e7", err), -1;
    if (!gs_num_long(c->f[ix[F_LORA]], 0, 1000, &r->lora))
        return wl_csv_bad(c, ix[F_LORA], "a whole number of adapters 0..1000", err), -1;
    if (r->t_s < last)
        return 1 + WL_SD_SKIP_BACKWARDS;
    return 0;
}

typedef struct models {
    char (*id)[64];
    int n, cap;
} models;

static void models_add(models *m, const char *id)
{
    for (int i = 0; i < m->n; i++) /* O(models): 87 in the whole public file */
        if (!strcmp(m->id[i], id))
            return;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->id = xrealloc(m->id, (size_t)m->cap * sizeof *m->id);
    }
    snprintf(m->id[m->n++], sizeof *m->id, "%s", id);
}

int wl_import_sd(const char *path, FILE *out, FILE *warn, const wl_sd_opts *o, wl_sd_counts *n, gs_error *err)
{
    memset(n, 0, sizeof *n);
    wl_csv c;
    int ix[NF];
    int rc = wl_csv_open(&c, path, need, NF, ix, err);
    if (rc)
        return rc;
    models m = {0};
    int64_t last = INT64_MIN, t0 = 0;
    long kept = 0;
    sd_row r;
    int got;
    /* pass 1: validate, find the models and the first time */
    while (rc == 0 && (got = wl_csv_next(&c, err)) > 0 && (o->limit <= 0 || kept < o->limit)) {
        int k = classify(&c, ix, last, &r, err);
        if (k < 0) {
            rc = GS_EINPUT;
        } else if (k == 0) {
            if (kept++ == 0)
                t0 = r.t_s;
            last = r.t_s;
            models_add(&m, c.f[ix[F_MODEL]]);
        }
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    if (rc == 0)
        rc = wl_csv_rewind(&c, err);
    if (rc == 0) {
        fprintf(out, "id,submit,duration,gpus,kind,service,tenant,replicas_min,replicas_max,max_batch,weights_gib,"
                     "slo_ms\n");
        for (int i = 0; i < m.n; i++)
            fprintf(out, "%s,0,,%d,service,,,%d,%d,1,%g,%g\n", m.id[i], o->gpus, o->replicas_min, o->replicas_max,
                    o->weights_gib, o->slo_ms);
        n->services = m.n;
    }
    /* pass 2: convert */
    last = INT64_MIN;
    while (rc == 0 && (got = wl_csv_next(&c, err)) > 0 && (o->limit <= 0 || n->converted < o->limit)) {
        n->rows_in++;
        int k = classify(&c, ix, last, &r, err);
        if (k < 0) { /* pass 1 read the same bytes: only a file changed under us */
            rc = GS_EINPUT;
            break;
        }
        if (k > 0) {
            n->skipped++;
            n->skipped_by[k - 1]++;
            if (warn)
                fprintf(warn, "gpusim: warning: '%s' line %ld: %s; row skipped\n", path, c.lineno,
                        wl_sd_reason[k - 1]);
            continue;
        }
        last = r.t_s;
        double dur = r.exec_s + (double)r.lora * o->lora_load_s;
        if (r.lora > 0) {
            n->with_lora++;
            n->adapters += r.lora;
        }
        fprintf(out, "sd%ld,%lld,%.6f,,request,%s,%s,,,,,\n", c.lineno, (long long)(r.t_s - t0), dur,
                c.f[ix[F_MODEL]], c.f[ix[F_GROUP]]);
        n->converted++;
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    /* nothing to convert is an error, never an empty success */
    if (rc == 0 && n->rows_in == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': no request rows after the header", path);
    else if (rc == 0 && n->converted == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': none of the %ld rows can be converted (each skipped, reasons above)",
                    path, n->rows_in);
    free(m.id);
    wl_csv_close(&c);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_err(err, GS_EWRITE, "cannot write the converted trace");
    return rc;
}
