/* cli_check.c - `gpusim check RESULT --baseline FILE`: the CI regression
 * gate. Compares every number of a report with a baseline report and exits 1
 * when one moved past its tolerance in the bad direction.
 *
 * Which direction is bad is the metric's row of metrics[] (metrics.h):
 * waits, latencies, slowdowns, rejections, failures, drops and cost are bad
 * when they rise; utilization, busy ratio, SLO attainment and completions
 * when they fall; a number no row covers (sample counts, event totals, end
 * time, a policy's counters) must stay equal within tolerance, either way. Timing fields (sim.wall_s, setup_s, cpu_s, events_per_s, peak_rss_mib) and the
 * inputs are not metrics; differing inputs (trace rows, policy, parameters,
 * seed, cluster size) make the comparison meaningless and fail it.
 * SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_batch.h"
#include "../policies/registry.h"

typedef struct tol {
    char *prefix;
    double rel;
} tol;

/* The longest --tolerance prefix that matches at a dot boundary wins;
 * "default" (or "*") sets the fallback, which is 0: deterministic runs of an
 * unchanged model are equal. */
static double tolerance_for(const char *path, const tol *t, int n)
{
    double rel = 0;
    size_t best = 0;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(t[i].prefix);
        if (!strcmp(t[i].prefix, "default") || !strcmp(t[i].prefix, "*")) {
            if (best == 0)
                rel = t[i].rel;
        } else if (!strncmp(path, t[i].prefix, l) && (path[l] == 0 || path[l] == '.') && l > best) {
            best = l;
            rel = t[i].rel;
        }
    }
    return rel;
}

typedef struct checker {
    const cJSON *now;
    const tol *tols;
    int ntol;
    int regressed, checked;
} checker;

static void walk(checker *ck, const cJSON *base, char *path, size_t plen)
{
    const cJSON *it;
    int index = 0;
    cJSON_ArrayForEach(it, base)
    {
        size_t l = plen;
        char key[32];
        snprintf(key, sizeof key, "%d", index++); /* array element (services.0): its index */
        l += (size_t)snprintf(path + plen, 512 - plen, "%s%s", plen ? "." : "", it->string ? it->string : key);
        if (l >= 511)
            continue;
        if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            walk(ck, it, path, l);
        } else if (cJSON_IsNumber(it)) {
            if (!strncmp(path, "inputs.", 7) || !strcmp(path, "sim.wall_s") || !strcmp(path, "sim.setup_s") || !strcmp(path, "sim.cpu_s") ||
                !strcmp(path, "sim.events_per_s") ||
                !strcmp(path, "sim.peak_rss_mib") || !strncmp(path, "derived.", 8))
                continue;
            double b = it->valuedouble, v;
            ck->checked++;
            if (!metrics_get(ck->now, path, &v)) {
                printf("%-40s %14.6g %14s  MISSING\n", path, b, "-");
                ck->regressed++;
                continue;
            }
            double rel = tolerance_for(path, ck->tols, ck->ntol);
            double allow = rel * fabs(b) + 1e-12 * (fabs(b) > 1 ? fabs(b) : 1); /* float print round-trip */
            metrics_better dir = metrics_direction(path);
            double d = v - b;
            bool bad = dir == METRICS_LOWER ? d > allow : dir == METRICS_HIGHER ? -d > allow : fabs(d) > allow;
            bool better = !bad && fabs(d) > allow;
            const char *verdict = bad ? (dir == METRICS_EITHER ? "REGRESSED (changed)" : "REGRESSED")
                                  : better ? "better"
                                  : d != 0 ? "ok (within tolerance)"
                                           : "ok";
            printf("%-40s %14.6g %14.6g  %s\n", path, b, v, verdict);
            ck->regressed += bad;
        }
    }
    path[plen] = 0;
}

/* Drops from n the parameters of table t that are at their default and
 * absent from base. */
static void drop_new_defaults(cJSON *n, const cJSON *base, const pol_param *t)
{
    for (const pol_param *pp = t; pp && pp->name; pp++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(n, pp->name);
        if (v && cJSON_IsString(v) && !strcmp(v->valuestring, pp->def) &&
            !cJSON_GetObjectItemCaseSensitive(base, pp->name))
            cJSON_DeleteItemFromObjectCaseSensitive(n, pp->name);
    }
}

/* Whether the two reports ran with the same parameters. A parameter (of
 * the core or of any policy) added after the baseline was recorded is
 * absent from it; the baseline ran with that parameter's default
 * behaviour, so the key at its default value is not a difference. */
static bool same_params(const cJSON *base, const cJSON *now)
{
    cJSON *n = cJSON_Duplicate(now, 1);
    if (!n)
        return false;
    for (const pol_param *const *t = sim_core_params(); *t; t++)
        drop_new_defaults(n, base, *t);
    for (const pol_ops *const *p = pol_all(); *p; p++)
        drop_new_defaults(n, base, (*p)->params);
    bool same = cJSON_Compare(base, n, 1);
    cJSON_Delete(n);
    return same;
}

/* Prints each input that differs (trace rows, seed, cluster size, policy
 * or its parameters) and returns how many: a comparison across different
 * inputs means nothing. */
