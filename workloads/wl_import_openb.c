/* wl_import_openb.c - Alibaba cluster-trace-gpu-v2023 ("openb") pod and node
 * lists to trace format v1 and the cluster JSON.
 *
 * Source and quirks: workloads/traces/alibaba-openb-gpu-v2023/README.md
 * (the FGD paper's traces, USENIX ATC'23). Mapping, per that README:
 *   pod: num_gpu -> gpus; gpu_milli (1000 = one card) -> gpucores and
 *   gpumem_pct = gpu_milli / 10 (a share of one card in both dimensions, so
 *   vgpu admits exactly what the trace's milli-GPU accounting admits);
 *   gpu_spec -> gpu_model (model names, resolved by the catalog's aliases);
 *   cpu_milli / 1000 -> cpu cores; memory_mib / 1024 -> mem_gib;
 *   creation_time -> submit; deletion_time - creation_time -> duration.
 *   qos, pod_phase and scheduled_time are not replayed (counted only).
 * Quirks handled: rows not sorted by creation time (sorted here, stably);
 * Pending pods (never scheduled) are converted like the FGD simulator does
 * and counted; the 5-column multigpu files have no times: their rows get
 * submit 0 and duration 0 (usable by `run --mode fill`, which ignores time)
 * and are counted as timeless.
 * SPDX-License-Identifier: MIT */
#include "wl_import.h"

#include <cJSON.h>
#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_file.h"
#include "../base/gs_num.h"
#include "../base/gs_utf8.h"

const char *const wl_openb_reason[WL_OPENB_NREASONS] = {
    "num_gpu and gpu_milli inconsistent or out of range",
    "gpu_milli not a multiple of 10",
    "deletion_time before creation_time, or only one of them given",
    "more than 64 cards, or cards without a model",
};

#define NF 11
#define FW 256

typedef struct row_buf {
    char f[NF][FW];
    int nf;
    bool done, too_long;
} row_buf;

static void cb_field(void *s, size_t len, void *data)
{
    row_buf *r = data;
    if (r->nf < NF) {
        if (len >= FW)
            r->too_long = true;
        size_t l = len < FW - 1 ? len : FW - 1;
        memcpy(r->f[r->nf], s, l);
        r->f[r->nf][l] = 0;
    }
    r->nf++;
}

static void cb_row(int c, void *data)
{
    (void)c;
    ((row_buf *)data)->done = true;
}

/* A CSV file read one record at a time, with its header's column names. */
typedef struct csv_in {
    const char *path;
    FILE *f;
    struct csv_parser p;
    char *line;
    size_t cap;
    long lineno;
    char hdr[NF][FW];
    int nhdr;
} csv_in;

static int csv_in_open(csv_in *c, const char *path, gs_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->f = gs_open_input(path, "file", err);
    if (!c->f)
        return GS_EINPUT;
    csv_init(&c->p, CSV_STRICT | CSV_APPEND_NULL);
    return 0;
}

static void csv_in_close(csv_in *c)
{
    free(c->line);
    csv_free(&c->p);
    if (c->f)
        fclose(c->f);
}

/* Next record into r: 1, 0 at the end, or < 0 on error. */
static int csv_in_next(csv_in *c, row_buf *r, gs_error *err)
{
    ssize_t n;
    while ((n = getline(&c->line, &c->cap, c->f)) >= 0) {
        c->lineno++;
        memset(r, 0, sizeof *r);
        if (csv_parse(&c->p, c->line, (size_t)n, cb_field, cb_row, r) != (size_t)n)
            return gs_err(err, GS_EINPUT, "'%s' line %ld: malformed CSV", c->path, c->lineno), -1;
        if (r->done)
            return 1;
    }
    return 0;
}

static int col_of(const csv_in *c, const char *name)
{
    for (int i = 0; i < c->nhdr; i++)
        if (!strcmp(c->hdr[i], name))
            return i;
    return -1;
}

