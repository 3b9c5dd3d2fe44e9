/* sim_hw.c - placement speed from the card's figures (see sim_hw.h): the
 * core's hardware layer. Its parameters are core parameters (--set); it
 * resolves each arriving job's reference card and memory-bound share once,
 * and reports which model figures the run relied on.
 * SPDX-License-Identifier: MIT */
#include "sim_hw.h"
#include "sim_symmap.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../base/gs_num.h"

const pol_param hw_params[] = {
    {"ref_gpu", "cluster",
     "GPU model a job's duration (and a service's stated per-token times) is measured on, unless its row "
     "names one (ref_gpu column); a placement on another card runs at its speed relative to this one. "
     "cluster: the cluster's first model (first node group of the cluster file, first MODEL of --gpus), so "
     "a one-model cluster runs every job at its stated duration; set a model to compare card types", P_NAME},
    {"mem_bound_job", "0.3",
     "share of a job's time bound by memory bandwidth (the rest by tensor throughput) when its row has no "
     "mem_bound; assumption: training and batch jobs are mostly dense matrix work", P_NUM(0, 1, NULL)},
    {"mig_speed", "share",
     "share: a MIG instance runs at its share of the card (SMs for compute, memory slices for bandwidth); "
     "card: at the whole card's speed (placement studies that leave speed out)", P_ENUM("share|card")},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

typedef struct hw_state {
    const gpu_model *ref;
    double mem_bound_job;
    bool slice_share; /* mig_speed=share */
    const gpu_catalog *cat;
    const sim_cluster *cl;
    uint8_t *used; /* per catalog model: 1 tensor figure, 2 bandwidth figure relied on */
    uint64_t placements, scaled, by_table;
    uint64_t *starts;   /* per catalog model: job starts placed on it */
    double *speed_sum;  /* and the sum of their speed factors (the report's mean) */
    /* the cluster's pool of the reference model (-1: none; one pool per
     * model) and the model's catalog index (-1: outside the catalog):
     * hw_speed's common start asks a node's pool, not two loads more */
    int ref_pool;
    ptrdiff_t ref_i;
    /* speedup tables parsed once, by their interned text (hw_tab_of) */
    struct hw_tab *tabs;
    size_t ntabs, tabs_cap;
    size_t *tab_at; /* open addressing on the text's address: index + 1 into tabs, 0 = free */
    size_t tab_slots, last_tab;
    /* a row's ref_gpu model, by the reader's name number (sim_symmap.h) */
    sim_symmap ref_by_sym;
    /* the ref_gpu and speedup names (interned) hw_admit last found good,
     * and the model the first names (NULL: none) */
    const char *ok_ref_gpu, *ok_speedup;
    const gpu_model *ok_ref;
    int8_t ok_on_ref; /* and job_more.hw_on_ref for the pair */
    /* speeds by a speedup table, kept per distinct inputs (speed_memo);
     * the last table asked about the reference model's own card, and
     * whether it lists that model (on_ref_card) */
    struct hw_memo *memo;
    const char *ref_table;
    bool ref_table_lists;
} hw_state;

/* One speed by a speedup table: its inputs (the interned table, the
 * reference and placed models, the memory-bound share, the slice shares)
 * and what speed_of gives for them. The models' figures it relied on were
 * noted when it was made (sim_hw_note: the same bits every time). */
enum { HW_MEMO_SLOTS = 64 };
typedef struct hw_memo {
    const char *table;
    const gpu_model *ref, *m;
    double b, c, mb;
    double v;
    bool scaled; /* counted in hw_state.scaled */
} hw_memo;

/* A speedup table "MODEL:f|MODEL:f", parsed: its models and factors, or
 * the first fault in it (status -2: a malformed entry, -3: a name the
 * catalog does not know). */
enum { HW_TAB_MAX = 32 };
typedef struct hw_tab {
    const char *text; /* interned: equal texts, equal addresses */
    int status, n;
    const gpu_model *m[HW_TAB_MAX];
    double f[HW_TAB_MAX];
} hw_tab;

static int hw_init(sim *s, int index, void **state, gs_error *err)
{
    (void)index;
    hw_state *h = xcalloc(1, sizeof *h);
    *state = h;
    h->cat = sim_catalog(s);
    h->cl = sim_cluster_of(s);
    h->used = xcalloc((size_t)(h->cat->n > 0 ? h->cat->n : 1), 1);
    h->starts = xcalloc((size_t)(h->cat->n > 0 ? h->cat->n : 1), sizeof *h->starts);
    h->speed_sum = xcalloc((size_t)(h->cat->n > 0 ? h->cat->n : 1), sizeof *h->speed_sum);
    const char *ref = sim_param(s, "ref_gpu");
    h->ref = !strcmp(ref, "cluster") ? (h->cl->npools ? h->cl->pools[0].model : NULL) : gpu_catalog_find(h->cat, ref);
    if (!h->ref) {
        char names[2048];
        gpu_catalog_names(h->cat, names, sizeof names);
        return gs_err(err, GS_EUSAGE, "parameter ref_gpu: expected 'cluster' or a known GPU model (%s), found '%s'",
                      names, ref);
    }
    h->ref_pool = -1;
    for (int p = 0; p < h->cl->npools && h->ref_pool < 0; p++)
        if (h->cl->pools[p].model == h->ref)
            h->ref_pool = p;
    h->ref_i = h->ref - h->cat->models;
    if (h->ref_i < 0 || h->ref_i >= h->cat->n)
        h->ref_i = -1;
    h->slice_share = sim_param_choice(s, "mig_speed") == 0; /* share|card */
    h->mem_bound_job = sim_param_num(s, "mem_bound_job");
    return 0;
}

static void hw_fini(void *state)
{
    hw_state *h = state;
    if (!h)
        return;
    free(h->used);
    free(h->starts);
    free(h->speed_sum);
    free(h->tabs);
    free(h->tab_at);
    free(h->memo);
    sim_symmap_free(&h->ref_by_sym);
    free(h);
}

void sim_hw_note(sim *s, const gpu_model *m, bool tflops, bool bw)
{
    hw_state *h = sim_module_state(s, &hw_module);
    if (!h || !m)
        return;
    ptrdiff_t i = m - h->cat->models;
    if (i >= 0 && i < h->cat->n)
        h->used[i] |= (uint8_t)((tflops ? 1 : 0) | (bw ? 2 : 0));
}

bool sim_hw_slice_share(const sim *s)
{
    const hw_state *h = sim_module_state(s, &hw_module);
    return !h || h->slice_share;
}

const gpu_model *sim_hw_ref(const sim *s)
{
    const hw_state *h = sim_module_state(s, &hw_module);
    return h ? h->ref : NULL;
}

/* Parses table into *t (see hw_tab). */
static void tab_parse(const gpu_catalog *cat, const char *table, hw_tab *t)
{
    t->text = table;
    t->status = t->n = 0;
    const char *p = table;
    while (*p && t->status == 0) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char item[160];
        char *colon = NULL;
        double f = 0;
        if (len < sizeof item) {
            memcpy(item, p, len);
            item[len] = 0;
            colon = strrchr(item, ':');
        }
        if (colon)
            *colon = 0;
        /* the factor as the trace's numbers are read (gs_num.h: no hex, blanks or '+') */
        if (!colon || !gs_num_double(colon + 1, 0, 1e9, &f) || !(f > 0 && f < 1e9) || t->n == HW_TAB_MAX) {
            t->status = -2;
            break;
        }
        const gpu_model *m = gpu_catalog_find(cat, item);
        if (!m) {
            t->status = -3;
            break;
        }
        t->m[t->n] = m;
        t->f[t->n++] = f;
        p = bar ? bar + 1 : p + len;
    }
}

