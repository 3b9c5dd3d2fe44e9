/* cli_batch.c - see cli_batch.h.
 * SPDX-License-Identifier: MIT */
#include "cli_batch.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/gs_cleanup.h"
#include "../base/gs_num.h"
#include "../base/gs_file.h"
#include "../base/gs_json.h"
#include "../base/gs_param.h"
#include "cli_docs.h"
#include "cli.h"
#include "../sim/sim_report.h"

char *cli_batch_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

int cli_batch_mkdirs(const char *dir, gs_error *err) { return gs_mkdirs(dir, err); }

int cli_batch_write_text(const char *path, const char *text, gs_error *err)
{
    return gs_write_atomic(path, text, strlen(text), err);
}

void cli_batch_default_out(char *buf, size_t n, const char *kind, const char *trace)
{
    const char *base = strrchr(trace, '/');
    base = base ? base + 1 : trace;
    size_t l = strlen(base);
    if (l > 4 && strcmp(base + l - 4, ".csv") == 0)
        l -= 4;
    snprintf(buf, n, "results/%s.%.*s", kind, (int)l, base);
}

/* {==== policy lists ====} */

static int parse_one(cli_batch_policy *p, const char *s, size_t len, int index, gs_error *err)
{
    memset(p, 0, sizeof *p);
    if (len == 0 || len >= sizeof p->label)
        return gs_err(err, GS_EUSAGE, "--policies: empty or too long entry");
    memcpy(p->label, s, len);
    const char *br = memchr(s, '[', len);
    size_t nlen = br ? (size_t)(br - s) : len;
    if (nlen == 0 || nlen >= sizeof p->name)
        return gs_err(err, GS_EUSAGE, "--policies: '%s': expected NAME or NAME[key=value,...]", p->label);
    memcpy(p->name, s, nlen);
    if (br) {
        if (s[len - 1] != ']')
            return gs_err(err, GS_EUSAGE, "--policies: '%s': missing ']'", p->label);
        const char *q = br + 1, *end = s + len - 1;
        while (q < end) {
            const char *c = memchr(q, ',', (size_t)(end - q));
            if (!c)
                c = end;
            const char *eq = memchr(q, '=', (size_t)(c - q));
            if (!eq || eq == q)
                return gs_err(err, GS_EUSAGE, "--policies: '%s': expected key=value inside [ ]", p->label);
            if (p->nsets == CLI_BATCH_MAX_SETS)
                return gs_err(err, GS_EUSAGE, "--policies: '%s': too many parameters", p->label);
            p->sets[p->nsets++] = cli_batch_fmt("%.*s", (int)(c - q), q);
            q = c + 1;
        }
    }
    int l = snprintf(p->slug, sizeof p->slug, "p%d-", index);
    for (size_t i = 0; i < len && l < (int)sizeof p->slug - 1; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == ']')
            continue;
        p->slug[l++] = (char)(isalnum(ch) || ch == '-' || ch == '.' ? ch : '_');
    }
    p->slug[l] = 0;
    return 0;
}

int cli_batch_policies_parse(const char *list, cli_batch_policy **out, int *n, gs_error *err)
{
    *out = NULL;
    *n = 0;
    const char *start = list;
    int depth = 0, rc = 0;
    for (const char *c = list;; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']')
            depth--;
        if ((*c == ',' && depth == 0) || *c == 0) {
            *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
            rc = parse_one(&(*out)[*n], start, (size_t)(c - start), *n, err);
            (*n)++;
            if (rc || *c == 0)
                break;
            start = c + 1;
        }
    }
    if (rc == 0 && depth != 0)
        rc = gs_err(err, GS_EUSAGE, "--policies: unbalanced brackets in '%s'", list);
    if (rc) {
        cli_batch_policies_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void cli_batch_policies_free(cli_batch_policy *p, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p[i].nsets; k++)
            free(p[i].sets[k]);
    free(p);
}

/* {==== child runs ====} */

static void push(cli_batch_run *r, char *s)
{
    if (r->argc + 2 > r->cap) {
        r->cap = r->cap ? 2 * r->cap : 32;
        r->argv = xrealloc(r->argv, (size_t)r->cap * sizeof *r->argv);
    }
    r->argv[r->argc++] = s;
    r->argv[r->argc] = NULL;
}