/* Reads the header; every name in `need` must be there. */
static int read_header(csv_in *c, const char *const *need, int nneed, gs_error *err)
{
    row_buf r;
    int got = csv_in_next(c, &r, err);
    if (got < 0)
        return GS_EINPUT;
    if (got == 0)
        return gs_err(err, GS_EINPUT, "'%s': empty file (expected a header)", c->path);
    if (r.nf > NF)
        return gs_err(err, GS_EINPUT, "'%s' line %ld: %d columns, at most %d expected", c->path, c->lineno, r.nf, NF);
    c->nhdr = r.nf;
    memcpy(c->hdr, r.f, sizeof c->hdr);
    for (int i = 0; i < nneed; i++)
        if (col_of(c, need[i]) < 0)
            return gs_err(err, GS_EINPUT, "'%s' line 1: no column '%s'", c->path, need[i]);
    return 0;
}

/* Upper bounds of the fields, so that every converted value is one the
 * trace reader takes: times to 1e12 s, cpu_milli / 1000 to 1e6 cores,
 * memory_mib / 1024 to 1e9 GiB (the trace's cpu and mem_gib ranges). */
#define MAX_TIME_S WL_OPENB_MAX_TIME_S
#define MAX_CPU_MILLI 1000000000L
#define MAX_MEM_MIB 1000000000000L
#define MAX_COUNT 1000000L

/* A non-negative integer field up to hi, or GS_EINPUT naming line and
 * column. An empty field is allowed only when `opt` (then *out = -1). */
static int get_int(const csv_in *c, const row_buf *r, int col, bool opt, long hi, long *out, gs_error *err)
{
    const char *s = r->f[col];
    if (!*s && opt) {
        *out = -1;
        return 0;
    }
    if (!gs_num_long(s, 0, hi, out))
        return gs_err(err, GS_EINPUT, "'%s' line %ld, column %d ('%s'): expected an integer >= 0, at most %ld, "
                      "found '%s'", c->path, c->lineno, col + 1, c->hdr[col], hi, s);
    return 0;
}

typedef struct pod {
    char id[64];
    char spec[FW];
    long submit_s, dur_s, gpus, milli, cpu_milli, mem_mib;
} pod;

static int by_submit(const void *pa, const void *pb)
{
    const pod *a = *(pod *const *)pa, *b = *(pod *const *)pb;
    if (a->submit_s != b->submit_s)
        return a->submit_s < b->submit_s ? -1 : 1;
    return a < b ? -1 : a > b; /* stable: file order among equal times */
}

static void skip(wl_openb_counts *n, FILE *warn, const csv_in *c, int reason, bool node)
{
    n->skipped[reason]++;
    if (node)
        n->nodes_skipped++;
    else
        n->pods_skipped++;
    if (warn)
        fprintf(warn, "gpusim: warning: '%s' line %ld: %s; row skipped\n", c->path, c->lineno, wl_openb_reason[reason]);
}

/* Opens path, checks its header holds the five columns `need` and puts
 * their indices in ci. On error nothing stays open. */
static int open_with_header(csv_in *c, const char *path, const char *const need[5], int ci[5], gs_error *err)
{
    int rc = csv_in_open(c, path, err);
    if (rc == 0)
        rc = read_header(c, need, 5, err);
    if (rc) {
        csv_in_close(c);
        return rc;
    }
    for (int i = 0; i < 5; i++)
        ci[i] = col_of(c, need[i]);
    return 0;
}

/* The columns of a pod list: the five it needs, and the optional ones
 * (-1: absent). */
typedef struct pod_cols {
    int need[5];
    int spec, phase, create, del;
    bool timed; /* creation and deletion times both given */
} pod_cols;

/* One pod row into *p: 0 with *keep (false: skipped, counted and said
 * why), or the error at its field. */
