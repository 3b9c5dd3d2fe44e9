/* wl_slurm_sacct.c - `sacct --parsable2 --allocations` to trace rows.
 *
 * The header names the fields ('|'-separated, no trailing '|': sacct(1)
 * --parsable2); JobID, Submit, Start, End, State, AllocTRES and NNodes are
 * needed, Partition, QOS, Priority, Account and Timelimit used when there,
 * any other field ignored. Per job (sacct(1) "JOB STATE CODES", AllocTres,
 * Timelimit):
 *   gpus         AllocTRES gres/gpu=N (else the sum of the typed
 *                gres/gpu:TYPE=N); NNodes > 1: gpus_per_node = N / NNodes
 *                (the job becomes one gang row); cpu and mem (K/M/G/T, MiB
 *                based) per node
 *   gpu_model    the typed entries' models, else the models of the
 *                Partition's nodes when they are not all of the cluster's
 *   submit       Submit; observed_start Start; duration End - Start: jobs
 *                that ran (COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY,
 *                NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE, and CANCELLED
 *                after they started) run as long as they ran; RUNNING,
 *                SUSPENDED, REQUEUED with a Start and no End: to the dump
 *                (the latest time in the file), class ":running"
 *   skipped      PENDING; CANCELLED before a start (a wait, no work: their
 *                waits are summed in the counts); no GPU; steps
 *   ref_gpu      the one model the job's GPUs can be (its duration's card)
 *   time_limit   Timelimit [D-]HH:MM:SS (UNLIMITED, Partition_Limit: none)
 *   priority     Priority (above 2e9 clamped); tenant Account; class QOS
 * Job arrays' tasks (JobID A_T) are jobs like any other; a pending array's
 * line (A_[range]) is pending; heterogeneous components (J+K) become rows
 * of their own (counted: not co-scheduled). Rows are sorted by Submit with
 * wl_sort_runs; trace time 0 is the first row's Submit. Times carry no zone
 * (sacct prints local time): they are read as UTC, only differences count.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_file.h"
#include "../base/gs_num.h"
#include "wl_value.h"
#include "wl_slurm_types.h"
#include "wl_sort_runs.h"

const char *const wl_sacct_reason[WL_SACCT_NREASONS] = {
    "PENDING: never started",
    "CANCELLED before it started (a wait, no work)",
    "no Start: nothing ran",
    "no GPU in AllocTRES (--cpu-jobs keeps such jobs)",
    "GPUs not a multiple of NNodes (the per-node share is unknown)",
    "more than 64 GPUs on one node",
    "a GPU type (gres/gpu:TYPE) that no node of the list has",
    "a job step line (run sacct with --allocations)",
};

enum { F_JOBID, F_SUBMIT, F_START, F_END, F_STATE, F_TRES, F_NNODES, F_PART, F_QOS, F_PRIO, F_ACCOUNT, F_LIMIT, NF };
static const char *const fields[NF] = {"JobID", "Submit", "Start", "End", "State", "AllocTRES", "NNodes",
                                       "Partition", "QOS", "Priority", "Account", "Timelimit"};
#define NEED 7 /* the first seven are required */
#define MAX_FIELDS 256

typedef struct sacct_in {
    const char *path;
    FILE *f;
    char *line;
    size_t cap;
    long lineno;
    int col[NF];       /* field index of each, -1 absent */
    int nfields;
    char *v[MAX_FIELDS];
} sacct_in;

/* GS_EINPUT "'FILE' line L, field F (NAME): expected WHAT, found 'V'". */
static int bad(const sacct_in *in, int f, const char *what, gs_error *err)
{
    return gs_err(err, GS_EINPUT, "accounting '%s' line %ld, field %d (%s): expected %s, found '%s'", in->path,
                  in->lineno, in->col[f] + 1, fields[f], what, in->v[in->col[f]]);
}

