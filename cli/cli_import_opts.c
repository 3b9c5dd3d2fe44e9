/* cli_import_opts.c - the trace importers' options: each family lists its
 * options as a table (cli_iopt) and cli_import_args parses them, checked,
 * with --out-trace, --help and the one input file every importer takes.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../base/gs_num.h"

bool cli_opt_num(const char *opt, const char *v, double lo, double hi, double *out)
{
    double d;
    if (!gs_num_double(v, lo, hi, &d)) {
        fprintf(stderr, "gpusim: error: %s: expected a number from %g to %g, found '%s'\n", opt, lo, hi, v);
        return false;
    }
    *out = d;
    return true;
}

bool cli_opt_long(const char *opt, const char *v, long lo, long hi, long *out)
{
    if (!gs_num_long(v, lo, hi, out)) {
        fprintf(stderr, "gpusim: error: %s: expected a whole number from %ld to %ld, found '%s'\n", opt, lo, hi, v);
        return false;
    }
    return true;
}

bool cli_opt_seed(const char *v, uint64_t *out)
{
    if (!cli_parse_u64(v, strlen(v), out)) {
        fprintf(stderr, "gpusim: error: --seed: expected an integer 0..18446744073709551615\n");
        return false;
    }
    return true;
}

long cli_strtol(const char *s, char **end)
{
    long v;
    if (gs_num_long(s, LONG_MIN + 1, LONG_MAX, &v)) {
        *end = (char *)s + strlen(s);
        return v;
    }
    *end = (char *)s;
    return LONG_MIN;
}

double cli_strtod(const char *s, char **end)
{
    double v;
    if (gs_num_double(s, -HUGE_VAL, HUGE_VAL, &v)) {
        *end = (char *)s + strlen(s);
        return v;
    }
    *end = (char *)s;
    return NAN;
}

bool cli_opt_range(const char *opt, const char *v, int *lo, int *hi)
{
    const char *colon = strchr(v, ':');
    char first[24];
    long a = -1, b = -1;
    if (colon && colon - v < (long)sizeof first) {
        memcpy(first, v, (size_t)(colon - v));
        first[colon - v] = 0;
        if (!gs_num_long(first, 0, 100000, &a) || !gs_num_long(colon + 1, 1, 100000, &b))
            a = -1;
    }
    if (a < 0 || a > b) {
        fprintf(stderr, "gpusim: error: %s: expected MIN:MAX with 0 <= MIN <= MAX, MAX >= 1, found '%s'\n", opt, v);
        return false;
    }
    *lo = (int)a;
    *hi = (int)b;
    return true;
}

/* One option's value into its field; false after printing what was
 * expected. */
static bool take(const cli_iopt *o, const char *v)
{
    char opt[80];
    snprintf(opt, sizeof opt, "--%s", o->name);
    double d;
    switch (o->kind) {
    case CLI_IOPT_NUM:
        if (!cli_opt_num(opt, v, o->lo, o->hi, &d))
            return false;
        *(double *)o->p = d * (o->scale ? o->scale : 1.0);
        return true;
    case CLI_IOPT_INT:
    case CLI_IOPT_LONG:
    case CLI_IOPT_U64:
    case CLI_IOPT_SIZE:
        if (!gs_num_double(v, o->lo, o->hi, &d) || d != floor(d)) {
            fprintf(stderr, "gpusim: error: %s: expected a whole number from %g to %g, found '%s'\n", opt, o->lo,
                    o->hi, v);
            return false;
        }
        if (o->kind == CLI_IOPT_INT)
            *(int *)o->p = (int)d;
        else if (o->kind == CLI_IOPT_LONG)
            *(long *)o->p = (long)d;
        else if (o->kind == CLI_IOPT_U64)
            *(uint64_t *)o->p = (uint64_t)d;
        else
            *(size_t *)o->p = (size_t)d;
        return true;
    case CLI_IOPT_RANGE: return cli_opt_range(opt, v, (int *)o->p, (int *)o->p2);
    case CLI_IOPT_NAME:
        if (!gs_text_field_ok(v, 60)) {
            fprintf(stderr, "gpusim: error: %s: a name without commas, quotes or control characters, at most 60 "
                            "characters\n", opt);
            return false;
        }
        *(const char **)o->p = v;
        return true;
    case CLI_IOPT_FN: return o->fn(opt, v, o->p);
    case CLI_IOPT_PATH:
        if (!*v) {
            fprintf(stderr, "gpusim: error: %s: expected a file name\n", opt);
            return false;
        }
        *(const char **)o->p = v;
        return true;
    }
    return false;
}

int cli_import_args(int argc, char **argv, const char *family, const char *file_kind, const cli_iopt *opts,
                    void (*usage)(FILE *out), const char **in, const char **out_path)
{
    int n = 0;
    while (opts[n].name)
        n++;
    struct option *lo = xcalloc((size_t)n + 3, sizeof *lo);
    for (int i = 0; i < n; i++)
        lo[i] = (struct option){opts[i].name, opts[i].kind == CLI_IOPT_FLAG ? no_argument : required_argument, 0,
                                CLI_IOPT_BASE + i};
    lo[n] = (struct option){"out-trace", required_argument, 0, 'o'};
    lo[n + 1] = (struct option){"help", no_argument, 0, 'h'};
    int c, rc = -1;
    *out_path = NULL;
    optind = 1;
    opterr = 0;
    while (rc < 0 && (c = getopt_long(argc - 1, argv + 1, "h", lo, NULL)) != -1) {
        if (c >= CLI_IOPT_BASE && c < CLI_IOPT_BASE + n) {
            const cli_iopt *o = &opts[c - CLI_IOPT_BASE];
            if (o->kind == CLI_IOPT_FLAG)
                *(bool *)o->p = true;
            else if (!take(o, optarg))
                rc = 2;
        } else if (c == 'o') {
            *out_path = optarg;
        } else if (c == 'h') {
            usage(stdout);
            rc = 0;
        } else {
            fprintf(stderr, "gpusim: error: import %s: unknown or incomplete option\ntry 'gpusim import %s --help'\n",
                    family, family);
            rc = 2;
        }
    }
    free(lo);
    if (rc < 0 && !file_kind && optind + 1 < argc) {
        fprintf(stderr, "gpusim: error: import %s: unexpected argument '%s' (the inputs are options)\n", family,
                argv[optind + 1]);
        rc = 2;
    } else if (rc < 0 && file_kind && (optind + 1 >= argc || optind + 2 < argc)) {
        fprintf(stderr, "gpusim: error: import %s: give one input %s\n", family, file_kind);
        rc = 2;
    }
    if (rc < 0)
        *in = file_kind ? argv[optind + 1] : NULL;
    return rc;
}