void cli_batch_run_init(cli_batch_run *r, const cli_opts *c, const cli_batch_policy *p, const char *gpus, uint64_t seed,
                 const char *out_dir)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    snprintf(r->out_dir, sizeof r->out_dir, "%s", out_dir);
    push(r, xstrdup("gpusim"));
    push(r, xstrdup("run"));
    push(r, cli_batch_fmt("--trace=%s", c->trace));
    push(r, cli_batch_fmt("--policy=%s", p->name));
    if (gpus)
        push(r, cli_batch_fmt("--gpus=%s", gpus));
    else if (c->gpus)
        push(r, cli_batch_fmt("--gpus=%s", c->gpus));
    else if (c->cluster)
        push(r, cli_batch_fmt("--cluster=%s", c->cluster));
    if (c->gpus_per_node)
        push(r, cli_batch_fmt("--gpus-per-node=%ld", c->gpus_per_node));
    if (c->mig && (gpus || c->gpus))
        push(r, cli_batch_fmt("--mig=%s", c->mig));
    for (int i = 0; i < c->nprices; i++)
        push(r, cli_batch_fmt("--price=%s", c->prices[i]));
    if (c->models)
        push(r, cli_batch_fmt("--models=%s", c->models));
    if (c->until)
        push(r, cli_batch_fmt("--until=%s", c->until));
    for (int i = 0; i < c->nsets; i++)
        push(r, cli_batch_fmt("--set=%s", c->sets[i]));
    for (int i = 0; i < p->nsets; i++) /* after the common ones: the entry's own win */
        push(r, cli_batch_fmt("--set=%s", p->sets[i]));
    push(r, cli_batch_fmt("--seed=%llu", (unsigned long long)seed));
    push(r, cli_batch_fmt("--out=%s", out_dir));
}

static const char *value_of(const char *kv, const char *key)
{
    size_t l = strlen(key);
    return !strncmp(kv, key, l) && kv[l] == '=' ? kv + l + 1 : NULL;
}

const char *cli_batch_param(const cli_opts *c, const cli_batch_policy *p, const char *key)
{
    const char *v = NULL, *x;
    for (int i = 0; i < c->nsets; i++)
        if ((x = value_of(c->sets[i], key)))
            v = x;
    for (int i = 0; p && i < p->nsets; i++)
        if ((x = value_of(p->sets[i], key)))
            v = x;
    return v;
}

void cli_batch_run_free(cli_batch_run *r)
{
    for (int i = 0; i < r->argc; i++)
        free(r->argv[i]);
    free(r->argv);
    r->argv = NULL;
    cJSON_Delete(r->report);
    r->report = NULL;
    r->argc = r->cap = 0;
}

int cli_batch_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static pid_t spawn(cli_batch_run *r, gs_error *err)
{
    char log[1400];
    snprintf(log, sizeof log, "%s/stderr.log", r->out_dir);
    if (cli_batch_mkdirs(r->out_dir, err))
        return -1;
    fflush(NULL);
    pid_t pid = gs_cleanup_fork(&r->slot);
    if (pid < 0) {
        gs_err(err, GS_EFAIL, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        int lg = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (dn >= 0)
            dup2(dn, 1);
        if (lg >= 0)
            dup2(lg, 2);
        setenv("GPUSIM_PROGRESS", "off", 1); /* its stderr.log holds its error, not progress lines */
        execv("/proc/self/exe", r->argv);
        _exit(127);
    }
    return pid;
}

static void first_line(const char *path, char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)n, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

int cli_batch_run_all(cli_batch_run *runs, int n, int jobs, const char *what, gs_error *err)
{
    if (jobs < 1)
        jobs = 1;
    int next = 0, active = 0, done = 0, rc = 0;
    bool tty = isatty(2);
    while ((next < n && rc == 0) || active > 0) {
        while (next < n && active < jobs && rc == 0) {
            runs[next].pid = spawn(&runs[next], err);
            if (runs[next].pid < 0) {
                rc = err->code;
                break;
            }
            next++;
            active++;
        }
        if (active == 0)
            break;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            rc = gs_err(err, GS_EFAIL, "wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < next; i++) {
            if (runs[i].pid != pid)
                continue;
            gs_cleanup_remove_child(runs[i].slot);
            active--;
            done++;
            runs[i].exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            char log[1400];
            snprintf(log, sizeof log, "%s/stderr.log", runs[i].out_dir);
            if (runs[i].exit_code == 0) {
                struct stat sb;
                if (stat(log, &sb) == 0 && sb.st_size == 0)
                    unlink(log);
                gs_error e2;
                runs[i].report = cli_batch_read_report(runs[i].out_dir, &e2);
                if (!runs[i].report && rc == 0)
                    rc = gs_err(err, e2.code, "%s", e2.msg);
            } else if (rc == 0) {
                char line[700];
                first_line(log, line, sizeof line);
                int code = runs[i].exit_code == 2   ? GS_EUSAGE
                           : runs[i].exit_code == 3 ? GS_EINPUT
                           : runs[i].exit_code == 4 ? GS_EWRITE
                                                    : GS_EFAIL;
                const char *msg = strncmp(line, "gpusim: error: ", 15) == 0 ? line + 15 : line;
                rc = gs_err(err, code, "run --trace %s --policy %s --out %s exited %d: %s", runs[i].argv[2] + 8,
                            runs[i].argv[3] + 9, runs[i].out_dir, runs[i].exit_code, msg);
            }
        }
        if (tty)
            fprintf(stderr, "\r%s: %d/%d runs done", what, done, n);
    }
    if (tty)
        fprintf(stderr, "\r\033[K");
    return rc;
}

/* {==== reports and metrics ====} */

cJSON *cli_batch_read_json(const char *path, gs_error *err)
{
    return gs_json_read(path, "file", err);
}

/* The unit costs of the cards each kind of work held (the report's cost
 * object, sim/sim_cost.h): jobs' cost per completed job, the services'
 * cost per million requests served; absent when unpriced or when nothing
 * completed. */
static void add_held_costs(const cJSON *r, cJSON *d)
{
    const cJSON *h;
    double svc_usd = 0, served = 0, x;
    bool priced = false;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "cost"), "holders"))
    {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "kind"));
        if (kind && !strcmp(kind, "jobs") && metrics_get(h, "per_completed_job_usd", &x))
            cJSON_AddNumberToObject(d, "cost_per_completed_job_usd", x);
        if (kind && !strcmp(kind, "service") && metrics_get(h, "usd", &x)) {
            svc_usd += x;
            priced = true;
        }
    }
    if (metrics_get(r, "requests.served", &x))
        served = x;
    if (priced && served > 0)
        cJSON_AddNumberToObject(d, "cost_per_million_requests_usd", svc_usd / served * 1e6);
}