static int pod_of(csv_in *c, const row_buf *r, const pod_cols *pc, pod *p, bool *keep, FILE *warn,
                  wl_openb_counts *n, gs_error *err)
{
    const int *ci = pc->need;
    const char *path = c->path;
    *keep = false;
    if (r->nf != c->nhdr)
        return gs_err(err, GS_EINPUT, "'%s' line %ld: expected %d fields, found %d", path, c->lineno, c->nhdr, r->nf);
    if (r->too_long || !gs_text_field_ok(r->f[ci[0]], sizeof p->id - 1))
        return gs_err(err, GS_EINPUT, "'%s' line %ld, column %d ('name'): expected a name under 64 characters "
                      "without commas, quotes or control characters", path, c->lineno, ci[0] + 1);
    *p = (pod){0};
    long create = -1, del = -1;
    snprintf(p->id, sizeof p->id, "%s", r->f[ci[0]]);
    int rc;
    if ((rc = get_int(c, r, ci[1], false, MAX_CPU_MILLI, &p->cpu_milli, err)) ||
        (rc = get_int(c, r, ci[2], false, MAX_MEM_MIB, &p->mem_mib, err)) ||
        (rc = get_int(c, r, ci[3], false, MAX_COUNT, &p->gpus, err)) ||
        (rc = get_int(c, r, ci[4], false, MAX_COUNT, &p->milli, err)) ||
        (pc->timed && ((rc = get_int(c, r, pc->create, true, MAX_TIME_S, &create, err)) ||
                       (rc = get_int(c, r, pc->del, true, MAX_TIME_S, &del, err)))))
        return rc;
    if (pc->spec >= 0)
        snprintf(p->spec, sizeof p->spec, "%s", r->f[pc->spec]);
    if (p->spec[0] && (!gs_text_field_ok(p->spec, sizeof p->spec - 1) || !gs_text_list_ok(p->spec, '|')))
        return gs_err(err, GS_EINPUT, "'%s' line %ld, column %d ('gpu_spec'): expected model names separated by '|'",
                      path, c->lineno, pc->spec + 1);
    /* num_gpu 0 takes no card (gpu_milli 0); 1 takes a share of one card
     * (1..1000 milli); more than one take whole cards (README, schema) */
    bool shape_ok = p->gpus == 0 ? p->milli == 0
                                 : p->gpus <= 64 && p->milli >= 1 && p->milli <= 1000 && (p->gpus == 1 || p->milli == 1000);
    if (!shape_ok)
        return skip(n, warn, c, WL_OPENB_SKIP_GPU_SHAPE, false), 0;
    if (p->milli % 10)
        return skip(n, warn, c, WL_OPENB_SKIP_MILLI_10, false), 0;
    if ((create < 0) != (del < 0) || (create >= 0 && del < create))
        return skip(n, warn, c, WL_OPENB_SKIP_LIFETIME, false), 0;
    if (create < 0) {
        n->timeless++;
        create = del = 0;
    }
    p->submit_s = create;
    p->dur_s = del - create;
    if (pc->phase >= 0 && !strcmp(r->f[pc->phase], "Pending"))
        n->pending++;
    *keep = true;
    return 0;
}

/* The kept pods as a trace, by submit time. */
static int write_pods(FILE *out, pod **pods, size_t npods, gs_error *err)
{
    if (npods > 1)
        qsort(pods, npods, sizeof *pods, by_submit);
    fprintf(out, "id,submit,duration,gpus,gpucores,gpumem_pct,gpu_model,cpu,mem_gib\n");
    for (size_t i = 0; i < npods; i++) {
        const pod *p = pods[i];
        if (p->gpus > 0)
            fprintf(out, "%s,%ld,%ld,%ld,%ld,%ld,%s,%.12g,%.12g\n", p->id, p->submit_s, p->dur_s, p->gpus, p->milli / 10,
                    p->milli / 10, p->spec, (double)p->cpu_milli / 1000.0, (double)p->mem_mib / 1024.0);
        else
            fprintf(out, "%s,%ld,%ld,0,,,%s,%.12g,%.12g\n", p->id, p->submit_s, p->dur_s, p->spec,
                    (double)p->cpu_milli / 1000.0, (double)p->mem_mib / 1024.0);
    }
    if (fflush(out) != 0 || ferror(out))
        return gs_err(err, GS_EWRITE, "cannot write the converted trace");
    return 0;
}

