/* cli_plot_cmd.c - `gpusim plot DIR...`: figures as PNG and SVG beside
 * each result (cli_plot.c), and one self-contained report.html (PNG figures
 * inlined as base64, tables, the inputs) that opens in a browser with no
 * server.
 *
 * A DIR is any of: a run (report.json, timeseries.csv), a compare output
 * (compare.json), a plan output (plan.json). The page opens with the
 * answer (cli_plot_answer.c: the plans merged, each run's verdict, who
 * pays), then each directory's figures and tables. Text from user input
 * reaches HTML only escaped.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/gs_cleanup.h"
#include "cli.h"
#include "cli_batch.h"
#include "cli_docs.h"
#include "cli_plot.h"

/* Reads and checks what DIR holds (cli_docs.h). */
static int load_docs(plot_docs *d, const char *dir, gs_error *err)
{
    char p[1100];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gs_err(err, GS_EINPUT, "plot: '%s' is not a directory", dir);
    if (plot_exists(dir, "report.json", p, sizeof p) && !(d->report = cli_batch_read_report(dir, err)))
        return err->code;
    if (plot_exists(dir, "compare.json", p, sizeof p)) {
        if (!(d->compare = cli_batch_read_json(p, err)))
            return err->code;
        if (cd_check_compare(d->compare, p, err))
            return err->code;
    }
    if (plot_exists(dir, "plan.json", p, sizeof p)) {
        if (!(d->plan = cli_batch_read_json(p, err)))
            return err->code;
        if (cd_check_plan(d->plan, p, err))
            return err->code;
    }
    if (!d->report && !d->compare && !d->plan)
        return gs_err(err, GS_EINPUT, "plot: '%s' holds no report.json, compare.json or plan.json", dir);
    return 0;
}

static void plot_usage(FILE *out)
{
    fprintf(out, "usage: gpusim plot RESULT_DIR... [--out DIR] [--slo TERMS] [--no-svg]\n"
                 "\n"
                 "  RESULT_DIR: a run (report.json, timeseries.csv), a 'compare' or a 'plan' output.\n"
                 "  Figures (PNG 900 px wide, and SVG) go beside each result; report.html (self-contained)\n"
                 "  goes to --out (default: the first RESULT_DIR). It opens with the answer: the plans'\n"
                 "  cheapest configuration meeting every term (several plan directories asking the same\n"
                 "  question merged), each run's verdict and who pays for its cards. Needs gnuplot.\n"
                 "  --slo TERMS  the terms a run's verdict is given against, as plan's --slo\n"
                 "               (jobs.queue_s.p99<=1800,...); the implicit terms are always added\n"
                 "  --no-svg     PNG only\n");
}

/* The page's head: CSS keeps every table inside the page (a wide one
 * scrolls in its frame) and the answer first. */