/* The next non-blank line split at '|': 1, 0 at the end, or GS_EINPUT. */
static int next_line(sacct_in *in, gs_error *err)
{
    ssize_t len;
    while ((len = getline(&in->line, &in->cap, in->f)) >= 0) {
        in->lineno++;
        while (len > 0 && (in->line[len - 1] == '\n' || in->line[len - 1] == '\r'))
            in->line[--len] = 0;
        if (!*in->line)
            continue;
        int n = 0;
        for (char *p = in->line; p; n++) {
            if (n == MAX_FIELDS)
                return gs_err(err, GS_EINPUT, "accounting '%s' line %ld: more than %d fields", in->path, in->lineno,
                              MAX_FIELDS);
            in->v[n] = p;
            p = strchr(p, '|');
            if (p)
                *p++ = 0;
        }
        if (in->nfields && n != in->nfields)
            return gs_err(err, GS_EINPUT, "accounting '%s' line %ld: %d '|'-separated fields, the header has %d "
                          "(sacct --parsable2; a field holding '|' breaks the format)", in->path, in->lineno, n,
                          in->nfields);
        in->nfields = n;
        return 1;
    }
    return 0;
}

static int read_header(sacct_in *in, gs_error *err)
{
    int got = next_line(in, err);
    if (got < 0)
        return got;
    if (got == 0)
        return gs_err(err, GS_EINPUT, "accounting '%s': empty (expected the header sacct prints)", in->path);
    for (int f = 0; f < NF; f++) {
        in->col[f] = -1;
        for (int i = 0; i < in->nfields; i++)
            if (!strcasecmp(in->v[i], fields[f]))
                in->col[f] = i;
        if (f < NEED && in->col[f] < 0)
            return gs_err(err, GS_EINPUT, "accounting '%s' line 1: no field '%s' (sacct --parsable2 --allocations "
                          "--format=JobID,Submit,Start,End,State,AllocTRES,NNodes[,Partition,QOS,Priority,Account,"
                          "Timelimit])", in->path, fields[f]);
    }
    return 0;
}

static const char *val(const sacct_in *in, int f) { return in->col[f] >= 0 ? in->v[in->col[f]] : ""; }

/* {==== fields ====} */

/* A time, or "Unknown"/"None" (not set: *us = -1). */
static int time_of(const sacct_in *in, int f, int64_t *us, gs_error *err)
{
    const char *s = val(in, f);
    if (!strcmp(s, "Unknown") || !strcmp(s, "None") || (f == F_END && !*s)) {
        *us = -1;
        return 0;
    }
    if (!wl_value_time(s, 0, us))
        return bad(in, f, "a time YYYY-MM-DDTHH:MM:SS, Unknown or None", err);
    return 0;
}

/* Digits at *p (at least one) up to the next non-digit; false if none. */
static bool number_at(const char **p, long *v)
{
    if (!isdigit((unsigned char)**p))
        return false;
    long x = 0;
    for (; isdigit((unsigned char)**p) && x < 100000000; (*p)++)
        x = x * 10 + (**p - '0');
    *v = x;
    return true;
}

/* Timelimit as Slurm prints it (mins2time_str: [D-]HH:MM:SS; also MM:SS);
 * UNLIMITED, Partition_Limit and an empty field: none (-1). */
static int limit_of(const sacct_in *in, long *secs, gs_error *err)
{
    const char *s = val(in, F_LIMIT), *p = s;
    *secs = -1;
    if (!*s || !strcmp(s, "UNLIMITED") || !strcasecmp(s, "Partition_Limit"))
        return 0;
    long d = 0, part[3] = {0};
    int n = 0;
    if (strchr(s, '-') && (!number_at(&p, &d) || *p++ != '-'))
        return bad(in, F_LIMIT, "[D-]HH:MM:SS, UNLIMITED or Partition_Limit", err);
    while (n < 3 && number_at(&p, &part[n])) {
        n++;
        if (*p != ':')
            break;
        p++;
    }
    if (*p || n < 2 || (n == 2 && d)) /* D- needs HH:MM:SS */
        return bad(in, F_LIMIT, "[D-]HH:MM:SS, UNLIMITED or Partition_Limit", err);
    long h = n == 3 ? part[0] : 0, m = part[n - 2], sec = part[n - 1];
    if (m > 59 || sec > 59)
        return bad(in, F_LIMIT, "[D-]HH:MM:SS with minutes and seconds below 60", err);
    *secs = ((d * 24 + h) * 60 + m) * 60 + sec;
    if (*secs == 0)
        *secs = -1; /* a zero limit is no limit a trace can state */
    return 0;
}

