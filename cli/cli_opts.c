/* cli_opts.c - see cli_opts.h.
 * SPDX-License-Identifier: MIT */
#include "cli_opts.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_num.h"
#include "../sim/sim_cluster.h"
#include "cli.h"

#define OFF(field) ((void *)offsetof(cli_opts, field))

/* The shared options, indexed by cli_opt_shared; p (and n) hold offsets
 * into cli_opts. */
static const cli_opt shared_defs[CLI_OPT_NSHARED] = {
    [CLI_OPT_TRACE] = {.name = "trace", .arg = "FILE", .kind = CLI_ARG_STR, .p = OFF(trace),
                       .help = "trace, CSV format v1 (workloads/README.md)"},
    [CLI_OPT_CLUSTER] = {.name = "cluster", .arg = "FILE", .kind = CLI_ARG_STR, .p = OFF(cluster),
                         .help = "cluster JSON (default: workloads/examples/cluster.json)"},
    [CLI_OPT_GPUS] = {.name = "gpus", .arg = "MODEL:N[,...]", .kind = CLI_ARG_STR, .p = OFF(gpus),
                      .help = "cluster shorthand instead of --cluster ('gpusim models')"},
    [CLI_OPT_GPUS_PER_NODE] = {.name = "gpus-per-node", .arg = "N", .kind = CLI_ARG_LONG, .lo = 1,
                               .hi = CL_MAX_NODE_GPUS, .p = OFF(gpus_per_node),
                               .help = "GPUs per node for --gpus (default 8)"},
    [CLI_OPT_MIG] = {.name = "mig", .arg = "LAYOUT", .kind = CLI_ARG_STR, .p = OFF(mig),
                     .help = "with --gpus: MIG on every card that has it: all-<profile>, balanced, whole,\n"
                             "dynamic (empty cards, for dynmig), or the JSON of a cluster file's \"mig\""},
    [CLI_OPT_PRICE] = {.name = "price", .arg = "MODEL=USD", .kind = CLI_ARG_KEYVAL, .max = CLI_OPTS_MAX_PRICES,
                       .p = OFF(prices), .n = OFF(nprices),
                       .help = "price per GPU-hour of a model's cards (repeatable; wins over the cluster\n"
                               "file's price_per_gpu_hour_usd and the model file's list price)"},
    [CLI_OPT_SET] = {.name = "set", .arg = "KEY=VALUE", .kind = CLI_ARG_KEYVAL, .max = CLI_OPTS_MAX_SETS,
                     .p = OFF(sets), .n = OFF(nsets), .help = "policy parameter (repeatable; 'gpusim policies')"},
    [CLI_OPT_OUT] = {.name = "out", .arg = "DIR", .kind = CLI_ARG_STR, .p = OFF(out), .help = "output directory"},
    [CLI_OPT_UNTIL] = {.name = "until", .arg = "SECONDS", .kind = CLI_ARG_NUM, .lo = 0, .lo_open = true, .hi = 9e12,
                       .p = OFF(until), .help = "stop the simulation at this time"},
    [CLI_OPT_MODELS] = {.name = "models", .arg = "DIR", .kind = CLI_ARG_STR, .p = OFF(models),
                        .help = "GPU model directory (default models/gpu beside the binary)"},
    [CLI_OPT_SEEDS] = {.name = "seeds", .arg = "N", .kind = CLI_ARG_LONG, .lo = 1, .hi = 1000, .p = OFF(seeds),
                       .help = "run seeds 1..N"},
    [CLI_OPT_JOBS] = {.name = "jobs", .arg = "N", .kind = CLI_ARG_LONG, .lo = 1, .hi = 1024, .p = OFF(jobs),
                      .help = "parallel runs (default: the number of cores)"},
    [CLI_OPT_SLO] = {.name = "slo", .arg = "TERMS", .kind = CLI_ARG_STR, .p = OFF(slo),
                     .help = "SLO terms: report metric paths with <=, <, >=, >"},
};

/* Entry i of table as the parser uses it: a shared entry resolved to its
 * definition with pointers into o. */
static cli_opt resolve(const cli_opt *e, cli_opts *o)
{
    if (e->shared == CLI_OPT_OWN)
        return *e;
    cli_opt r = shared_defs[e->shared];
    r.shared = e->shared;
    if (e->help)
        r.help = e->help;
    r.p = (char *)o + (size_t)r.p;
    if (r.kind == CLI_ARG_LIST || r.kind == CLI_ARG_KEYVAL)
        r.n = (int *)((char *)o + (size_t)r.n);
    return r;
}

static int bad(gs_error *err, const cli_opt *e, const char *v, const char *what)
{
    return gs_err(err, GS_EUSAGE, "--%s: expected %s, found '%s'", e->name, what, v);
}

/* "a, b or c" from "a,b,c". */
static void choices_words(const char *choices, char *buf, size_t n)
{
    size_t k = 0;
    int count = 1;
    for (const char *c = choices; *c; c++)
        count += *c == ',';
    int i = 0;
    for (const char *c = choices; *c && k + 4 < n; c++) {
        if (*c == ',') {
            i++;
            k += (size_t)snprintf(buf + k, n - k, i == count - 1 ? " or " : ", ");
        } else {
            buf[k++] = *c;
        }
    }
    buf[k < n ? k : n - 1] = 0;
}

