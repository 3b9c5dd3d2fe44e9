/* perf_fit.h - fitting the shape model's constants (perf_shape.h) to
 * measured serving times, and the validation that can fail: predicted
 * against measured on a model the fit never saw.
 *
 * The fit: every measured point of the training model's profiles (every
 * card and TP the table has; prompt, batch and output sweeps), its prefill
 * and its decode iteration, each compared as log(predicted / measured);
 * the constants minimize the sum of their squares (Nelder-Mead on their
 * logarithms, from fixed starts, so the answer is deterministic). A point
 * whose prefill is below that of a smaller batch at the same prompt is left
 * out (the batch did not run whole: the measurement is broken), in the fit
 * and in the validation, and named in the rows. O(iterations x points).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_PERF_FIT_H
#define GPUSIM_PERF_FIT_H

#include "perf_profile.h"
#include "perf_shape.h"

/* The profile the shipped constants are fitted on. */
#define PERF_FIT_PROFILE "llama2-70b"

/* Whether c lies inside what the validation covers, given the measured set:
 * a card and a TP range the fit's profile measured, bf16, PP 1, a dense
 * MHA/GQA model. false with the first reason in *why (static text). */
bool perf_shape_validated(const perf_cfg *c, const perf_set *ps, const char **why);

/* Fits k on the profiles named `train` (e.g. "llama2-70b") whose card the
 * catalog knows; the model's shape is the catalog entry whose profile is
 * train. *loss: the sum of squared log errors; *npts: points used. 0, or
 * GS_EINPUT when no catalog model or no profile point matches. */
int perf_fit_run(const perf_set *ps, const llm_catalog *lc, const char *train, perf_coef *k, double *loss, int *npts,
                 gs_error *err);

/* One row of the validation table: profile entry e (model, card, TP) at
 * `batch` requests of 512 prompt tokens and 128 output tokens. */
typedef struct perf_val_row {
    const perf_entry *e;
    int batch;
    double dec_pred_ms, dec_meas_ms, pre_pred_ms, pre_meas_ms;
    bool excluded; /* the broken-measurement rule above */
} perf_val_row;

/* Up to max rows for every entry whose profile a catalog model names, at
 * batches 1, 8, 16, 32, 64; returns how many. */
int perf_validate(const perf_set *ps, const llm_catalog *lc, const perf_coef *k, perf_val_row *rows, int max);
/* Whether point p of entry e is left out (see above). */
bool perf_point_broken(const perf_entry *e, const perf_point *p);
/* The configuration of entry e under catalog model m: bf16, tp of the entry. */
perf_cfg perf_entry_cfg(const perf_entry *e, const llm_model *m);
/* Predicted prefill and decode-iteration ms at a measured point's sizes. */
void perf_predict_point(const perf_cfg *c, const perf_coef *k, const perf_point *p, double *pre_ms, double *dec_ms);

#endif