int wl_import_openb_pods(const char *path, FILE *out, FILE *warn, wl_openb_counts *n, gs_error *err)
{
    static const char *const need[] = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
    csv_in c;
    pod_cols pc;
    int rc = open_with_header(&c, path, need, pc.need, err);
    if (rc)
        return rc;
    pc.spec = col_of(&c, "gpu_spec"), pc.phase = col_of(&c, "pod_phase");
    pc.create = col_of(&c, "creation_time"), pc.del = col_of(&c, "deletion_time");
    pc.timed = pc.create >= 0 && pc.del >= 0;
    pod **pods = NULL;
    size_t npods = 0, cap = 0;
    row_buf r;
    int got;
    while ((got = csv_in_next(&c, &r, err)) > 0) {
        n->pods_in++;
        pod p;
        bool keep;
        if ((rc = pod_of(&c, &r, &pc, &p, &keep, warn, n, err)) != 0)
            break;
        if (!keep)
            continue;
        if (npods == cap) {
            cap = cap ? 2 * cap : 1024;
            pods = xrealloc(pods, cap * sizeof *pods);
        }
        pods[npods] = xmalloc(sizeof **pods);
        *pods[npods++] = p;
    }
    if (got < 0)
        rc = GS_EINPUT;
    csv_in_close(&c);
    if (rc == 0 && n->pods_in == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': no pod rows after the header (an empty pod list converts to nothing)",
                    path);
    if (rc == 0) {
        rc = write_pods(out, pods, npods, err);
        n->pods_converted = (long)npods;
    }
    for (size_t i = 0; i < npods; i++)
        free(pods[i]);
    free(pods);
    return rc;
}

typedef struct node_grp {
    char model[64];
    long gpus, cpu_milli, mem_mib, count;
} node_grp;

static const node_grp *sort_base;
static int by_model(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = strcmp(sort_base[a].model, sort_base[b].model);
    return c ? c : (a > b) - (a < b);
}

/* The GPU model with the most nodes over all groups, the one seen first
 * among equal counts; "" when no group names one. Sorting the group
 * indices by model makes it O(groups log groups), not a scan of every
 * group per group (a large list has as many groups as distinct nodes). */
static const char *most_common_model(const node_grp *g, size_t ng)
{
    size_t *ix = xmalloc((ng ? ng : 1) * sizeof *ix);
    for (size_t i = 0; i < ng; i++)
        ix[i] = i;
    sort_base = g;
    qsort(ix, ng, sizeof *ix, by_model);
    const char *common = "";
    long best = 0;
    size_t best_first = 0;
    for (size_t i = 0; i < ng;) {
        size_t k = i;
        long cnt = 0;
        for (; k < ng && !strcmp(g[ix[k]].model, g[ix[i]].model); k++)
            cnt += g[ix[k]].count;
        /* ix[i] is the model's first group: the indices sort ascending within a model */
        if (g[ix[i]].model[0] && (cnt > best || (cnt == best && ix[i] < best_first))) {
            best = cnt;
            best_first = ix[i];
            common = g[ix[i]].model;
        }
        i = k;
    }
    free(ix);
    return common;
}