/* The index of an interned speedup text's parsed table: parsed on its
 * first use, then found by its address (hw_tab_of: the last one used, then
 * a probe). O(1) expected. */
static __attribute__((noinline)) size_t tab_find(hw_state *h, const char *table)
{
    if (2 * (h->ntabs + 1) > h->tab_slots) { /* at most half full: grow and place every table again */
        h->tab_slots = h->tab_slots ? 2 * h->tab_slots : 16;
        free(h->tab_at);
        h->tab_at = xcalloc(h->tab_slots, sizeof *h->tab_at);
        for (size_t i = 0; i < h->ntabs; i++) {
            size_t k = ((uintptr_t)h->tabs[i].text * 0x9E3779B97F4A7C15ull >> 20) & (h->tab_slots - 1);
            while (h->tab_at[k])
                k = (k + 1) & (h->tab_slots - 1);
            h->tab_at[k] = i + 1;
        }
    }
    size_t k = ((uintptr_t)table * 0x9E3779B97F4A7C15ull >> 20) & (h->tab_slots - 1);
    for (; h->tab_at[k]; k = (k + 1) & (h->tab_slots - 1))
        if (h->tabs[h->tab_at[k] - 1].text == table)
            return h->tab_at[k] - 1;
    if (h->ntabs == h->tabs_cap) {
        h->tabs_cap = h->tabs_cap ? 2 * h->tabs_cap : 8;
        h->tabs = xrealloc(h->tabs, h->tabs_cap * sizeof *h->tabs);
    }
    tab_parse(h->cat, table, &h->tabs[h->ntabs]);
    h->tab_at[k] = ++h->ntabs;
    return h->ntabs - 1;
}

