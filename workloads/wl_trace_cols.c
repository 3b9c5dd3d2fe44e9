/* wl_trace_cols.c - what the columns of trace format v1 mean: the one column
 * table (name, type, range, where the value goes in wl_row, which row kinds
 * may give it), the value parsers from a field's text, every column's
 * default and the cross-field rules of a row (workloads/README.md). Both row
 * paths (wl_trace.c, wl_trace_fast.c) read values by this table and check
 * rows by wl_rule_broken, so the two cannot disagree on a value's meaning.
 * SPDX-License-Identifier: MIT */
#include "wl_trace_names.h"

#include <stddef.h>
#include <stdlib.h>

#define KIND(k) (1u << (k))
#define OFF(m) (uint16_t)offsetof(wl_row, m)
#define SZ(m) (uint16_t)sizeof(((wl_row *)0)->m)
#define TEXT(m, w) .type = WT_TEXT, .off = OFF(m), .size = SZ(m), .want = w
#define SECS_W(m, w) .type = WT_SECONDS, .off = OFF(m), .size = SZ(m), .want = w
#define SECS(m) SECS_W(m, "a non-negative decimal number of seconds")
#define INT(m, l, h, w) .type = WT_INT, .off = OFF(m), .size = SZ(m), .lo = l, .hi = h, .want = w
#define NUM(m, l, h, w) .type = WT_NUM, .off = OFF(m), .size = SZ(m), .lo = l, .hi = h, .want = w
#define NOT_GIVEN .dflt = -1
#define SYM(m) .sym_off = OFF(m)
#define JOBS (KIND(WL_KIND_JOB) | KIND(WL_KIND_SESSION))
#define CHOICE(m, names, w) .type = WT_CHOICE, .off = OFF(m), .size = SZ(m), .choices = names, .want = w

static const char *const kind_names[] = {"job", "service", "request", "session", "burst", NULL};
static const char *const preemptible_names[] = {"0", "1", NULL};
static const char *const pattern_names[] = {"poisson", "diurnal", NULL};
static const char *const wake_names[] = {"user", "scheduled", NULL};
static const char *const topo_names[] = {[WL_TOPO_RACK] = "rack", [WL_TOPO_BLOCK] = "block", NULL};
static const char *const tier_names[] = {[WL_TIER_ANY] = "any", [WL_TIER_NO_SPOT] = "no-spot", NULL};
static const char *const dtype_names[] = {"native", "bf16", "fp8", "fp4", NULL};
static const char svc_only[] = "only service rows say how a model is served";
static const char ms_nonneg[] = "a non-negative number", burst_only[] =
    "columns 'session', 'wake' and 'due' are for rows of kind 'burst' only";

/* Every documented column. Unless set, a column is optional, any kind may
 * give it (kinds 0), its default is 0 (a choice: the first; a text: ""),
 * and no later check names its column (col_off 0). */