static bool is_choice(const char *choices, const char *v)
{
    size_t l = strlen(v);
    for (const char *c = choices; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
        if (l && !strncmp(c, v, l) && (c[l] == ',' || c[l] == 0))
            return true;
    return false;
}

/* Stores value v of option e (resolved). */
static int store(const char *cmd, const cli_opt *e, const char *v, cli_opts *o, gs_error *err)
{
    char what[200];
    switch (e->kind) {
    case CLI_ARG_FLAG: *(bool *)e->p = true; return 0;
    case CLI_ARG_STR:
        if (e->once && *(const char **)e->p)
            return gs_err(err, GS_EUSAGE, "%s: give --%s once", cmd, e->name);
        *(const char **)e->p = v;
        return 0;
    case CLI_ARG_LONG: {
        long x;
        if (!gs_num_long(v, (long)e->lo, (long)e->hi, &x)) {
            snprintf(what, sizeof what, "an integer %.0f..%.0f", e->lo, e->hi);
            return bad(err, e, v, what);
        }
        *(long *)e->p = x;
        return 0;
    }
    case CLI_ARG_NUM: {
        double x;
        if (!gs_num_double(v, e->lo, e->hi, &x) || (e->lo_open && !(x > e->lo))) {
            snprintf(what, sizeof what, "a number in %c%g, %g]", e->lo_open ? '(' : '[', e->lo, e->hi);
            return bad(err, e, v, what);
        }
        if (e->shared == CLI_OPT_UNTIL) { /* kept as given (child runs), and in microseconds */
            o->until = v;
            o->until_us = (gs_time_us)(x * 1e6 + 0.5);
        } else {
            *(double *)e->p = x;
        }
        return 0;
    }
    case CLI_ARG_CHOICE:
        if (!is_choice(e->choices, v)) {
            choices_words(e->choices, what, sizeof what);
            return bad(err, e, v, what);
        }
        *(const char **)e->p = v;
        return 0;
    case CLI_ARG_KEYVAL:
        if (!strchr(v, '=') || v[0] == '=')
            return bad(err, e, v, e->arg);
        /* fall through */
    case CLI_ARG_LIST:
        if (*e->n == e->max)
            return gs_err(err, GS_EUSAGE, "--%s: at most %d", e->name, e->max);
        ((const char **)e->p)[(*e->n)++] = v;
        return 0;
    case CLI_ARG_FN: return e->fn(e->name, v, e->p, err);
    }
    return 0;
}

int cli_opts_parse(const char *cmd, int argc, char **argv, const cli_opt *table, cli_opts *o, const char *synopsis,
                   const char *epilog, gs_error *err)
{
    int n = 0;
    while (table[n].shared != CLI_OPT_OWN || table[n].name)
        n++;
    cli_opt *res = xcalloc((size_t)n + 1, sizeof *res);
    struct option *lo = xcalloc((size_t)n + 2, sizeof *lo);
    for (int i = 0; i < n; i++) {
        res[i] = resolve(&table[i], o);
        lo[i] = (struct option){res[i].name, res[i].kind == CLI_ARG_FLAG ? no_argument : required_argument, 0,
                                256 + i};
    }
    lo[n] = (struct option){"help", no_argument, 0, 'h'};
    int c, rc = 0;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (c == 'h') {
            fputs(synopsis, stdout);
            cli_opts_usage(stdout, table);
            if (epilog)
                fputs(epilog, stdout);
            rc = 1;
        } else if (c >= 256 && c < 256 + n) {
            rc = store(cmd, &res[c - 256], optarg, o, err);
        } else {
            rc = gs_err(err, GS_EUSAGE, "%s: unknown or incomplete option '%s'", cmd, argv[optind - 1]);
        }
    }
    if (rc == 0 && optind < argc)
        rc = gs_err(err, GS_EUSAGE, "%s: unexpected argument '%s'", cmd, argv[optind]);
    free(res);
    free(lo);
    return rc;
}

void cli_opts_usage(FILE *out, const cli_opt *table)
{
    cli_opts dummy = {0};
    for (const cli_opt *t = table; t->shared != CLI_OPT_OWN || t->name; t++) {
        cli_opt e = resolve(t, &dummy);
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", e.name, e.arg ? " " : "", e.arg ? e.arg : "");
        const char *h = e.help ? e.help : "";
        fprintf(out, "  %-22s", left);
        if (strlen(left) > 22)
            fprintf(out, "\n  %-22s", "");
        for (;;) {
            size_t l = strcspn(h, "\n");
            fprintf(out, "  %.*s\n", (int)l, h);
            if (!h[l])
                break;
            h += l + 1;
            fprintf(out, "  %-22s", "");
        }
    }
}

int cli_opts_u64(const char *opt, const char *value, void *p, gs_error *err)
{
    if (!cli_parse_u64(value, strlen(value), p))
        return gs_err(err, GS_EUSAGE, "--%s: expected an integer 0..18446744073709551615, found '%s'", opt, value);
    return 0;
}