static const hw_tab *hw_tab_of(hw_state *h, const char *table)
{
    if (!h->ntabs || h->tabs[h->last_tab].text != table) /* most rows of a trace name one table */
        h->last_tab = tab_find(h, table);
    return &h->tabs[h->last_tab];
}

/* The factor of model `want` in an interned speedup table: -1 when the
 * table does not list it, -2 or -3 when the table is faulty (hw_tab). */
static double table_factor(hw_state *h, const char *table, const gpu_model *want)
{
    const hw_tab *t = hw_tab_of(h, table);
    if (t->status)
        return t->status;
    for (int i = 0; i < t->n; i++)
        if (t->m[i] == want)
            return t->f[i];
    return -1;
}

/* The input error of an arrival's ref_gpu (status 0: not in the catalog)
 * or speedup (a table's status, hw_tab), naming the row's line and column.
 * Out of line: hw_admit's common way keeps no name buffer. */
static __attribute__((noinline, cold)) bool admit_fault(hw_state *h, sim *s, const wl_row *r, int status,
                                                        const char *text)
{
    char names[2048];
    gpu_catalog_names(h->cat, names, sizeof names);
    const char *trace = sim_config_of(s)->trace_path;
    long line = r ? r->line : 0;
    if (status == 0)
        gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld, column %d ('ref_gpu'): expected a known GPU model "
               "(%s), found '%s'", trace, line, r ? r->ref_gpu_col : 0, names, text);
    else if (status == -3)
        gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld, column %d ('speedup'): expected known GPU models "
               "(%s), found '%s'", trace, line, r ? r->speedup_col : 0, names, text);
    else
        gs_err(sim_error_slot(s), GS_EINPUT, "trace '%s' line %ld, column %d ('speedup'): expected MODEL:factor pairs "
               "separated by '|' with factors > 0, found '%s'", trace, line, r ? r->speedup_col : 0, text);
    return false;
}

/* The model a row's ref_gpu names (NULL: none), found on the name's first
 * row and kept by its name number. */
static const gpu_model *ref_of(hw_state *h, const wl_row *r, const char *ref_gpu)
{
    uint64_t v;
    uint32_t sym = r ? r->ref_gpu_sym : 0;
    if (sim_symmap_get(&h->ref_by_sym, sym, &v))
        return (const gpu_model *)(uintptr_t)v;
    const gpu_model *ref = gpu_catalog_find(h->cat, ref_gpu);
    sim_symmap_put(&h->ref_by_sym, sym, (uint64_t)(uintptr_t)ref);
    return ref;
}

