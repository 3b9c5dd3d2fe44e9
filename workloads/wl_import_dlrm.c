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
        const char *role = c.f[ix[F_ROLE]];
        bool hn = !strcmp(role, "HN");
        if (!hn && strcmp(role, "CN")) {
            rc = wl_csv_bad(&c, ix[F_ROLE], "HN (GPU node) or CN (CPU node)", err);
            break;
        }
        double cpu, gpu, rdma, mem, maxpn, cr = 0, del = -1;
        const char *cs = c.f[ix[F_CREATE]], *ds = c.f[ix[F_DELETE]];
        int bad = !safe_text(c.f[ix[F_SN]]) ? F_SN : !safe_text(c.f[ix[F_APP]]) ? F_APP
                : !wl_csv_num(c.f[ix[F_CPU]], 0, 1e6, &cpu) ? F_CPU : !wl_csv_num(c.f[ix[F_GPU]], 0, 1e6, &gpu) ? F_GPU
                : !wl_csv_num(c.f[ix[F_RDMA]], 0, 100, &rdma) ? F_RDMA : !wl_csv_num(c.f[ix[F_MEM]], 0, 1e9, &mem) ? F_MEM
                : !wl_csv_num(c.f[ix[F_MAXPN]], -1, 1e6, &maxpn) ? F_MAXPN
                : *cs && !wl_csv_num(cs, 0, 1e12, &cr) ? F_CREATE : *ds && !wl_csv_num(ds, 0, 1e12, &del) ? F_DELETE
                : -1;
        if (bad >= 0) {
            static const char *const what[NF] = {
                [F_SN] = "an instance id without commas, quotes or control characters, under 60 characters",
                [F_APP] = "an app name without commas, quotes or control characters, under 60 characters",
                [F_CPU] = "a number of vCPUs 0..1e6", [F_GPU] = "a number of GPUs 0..1e6",
                [F_RDMA] = "a percent 0..100", [F_MEM] = "a number of GiB 0..1e9",
                [F_MAXPN] = "-1 (unlimited) or a count 0..1e6", [F_CREATE] = "empty or seconds 0..1e12",
                [F_DELETE] = "empty or seconds 0..1e12"};
            rc = wl_csv_bad(&c, ix[bad], what[bad], err);
            break;
        }
        if (cr > latest)
            latest = cr;
        if (del > latest)
            latest = del;
        int reason = -1;
        if ((hn && !o->hn) || (!hn && !o->cn))
            reason = WL_DLRM_SKIP_ROLE;
        else if (del >= 0 && *cs && del < cr)
            reason = WL_DLRM_SKIP_LIFETIME;
        else if (gpu > 64 || (gpu > 1 && gpu != floor(gpu)))
            reason = WL_DLRM_SKIP_GPUS;
        if (reason >= 0) {
            n->skipped++;
            n->skipped_by[reason]++;
            if (warn && reason != WL_DLRM_SKIP_ROLE)
                fprintf(warn, "gpusim: warning: '%s' line %ld: %s; row skipped\n", path, c.lineno,
                        wl_dlrm_reason[reason]);
            continue;
        }
        char line[512], del_s[40], shape[64];
        if (del >= 0)
            snprintf(del_s, sizeof del_s, "%a", del);
        else
            snprintf(del_s, sizeof del_s, "-");
        int g = hn ? (int)ceil(gpu) : 0, pct = (int)lround(gpu * 100);
        if (hn && gpu > 0 && gpu < 1)
            snprintf(shape, sizeof shape, "%d,%d,%d", g, pct < 1 ? 1 : pct, pct < 1 ? 1 : pct);
        else
            snprintf(shape, sizeof shape, "%d,,", g);
        snprintf(line, sizeof line, "%s\t%s,%s,%g,%g,%s", del_s, c.f[ix[F_SN]], shape, cpu, mem, c.f[ix[F_APP]]);
        rc = wl_runs_add(runs, cr, line, err);
        n->converted++;
        n->cn += !hn;
        n->hn += hn;
        n->gpus += g;
        n->pre_existing += !*cs;
        n->alive_at_end += !*ds;
        n->rdma += rdma > 0;
        n->per_node_limit += maxpn >= 0;
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
