/* wl_gen_openb.c - `gpusim gen openb-variant`: a seeded openb pod list built
 * from a base list (the default one) the way the FGD paper's variants were.
 *
 * What the published variants are (Alibaba clusterdata
 * cluster-trace-gpu-v2023/csv/, the FGD artifact's data/README.md: "sampled
 * from the default one, emphasizing certain types of workloads"), as their
 * rows show when counted against openb_pod_list_default.csv:
 *   cpuNNN      every GPU pod of default, and CPU-only pods (num_gpu 0) of
 *               default, fewer or repeated, so that they are NN.N% of pods;
 *   gpushareNN  default's CPU-only pods and as many GPU pods as default,
 *               resampled so that sharing pods (num_gpu 1, gpu_milli < 1000)
 *               hold NN% of the GPU request;
 *   multigpuNN  default whole, then multi-GPU pods of default appended until
 *               they hold NN% of the GPU request;
 *   gpuspecNN   default with a gpu_spec on NN% of the GPU pods.
 * Every row of a variant is a row of the base (resources and times kept);
 * names are given again in output order (openb-pod-NNNN), as in the
 * resampled published files. Draws (one GSL stream, RNG_VARIANT):
 *   cpu       p% of pods: k = round(p / (100 - p) x GPU pods) CPU pods, the
 *             first min(k, C) a uniform subset of the C CPU pods in file
 *             order (selection sampling), the rest drawn with replacement;
 *   gpushare  the GPU pods' count n kept; k sharing pods with replacement
 *             and n - k others with replacement, k = round(n p m_o /
 *             (p m_o + (100 - p) m_s)), m_s and m_o the mean GPU request of a
 *             sharing and of another GPU pod (so the expected share is p%);
 *   multigpu  multi-GPU pods drawn with replacement and appended until their
 *             share of the GPU request reaches p% (p at or above the base's);
 *   gpuspec   round(p% x GPU pods) GPU pods chosen uniformly (selection
 *             sampling), each given a gpu_spec drawn by the weights below for
 *             its kind (a share of a card, one whole card, several cards).
 * Cost: O(rows) time and memory (the base list is held).
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
#include "../base/gs_rng.h"
#include "wl_gen.h"
#include "wl_import.h"
#include "wl_import_csv.h"

/* gpu_spec values and their counts among the pods of
 * openb_pod_list_gpuspec33.csv (the list the artifact's data/README.md says
 * matches production), by kind: a share of a card, one whole card, several
 * cards. Counted from the file; gpusim copies the figures, not the rows. */
static const struct spec_w {
    const char *spec;
    int share, whole, multi;
} spec_table[] = {
    {"T4", 593, 698, 0},
    {"G2", 0, 321, 10},
    {"P100", 278, 1, 0},
    {"V100M16|V100M32", 0, 137, 4},
    {"P100|V100M16|V100M32", 0, 102, 1},
    {"G3", 0, 80, 6},
    {"G2|P100|T4|V100M16|V100M32", 13, 26, 0},
    {"P100|T4|V100M16|V100M32", 0, 33, 0},
    {"A10|G2|T4|V100M16|V100M32", 0, 24, 0},
    {"V100M16|V100M32|V100M32", 0, 19, 3},
    {"V100M32", 0, 18, 2},
    {"A10|T4", 0, 6, 0},
    {"P100|V100M16", 0, 4, 0},
    {"A10|G2|P100|T4|V100M16|V100M32|V100M32", 0, 3, 0},
    {"T4|V100M16|V100M32", 0, 1, 2},
    {"V100M16", 0, 3, 0},
};
#define NSPEC (sizeof spec_table / sizeof spec_table[0])

const char *const wl_variant_family_name[WL_VAR_NFAMILIES] = {"cpu", "gpushare", "multigpu", "gpuspec"};

typedef struct vpod {
    long cpu_milli, mem_mib, gpus, milli;
    const char *spec; /* a spec_table entry or "" */
    char tail[96];    /* qos,pod_phase,creation_time,deletion_time,scheduled_time as read ("" each if absent) */
} vpod;

typedef struct vlist {
    vpod *p;
    size_t n, cap;
} vlist;

static void vl_push(vlist *l, const vpod *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->p = xrealloc(l->p, l->cap * sizeof *l->p);
    }
    l->p[l->n++] = *p;
}

static double greq(const vpod *p) { return (double)p->gpus * (double)p->milli / 1000.0; }
static bool is_share(const vpod *p) { return p->gpus == 1 && p->milli < 1000; }