#define COL(id, nm, ...) [id] = {.name = nm, __VA_ARGS__}
const wl_col wl_cols[C_NCOLS] = {
    COL(C_ID, "id", TEXT(id, "an id shorter than 128 characters"), .required = true),
    COL(C_SUBMIT, "submit", SECS(submit_us), .required = true),
    COL(C_DURATION, "duration", SECS(dur_us)),
    COL(C_GPUS, "gpus", INT(gpus, 0, WL_GPUS_MAX, "an integer 0..1048576 (2^20, the most GPUs a row may ask for)")),
    COL(C_KIND, "kind", CHOICE(kind, kind_names, "a row kind: job, service, request, session or burst")),
    COL(C_GPUMEM, "gpumem", INT(gpumem_mib, 1, (double)(1LL << 40), "an integer number of MiB >= 1")),
    COL(C_GPUCORES, "gpucores", INT(gpucores, 1, 100, "an integer percent 1..100")),
    COL(C_MIG, "mig", TEXT(mig, "a MIG profile name such as '1g.10gb'"), .col_off = OFF(mig_col),
        SYM(mig_sym)),
    COL(C_PRIORITY, "priority", INT(priority, -2000000000.0, 2000000000.0, "an integer priority")),
    COL(C_PREEMPTIBLE, "preemptible", CHOICE(preemptible, preemptible_names, "0 or 1")),
    COL(C_CHECKPOINT_GIB, "checkpoint_gib", NUM(checkpoint_gib, 0, 1e9, "a non-negative number of GiB"), NOT_GIVEN),
    COL(C_TENANT, "tenant", TEXT(tenant, "a tenant name shorter than 64 characters"), SYM(tenant_sym)),
    COL(C_GPU_MODEL, "gpu_model", TEXT(gpu_model, "'|'-separated GPU model names"), .list = true,
        .col_off = OFF(gpu_model_col), SYM(gpu_model_sym)),
    COL(C_CPU, "cpu", NUM(cpu, 0, 1e6, "a non-negative number of cores")),
    COL(C_MEM_GIB, "mem_gib", NUM(mem_gib, 0, 1e9, "a non-negative number of GiB")),
    COL(C_GPUMEM_PCT, "gpumem_pct", INT(gpumem_pct, 1, 100, "an integer percent 1..100")),
    COL(C_UTIL, "util", NUM(util, 0, 1, "a demand 0 < util <= 1"), .lo_open = true),
    COL(C_SERVICE, "service", TEXT(service, "a service id shorter than 64 characters"), SYM(service_sym)),
    COL(C_INPUT_TOKENS, "input_tokens", INT(input_tokens, 0, 1e7, "an integer number of tokens >= 0"), NOT_GIVEN),
    COL(C_OUTPUT_TOKENS, "output_tokens", INT(output_tokens, 1, 1e7, "an integer number of tokens >= 1"), NOT_GIVEN),
    COL(C_REPLICAS_MIN, "replicas_min", INT(replicas_min, 0, 100000, "an integer >= 0"), NOT_GIVEN),
    COL(C_REPLICAS_MAX, "replicas_max", INT(replicas_max, 1, 100000, "an integer >= 1"), NOT_GIVEN),
    COL(C_REPLICAS_INIT, "replicas_init", INT(replicas_init, 0, 100000, "an integer >= 0"), NOT_GIVEN),
    COL(C_MAX_BATCH, "max_batch", INT(max_batch, 1, 4096, "an integer batch size 1..4096")),
    COL(C_SLO_MS, "slo_ms", NUM(slo_ms, 0, 1e12, ms_nonneg), NOT_GIVEN),
    COL(C_WEIGHTS_GIB, "weights_gib", NUM(weights_gib, 0, 1e12, ms_nonneg), NOT_GIVEN),
    COL(C_RATE, "rate", NUM(rate, 0, 1e9, "a non-negative number of requests per second")),
    COL(C_PATTERN, "pattern", CHOICE(pattern, pattern_names, "poisson or diurnal")),
    COL(C_SVC_MEAN_MS, "svc_mean_ms", NUM(svc_mean_ms, 0, 1e12, "a positive number"), .lo_open = true, NOT_GIVEN),
    COL(C_PREFILL_MS, "prefill_ms_per_token", NUM(prefill_ms_per_token, 0, 1e12, ms_nonneg), NOT_GIVEN),
    COL(C_DECODE_BASE_MS, "decode_ms_base", NUM(decode_ms_base, 0, 1e12, ms_nonneg), NOT_GIVEN),
    COL(C_DECODE_SEQ_MS, "decode_ms_per_seq", NUM(decode_ms_per_seq, 0, 1e12, ms_nonneg), NOT_GIVEN),
    COL(C_SESSION, "session", TEXT(session, "a session id shorter than 128 characters"), SYM(session_sym), .kinds = KIND(WL_KIND_BURST),
        .kind_note = burst_only, .note_whole_row = true),
    COL(C_WAKE, "wake", CHOICE(wake, wake_names, "user or scheduled"), .kinds = KIND(WL_KIND_BURST),
        .kind_note = burst_only, .note_whole_row = true),
    COL(C_DUE, "due", SECS(due_us), .kinds = KIND(WL_KIND_BURST), .kind_note = burst_only, .note_whole_row = true, NOT_GIVEN),
    COL(C_PARAMS_B, "params_b", NUM(params_b, 0, 1e6, "a non-negative number of billions of parameters"), NOT_GIVEN),
    COL(C_SLO_TTFT_MS, "slo_ttft_ms", NUM(slo_ttft_ms, 0, 1e12, "a non-negative number of ms"), NOT_GIVEN),
    COL(C_SLO_TPOT_MS, "slo_tpot_ms", NUM(slo_tpot_ms, 0, 1e12, "a non-negative number of ms"), NOT_GIVEN),
    COL(C_KV_KIB, "kv_kib_per_token", NUM(kv_kib_per_token, 0, 1e12, "a positive number of KiB"), .lo_open = true, NOT_GIVEN),
    COL(C_HASH_IDS, "hash_ids", .type = WT_IDS, .kinds = KIND(WL_KIND_REQUEST),
        .want = "prefix-block ids: integers >= 0 separated by '|', e.g. 0|1|2",
        .kind_note = "only request rows carry prefix-block ids"),
    COL(C_REF_GPU, "ref_gpu", TEXT(ref_gpu, "a GPU model name"), .col_off = OFF(ref_gpu_col), SYM(ref_gpu_sym)),
    COL(C_MEM_BOUND, "mem_bound", NUM(mem_bound, 0, 1, "a share of time bound by memory bandwidth, 0..1"), NOT_GIVEN),
    COL(C_SPEEDUP, "speedup", TEXT(speedup, "MODEL:factor pairs separated by '|'"), .col_off = OFF(speedup_col),
        SYM(speedup_sym)),
    COL(C_PROFILE, "profile", TEXT(profile, "a performance profile name shorter than 32 characters"),
        SYM(profile_sym)),
    COL(C_GPUS_PER_NODE, "gpus_per_node", INT(gpus_per_node, 1, 64, "an integer 1..64 (the job's GPUs on each node)"),
        .kinds = JOBS, .kind_note = "only job and session rows carry a GPUs-per-node count"),
    COL(C_TIME_LIMIT, "time_limit", SECS_W(time_limit_us, "a decimal number of seconds > 0 (the requested wall time)"),
        .lo_open = true, NOT_GIVEN, .kinds = JOBS,
        .kind_note = "only job and session rows carry a time limit"),
    COL(C_COMM, "comm", NUM(comm, 0, 1, "a share of the step time spent communicating, 0..1"), NOT_GIVEN,
        .kinds = JOBS, .kind_note = "only job and session rows carry a communication share"),
    COL(C_TOPOLOGY, "topology", CHOICE(topology, topo_names, "rack or block"), NOT_GIVEN, .kinds = JOBS,
        .kind_note = "only job and session rows carry a topology constraint"),
    COL(C_CLASS, "class", TEXT(job_class, "a class name shorter than 64 characters"), SYM(class_sym),
        .kinds = JOBS | KIND(WL_KIND_SERVICE), .kind_note = "only job, session and service rows carry a class"),
    COL(C_TIER, "tier", CHOICE(tier, tier_names, "any or no-spot"), NOT_GIVEN, .kinds = JOBS | KIND(WL_KIND_SERVICE),
        .kind_note = "only job, session and service rows carry a tier"),
    COL(C_OBSERVED_START, "observed_start", SECS(observed_start_us), NOT_GIVEN, .kinds = JOBS | KIND(WL_KIND_SERVICE),
        .kind_note = "only job, session and service rows carry an observed start"),
    COL(C_MODEL, "model", TEXT(model, "a catalog model name shorter than 48 characters ('gpusim models --llm')"),
        .kinds = KIND(WL_KIND_SERVICE), .kind_note = svc_only, .col_off = OFF(model_col)),
    COL(C_DTYPE, "dtype", CHOICE(dtype, dtype_names, "a precision: bf16, fp8, fp4 or native"), .kinds = KIND(WL_KIND_SERVICE),
        .kind_note = svc_only),
    COL(C_TP, "tp", INT(tp, 1, 64, "a tensor-parallel degree 1..64"), .kinds = KIND(WL_KIND_SERVICE), .kind_note = svc_only),
    COL(C_PP, "pp", INT(pp, 1, 64, "a pipeline-parallel degree 1..64"), .kinds = KIND(WL_KIND_SERVICE), .kind_note = svc_only),
    COL(C_EP, "ep", INT(ep, 1, 64, "an expert-parallel degree 1..64"), .kinds = KIND(WL_KIND_SERVICE), .kind_note = svc_only),
    COL(C_PD, "pd", TEXT(pd, "prefill:decode replica counts such as 2:6 or 2@MODEL:6@MODEL, shorter than 112 characters"), .kinds = KIND(WL_KIND_SERVICE),
        .kind_note = svc_only, .col_off = OFF(pd_col)),
};