/* What a job was allocated (AllocTRES: "cpu=8,mem=64G,node=1,gres/gpu:h100=8,gres/gpu=8"). */
typedef struct tres {
    long gpus, typed;
    double cpu, mem_gib;
    char types[4][64];
    int ntypes;
} tres;

/* mem=: a number and a unit of Slurm's convert_num_unit (K M G T P, 1024
 * apart; none: MiB). */
static bool tres_mem(const char *v, double *gib)
{
    static const char units[] = "KMGTP";
    size_t n = strlen(v);
    const char *u = n && strchr(units, v[n - 1]) ? strchr(units, v[n - 1]) : NULL;
    double x;
    if (!n || n > 40 || !gs_num_decimal_n(v, u ? n - 1 : n, &x) || x < 0)
        return false;
    *gib = x * pow(1024.0, (double)(u ? u - units : 1) - 2);
    return true;
}

static int tres_of(const sacct_in *in, tres *t, gs_error *err)
{
    memset(t, 0, sizeof *t);
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", val(in, F_TRES));
    char *save = NULL;
    for (char *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(e, '=');
        if (!eq)
            return bad(in, F_TRES, "KEY=VALUE entries such as cpu=8,gres/gpu=8", err);
        *eq = 0;
        const char *k = e, *v = eq + 1;
        long n = 0;
        bool whole = gs_num_long(v, 0, 100000000, &n);
        if (!strcmp(k, "gres/gpu") || !strncmp(k, "gres/gpu:", 9)) {
            if (!whole)
                return bad(in, F_TRES, "a whole number of GPUs in gres/gpu", err);
            if (k[8] == ':' && t->ntypes < 4) {
                snprintf(t->types[t->ntypes++], sizeof t->types[0], "%s", k + 9);
                t->typed += n;
            } else if (!k[8]) {
                t->gpus = n;
            }
        } else if (!strcmp(k, "cpu")) {
            if (!whole)
                return bad(in, F_TRES, "a whole number of CPUs in cpu=", err);
            t->cpu = (double)n;
        } else if (!strcmp(k, "mem") && !tres_mem(v, &t->mem_gib)) {
            return bad(in, F_TRES, "memory such as mem=64G in mem=", err);
        }
    }
    if (!t->gpus)
        t->gpus = t->typed;
    return 0;
}

/* A text field the trace can hold unquoted, under 64 characters. */
static int text_of(const sacct_in *in, int f, char *out, size_t cap, gs_error *err)
{
    const char *s = val(in, f);
    if (*s && !gs_text_field_ok(s, cap - 1))
        return bad(in, f, "a name without commas, quotes or control characters, under 64 characters", err);
    snprintf(out, cap, "%s", s);
    return 0;
}

/* {==== one job ====} */

enum { ST_DONE, ST_FAILED, ST_TIMEOUT, ST_CANCELLED, ST_OTHER, ST_PENDING, ST_RUNNING };

/* The state's first word (sacct appends " by UID" to CANCELLED) as one of
 * the codes above; -1 when it is no job state sacct(1) lists. */
static int state_of(const char *s)
{
    static const struct {
        const char *name;
        int st;
    } states[] = {{"COMPLETED", ST_DONE}, {"FAILED", ST_FAILED}, {"OUT_OF_MEMORY", ST_FAILED},
                  {"NODE_FAIL", ST_FAILED}, {"BOOT_FAIL", ST_FAILED}, {"TIMEOUT", ST_TIMEOUT},
                  {"DEADLINE", ST_TIMEOUT}, {"CANCELLED", ST_CANCELLED}, {"PREEMPTED", ST_OTHER},
                  {"REQUEUED", ST_OTHER}, {"RESIZING", ST_OTHER}, {"REVOKED", ST_OTHER},
                  {"SPECIAL_EXIT", ST_OTHER}, {"PENDING", ST_PENDING}, {"RUNNING", ST_RUNNING},
                  {"SUSPENDED", ST_RUNNING}};
    size_t n = strcspn(s, " +");
    for (size_t i = 0; i < sizeof states / sizeof *states; i++)
        if (strlen(states[i].name) == n && !strncmp(s, states[i].name, n))
            return states[i].st;
    return -1;
}