cJSON *cli_batch_read_report(const char *dir_or_file, gs_error *err)
{
    struct stat st;
    char path[1100];
    if (stat(dir_or_file, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(path, sizeof path, "%s/report.json", dir_or_file);
    else
        snprintf(path, sizeof path, "%s", dir_or_file);
    cJSON *r = cli_batch_read_json(path, err);
    if (!r)
        return NULL;
    double cph, end_s = 0;
    if (cd_check_report(r, path, err)) {
        cJSON_Delete(r);
        return NULL;
    }
    metrics_get(r, "sim.end_s", &end_s);
    cJSON_DeleteItemFromObjectCaseSensitive(r, "derived");
    cJSON *d = cJSON_AddObjectToObject(r, "derived");
    double bill;
    if (metrics_get(r, "elastic.total.cost_usd", &bill) && end_s > 0) {
        /* nodes that come and go (sim/sim_elastic.h): the run's bill, not every node for the whole run */
        cJSON_AddNumberToObject(d, "cost_usd", bill);
        cJSON_AddNumberToObject(d, "cost_per_day_usd", bill / end_s * 86400.0);
    } else if (metrics_get(r, "inputs.cluster.cost_per_hour_usd", &cph)) {
        cJSON_AddNumberToObject(d, "cost_usd", cph * end_s / 3600.0);
        /* the cluster as configured is paid by the day, however soon a policy drains its backlog */
        cJSON_AddNumberToObject(d, "cost_per_day_usd", cph * 24.0);
    }
    /* what plan's implicit terms read: 0 when the trace has no services */
    static const char *const drops[] = {"dropped_queue_full", "dropped_timeout", "dropped_after_end",
                                        "dropped_replica_lost", "dropped_unplaceable"};
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(r, "requests");
    double dropped = 0, unplaceable = 0, x;
    for (size_t i = 0; i < sizeof drops / sizeof *drops; i++)
        if (metrics_get(rq, drops[i], &x))
            dropped += x;
    const cJSON *sv;
    cJSON_ArrayForEach(sv, cJSON_GetObjectItemCaseSensitive(r, "services"))
    {
        if (metrics_get(sv, "replicas.unplaceable", &x))
            unplaceable += x;
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(sv, "unplaceable_reason")))
            unplaceable += 1; /* a service whose replica fits no card of the cluster */
    }
    cJSON_AddNumberToObject(d, "requests_dropped", dropped);
    cJSON_AddNumberToObject(d, "replicas_unplaceable", unplaceable);
    add_held_costs(r, d);
    return r;
}

