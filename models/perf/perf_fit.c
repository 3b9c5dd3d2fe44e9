/* perf_fit.c - the shape model's constants fitted to measured times, and
 * the validation rows (see perf_fit.h).
 * SPDX-License-Identifier: MIT */
#include "perf_fit.h"

#include <math.h>
#include <string.h>

/* the sizes the validation table reports (Splitwise's base prompt and output) */
#define VAL_PROMPT 512
#define VAL_OUT 128

static const llm_model *model_of(const llm_catalog *lc, const char *profile)
{
    for (int i = 0; i < lc->n; i++)
        if (lc->models[i].profile[0] && gs_streq_ci(lc->models[i].profile, profile))
            return &lc->models[i];
    return NULL;
}

perf_cfg perf_entry_cfg(const perf_entry *e, const llm_model *m)
{
    return (perf_cfg){.llm = m, .gpu = e->model, .dtype = LLM_BF16, .tp = e->tp, .pp = 1, .ep = 1};
}

void perf_predict_point(const perf_cfg *c, const perf_coef *k, const perf_point *p, double *pre_ms, double *dec_ms)
{
    double b = p->batch, prompt = p->prompt;
    *pre_ms = 1e3 * perf_shape_iter_s(c, k, prompt * b, b * prompt * prompt, 0, b, 0);
    /* a decode step of the run's average context: the prompt and half the output */
    *dec_ms = 1e3 * perf_shape_iter_s(c, k, 0, 0, b, b, b * (prompt + p->out / 2.0));
}

bool perf_point_broken(const perf_entry *e, const perf_point *p)
{
    for (int i = 0; i < e->npts; i++) {
        const perf_point *q = &e->pts[i];
        if (q->prompt == p->prompt && q->out == p->out && q->batch < p->batch && q->prefill_ms > p->prefill_ms)
            return true;
    }
    return false;
}

typedef struct fit_ctx {
    const perf_set *ps;
    const llm_model *m;
    const char *train;
    int npts;
} fit_ctx;

/* The constants as the log-vector the search moves, and back. */
/* Efficiencies move as logits (so they stay in (0, 1)), the other
 * constants as logarithms (so they stay positive). */
static const bool is_eff[PERF_NCOEF] = {true, true, true, false, false, false, false, true};

static void coef_log(const perf_coef *k, double *x)
{
    const double v[PERF_NCOEF] = {k->bw_eff, k->flops_eff, k->sus_eff, k->burst_s, k->layer_s, k->seq_s, k->hop_s, k->link_eff};
    for (int i = 0; i < PERF_NCOEF; i++)
        x[i] = is_eff[i] ? log(v[i] / (1 - v[i])) : log(v[i]);
}

static double from_x(const double *x, int i) { return is_eff[i] ? 1 / (1 + exp(-x[i])) : exp(x[i]); }

static void coef_of(const double *x, perf_coef *k)
{
    *k = (perf_coef){from_x(x, 0), from_x(x, 1), from_x(x, 2), from_x(x, 3), from_x(x, 4), from_x(x, 5), from_x(x, 6), from_x(x, 7)};
}

static double loss_of(fit_ctx *f, const double *x)
{
    perf_coef k;
    coef_of(x, &k);
    double s = 0;
    f->npts = 0;
    for (int i = 0; i < f->ps->n; i++) {
        const perf_entry *e = &f->ps->e[i];
        if (!e->model || !gs_streq_ci(e->profile, f->train))
            continue;
        perf_cfg c = perf_entry_cfg(e, f->m);
        for (int p = 0; p < e->npts; p++) {
            if (perf_point_broken(e, &e->pts[p]))
                continue;
            double pre, dec;
            perf_predict_point(&c, &k, &e->pts[p], &pre, &dec);
            double a = log(pre / e->pts[p].prefill_ms), b = log(dec / e->pts[p].decode_ms);
            s += a * a + b * b;
            f->npts++;
        }
    }
    return s;
}

/* Nelder-Mead over n <= PERF_NCOEF log-coefficients from x (in place):
 * reflection 1, expansion 2, contraction and shrink 1/2; `iters` steps. */