typedef struct sjob {
    char id[128], tenant[64], klass[64], gpu_model[256], ref_gpu[48];
    int reason, state;
    int64_t submit_us, start_us, end_us;
    long gpus, nodes, gpn, prio, limit_s;
    double cpu, mem_gib;
    bool clamped;
} sjob;

/* gpu_model: the typed GRES entries' models, else the partition's. */
static void models_of(wl_slurm *s, const sacct_in *in, const tres *t, sjob *j)
{
    uint64_t m = 0, all = s->nnodes ? s->all_models : ~0ull;
    for (int i = 0; i < t->ntypes; i++) {
        int x = slurm_model_of(s, t->types[i]);
        m |= x >= 0 ? 1ull << x : 0;
    }
    if (t->ntypes && !(m & all)) {
        j->reason = WL_SACCT_SKIP_TYPE;
        return;
    }
    if (!t->ntypes && s->nnodes)
        m = slurm_part_models(s, val(in, F_PART));
    m &= all;
    if (m && !(m & (m - 1))) /* one model: the card its duration was measured on */
        for (int i = 0; i < s->nmodels; i++)
            if (m == 1ull << i)
                snprintf(j->ref_gpu, sizeof j->ref_gpu, "%s", s->models[i]);
    if (m == s->all_models || !m)
        return;
    size_t w = 0;
    for (int i = 0; i < s->nmodels && w < sizeof j->gpu_model - 50; i++)
        if (m & (1ull << i))
            w += (size_t)snprintf(j->gpu_model + w, sizeof j->gpu_model - w, "%s%s", w ? "|" : "", s->models[i]);
}

/* GPUs, nodes, per-node shares and the skip they may call for. */
static void shape_of(wl_slurm *s, const sacct_in *in, const tres *t, sjob *j)
{
    j->gpus = t->gpus;
    j->nodes = j->nodes > 0 ? j->nodes : 1;
    j->cpu = t->cpu / (double)j->nodes;
    j->mem_gib = t->mem_gib / (double)j->nodes;
    j->gpn = j->gpus / j->nodes;
    if (j->gpus == 0 && !s->o->cpu_jobs)
        j->reason = WL_SACCT_SKIP_NO_GPU;
    else if (j->gpus % j->nodes)
        j->reason = WL_SACCT_SKIP_UNEVEN;
    else if (j->gpn > 64)
        j->reason = WL_SACCT_SKIP_TOO_MANY;
    else if (j->gpus)
        models_of(s, in, t, j);
}

/* What the job's state and times make of it: ran, running, or a skip. */
static void fate_of(const sacct_in *in, sjob *j)
{
    bool started = j->start_us >= 0;
    if (!started)
        j->reason = j->state == ST_PENDING ? WL_SACCT_SKIP_PENDING
                  : j->state == ST_CANCELLED ? WL_SACCT_SKIP_CANCELLED : WL_SACCT_SKIP_NEVER;
    else if (j->state == ST_CANCELLED && (!*val(in, F_TRES) || j->nodes == 0))
        j->reason = WL_SACCT_SKIP_CANCELLED; /* cancelled while pending: a start stamped, nothing allocated */
    else if (j->state == ST_PENDING)
        j->reason = WL_SACCT_SKIP_PENDING;
}

