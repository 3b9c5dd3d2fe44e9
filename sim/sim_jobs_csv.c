/* sim_jobs_csv.c - see sim_jobs_csv.h.
 * SPDX-License-Identifier: MIT */
#include "sim_jobs_csv.h"
#include "sim.h"
#include "sim_fail.h"

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
    const sim_cost *c = sim_cost_of(s);
    int h = j->more ? j->more->cost_holder : -1;
    if (h >= 0 && h < c->nh)
        *cls = c->h[h].name;
    return h >= 0 && h < c->nh && !strcmp(c->h[h].kind, "service") ? "replica" : "task";
}

/* j's row: its state now, `outcome`, and `reason` or NULL. */
static void row(void *ud, const sim *s, const job *j, const char *outcome, const char *reason)
{
    FILE *f = ud;
    const sim_cluster *cl = sim_cluster_of(s);
    gs_time_us now = sim_now(s);
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
        secs(f, now);
    else
        fputc(',', f);
    if (j->started)
        secs(f, j->start_us - j->req.submit_us);
    else
        fputc(',', f);
    if (done)
        secs(f, now - j->req.submit_us);
    else
        fputc(',', f);
    fprintf(f, ",%u,", (unsigned)j->req.gpus);
    if (j->node >= 0 && j->node < cl->nnodes) {
        text(f, cl->pools[cl->nodes[j->node].pool].model->name);
        if (job_spans(j)) /* a gang: its part on each node (sim_gang.h) */
            for (int i = 0; i < j->gpu.span->nparts; i++)
                fprintf(f, "%c%d", i ? '|' : ',', j->gpu.span->part[i].node);
        else
            fprintf(f, ",%d", j->node);
    } else {
        fputc(',', f);
    }
    if (done && j->started && j->req.dur_us > 0)
        fprintf(f, ",%.6g", (double)(now - j->start_us) / (double)j->req.dur_us);
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

/* The rows of what is still in flight; nonzero when the file took a row
 * amiss. */
static int rows_end(void *ud, const sim *s)
{
    for (uint32_t slot = 0; slot < sim_job_slots(s); slot++) {
        const job *j = sim_job_in_slot(s, slot);
        if (j->state == JOB_RUNNING)
            row(ud, s, j, "running", NULL);
        else if (j->state == JOB_QUEUED)
            row(ud, s, j, "queued", NULL);
        else if (j->state == JOB_SUSPENDED)
            row(ud, s, j, "suspended", NULL);
    }
    return ferror((FILE *)ud);
}

void sim_set_jobs_csv(sim *s, FILE *f)
{
    sim_set_job_rows(s, f ? row : NULL, f ? rows_end : NULL, f);
    if (f)
        fputs(SIM_JOBS_CSV_HEADER, f);
}
