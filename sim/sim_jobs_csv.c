/* sim_jobs_csv.c - see sim_jobs_csv.h.
 * SPDX-License-Identifier: MIT */
#include "sim_jobs_csv.h"
#include "sim_fail.h"
#include "sim_struct.h"

#include <string.h>

/* A text field, quoted when it must be (RFC 4180: a comma, a quote, CR or
 * LF), its quotes doubled. */
static void text(FILE *f, const char *v)
{
    if (!v[strcspn(v, ",\"\r\n")]) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

/* ",S.UUUUUU": microseconds as seconds with six decimals, exactly (the
 * times are whole microseconds), digits written by hand: printf's %f is
 * most of a row's cost. */
static void secs(FILE *f, gs_time_us us)
{
    char b[32], *p = b + sizeof b;
    *--p = 0;
    bool neg = us < 0;
    uint64_t u = neg ? 0 - (uint64_t)us : (uint64_t)us;
    for (int i = 0; i < 6; i++, u /= 10)
        *--p = (char)('0' + u % 10);
    *--p = '.';
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (neg)
        *--p = '-';
    *--p = ',';
    fputs(p, f);
}

static const char *kind_of(const sim *s, const job *j, const char **cls)
{
    *cls = "";
    if (!j->internal)
        return j->req.kind == WL_KIND_SESSION ? "session" : "job";
    int h = j->more ? j->more->cost_holder : -1;
    if (h >= 0 && h < s->cost.nh)
        *cls = s->cost.h[h].name;
    return h >= 0 && h < s->cost.nh && !strcmp(s->cost.h[h].kind, "service") ? "replica" : "task";
}

void sim_jobs_csv_row(const sim *s, const job *j, const char *outcome, const char *reason)
{
    FILE *f = s->jobs_csv;
    if (!f)
        return;
    const char *cls, *kind = kind_of(s, j, &cls);
    bool ended = strcmp(outcome, "running") && strcmp(outcome, "queued") && strcmp(outcome, "suspended");
    bool done = !strcmp(outcome, "completed");
    text(f, j->req.id);
    fprintf(f, ",%s,", kind);
    text(f, cls);
    secs(f, j->req.submit_us);
    if (j->started)
        secs(f, j->start_us);
    else
        fputc(',', f);
    if (ended)
        secs(f, s->now);
    else
        fputc(',', f);
    if (j->started)
        secs(f, j->start_us - j->req.submit_us);
    else
        fputc(',', f);
    if (done)
        secs(f, s->now - j->req.submit_us);
    else
        fputc(',', f);
    fprintf(f, ",%u,", (unsigned)j->req.gpus);
    if (j->node >= 0 && j->node < s->cl->nnodes) {
        text(f, s->cl->pools[s->cl->nodes[j->node].pool].model->name);
        if (job_spans(j)) /* a gang: its part on each node (sim_gang.h) */
            for (int i = 0; i < j->gpu.span->nparts; i++)
                fprintf(f, "%c%d", i ? '|' : ',', j->gpu.span->part[i].node);
        else
            fprintf(f, ",%d", j->node);
    } else {
        fputc(',', f);
    }
    if (done && j->started && j->req.dur_us > 0)
        fprintf(f, ",%.6g", (double)(s->now - j->start_us) / (double)j->req.dur_us);
    else
        fputc(',', f);
    fprintf(f, ",%u,%u,", j->more ? (unsigned)j->more->preemptions : 0u, j->more ? (unsigned)j->more->interruptions : 0u);
    double held_gpu_s, ratio;
    if (sim_fail_job_goodput(s, j, &held_gpu_s, &ratio))
        fprintf(f, "%.3f,%.9g", held_gpu_s, ratio);
    else
        fputc(',', f);
    fprintf(f, ",%s,", outcome);
    text(f, reason ? reason : "");
    fputc('\n', f);
}

void sim_jobs_csv_in_flight(const sim *s)
{
    if (!s->jobs_csv)
        return;
    for (uint32_t c = 0; c < s->nchunks; c++)
        for (uint32_t i = 0; i < JOB_CHUNK; i++) {
            const job *j = &s->chunks[c][i];
            if (j->state == JOB_RUNNING)
                sim_jobs_csv_row(s, j, "running", NULL);
            else if (j->state == JOB_QUEUED)
                sim_jobs_csv_row(s, j, "queued", NULL);
            else if (j->state == JOB_SUSPENDED)
                sim_jobs_csv_row(s, j, "suspended", NULL);
        }
}