static int job_of(wl_slurm *s, const sacct_in *in, sjob *j, gs_error *err)
{
    memset(j, 0, sizeof *j);
    j->reason = -1;
    j->limit_s = -1;
    const char *id = val(in, F_JOBID), *st = val(in, F_STATE), *nn = val(in, F_NNODES), *pr = val(in, F_PRIO);
    if (!gs_text_field_ok(id, sizeof j->id - 1))
        return bad(in, F_JOBID, "a job id such as 1234, 1234_7 or 1234+1", err);
    snprintf(j->id, sizeof j->id, "%s", id);
    if (strchr(id, '.')) {
        j->reason = WL_SACCT_SKIP_STEP;
        return 0;
    }
    if ((j->state = state_of(st)) < 0)
        return bad(in, F_STATE, "a job state (sacct(1) JOB STATE CODES)", err);
    if (!gs_num_long(nn, 0, 1000000, &j->nodes))
        return bad(in, F_NNODES, "a whole number of nodes", err);
    if (*pr && !gs_num_long(pr, 0, 4294967295L, &j->prio))
        return bad(in, F_PRIO, "a whole priority 0..4294967295", err);
    j->clamped = j->prio > 2000000000L;
    j->prio = j->clamped ? 2000000000L : j->prio;
    tres t;
    if (time_of(in, F_SUBMIT, &j->submit_us, err) || time_of(in, F_START, &j->start_us, err) ||
        time_of(in, F_END, &j->end_us, err) || limit_of(in, &j->limit_s, err) || tres_of(in, &t, err) ||
        text_of(in, F_ACCOUNT, j->tenant, sizeof j->tenant, err) || text_of(in, F_QOS, j->klass, sizeof j->klass, err))
        return GS_EINPUT;
    if (j->submit_us < 0)
        return bad(in, F_SUBMIT, "the submit time", err);
    if (j->start_us >= 0 && j->end_us >= 0 && j->end_us < j->start_us)
        return bad(in, F_END, "an end at or after the Start", err);
    fate_of(in, j);
    if (j->reason < 0)
        shape_of(s, in, &t, j);
    return 0;
}

/* {==== the passes ====} */

static void count_job(wl_sacct_counts *n, const sjob *j)
{
    n->converted++;
    n->running += j->end_us < 0;
    n->multi_node += j->nodes > 1;
    n->array_tasks += strchr(j->id, '_') != NULL;
    n->het_components += strchr(j->id, '+') != NULL;
    n->no_time_limit += j->limit_s < 0;
    n->priority_clamped += j->clamped;
    if (j->end_us >= 0) {
        n->completed += j->state == ST_DONE;
        n->failed += j->state == ST_FAILED;
        n->timeout += j->state == ST_TIMEOUT;
        n->cancelled_run += j->state == ST_CANCELLED;
        n->other_end += j->state == ST_OTHER || j->state == ST_RUNNING;
    }
}

static void skip_job(wl_slurm *s, const sacct_in *in, const sjob *j)
{
    wl_sacct_counts *n = s->n;
    n->skipped++;
    n->skipped_by[j->reason]++;
    if (j->reason == WL_SACCT_SKIP_CANCELLED && j->end_us >= j->submit_us) {
        n->cancelled_waits++;
        n->cancelled_wait_s += (double)(j->end_us - j->submit_us) / 1e6;
    }
    if (s->warn && j->reason != WL_SACCT_SKIP_NO_GPU && j->reason != WL_SACCT_SKIP_STEP)
        fprintf(s->warn, "gpusim: warning: accounting '%s' line %ld (job %s): %s; not converted\n", in->path,
                in->lineno, j->id, wl_sacct_reason[j->reason]);
}

/* Pass 1: each converted job one sorted line "START\tEND\tCLASS\tID,TAIL"
 * keyed by Submit (END -1: running at the dump). */