void wl_row_init(wl_row *row)
{
    memset(row, 0, sizeof *row);
    for (int c = 0; c < C_NCOLS; c++)
        wl_col_default(&wl_cols[c], row);
}

bool wl_parse_seconds(const char *s, gs_time_us *out_us) { return gs_num_seconds_us(s, out_us); }

/* "0|14|15" -> 3; -1 unless non-empty decimal integers below 10^18 joined by '|'. */
static int count_ids(const char *s)
{
    int n = 0;
    for (;;) {
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++)
            if (++digits > 18)
                return -1;
        if (!digits || n == 1 << 20)
            return -1;
        n++;
        if (!*s)
            return n;
        if (*s++ != '|')
            return -1;
    }
}

static bool copy_str(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        return false;
    memcpy(dst, src, l + 1);
    return true;
}

bool wl_parse_field(wl_trace *t, int col, const char *v, wl_row *row, int field_no)
{
    const wl_col *c = &wl_cols[col];
    char *at = (char *)row + c->off;
    switch (c->type) {
    case WT_TEXT:
        if ((c->list && !gs_text_list_ok(v, '|')) || !copy_str(at, c->size, v))
            return false;
        if (c->sym_off) {
            size_t len = strlen(v);
            uint32_t sym = wl_name_find(t, col, v, len);
            if (!sym)
                sym = wl_name_add(t, col, v, len);
            memcpy((char *)row + c->sym_off, &sym, sizeof sym);
        }
        break;
    case WT_SECONDS: {
        gs_time_us us;
        if (!wl_parse_seconds(v, &us) || (c->lo_open && us <= 0))
            return false;
        memcpy(at, &us, sizeof us);
        break;
    }
    case WT_INT: {
        long l;
        if (!gs_num_long(v, (long)c->lo, (long)c->hi, &l))
            return false;
        if (c->size == sizeof(int64_t)) {
            int64_t x = l;
            memcpy(at, &x, sizeof x);
        } else {
            int x = (int)l;
            memcpy(at, &x, sizeof x);
        }
        break;
    }
    case WT_NUM: {
        double d;
        if (!gs_num_double(v, c->lo, c->hi, &d) || (c->lo_open && d <= c->lo))
            return false;
        memcpy(at, &d, sizeof d);
        break;
    }
    case WT_CHOICE: {
        int k = 0;
        while (c->choices[k] && strcmp(c->choices[k], v))
            k++;
        if (!c->choices[k])
            return false;
        if (c->size > sizeof(int))
            snprintf(at, c->size, "%s", v);
        else
            memcpy(at, &k, sizeof k);
        break;
    }
    case WT_IDS:
        if ((row->nhash = count_ids(v)) < 0)
            return false;
        row->hash_ids = v;
        break;
    }
    if (c->col_off)
        memcpy((char *)row + c->col_off, &field_no, sizeof field_no);
    return true;
}

