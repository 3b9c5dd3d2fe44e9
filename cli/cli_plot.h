/* cli_plot.h - the `plot` wing, private to its files (bottom-up):
 *   cli_plot_html.c    the page buffer: escaped text, numbers, money,
 *                      tables in frames that scroll instead of cutting;
 *   cli_plot.c         the figures: gnuplot run on scripts/fig_*.gp,
 *                      PNGs inlined;
 *   cli_plot_answer.c  the top of the page: the plans' answer (several
 *                      plan directories merged), a run's verdict against
 *                      the SLOs it was given, the cost split;
 *   cli_plot_run.c     a run's figures (GPUs, queue, latency, TTFT and TPOT
 *                      with SLO markers) and tables;
 *   cli_plot_plan.c    a compare's and a plan's figures and tables;
 *   cli_plot_cmd.c     the command: documents read and checked, the
 *                      page's order (the answer first).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_PLOT_H
#define GPUSIM_CLI_PLOT_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli_batch.h"

/* {==== the page (cli_plot_html.c) ====} */

typedef struct html {
    char *buf;
    size_t len, cap;
} html;

void h_raw(html *h, const char *s);
void h_put(html *h, const char *s, size_t n);
/* s with < > & " ' escaped. */
void h_esc(html *h, const char *s);
/* printf, the result escaped. */
void h_fmt(html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* printf of our own markup, not escaped: never give it user text. */
void h_rawf(html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ' name="value"', the value escaped. */
void h_attr(html *h, const char *name, const char *value);
/* A number as %.6g, "-" for NaN. */
void h_num(html *h, double v);
/* USD: "$488.48" below $10,000, whole dollars with thousands separators
 * above ("$356,590"). */
void h_usd(html *h, double v);
/* A table in a frame that scrolls sideways when it is wider than the page:
 * never cut off. id may be NULL. */
void h_table_open(html *h, const char *id, const char *cls);
void h_table_close(html *h);
/* One header row from cells (NULL-terminated). */
void h_head_row(html *h, const char *const *cells);
/* <td>text</td> escaped; a number cell (right aligned, no wrap). */
void h_td(html *h, const char *text);
void h_td_num(html *h, double v);
void h_td_usd(html *h, double v);
/* A link to target (a path from the working directory) as the page in
 * page_dir reaches it. */
void h_href(html *h, const char *page_dir, const char *target);
/* A <details> block holding j printed (open or closed); nothing when j is
 * NULL. */
void h_json(html *h, const char *caption, const cJSON *j, bool open);
/* The text of a string member, or dflt. */
const char *j_str(const cJSON *o, const char *key, const char *dflt);

/* {==== figures (cli_plot.c) ====} */

typedef struct plotter {
    html h;
    int figures;
    bool svg;
    const char *page_dir;     /* where report.html goes: links are relative to it */
    const cli_batch_slo *slo; /* plot --slo: the terms a run's verdict is given against */
    int nslo;
    gs_error *err;
} plotter;

/* Data-file text for gnuplot (no tab or line break). */
void plot_tsv_text(FILE *f, const char *s);
/* Draws DIR/NAME.png (and .svg) with scripts/<script>: defs holds numbers
 * only (gnuplot -e), every text goes as a -c argument (args, at most 4
 * after IN, NULL-terminated; may be NULL) or in the data file IN; inlines
 * the PNG. 0 or the error. */
int plot_figure(plotter *pl, const char *dir, const char *name, const char *script, const char *defs, const char *in,
                const char *title, const char *const *args);
/* Does DIR/name exist (path set to it)? */
bool plot_exists(const char *dir, const char *name, char *path, size_t n);

/* {==== the documents of one directory ====} */

typedef struct plot_docs {
    const char *dir;
    cJSON *report, *compare, *plan;
} plot_docs;

/* {==== the top of the page (cli_plot_answer.c) ====} */

/* The plans' answer: the plan documents among docs grouped by the question
 * they answer (trace, terms, seeds), one answer block per group. */
void plot_answer(plotter *pl, const plot_docs *docs, int n);
/* Each run's verdict against pl->slo and the implicit terms, and its cost
 * split. */
void plot_verdicts(plotter *pl, const plot_docs *docs, int n);
/* A report's cost object as a table: holder, GPU-hours, share, cost over
 * the span, per month; the span it covers in words. */
void plot_cost_table(html *h, const cJSON *rep);

/* {==== per directory (cli_plot_run.c, cli_plot_plan.c) ====} */

int plot_run(plotter *pl, const char *dir, const cJSON *rep);
int plot_compare(plotter *pl, const char *dir, const cJSON *doc);
int plot_plan(plotter *pl, const char *dir, const cJSON *doc);

#endif