static int inputs_differ(const cJSON *base, const cJSON *now)
{
    int differ = 0;
    static const char *same[] = {"inputs.trace_rows", "inputs.seed", "inputs.cluster.gpus", "inputs.cluster.nodes"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        double a = NAN, b = NAN;
        if (metrics_get(base, same[i], &b) != metrics_get(now, same[i], &a) || a != b) {
            printf("inputs differ: %s baseline %g now %g\n", same[i], b, a);
            differ++;
        }
    }
    const cJSON *ib = cJSON_GetObjectItemCaseSensitive(base, "inputs");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(now, "inputs");
    if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(ib, "policy"), cJSON_GetObjectItemCaseSensitive(in, "policy"),
                       1) ||
        !same_params(cJSON_GetObjectItemCaseSensitive(ib, "params"), cJSON_GetObjectItemCaseSensitive(in, "params"))) {
        printf("inputs differ: policy or its parameters\n");
        differ++;
    }
    return differ;
}

/* Does a number of o sit at path or under it (path a dot-separated prefix)? */
static bool has_numbers_under(const cJSON *o, const char *path)
{
    size_t l = strcspn(path, ".");
    char key[128];
    if (l >= sizeof key)
        return false;
    memcpy(key, path, l);
    key[l] = 0;
    const cJSON *c = cJSON_IsArray(o) && key[0] >= '0' && key[0] <= '9' ? cJSON_GetArrayItem(o, atoi(key))
                                                                       : cJSON_GetObjectItemCaseSensitive(o, key);
    if (!c)
        return false;
    if (path[l])
        return has_numbers_under(c, path + l + 1);
    if (cJSON_IsNumber(c))
        return true;
    const cJSON *it;
    cJSON_ArrayForEach(it, c)
    {
        if (cJSON_IsNumber(it) || ((cJSON_IsObject(it) || cJSON_IsArray(it)) && it->child))
            return true;
    }
    return false;
}

/* A --tolerance METRIC: "default" or "*", or a path (or prefix of paths) of
 * the baseline's numbers: a misspelling would silently leave the metric at
 * the default tolerance. */
static int check_tolerance_path(const cJSON *base, const char *prefix, gs_error *err)
{
    if (!strcmp(prefix, "default") || !strcmp(prefix, "*") || has_numbers_under(base, prefix))
        return 0;
    char near[3][128];
    int n = metrics_nearest_in(base, prefix, near, 3);
    char list[420] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", near[i]);
    return gs_err(err, GS_EUSAGE, "--tolerance: no metric '%s' in the baseline (nearest: %s; or a prefix of "
                  "them, or default)", prefix, n ? list : "none");
}

static void check_usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim check RESULT_DIR|REPORT --baseline FILE [--tolerance METRIC=REL,...]\n"
            "\n"
            "  Exit 0 when no metric moved past its tolerance in the bad direction, 1 when one did\n"
            "  (or the inputs differ), 2 usage, 3 unreadable report.\n"
            "  --tolerance: relative, per metric path or prefix (longest wins), e.g.\n"
            "     jobs.queue_s=0.05,gpu.alloc_ratio=0.01,default=0.02   (default 0: equal)\n"
            "  Bad direction: each metric's (up for waits, latencies, rejections, failures, cost; down for\n"
            "  utilization, SLO attainment, completions); a number with no direction must not move.\n");
}

int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"baseline", required_argument, 0, 'b'},
        {"tolerance", required_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *baseline = NULL;
    tol tols[64];
    int ntol = 0;
    char *tcopies[16];
    int ntc = 0;
    gs_error err = {0};
    int c, rc = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1 && rc == 0) {
        switch (c) {
        case 'b': baseline = optarg; break;
        case 't': {
            if (ntc == 16) {
                rc = gs_err(&err, GS_EUSAGE, "--tolerance: given too often");
                break;
            }
            char *copy = tcopies[ntc++] = xstrdup(optarg), *save = NULL;
            for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(tok, '='), *end = NULL;
                double rel = eq ? strtod(eq + 1, &end) : 0;
                if (!eq || eq == tok || end == eq + 1 || *end || !(rel >= 0) || ntol == 64) {
                    rc = gs_err(&err, GS_EUSAGE, "--tolerance: '%s': expected METRIC=REL with REL >= 0 (0.05 = 5%%)",
                                tok);
                    break;
                }
                *eq = 0;
                tols[ntol++] = (tol){tok, rel};
            }
            break;
        }
        case 'h': check_usage(stdout); goto out;
        default: rc = gs_err(&err, GS_EUSAGE, "check: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (rc == 0 && (optind != argc - 1 || !baseline))
        rc = gs_err(&err, GS_EUSAGE, "check: expected one RESULT_DIR (or report.json) and --baseline FILE");
    cJSON *now = NULL, *base = NULL;
    if (rc == 0 && !(now = cli_batch_read_report(argv[optind], &err)))
        rc = err.code;
    if (rc == 0 && !(base = cli_batch_read_report(baseline, &err)))
        rc = err.code;
    for (int i = 0; rc == 0 && i < ntol; i++)
        rc = check_tolerance_path(base, tols[i].prefix, &err);
    if (rc == 0) {
        int differ = inputs_differ(base, now);
        printf("%-40s %14s %14s  %s\n", "metric", "baseline", "now", "verdict");
        checker ck = {now, tols, ntol, 0, 0};
        char path[512] = "";
        walk(&ck, base, path, 0);
        printf("check: %d metrics, %d regressed%s\n", ck.checked, ck.regressed,
               differ ? ", inputs differ" : "");
        if (ck.regressed || differ)
            rc = 1;
    }
    cJSON_Delete(now);
    cJSON_Delete(base);
out:
    for (int i = 0; i < ntc; i++)
        free(tcopies[i]);
    if (rc == 1)
        return 1;
    return rc ? cli_fail(&err) : 0;
}