/* hw_admit for names other than the last admitted pair's */
static __attribute__((noinline)) bool admit_names(hw_state *h, sim *s, job *j, const char *ref_gpu,
                                                  const char *speedup)
{
    const gpu_model *ref = NULL;
    if (ref_gpu[0]) {
        const wl_row *r = sim_arriving_row(s); /* admission happens while the row is at hand */
        if (!(ref = ref_of(h, r, ref_gpu)))
            return admit_fault(h, s, r, 0, ref_gpu);
        j->more->ref = ref;
    }
    if (speedup[0]) {
        int f = hw_tab_of(h, speedup)->status; /* parsed once per distinct table */
        if (f != 0)
            return admit_fault(h, s, sim_arriving_row(s), f, speedup);
    }
    h->ok_ref_gpu = ref_gpu;
    h->ok_speedup = speedup;
    h->ok_ref = ref;
    h->ok_on_ref = ref && ref != h->ref ? -1 : speedup[0] ? table_factor(h, speedup, h->ref) > 0 : 0;
    j->more->hw_on_ref = h->ok_on_ref;
    return true;
}

/* A new arrival: its reference card, once (kept out of line: only a row
 * that names ref_gpu has one of its own); a bad name in ref_gpu or speedup
 * is an input error naming the row's line and column. Names are interned
 * (one address a text): a row naming the pair admitted last takes its
 * answer, no lookup (most rows of a trace name one pair). */
static bool hw_admit(void *state, sim *s, job *j)
{
    if (!j->more)
        return true; /* no ref_gpu, no speedup: nothing to check (most rows) */
    hw_state *h = state;
    const char *ref_gpu = job_req_ref_gpu(j), *speedup = job_req_speedup(j);
    if (ref_gpu != h->ok_ref_gpu || speedup != h->ok_speedup)
        return admit_names(h, s, j, ref_gpu, speedup);
    j->more->ref = h->ok_ref;
    j->more->hw_on_ref = h->ok_on_ref;
    return true;
}

double sim_hw_time_ratio(const gpu_model *ref, const gpu_model *m, double b, double c, double mb)
{
    double tc = ref->tensor_tflops / (m->tensor_tflops * c);
    double tb = ref->mem_bw_gbps / (m->mem_bw_gbps * mb);
    return (1 - b) * tc + b * tb;
}

/* The speed table gives a job on model m, from reference ref, at shares c
 * and mb of the card: NULL when the table lists either model not (the
 * card figures decide), else the kept answer. Made on the inputs' first
 * placement, then found in one of HW_MEMO_SLOTS slots by their addresses
 * and values (a slot taken by other inputs is made again): O(1), where
 * the table's two lookups walk its entries. */
static const hw_memo *speed_memo(sim *s, hw_state *h, const char *table, const gpu_model *ref, const gpu_model *m,
                                 double b, double c, double mb)
{
    if (c == 1 && mb == 1)
        b = 0; /* a whole card's speed by the table does not depend on it */
    uint64_t kb, kc, km;
    memcpy(&kb, &b, sizeof kb);
    memcpy(&kc, &c, sizeof kc);
    memcpy(&km, &mb, sizeof km);
    uint64_t k = ((uintptr_t)table ^ (uintptr_t)ref * 3 ^ (uintptr_t)m * 5 ^ kb ^ kc * 7 ^ km * 11) *
                 0x9E3779B97F4A7C15ull;
    if (!h->memo)
        h->memo = xcalloc(HW_MEMO_SLOTS, sizeof *h->memo);
    _Static_assert(HW_MEMO_SLOTS == 64, "the slot is the hash's top six bits");
    hw_memo *e = &h->memo[k >> 58];
    if (e->table == table && e->ref == ref && e->m == m && e->b == b && e->c == c && e->mb == mb)
        return e->v > 0 ? e : NULL;
    double fr = table_factor(h, table, ref), fm = table_factor(h, table, m);
    *e = (hw_memo){.table = table, .ref = ref, .m = m, .b = b, .c = c, .mb = mb, .v = -1};
    if (!(fr > 0 && fm > 0))
        return NULL;
    e->scaled = fm != fr || c != 1 || mb != 1;
    if (c == 1 && mb == 1)
        e->v = fm / fr;
    else {
        sim_hw_note(s, m, b < 1, b > 0);
        e->v = fm / fr / sim_hw_time_ratio(m, m, b, c, mb);
    }
    return e;
}