enum { C_CPU, C_MEM, C_NGPU, C_MILLI, NNEED };
static const char *const tail_cols[] = {"qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

/* One row of the base list into p; GS_EINPUT naming the line and column. */
static int read_row(const wl_csv *c, const int *ix, const int *tix, vpod *p, gs_error *err)
{
    static const char *const what[NNEED] = {"milli-cores, an integer 0..1e9", "MiB, an integer 0..1e12",
                                            "a card count 0..64", "milli-GPU 0..1000"};
    static const long hi[NNEED] = {1000000000L, 1000000000000L, 64, 1000};
    long v[NNEED];
    for (int i = 0; i < NNEED; i++)
        if (!gs_num_long(c->f[ix[i]], 0, hi[i], &v[i]))
            return wl_csv_bad(c, ix[i], what[i], err);
    *p = (vpod){.cpu_milli = v[C_CPU], .mem_mib = v[C_MEM], .gpus = v[C_NGPU], .milli = v[C_MILLI], .spec = ""};
    if (p->gpus == 0 ? p->milli != 0 : p->milli < 1 || (p->gpus > 1 && p->milli != 1000))
        return wl_csv_bad(c, ix[C_MILLI], "0 with num_gpu 0, 1000 with num_gpu > 1, else 1..1000", err);
    size_t at = 0;
    for (int i = 0; i < 5; i++) {
        const char *s = tix[i] >= 0 ? c->f[tix[i]] : "";
        if (*s && !gs_text_field_ok(s, 16))
            return wl_csv_bad(c, tix[i], "a field under 17 characters without commas, quotes or control characters",
                              err);
        long t;
        if (*s && (i == 2 || i == 3) && !gs_num_long(s, 0, WL_OPENB_MAX_TIME_S, &t)) /* as the importer reads them */
            return wl_csv_bad(c, tix[i], "empty or seconds, an integer 0..1e12", err);
        at += (size_t)snprintf(p->tail + at, sizeof p->tail - at, "%s%s", i ? "," : "", s);
    }
    return 0;
}

/* The base pod list: 0 or GS_EINPUT (no rows is an error). */
static int read_base(const char *path, vlist *l, gs_error *err)
{
    static const char *const need[NNEED] = {"cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
    wl_csv c;
    int ix[NNEED], tix[5], got, rc = wl_csv_open(&c, path, need, NNEED, ix, err);
    if (rc)
        return rc;
    for (int i = 0; i < 5; i++)
        tix[i] = wl_csv_col(&c, tail_cols[i]);
    while (rc == 0 && (got = wl_csv_next(&c, err)) > 0) {
        vpod p;
        if ((rc = read_row(&c, ix, tix, &p, err)) == 0)
            vl_push(l, &p);
    }
    if (rc == 0 && got < 0)
        rc = GS_EINPUT;
    wl_csv_close(&c);
    if (rc == 0 && l->n == 0)
        rc = gs_err(err, GS_EINPUT, "'%s': no pod rows after the header", path);
    return rc;
}

/* Indexes of the base rows that `keep` selects, in file order. */
static size_t select_rows(const vlist *b, bool (*keep)(const vpod *), size_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < b->n; i++)
        if (keep(&b->p[i]))
            out[m++] = i;
    return m;
}

static bool k_cpu(const vpod *p) { return p->gpus == 0; }
static bool k_gpu(const vpod *p) { return p->gpus > 0; }
static bool k_share(const vpod *p) { return is_share(p); }
static bool k_other(const vpod *p) { return p->gpus > 0 && !is_share(p); }
static bool k_multi(const vpod *p) { return p->gpus > 1; }

/* Appends k of the m rows idx[] of b: the first min(k, m) a uniform subset
 * in order (Knuth's selection sampling), the rest drawn with replacement. */
static void take(vlist *out, const vlist *b, const size_t *idx, size_t m, size_t k, gsl_rng *r)
{
    size_t need = k < m ? k : m;
    for (size_t i = 0; i < m && need > 0; i++)
        if (gsl_rng_uniform(r) * (double)(m - i) < (double)need) {
            vl_push(out, &b->p[idx[i]]);
            need--;
        }
    for (size_t i = m; i < k && m > 0; i++)
        vl_push(out, &b->p[idx[gsl_rng_uniform_int(r, m)]]);
}

/* Draws n rows of idx[] with replacement. */
static void draw(vlist *out, const vlist *b, const size_t *idx, size_t m, size_t n, gsl_rng *r)
{
    for (size_t i = 0; i < n && m > 0; i++)
        vl_push(out, &b->p[idx[gsl_rng_uniform_int(r, m)]]);
}

static double mean_req(const vlist *b, const size_t *idx, size_t m)
{
    double s = 0;
    for (size_t i = 0; i < m; i++)
        s += greq(&b->p[idx[i]]);
    return m ? s / (double)m : 0;
}

static const char *draw_spec(const vpod *p, gsl_rng *r)
{
    int tot = 0, w[NSPEC];
    for (size_t i = 0; i < NSPEC; i++) {
        w[i] = p->gpus > 1 ? spec_table[i].multi : is_share(p) ? spec_table[i].share : spec_table[i].whole;
        tot += w[i];
    }
    long u = (long)gsl_rng_uniform_int(r, (unsigned long)tot);
    for (size_t i = 0; i < NSPEC; i++)
        if ((u -= w[i]) < 0)
            return spec_table[i].spec;
    return spec_table[NSPEC - 1].spec;
}

/* The variant's rows into out; 0, or GS_EINPUT when the base cannot give the
 * family what it needs (no CPU pods for cpu, and so on). */
static int build(const wl_openb_variant_opts *o, const vlist *b, vlist *out, gsl_rng *r, gs_error *err)
{
    size_t *ia = xmalloc((b->n + 1) * sizeof *ia), *ib = xmalloc((b->n + 1) * sizeof *ib);
    size_t na, nb, ng = select_rows(b, k_gpu, ia);
    double p = o->pct / 100.0;
    int rc = 0;
    if (o->family == WL_VAR_CPU) {
        nb = select_rows(b, k_cpu, ib);
        size_t k = (size_t)llround(p / (1 - p) * (double)ng);
        if (nb == 0 && k > 0)
            rc = gs_err(err, GS_EINPUT, "'%s': no CPU-only pods (num_gpu 0) to sample", o->pods_path);
        take(out, b, ia, ng, ng, r); /* every GPU pod, in order */
        take(out, b, ib, nb, k, r);
    } else if (o->family == WL_VAR_GPUSHARE) {
        na = select_rows(b, k_share, ia);
        nb = select_rows(b, k_other, ib);
        double ms = mean_req(b, ia, na), mo = mean_req(b, ib, nb);
        size_t k = p * mo + (1 - p) * ms > 0 ? (size_t)llround((double)ng * p * mo / (p * mo + (1 - p) * ms)) : 0;
        if ((k > 0 && na == 0) || (k < ng && nb == 0))
            rc = gs_err(err, GS_EINPUT, "'%s': needs both sharing and whole-card GPU pods", o->pods_path);
        for (size_t i = 0; i < b->n; i++) /* every CPU-only pod, in order */
            if (b->p[i].gpus == 0)
                vl_push(out, &b->p[i]);
        draw(out, b, ia, na, k, r);
        draw(out, b, ib, nb, ng - k, r);
    } else if (o->family == WL_VAR_MULTIGPU) {
        double all = 0, multi = 0;
        for (size_t i = 0; i < b->n; i++) {
            vl_push(out, &b->p[i]);
            all += greq(&b->p[i]);
            multi += b->p[i].gpus > 1 ? greq(&b->p[i]) : 0;
        }
        nb = select_rows(b, k_multi, ib);
        if (nb == 0 && multi < p * all)
            rc = gs_err(err, GS_EINPUT, "'%s': no multi-GPU pods to sample", o->pods_path);
        while (rc == 0 && multi < p * all - 1e-9) {
            const vpod *q = &b->p[ib[gsl_rng_uniform_int(r, nb)]];
            vl_push(out, q);
            all += greq(q);
            multi += greq(q);
        }
    } else {
        size_t need = (size_t)llround(p * (double)ng), left = ng;
        for (size_t i = 0; i < b->n; i++) {
            vpod q = b->p[i];
            if (q.gpus > 0 && left > 0 && gsl_rng_uniform(r) * (double)left-- < (double)need) {
                q.spec = draw_spec(&q, r);
                need--;
            }
            vl_push(out, &q);
        }
    }
    free(ia);
    free(ib);
    return rc;
}

int wl_gen_openb_variant(FILE *out, const wl_openb_variant_opts *o, gs_error *err)
{
    vlist b = {0}, v = {0};
    int rc = read_base(o->pods_path, &b, err);
    if (rc == 0) {
        gsl_rng *r = gs_rng_new(o->seed, RNG_VARIANT);
        rc = build(o, &b, &v, r, err);
        gs_rng_free(r);
    }
    if (rc == 0) {
        fprintf(out, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                     "deletion_time,scheduled_time\n");
        for (size_t i = 0; i < v.n; i++) {
            const vpod *p = &v.p[i];
            fprintf(out, "openb-pod-%04zu,%ld,%ld,%ld,%ld,%s,%s\n", i, p->cpu_milli, p->mem_mib, p->gpus, p->milli,
                    p->spec, p->tail);
        }
        if (fflush(out) != 0 || ferror(out))
            rc = gs_err(err, GS_EWRITE, "cannot write the variant");
    }
    free(b.p);
    free(v.p);
    return rc;
}