static int read_jobs(wl_slurm *s, sacct_in *in, wl_runs *runs, gs_error *err)
{
    int got, rc = 0;
    sjob j;
    while (rc == 0 && (got = next_line(in, err)) > 0) {
        s->n->rows_in++;
        if ((rc = job_of(s, in, &j, err)))
            break;
        int64_t ts[3] = {j.submit_us, j.start_us, j.end_us};
        for (int i = 0; i < 3; i++)
            if (ts[i] > s->n->dump_us)
                s->n->dump_us = ts[i];
        if (j.reason >= 0) {
            skip_job(s, in, &j);
            continue;
        }
        count_job(s->n, &j);
        char gpn[24] = "", lim[24] = "", line[1024];
        if (j.nodes > 1)
            snprintf(gpn, sizeof gpn, "%ld", j.gpn);
        if (j.limit_s >= 0)
            snprintf(lim, sizeof lim, "%ld", j.limit_s);
        snprintf(line, sizeof line, "%" PRId64 "\t%" PRId64 "\t%s\t%s,%ld,%s,%.12g,%.12g,%ld,%s,%s,%s,%s", j.start_us,
                 j.end_us, j.klass, j.id, j.gpus, gpn, j.cpu, j.mem_gib, j.prio, j.tenant, j.gpu_model, lim, j.ref_gpu);
        rc = wl_runs_add(runs, (double)j.submit_us / 1e6, line, err);
    }
    return rc ? rc : got < 0 ? GS_EINPUT : 0;
}

typedef struct emit_ctx {
    FILE *out;
    wl_sacct_counts *n;
} emit_ctx;

/* Pass 2: "id,submit,duration,<tail>,class,observed_start". */
static int emit_row(void *ud, double key, const char *line)
{
    emit_ctx *e = ud;
    int64_t submit = (int64_t)llround(key * 1e6), start = strtoll(line, NULL, 10);
    const char *t1 = strchr(line, '\t'), *t2 = strchr(t1 + 1, '\t'), *t3 = strchr(t2 + 1, '\t');
    int64_t end = strtoll(t1 + 1, NULL, 10);
    const char *comma = strchr(t3 + 1, ',');
    if (e->n->origin_us < 0)
        e->n->origin_us = submit;
    bool running = end < 0;
    if (running)
        end = e->n->dump_us;
    if (start < submit) /* accounting from two clocks: a start never precedes its submit here */
        start = submit;
    char sub[32], dur[32], obs[32];
    wl_value_seconds(submit - e->n->origin_us, sub, sizeof sub);
    wl_value_seconds(end > start ? end - start : 0, dur, sizeof dur);
    wl_value_seconds(start - e->n->origin_us, obs, sizeof obs);
    fprintf(e->out, "%.*s,%s,%s%s,%.*s%s,%s\n", (int)(comma - t3 - 1), t3 + 1, sub, dur, comma, (int)(t3 - t2 - 1),
            t2 + 1, running ? ":running" : "", obs);
    return ferror(e->out) ? GS_EWRITE : 0;
}

int wl_slurm_write_trace(wl_slurm *s, const char *path, FILE *out, gs_error *err)
{
    sacct_in in = {.path = path};
    in.f = gs_open_input(path, "accounting", err);
    if (!in.f)
        return GS_EINPUT;
    s->n->origin_us = -1;
    wl_runs *runs = wl_runs_new(s->o->sort_lines ? s->o->sort_lines : 65536);
    int rc = read_header(&in, err);
    if (rc == 0)
        rc = read_jobs(s, &in, runs, err);
    fclose(in.f);
    free(in.line);
    if (rc == 0 && s->n->converted == 0)
        rc = gs_err(err, GS_EINPUT, "accounting '%s': no job converted (%ld lines, %ld skipped): nothing to replay",
                    path, s->n->rows_in, s->n->skipped);
    if (rc == 0) {
        fprintf(out, "id,submit,duration,gpus,gpus_per_node,cpu,mem_gib,priority,tenant,gpu_model,time_limit,ref_gpu,"
                     "class,observed_start\n");
        emit_ctx e = {out, s->n};
        rc = wl_runs_merge(runs, emit_row, &e, err);
        s->n->runs = wl_runs_spilled(runs);
        if (rc == GS_EWRITE || (rc == 0 && (fflush(out) != 0 || ferror(out))))
            rc = gs_err(err, GS_EWRITE, "cannot write the converted trace");
    }
    wl_runs_free(runs);
    return rc;
}