static double speed_of(sim *s, hw_state *h, const job *j, const gpu_model *m, double c, double mb)
{
    const gpu_model *ref = j->more && j->more->ref ? j->more->ref : h->ref;
    /* the memory-bound share: the row's, else the run's default; a task
     * (never admitted as an arrival) counts as compute-bound */
    double row_b = job_req_mem_bound(j), b = j->internal ? 0 : row_b >= 0 ? row_b : h->mem_bound_job;
    const char *speedup = job_req_speedup(j);
    h->placements++;
    if (speedup[0]) {
        const hw_memo *e = speed_memo(s, h, speedup, ref, m, b, c, mb);
        if (e) {
            h->by_table++;
            h->scaled += e->scaled;
            return e->v;
        }
    }
    if (m == ref && c == 1 && mb == 1)
        return 1.0; /* its own reference card: no figure needed */
    h->scaled++;
    sim_hw_note(s, m, b < 1, b > 0);
    sim_hw_note(s, ref, b < 1, b > 0);
    return 1.0 / sim_hw_time_ratio(ref, m, b, c, mb);
}

/* sim_hw_speed with the module's state at hand (the module's own hooks get
 * it: no search of the module list per placement) */
static double speed_in(sim *s, hw_state *h, const job *j, const gpu_model *m, double c, double mb)
{
    if (!h || !m)
        return 1.0;
    double v = speed_of(s, h, j, m, c, mb);
    ptrdiff_t i = m - h->cat->models;
    if (i >= 0 && i < h->cat->n) {
        h->starts[i]++;
        h->speed_sum[i] += v;
    }
    return v;
}

double sim_hw_speed(sim *s, const job *j, const gpu_model *m, double c, double mb)
{
    return speed_in(s, sim_module_state(s, &hw_module), j, m, c, mb);
}

/* The share of its instance's speed a job on a slice of `share` of its card
 * is held to: a job that keeps a fraction util of a whole card busy (its
 * util column; not given: 1) needs util of the card's compute and
 * bandwidth, so a slice of share >= util does not slow it and a smaller one
 * slows it by util / share (the contention rule's min(d, cap) / d with the
 * slice as the cap). 1 (no slice) stays 1. */
static double demand_share(const job *j, double share)
{
    double u = j->req.util;
    return u > 0 && u < share ? 1.0 : u > 0 ? share / u : share;
}

static __attribute__((noinline)) double place_speed_in(sim *s, hw_state *h, const job *j)
{
    if (j->req.kind != WL_KIND_JOB || j->node < 0)
        return 1.0; /* sessions hold for wall-clock time */
    const sim_cluster *cl = sim_cluster_of(s);
    const gpu_model *m = cl->pools[cl->nodes[j->node].pool].model;
    if (h && !h->slice_share)
        return speed_in(s, h, j, m, 1, 1);
    return speed_in(s, h, j, m, demand_share(j, job_slice_c(j)), demand_share(j, job_slice_m(j)));
}

void sim_hw_mig_shares(const mig_table *t, const mig_profile *p, double *c, double *mb)
{
    int full_sms = 0;
    for (int i = 0; i < t->nprofiles; i++)
        if (t->profiles[i].sms > full_sms)
            full_sms = t->profiles[i].sms;
    if (p->sms > 0 && full_sms > 0)
        *c = (double)p->sms / full_sms;
    else
        *c = (double)p->compute_slices / t->compute_slices;
    *mb = (double)p->size / t->memory_slices;
}

