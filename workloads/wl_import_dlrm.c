/* wl_import_dlrm.c - the Alibaba cluster-trace-gpu-v2025 DLRM inference
 * instances (disaggregated_DLRM_trace.csv; Yang et al., "GPU-Disaggregated
 * Serving for Deep Learning Recommendation Models at Scale", NSDI '25;
 * research use) to trace format v1 jobs.
 *
 * Each row is one long-running instance of an application (all latency-
 * sensitive). Mapping, per the trace's README:
 *   role HN (GPU node) -> gpus = gpu_request (whole cards in the public file;
 *     a fraction below 1 becomes one card with gpucores = gpumem_pct = the
 *     fraction in percent); role CN (CPU node) -> gpus 0;
 *   cpu_request (whole vCPUs) -> cpu; memory_request (GiB) -> mem_gib;
 *   app_name -> tenant (so a cluster file can give each app a quota);
 *   creation_time -> submit (empty: the instance existed before the trace:
 *     submit 0); deletion_time -> submit + duration (empty: alive at the end:
 *     it runs until the end, the latest time in the file unless given).
 * Not modeled, and counted: rdma_request (share of a node's RDMA NIC) and
 * max_instance_per_node (an anti-affinity cap); disk; scheduled_time (the
 * placement delay, mostly 0 s, is the simulator's to find).
 * The file is ordered by application, not time: rows are sorted by submit
 * with an external merge sort (wl_sort_runs.h), so memory stays bounded.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wl_import.h"
#include "wl_import_csv.h"
#include "wl_sort_runs.h"
#include "../base/gs_num.h"

const char *const wl_dlrm_reason[WL_DLRM_NREASONS] = {
    "role not selected (--roles)",
    "deletion_time before creation_time",
    "gpu_request above 64, or a fraction above 1",
};

enum { F_SN, F_ROLE, F_APP, F_CPU, F_GPU, F_RDMA, F_MEM, F_MAXPN, F_CREATE, F_DELETE, NF };
static const char *const need[NF] = {"instance_sn", "role", "app_name", "cpu_request", "gpu_request",
                                     "rdma_request", "memory_request", "max_instance_per_node", "creation_time",
                                     "deletion_time"};

typedef struct emit_ctx {
    FILE *out;
    double end_s;
} emit_ctx;

/* A sorted line is "DELETION\tid,<columns after duration>" (DELETION in hex,
 * or '-' when alive at the end); the key is the submit time. */
static int emit_row(void *ud, double key, const char *line)
{
    emit_ctx *e = ud;
    const char *tab = strchr(line, '\t'), *comma = strchr(tab + 1, ',');
    double del = line[0] == '-' ? e->end_s : strtod(line, NULL);
    double dur = del > key ? del - key : 0;
    fprintf(e->out, "%.*s,%.6f,%.6f,%s\n", (int)(comma - tab - 1), tab + 1, key, dur, comma + 1);
    return ferror(e->out) ? GS_EWRITE : 0;
}

static bool safe_text(const char *s) { return gs_text_field_ok(s, 59); }

/* One instance row's fields, read and checked. */
typedef struct dlrm_row {
    bool hn; /* a GPU node's instance (else a CPU node's) */
    double cpu, gpu, rdma, mem, maxpn, cr, del; /* del < 0: alive at the end */
    const char *cs, *ds;                        /* creation and deletion as written (empty: none) */
} dlrm_row;

/* Reads the current CSV row into *r. Returns 0, or GS_EINPUT naming the
 * column and what it expected. */
static int read_row(wl_csv *c, const int *ix, dlrm_row *r, gs_error *err)
{
    static const char *const what[NF] = {
        [F_SN] = "an instance id without commas, quotes or control characters, under 60 characters",
        [F_APP] = "an app name without commas, quotes or control characters, under 60 characters",
        [F_CPU] = "a number of vCPUs 0..1e6", [F_GPU] = "a number of GPUs 0..1e6",
        [F_RDMA] = "a percent 0..100", [F_MEM] = "a number of GiB 0..1e9",
        [F_MAXPN] = "-1 (unlimited) or a count 0..1e6", [F_CREATE] = "empty or seconds 0..1e12",
        [F_DELETE] = "empty or seconds 0..1e12"};
    const char *role = c->f[ix[F_ROLE]];
    r->hn = !strcmp(role, "HN");
    if (!r->hn && strcmp(role, "CN"))
        return wl_csv_bad(c, ix[F_ROLE], "HN (GPU node) or CN (CPU node)", err);
    r->cr = 0, r->del = -1;
    r->cs = c->f[ix[F_CREATE]], r->ds = c->f[ix[F_DELETE]];
    int bad = !safe_text(c->f[ix[F_SN]]) ? F_SN : !safe_text(c->f[ix[F_APP]]) ? F_APP
            : !wl_csv_num(c->f[ix[F_CPU]], 0, 1e6, &r->cpu) ? F_CPU : !wl_csv_num(c->f[ix[F_GPU]], 0, 1e6, &r->gpu) ? F_GPU
            : !wl_csv_num(c->f[ix[F_RDMA]], 0, 100, &r->rdma) ? F_RDMA : !wl_csv_num(c->f[ix[F_MEM]], 0, 1e9, &r->mem) ? F_MEM
            : !wl_csv_num(c->f[ix[F_MAXPN]], -1, 1e6, &r->maxpn) ? F_MAXPN
            : *r->cs && !wl_csv_num(r->cs, 0, 1e12, &r->cr) ? F_CREATE : *r->ds && !wl_csv_num(r->ds, 0, 1e12, &r->del) ? F_DELETE
            : -1;
    return bad >= 0 ? wl_csv_bad(c, ix[bad], what[bad], err) : 0;
}