/* The node groups as a cluster file. */
static int write_cluster(FILE *out, const node_grp *g, size_t ng, const wl_openb_counts *n, const char *path,
                         gs_error *err)
{
    /* The cluster format wants a model per node group: CPU-only nodes
     * (gpu 0, model empty) join the pool of the most common GPU model,
     * with no cards (a modeling choice; they still host CPU-only pods). */
    const char *common = most_common_model(g, ng);
    cJSON *root = cJSON_CreateObject(), *arr;
    cJSON_AddStringToObject(root, "name", "openb");
    cJSON_AddStringToObject(root, "comment", "converted by gpusim import openb from an Alibaba "
                                             "cluster-trace-gpu-v2023 node list");
    arr = cJSON_AddArrayToObject(root, "nodes");
    for (size_t i = 0; i < ng; i++) {
        cJSON *o = cJSON_CreateObject();
        char name[32];
        snprintf(name, sizeof name, "g%zu-", i);
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddStringToObject(o, "model", g[i].model[0] ? g[i].model : common);
        cJSON_AddNumberToObject(o, "count", (double)g[i].count);
        cJSON_AddNumberToObject(o, "gpus", (double)g[i].gpus);
        cJSON_AddNumberToObject(o, "cpu", (double)g[i].cpu_milli / 1000.0);
        cJSON_AddNumberToObject(o, "mem_gib", (double)g[i].mem_mib / 1024.0);
        cJSON_AddItemToArray(arr, o);
    }
    char *text = cJSON_Print(root);
    fprintf(out, "%s\n", text);
    free(text);
    cJSON_Delete(root);
    if (!common[0] && n->cpu_only_nodes > 0)
        return gs_err(err, GS_EINPUT, "'%s': only CPU nodes; no GPU model to put them under", path);
    if (fflush(out) != 0 || ferror(out))
        return gs_err(err, GS_EWRITE, "cannot write the cluster");
    return 0;
}

int wl_import_openb_nodes(const char *path, FILE *out, FILE *warn, wl_openb_counts *n, gs_error *err)
{
    static const char *const need[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
    csv_in c;
    int ci[5];
    int rc = open_with_header(&c, path, need, ci, err);
    if (rc)
        return rc;
    node_grp *g = NULL;
    size_t ng = 0, cap = 0;
    row_buf r;
    int got;
    while ((got = csv_in_next(&c, &r, err)) > 0) {
        n->nodes_in++;
        if (r.nf != c.nhdr) {
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld: expected %d fields, found %d", path, c.lineno, c.nhdr, r.nf);
            break;
        }
        node_grp x = {.count = 1};
        if ((rc = get_int(&c, &r, ci[1], false, MAX_CPU_MILLI, &x.cpu_milli, err)) ||
            (rc = get_int(&c, &r, ci[2], false, MAX_MEM_MIB, &x.mem_mib, err)) ||
            (rc = get_int(&c, &r, ci[3], false, MAX_COUNT, &x.gpus, err)))
            break;
        /* the model goes into the cluster's JSON: text (UTF-8), no '|' (the trace's separator) */
        if (r.f[ci[4]][0] && (!gs_text_field_ok(r.f[ci[4]], sizeof x.model - 1) || strpbrk(r.f[ci[4]], "|\\") ||
                              !gs_utf8_valid(r.f[ci[4]], strlen(r.f[ci[4]])))) {
            rc = gs_err(err, GS_EINPUT, "'%s' line %ld, column %d ('model'): expected a model name", path, c.lineno,
                        ci[4] + 1);
            break;
        }
        snprintf(x.model, sizeof x.model, "%s", r.f[ci[4]]);
        if (x.gpus > 64 || (x.gpus > 0 && !x.model[0])) {
            skip(n, warn, &c, WL_OPENB_SKIP_NODE, true);
            continue;
        }
        n->nodes_converted++;
        n->gpus += x.gpus;
        if (x.gpus == 0)
            n->cpu_only_nodes++;
        if (ng > 0 && !strcmp(g[ng - 1].model, x.model) && g[ng - 1].gpus == x.gpus &&
            g[ng - 1].cpu_milli == x.cpu_milli && g[ng - 1].mem_mib == x.mem_mib) {
            g[ng - 1].count++;
            continue;
        }
        if (ng == cap) {
            cap = cap ? 2 * cap : 64;
            g = xrealloc(g, cap * sizeof *g);
        }
        g[ng++] = x;
    }
    if (got < 0)
        rc = GS_EINPUT;
    csv_in_close(&c);
    if (rc == 0 && n->nodes_converted == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': no usable node rows after the header (a cluster needs nodes)", path);
    if (rc == 0)
        rc = write_cluster(out, g, ng, n, path, err);
    free(g);
    return rc;
}