/* The cross-field rules, in the order they are checked (the first broken
 * one is reported). */
enum {
    R_OK, R_JOB_NEEDS, R_KIND, R_BURST_SESSION, R_BURST_ASKS, R_BURST_DUE, R_BURST_USER_DUE, R_SERVICE_GPUS,
    R_REQUEST_SERVICE, R_REPLICAS, R_GPUS_ZERO, R_PER_NODE, R_OBSERVED, R_SUBMIT_ORDER
};

int wl_rule_broken(const wl_trace *t, const wl_row *row)
{
    uint64_t given = t->given;
    int kind = row->kind;
    if ((kind == WL_KIND_JOB || kind == WL_KIND_SESSION) &&
        (given & (COL_BIT(C_DURATION) | COL_BIT(C_GPUS))) != (COL_BIT(C_DURATION) | COL_BIT(C_GPUS)))
        return R_JOB_NEEDS;
    if (given & ~t->kind_ok[kind])
        return R_KIND;
    if (kind == WL_KIND_BURST) {
        if (!row->session[0])
            return R_BURST_SESSION;
        if (row->gpus || row->cpu > 0 || row->mem_gib > 0 || row->gpumem_mib || row->gpucores || row->mig[0])
            return R_BURST_ASKS;
        if (row->wake == WL_WAKE_SCHEDULED && row->due_us < row->submit_us)
            return R_BURST_DUE;
        if (row->wake == WL_WAKE_USER && row->due_us >= 0)
            return R_BURST_USER_DUE;
    }
    if (kind == WL_KIND_SERVICE && !(given & (COL_BIT(C_GPUS) | COL_BIT(C_TP) | COL_BIT(C_MODEL))))
        return R_SERVICE_GPUS;
    if (kind == WL_KIND_REQUEST && !row->service[0])
        return R_REQUEST_SERVICE;
    if (kind == WL_KIND_SERVICE && row->replicas_min >= 0 && row->replicas_max >= 0 &&
        row->replicas_min > row->replicas_max)
        return R_REPLICAS;
    if ((row->gpumem_mib || row->gpucores || row->mig[0] || row->gpumem_pct || row->util > 0) && row->gpus == 0)
        return R_GPUS_ZERO;
    if (row->gpus_per_node > row->gpus)
        return R_PER_NODE;
    if ((given & COL_BIT(C_OBSERVED_START)) && row->observed_start_us < row->submit_us)
        return R_OBSERVED;
    if (row->submit_us < t->last_submit_us)
        return R_SUBMIT_ORDER;
    return R_OK;
}