static void hw_report(const void *state, const sim *s, cJSON *root, int section)
{
    const hw_state *h = state;
    if (section != SIM_REPORT_GPU || !h || !h->ref)
        return; /* a run that never started */
    (void)s;
    cJSON *hw = cJSON_AddObjectToObject(root, "hardware");
    cJSON_AddStringToObject(hw, "ref_gpu", h->ref->name);
    cJSON_AddNumberToObject(hw, "mem_bound_job", h->mem_bound_job);
    cJSON_AddNumberToObject(hw, "placements", (double)h->placements);
    cJSON_AddNumberToObject(hw, "placements_scaled", (double)h->scaled);
    cJSON_AddNumberToObject(hw, "placements_by_speedup_table", (double)h->by_table);
    cJSON *by = cJSON_AddArrayToObject(hw, "by_model");
    for (int i = 0; i < h->cat->n; i++) {
        if (!h->starts[i])
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "model", h->cat->models[i].name);
        cJSON_AddNumberToObject(o, "starts", (double)h->starts[i]);
        cJSON_AddNumberToObject(o, "mean_speed", h->speed_sum[i] / (double)h->starts[i]);
        cJSON_AddItemToArray(by, o);
    }
    cJSON *figs = cJSON_AddArrayToObject(hw, "figures_relied_on");
    for (int i = 0; i < h->cat->n; i++) {
        if (!h->used[i])
            continue;
        const gpu_model *m = &h->cat->models[i];
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "model", m->name);
        cJSON *uv = cJSON_CreateArray();
        if (h->used[i] & 1) {
            cJSON_AddNumberToObject(f, "tensor_tflops", m->tensor_tflops);
            if (gpu_model_unverified(m, "tensor_tflops"))
                cJSON_AddItemToArray(uv, cJSON_CreateString("tensor_tflops"));
        }
        if (h->used[i] & 2) {
            cJSON_AddNumberToObject(f, "mem_bw_gbps", m->mem_bw_gbps);
            if (gpu_model_unverified(m, "mem_bw_gbps"))
                cJSON_AddItemToArray(uv, cJSON_CreateString("mem_bw_gbps"));
        }
        cJSON_AddItemToObject(f, "unverified", uv);
        cJSON_AddItemToArray(figs, f);
    }
}

/* Whether table lists the reference model, kept as the last table asked
 * (out of line: the common start stays without a call). */
static __attribute__((noinline)) bool ref_table_ask(hw_state *h, const char *table)
{
    h->ref_table = table;
    h->ref_table_lists = table_factor(h, table, h->ref) > 0;
    return h->ref_table_lists;
}

/* A job placed on a whole card of the run's reference model runs at 1
 * there when its own reference is that model (none named, or the same)
 * and it holds no slice: a speedup table gives it the factor over itself,
 * else no figure is needed (speed_of's answers; a util of (0, 1] does not
 * slow a whole card). The table's answer counts in by_table when it lists
 * the model (the last table asked is kept: most rows name one). An
 * untouched record holds no slice: its admission's answer stands. */
static inline bool on_ref_card(hw_state *h, const job *j)
{
    const job_more *x = j->more;
    if (!x)
        return true;
    if (!x->touched && x->hw_on_ref >= 0) {
        h->by_table += (uint64_t)x->hw_on_ref;
        return true;
    }
    if ((x->ref && x->ref != h->ref) || x->slice_c != 1 || x->slice_m != 1)
        return false;
    if (x->speedup[0])
        h->by_table += x->speedup == h->ref_table ? h->ref_table_lists : ref_table_ask(h, x->speedup);
    return true;
}

static double hw_speed(void *state, sim *s, const job *j)
{
    /* the common start -- a job on a whole card of the reference model that
     * names no other reference and holds no slice -- counted
     * as speed_of and speed_in count it, without their three calls (every
     * job start comes here) */
    hw_state *h = state;
    if (h && j->req.kind == WL_KIND_JOB && j->node >= 0 && h->cl->nodes[j->node].pool == h->ref_pool &&
        on_ref_card(h, j)) {
        h->placements++;
        if (h->ref_i >= 0) {
            h->starts[h->ref_i]++;
            h->speed_sum[h->ref_i] += 1.0;
        }
        return 1.0;
    }
    return place_speed_in(s, state, j);
}

/* The hardware model reads ref_gpu, speedup, mem_bound and mig: none of
 * the optional columns. */
static uint64_t hw_columns(const void *state, int kind)
{
    (void)state;
    (void)kind;
    return 0;
}

const sim_module hw_module = {
    .name = "hardware",
    .params = hw_params,
    .init = hw_init,
    .fini = hw_fini,
    .admit = hw_admit,
    .speed = hw_speed,
    .report = hw_report,
    .columns_read = hw_columns,
};