void cli_batch_add_unit_costs(cli_batch_run *runs, int n)
{
    double window_s = 0, v;
    for (int i = 0; i < n; i++)
        if (runs[i].report && metrics_get(runs[i].report, "sim.end_s", &v) && v > window_s)
            window_s = v;
    for (int i = 0; i < n; i++) {
        cJSON *d = cJSON_GetObjectItemCaseSensitive(runs[i].report, "derived");
        if (!d)
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(d, "window_s");
        cJSON_AddNumberToObject(d, "window_s", window_s);
    }
}

/* {==== SLO terms ====} */

const char *cli_batch_op_str(cli_batch_op op)
{
    static const char *s[] = {"<=", "<", ">=", ">"};
    return s[op];
}

bool cli_batch_slo_holds(const cli_batch_slo *t, double v)
{
    switch (t->op) {
    case CLI_BATCH_LE: return v <= t->value;
    case CLI_BATCH_LT: return v < t->value;
    case CLI_BATCH_GE: return v >= t->value;
    default: return v > t->value;
    }
}

bool cli_batch_slo_worse(const cli_batch_slo *t, double a, double b) { return t->op <= CLI_BATCH_LT ? a > b : a < b; }

/* The value of a term: a number, or for a metric in seconds a duration
 * with a unit as --set takes it (30m, 500ms, 2h). */
static int slo_value(const char *tok, const char *v, cli_batch_slo *t, gs_error *err)
{
    char val[64];
    size_t l = strlen(v);
    while (l && v[l - 1] == ' ')
        l--;
    while (l && *v == ' ')
        v++, l--;
    if (l == 0 || l >= sizeof val)
        return gs_err(err, GS_EUSAGE, "--slo: '%s': expected a number after %s", tok, cli_batch_op_str(t->op));
    memcpy(val, v, l);
    val[l] = 0;
    const char *unit = metrics_unit(t->path);
    if (unit && !strcmp(unit, "s")) {
        gs_param_spec sp = {.type = GS_P_DURATION, .lo = 0, .hi = 1e15};
        gs_param_value pv;
        gs_error e2;
        if (gs_param_parse("slo", val, &sp, &pv, &e2) != 0)
            return gs_err(err, GS_EUSAGE, "--slo: '%s': expected a time after %s: seconds, or a number with a "
                          "unit us, ms, s, m or h (30m)", tok, cli_batch_op_str(t->op));
        t->value = pv.num;
        return 0;
    }
    if (!gs_parse_decimal(val, l, &t->value) || !isfinite(t->value))
        return gs_err(err, GS_EUSAGE, "--slo: '%s': expected a number after %s", tok, cli_batch_op_str(t->op));
    return 0;
}

int cli_batch_slo_parse(const char *spec, cli_batch_slo **out, int *n, gs_error *err)
{
    *out = NULL;
    *n = 0;
    char *copy = xstrdup(spec), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        char *op = strpbrk(tok, "<>");
        cli_batch_slo t = {.op = CLI_BATCH_LE};
        if (!op || op == tok || (size_t)(op - tok) >= sizeof t.path) {
            rc = gs_err(err, GS_EUSAGE, "--slo: '%s': expected METRIC<=VALUE (or <, >=, >), e.g. jobs.queue_s.p99<=600",
                        tok);
            break;
        }
        memcpy(t.path, tok, (size_t)(op - tok));
        t.path[strcspn(t.path, " ")] = 0;
        const char *full = metrics_alias(t.path);
        if (full)
            snprintf(t.path, sizeof t.path, "%s", full);
        if ((rc = metrics_check_path("--slo", t.path, NULL, err)) != 0)
            break;
        bool eq = op[1] == '=';
        t.op = op[0] == '<' ? (eq ? CLI_BATCH_LE : CLI_BATCH_LT) : (eq ? CLI_BATCH_GE : CLI_BATCH_GT);
        if ((rc = slo_value(tok, op + 1 + eq, &t, err)) != 0)
            break;
        *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
        (*out)[(*n)++] = t;
    }
    free(copy);
    if (rc == 0 && *n == 0)
        rc = gs_err(err, GS_EUSAGE, "--slo: no terms");
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* {==== spread over seeds ====} */

void cli_batch_interval(const double *v, int n, double *mean, double *half)
{
    double m = 0, ss = 0;
    for (int i = 0; i < n; i++)
        m += v[i] / n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    *mean = n ? m : NAN;
    /* Student t: seeds are few, so the normal 1.96 would understate it */
    *half = n >= 2 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(ss / (n - 1) / n) : 0.0;
    if (*half < 1e-9 * fabs(m)) /* equal values summed in another order: rounding, not spread */
        *half = 0;
}