static const char *field_text(const wl_trace *t, int c) { return t->has[c] ? t->fld[t->has[c] - 1] : ""; }

/* R_JOB_NEEDS and R_KIND, the two rules that name a column of their own. */
static int column_rule_err(const wl_trace *t, const wl_row *row, int rule, gs_error *err)
{
    const char *f = t->path;
    long ln = t->rec_start;
    if (rule == R_JOB_NEEDS) {
        const char *kind = row->kind == WL_KIND_JOB ? "job" : "session";
        int missing = !(t->given & COL_BIT(C_DURATION)) ? C_DURATION : C_GPUS;
        if (t->has[missing])
            return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('%s'): expected a value (a %s row "
                          "needs 'duration' and 'gpus'), found ''", f, ln, t->has[missing],
                          wl_cols[missing].name, kind);
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a %s row needs 'duration' and 'gpus'; the header has "
                      "no column '%s'", f, ln, kind, wl_cols[missing].name);
    }
    int c = __builtin_ctzll(t->given & ~t->kind_ok[row->kind]); /* the first such column */
    if (wl_cols[c].note_whole_row)
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: %s", f, ln, wl_cols[c].kind_note);
    return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('%s'): %s", f, ln, t->has[c], wl_cols[c].name,
                  wl_cols[c].kind_note);
}

int wl_rule_err(const wl_trace *t, const wl_row *row, int rule, gs_error *err)
{
    const char *f = t->path;
    long ln = t->rec_start;
    switch (rule) {
    case R_JOB_NEEDS:
    case R_KIND:
        return column_rule_err(t, row, rule, err);
    case R_BURST_SESSION:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('session'): expected the id of the "
                      "burst's session, found nothing", f, ln, t->has[C_SESSION]);
    case R_BURST_ASKS:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a burst uses its session's sandbox; expected "
                      "empty or zero gpus, cpu, mem_gib, gpumem, gpucores, mig", f, ln);
    case R_BURST_DUE:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('due'): expected the due time (seconds "
                      ">= submit) of a scheduled burst, found '%s'", f, ln, t->has[C_DUE], field_text(t, C_DUE));
    case R_BURST_USER_DUE:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('due'): a user-driven burst runs at "
                      "its submit time; expected no due", f, ln, t->has[C_DUE]);
    case R_SERVICE_GPUS:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a service row needs 'gpus' (per replica), 'tp' or 'model'", f, ln);
    case R_REQUEST_SERVICE:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: a request row needs 'service'", f, ln);
    case R_REPLICAS:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld: replicas_min %d exceeds replicas_max %d", f, ln,
                      row->replicas_min, row->replicas_max);
    case R_GPUS_ZERO:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('gpus'): expected gpus >= 1 when gpumem, "
                      "gpumem_pct, gpucores, util or mig is given, found '0'", f, ln, t->has[C_GPUS]);
    case R_PER_NODE:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('gpus_per_node'): expected at most the "
                      "row's gpus (%d), found '%s'", f, ln, t->has[C_GPUS_PER_NODE], row->gpus,
                      field_text(t, C_GPUS_PER_NODE));
    case R_OBSERVED:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('observed_start'): expected when the real "
                      "cluster started the row (seconds >= submit, %.6f), found '%s'", f, ln,
                      t->has[C_OBSERVED_START], gs_us_to_s(row->submit_us), field_text(t, C_OBSERVED_START));
    case R_SUBMIT_ORDER:
        return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('submit'): rows must be in non-decreasing "
                      "submit order; %.6f comes after %.6f", f, ln, t->has[C_SUBMIT], gs_us_to_s(row->submit_us),
                      gs_us_to_s(t->last_submit_us));
    }
    GS_BUG("wl_rule_err: no such rule");
}

int wl_col_err(const wl_trace *t, gs_error *err, int fi, const char *want)
{
    return gs_err(err, GS_EINPUT, "trace '%s' line %ld, column %d ('%s'): expected %s, found '%s'", t->path,
                  t->rec_start, fi + 1, wl_cols[t->col_of[fi]].name, want, t->fld[fi]);
}