static double nelder_mead(fit_ctx *f, double *x, int iters)
{
    enum { N = PERF_NCOEF };
    double s[N + 1][N], v[N + 1];
    for (int i = 0; i <= N; i++) {
        memcpy(s[i], x, sizeof s[i]);
        if (i)
            s[i][i - 1] += 0.5;
        v[i] = loss_of(f, s[i]);
    }
    for (int it = 0; it < iters; it++) {
        for (int i = 1; i <= N; i++) /* insertion sort by loss: N + 1 small */
            for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
                double t = v[j], tmp[N];
                v[j] = v[j - 1], v[j - 1] = t;
                memcpy(tmp, s[j], sizeof tmp), memcpy(s[j], s[j - 1], sizeof tmp), memcpy(s[j - 1], tmp, sizeof tmp);
            }
        double c[N] = {0}, r[N], e[N];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                c[j] += s[i][j] / N;
        for (int j = 0; j < N; j++)
            r[j] = 2 * c[j] - s[N][j];
        double fr = loss_of(f, r);
        if (fr < v[0]) {
            for (int j = 0; j < N; j++)
                e[j] = 3 * c[j] - 2 * s[N][j];
            double fe = loss_of(f, e);
            memcpy(s[N], fe < fr ? e : r, sizeof r);
            v[N] = fe < fr ? fe : fr;
        } else if (fr < v[N - 1]) {
            memcpy(s[N], r, sizeof r);
            v[N] = fr;
        } else {
            for (int j = 0; j < N; j++)
                e[j] = (c[j] + s[N][j]) / 2;
            double fc = loss_of(f, e);
            if (fc < v[N]) {
                memcpy(s[N], e, sizeof e);
                v[N] = fc;
            } else {
                for (int i = 1; i <= N; i++) {
                    for (int j = 0; j < N; j++)
                        s[i][j] = (s[0][j] + s[i][j]) / 2;
                    v[i] = loss_of(f, s[i]);
                }
            }
        }
    }
    int best = 0;
    for (int i = 1; i <= N; i++)
        if (v[i] < v[best])
            best = i;
    memcpy(x, s[best], sizeof s[best]);
    return v[best];
}

int perf_fit_run(const perf_set *ps, const llm_catalog *lc, const char *train, perf_coef *k, double *loss, int *npts,
                 gs_error *err)
{
    fit_ctx f = {ps, model_of(lc, train), train, 0};
    if (!f.m)
        return gs_err(err, GS_EINPUT, "no catalog model in models/llm names the profile '%s'", train);
    /* starts: mid-range physical guesses; each restart from the last answer */
    perf_coef start = {.bw_eff = 0.8, .flops_eff = 0.7, .sus_eff = 0.5, .burst_s = 20e-3, .layer_s = 200e-6, .seq_s = 300e-6,
                       .hop_s = 5e-6, .link_eff = 0.5};
    double x[PERF_NCOEF];
    coef_log(&start, x);
    double v = 0;
    for (int restart = 0; restart < 4; restart++)
        v = nelder_mead(&f, x, 1500);
    loss_of(&f, x);
    if (!f.npts)
        return gs_err(err, GS_EINPUT, "no measured point of profile '%s' on a known card", train);
    coef_of(x, k);
    *loss = v;
    *npts = f.npts;
    return 0;
}

int perf_validate(const perf_set *ps, const llm_catalog *lc, const perf_coef *k, perf_val_row *rows, int max)
{
    static const int batches[] = {1, 8, 16, 32, 64};
    int n = 0;
    for (int i = 0; i < ps->n; i++) {
        const perf_entry *e = &ps->e[i];
        const llm_model *m = model_of(lc, e->profile);
        if (!e->model || !m)
            continue;
        perf_cfg c = perf_entry_cfg(e, m);
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++)
            for (int p = 0; p < e->npts && n < max; p++) {
                const perf_point *pt = &e->pts[p];
                if (pt->prompt != VAL_PROMPT || pt->out != VAL_OUT || pt->batch != batches[b])
                    continue;
                perf_val_row *r = &rows[n++];
                r->e = e;
                r->batch = pt->batch;
                perf_predict_point(&c, k, pt, &r->pre_pred_ms, &r->dec_pred_ms);
                r->pre_meas_ms = pt->prefill_ms;
                r->dec_meas_ms = pt->decode_ms;
                r->excluded = perf_point_broken(e, pt);
            }
    }
    return n;
}

bool perf_shape_validated(const perf_cfg *c, const perf_set *ps, const char **why)
{
    bool card = false;
    int tp_lo = 1 << 30, tp_hi = 0;
    for (int i = 0; i < ps->n; i++)
        if (ps->e[i].model && gs_streq_ci(ps->e[i].profile, PERF_FIT_PROFILE)) {
            card |= ps->e[i].model == c->gpu;
            tp_lo = ps->e[i].tp < tp_lo ? ps->e[i].tp : tp_lo;
            tp_hi = ps->e[i].tp > tp_hi ? ps->e[i].tp : tp_hi;
        }
    *why = !card                             ? "a card no measurement of the fit covers"
           : c->dtype != LLM_BF16            ? "a precision below bf16, never measured"
           : c->tp < tp_lo || c->tp > tp_hi  ? "a tensor-parallel degree outside those measured"
           : c->pp != 1                      ? "pipeline parallelism, never measured"
           : c->llm->experts                 ? "a mixture of experts, never measured"
           : c->llm->attn == LLM_MLA         ? "latent attention (MLA), never measured"
                                             : NULL;
    return *why == NULL;
}