static const char page_head[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpusim report</title>\n"
    "<meta name=\"viewport\" content=\"width=device-width\">\n"
    "<style>body{font-family:sans-serif;max-width:1200px;margin:auto;padding:0 12px}"
    ".frame{max-width:100%;overflow-x:auto;margin:8px 0}"
    "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 8px;text-align:left;"
    "vertical-align:top;overflow-wrap:break-word}th{background:#f0f0f0;white-space:nowrap}"
    "td.n{text-align:right;white-space:nowrap}table.answer td:nth-child(-n+3){white-space:nowrap}"
    "td.margin{min-width:12em}tr.met td:first-child{font-weight:bold}tr.unmet{color:#555}"
    "tr.term-missed td{color:#a00;font-weight:bold}"
    "p.answer{font-size:1.15em;background:#eef6ee;border-left:4px solid #3a3;padding:8px 12px}"
    "p.answer.missed{background:#fbeeee;border-left-color:#c33}"
    "img{max-width:100%}.note{color:#666}code{background:#f4f4f4;padding:0 2px}"
    "pre{background:#f4f4f4;padding:6px;overflow:auto}</style></head><body>\n"
    "<h1>gpusim report</h1>\n";

typedef struct plot_args {
    const char *out;
    cli_batch_slo *slo;
    int nslo;
} plot_args;

/* Options; 0 to go on, 1 after --help, else the usage error's status. */
static int plot_options(int argc, char **argv, plotter *pl, plot_args *a, gs_error *err)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"no-svg", no_argument, 0, 'n'}, {"slo", required_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},      {0, 0, 0, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->out = optarg; break;
        case 'n': pl->svg = false; break;
        case 's':
            free(a->slo);
            if (cli_batch_slo_parse(optarg, &a->slo, &a->nslo, err))
                return err->code;
            break;
        case 'h': plot_usage(stdout); return 1;
        default: return gs_err(err, GS_EUSAGE, "plot: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return gs_err(err, GS_EUSAGE, "plot: expected one or more RESULT_DIR");
    pl->slo = a->slo;
    pl->nslo = a->nslo;
    return 0;
}

/* The page: the answer and the verdicts, then each directory's figures and
 * tables. */
static int plot_page(plotter *pl, plot_docs *docs, int n)
{
    h_raw(&pl->h, "<p class=\"note\">from");
    for (int i = 0; i < n; i++) {
        h_raw(&pl->h, i ? ", " : " ");
        h_esc(&pl->h, docs[i].dir);
    }
    h_raw(&pl->h, "</p>\n");
    plot_answer(pl, docs, n);
    plot_verdicts(pl, docs, n);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        h_raw(&pl->h, "<h2>Details: ");
        h_esc(&pl->h, docs[i].dir);
        h_raw(&pl->h, "</h2>\n");
        if (docs[i].report)
            rc = plot_run(pl, docs[i].dir, docs[i].report);
        if (rc == 0 && docs[i].compare)
            rc = plot_compare(pl, docs[i].dir, docs[i].compare);
        if (rc == 0 && docs[i].plan)
            rc = plot_plan(pl, docs[i].dir, docs[i].plan);
    }
    return rc;
}

int cmd_plot(int argc, char **argv)
{
    gs_error err = {0};
    plotter pl = {.svg = true, .err = &err};
    plot_args a = {0};
    int rc = plot_options(argc, argv, &pl, &a, &err);
    if (rc) {
        free(a.slo);
        return rc == 1 ? 0 : cli_fail(&err);
    }
    const char *page_dir = a.out ? a.out : argv[optind];
    pl.page_dir = page_dir;
    h_raw(&pl.h, page_head);
    /* Every document is read and checked before anything is drawn: a bad
     * input leaves no figure behind in any DIR. */
    int ndirs = argc - optind;
    plot_docs *docs = xcalloc((size_t)ndirs, sizeof *docs);
    for (int i = 0; i < ndirs && rc == 0; i++) {
        docs[i].dir = argv[optind + i];
        rc = load_docs(&docs[i], docs[i].dir, &err);
    }
    if (rc == 0)
        rc = plot_page(&pl, docs, ndirs);
    for (int i = 0; i < ndirs; i++) {
        cJSON_Delete(docs[i].report);
        cJSON_Delete(docs[i].compare);
        cJSON_Delete(docs[i].plan);
    }
    free(docs);
    free(a.slo);
    h_raw(&pl.h, "<p class=note>made by gpusim " GPUSIM_VERSION " (gpusim plot)</p></body></html>\n");
    if (rc == 0) {
        char path[1100];
        snprintf(path, sizeof path, "%s/report.html", page_dir);
        if (a.out)
            rc = cli_batch_mkdirs(a.out, &err);
        if (rc == 0)
            rc = cli_batch_write_text(path, pl.h.buf, &err);
        if (rc == 0)
            printf("report: %s (%d figures inlined)\n", path, pl.figures);
    }
    free(pl.h.buf);
    return rc ? cli_fail(&err) : 0;
}