/* Why a well-formed row is skipped (a WL_DLRM_SKIP_*), or -1. */
static int skip_reason(const dlrm_row *r, const wl_dlrm_opts *o)
{
    if ((r->hn && !o->hn) || (!r->hn && !o->cn))
        return WL_DLRM_SKIP_ROLE;
    if (r->del >= 0 && *r->cs && r->del < r->cr)
        return WL_DLRM_SKIP_LIFETIME;
    if (r->gpu > 64 || (r->gpu > 1 && r->gpu != floor(r->gpu)))
        return WL_DLRM_SKIP_GPUS;
    return -1;
}

/* The row as a line for the sort ("DELETION\tid,gpus,gpucores,gpumem_pct,
 * cpu,mem_gib,tenant", keyed by submit), counted. */
static int add_row(wl_runs *runs, const wl_csv *c, const int *ix, const dlrm_row *r, wl_dlrm_counts *n, gs_error *err)
{
    char line[512], del_s[40], shape[64];
    if (r->del >= 0)
        snprintf(del_s, sizeof del_s, "%a", r->del);
    else
        snprintf(del_s, sizeof del_s, "-");
    int g = r->hn ? (int)ceil(r->gpu) : 0, pct = (int)lround(r->gpu * 100);
    if (r->hn && r->gpu > 0 && r->gpu < 1)
        snprintf(shape, sizeof shape, "%d,%d,%d", g, pct < 1 ? 1 : pct, pct < 1 ? 1 : pct);
    else
        snprintf(shape, sizeof shape, "%d,,", g);
    snprintf(line, sizeof line, "%s\t%s,%s,%g,%g,%s", del_s, c->f[ix[F_SN]], shape, r->cpu, r->mem, c->f[ix[F_APP]]);
    int rc = wl_runs_add(runs, r->cr, line, err);
    n->converted++;
    n->cn += !r->hn;
    n->hn += r->hn;
    n->gpus += g;
    n->pre_existing += !*r->cs;
    n->alive_at_end += !*r->ds;
    n->rdma += r->rdma > 0;
    n->per_node_limit += r->maxpn >= 0;
    return rc;
}

int wl_import_dlrm(const char *path, FILE *out, FILE *warn, const wl_dlrm_opts *o, wl_dlrm_counts *n, gs_error *err)
{
    memset(n, 0, sizeof *n);
    wl_csv c;
    int ix[NF];
    int rc = wl_csv_open(&c, path, need, NF, ix, err);
    if (rc)
        return rc;
    wl_runs *runs = wl_runs_new(o->sort_lines ? o->sort_lines : 65536);
    double latest = 0;
    int got;
    while (rc == 0 && (got = wl_csv_next(&c, err)) > 0) {
        n->rows_in++;
        dlrm_row r;
        if ((rc = read_row(&c, ix, &r, err)))
            break;
        if (r.cr > latest)
            latest = r.cr;
        if (r.del > latest)
            latest = r.del;
        int reason = skip_reason(&r, o);
        if (reason >= 0) {
            n->skipped++;
            n->skipped_by[reason]++;
            if (warn && reason != WL_DLRM_SKIP_ROLE)
                fprintf(warn, "gpusim: warning: '%s' line %ld: %s; row skipped\n", path, c.lineno,
                        wl_dlrm_reason[reason]);
            continue;
        }
        rc = add_row(runs, &c, ix, &r, n, err);
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    /* nothing to convert is an error, never an empty success */
    if (rc == 0 && n->rows_in == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': no instance rows after the header", path);
    else if (rc == 0 && n->converted == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': none of the %ld rows can be converted (each skipped: %ld by role, "
                    "%ld by lifetime, %ld by GPUs)", path, n->rows_in, n->skipped_by[WL_DLRM_SKIP_ROLE],
                    n->skipped_by[WL_DLRM_SKIP_LIFETIME], n->skipped_by[WL_DLRM_SKIP_GPUS]);
    wl_csv_close(&c);
    n->end_s = o->end_s > 0 ? o->end_s : latest;
    if (rc == 0) {
        fprintf(out, "id,submit,duration,gpus,gpucores,gpumem_pct,cpu,mem_gib,tenant\n");
        emit_ctx e = {out, n->end_s};
        rc = wl_runs_merge(runs, emit_row, &e, err);
        if (rc == GS_EWRITE)
            gs_err(err, GS_EWRITE, "cannot write the converted trace");
        n->runs = wl_runs_spilled(runs);
    }
    wl_runs_free(runs);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_err(err, GS_EWRITE, "cannot write the converted trace");
    return rc;
}
