/* test_trace.c - trace reader: every malformed case names file, line and
 * column; valid rows parse exactly.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../workloads/wl_trace.h"
#include "check.h"
#include "testutil.h"

/* wl_trace_next into a row of the caller's (a copy of the reader's). */
static int next_row(wl_trace *t, wl_row *out, gs_error *err)
{
    const wl_row *r;
    int rc = wl_trace_next(t, &r, err);
    if (rc == 1)
        *out = *r;
    return rc;
}

/* Reads the whole text; returns the first error message (or "" if none) and
 * the rows read in *rows. */
static const char *read_all(const char *text, bool extra, long *rows, int *code)
{
    static gs_error err;
    memset(&err, 0, sizeof err);
    const char *path = tu_write_tmp(text);
    wl_opts o = {.allow_extra_columns = extra};
    wl_trace *t = wl_trace_open(path, &o, &err);
    *rows = 0;
    *code = 0;
    if (!t) {
        *code = err.code;
        return err.msg;
    }
    wl_row row;
    int rc;
    while ((rc = next_row(t, &row, &err)) == 1)
        (*rows)++;
    wl_trace_close(t);
    *code = rc < 0 ? rc : 0;
    return rc < 0 ? err.msg : "";
}

static void seconds(void)
{
    gs_time_us us;
    CHECK(wl_parse_seconds("0", &us) && us == 0);
    CHECK(wl_parse_seconds("12", &us) && us == 12000000);
    CHECK(wl_parse_seconds("0.5", &us) && us == 500000);
    CHECK(wl_parse_seconds("3.000001", &us) && us == 3000001);
    CHECK(wl_parse_seconds("3.0000005", &us) && us == 3000001); /* half up */
    CHECK(wl_parse_seconds("3.0000004", &us) && us == 3000000);
    CHECK(wl_parse_seconds("7.", &us) && us == 7000000);
    CHECK(!wl_parse_seconds("-1", &us));
    CHECK(!wl_parse_seconds("1e3", &us));
    CHECK(!wl_parse_seconds(".5", &us));
    CHECK(!wl_parse_seconds("", &us));
    CHECK(!wl_parse_seconds("1.2.3", &us));
}

static const struct {
    const char *text;
    const char *want[3]; /* substrings the message must hold */
} bad[] = {
    {"id,submit,duration,gpus\na,0,abc,1\n", {"line 2, column 3 ('duration')", "decimal number of seconds", "abc"}},
    {"id,submit,duration,gpus\na,0,1,1\nb,-1,1,1\n", {"line 3, column 2 ('submit')", "'-1'", NULL}},
    {"id,submit,duration\na,0,1\n", {"line 2", "a job row needs 'duration' and 'gpus'", NULL}},
    {"id,duration,gpus\na,0,1\n", {"line 1", "missing required column 'submit'", NULL}},
    {"id,submit,kind,service\nr,0,request,\n", {"line 2", "a request row needs 'service'", NULL}},
    {"id,submit,kind,input_tokens,service\nr,0,request,-4,s\n", {"line 2, column 4 ('input_tokens')", NULL, NULL}},
    {"id,submit,duration,gpus,colour\na,0,1,1,red\n", {"line 1, column 5", "unknown column 'colour'", NULL}},
    {"id,submit,duration,gpus\na,0,1,1\nb,0,1\n", {"line 3", "expected 4 fields", "found 3"}},
    {"id,submit,duration,gpus\na,5,1,1\nb,4,1,1\n", {"line 3, column 2 ('submit')", "non-decreasing", NULL}},
    {"id,submit,duration,gpus\na,0,1,1048577\n", {"line 2, column 4 ('gpus')", "0..1048576", "2^20"}},
    {"id,submit,duration,gpus\na,0,1,99999999\n", {"line 2, column 4 ('gpus')", "0..1048576", "99999999"}},
    /* the multi-node, elastic and imported columns */
    {"id,submit,duration,gpus,gpus_per_node\na,0,1,16,0\n", {"line 2, column 5 ('gpus_per_node')", "1..64", "'0'"}},
    {"id,submit,duration,gpus,gpus_per_node\na,0,1,128,65\n", {"column 5 ('gpus_per_node')", "1..64", NULL}},
    {"id,submit,duration,gpus,gpus_per_node\na,0,1,4,8\n", {"column 5 ('gpus_per_node')", "at most the row's gpus (4)", "'8'"}},
    {"id,submit,duration,gpus,time_limit\na,0,1,1,0\n", {"line 2, column 5 ('time_limit')", "seconds > 0", "'0'"}},
    {"id,submit,duration,gpus,time_limit\na,0,1,1,1h\n", {"column 5 ('time_limit')", "seconds > 0", "'1h'"}},
    {"id,submit,duration,gpus,comm\na,0,1,1,1.5\n", {"line 2, column 5 ('comm')", "0..1", "'1.5'"}},
    {"id,submit,duration,gpus,topology\na,0,1,1,zone\n", {"line 2, column 5 ('topology')", "rack or block", "'zone'"}},
    {"id,submit,duration,gpus,tier\na,0,1,1,spot\n", {"line 2, column 5 ('tier')", "any or no-spot", "'spot'"}},
    {"id,submit,duration,gpus,observed_start\na,10,1,1,9.5\n", {"line 2, column 5 ('observed_start')",
                                                                 "seconds >= submit, 10.000000", "'9.5'"}},
    {"id,submit,duration,gpus,observed_start\na,10,1,1,-1\n", {"column 5 ('observed_start')", "decimal number of seconds", NULL}},
    {"id,submit,duration,gpus,class\na,0,1,1,"
     "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n", {"column 5 ('class')", "shorter than 64", NULL}},
    {"id,submit,kind,service,time_limit\nr,0,request,s,60\n", {"line 2, column 5 ('time_limit')", "only job and session rows", NULL}},
    {"id,submit,kind,gpus,gpus_per_node\ns,0,service,16,8\n", {"column 5 ('gpus_per_node')", "only job and session rows", NULL}},
    {"id,submit,kind,service,tier\nr,0,request,s,any\n", {"column 5 ('tier')", "only job, session and service rows", NULL}},
    {"id,submit,duration,gpus\n,0,1,1\n", {"line 2, column 1 ('id')", "required", NULL}},
    {"id,submit,duration,gpus,kind\na,0,1,1,sevice\n", {"line 2, column 5 ('kind')", "'sevice'", NULL}},
    {"gpucores,id,submit,duration,gpus\n101,a,0,1,1\n", {"line 2, column 1 ('gpucores')", "1..100", NULL}},
    {"id,submit,duration,gpus\na,0,1,1\n\"b,0,1,1\n", {"line 3", "malformed CSV", NULL}},
    /* a quoted newline spans lines 2-3; the bad row after it is on line 5 (line 4 is blank) */
    {"id,submit,duration,gpus\n\"a\nx\",0,1,1\n\nb,0,zz,1\n", {"line 5, column 3 ('duration')", NULL, NULL}},
    {"id,submit,duration,gpus,gpumem\na,0,1,0,1000\n", {"line 2, column 4 ('gpus')", "gpus >= 1", NULL}},
    {"id,submit,duration,gpus,preemptible\na,0,1,1,yes\n", {"line 2, column 5 ('preemptible')", "0 or 1", NULL}},
    {"id,submit,submit,duration,gpus\n", {"line 1, column 3", "duplicate column 'submit'", NULL}},
    {"", {"line 1", "header", NULL}},
    /* numbers in plain decimal only: strtod would take hex, inf and nan */
    {"id,submit,duration,gpus,cpu\na,0,1,1,0x10\n", {"line 2, column 5 ('cpu')", "'0x10'", NULL}},
    {"id,submit,duration,gpus,cpu\na,0,1,1,inf\n", {"line 2, column 5 ('cpu')", "'inf'", NULL}},
    {"id,submit,duration,gpus,util\na,0,1,1,nan\n", {"line 2, column 5 ('util')", "'nan'", NULL}},
    {"id,submit,duration,gpus\na,0,1,0x1\n", {"line 2, column 4 ('gpus')", "'0x1'", NULL}},
    {"id,submit,duration,gpus\na,0,1,+1\n", {"line 2, column 4 ('gpus')", "'+1'", NULL}},
    {"id,submit,duration,gpus,mem_gib\na,0,1,1,1e\n", {"line 2, column 5 ('mem_gib')", NULL, NULL}},
    /* a byte-order mark only counts before the header: elsewhere it is data */
    {"id,submit,duration,gpus\n\xEF\xBB\xBF" "a,0,1,1\nb,0,x,1\n", {"line 3, column 3", NULL, NULL}},
};

static void bom_accepted(void)
{
    long rows;
    int code;
    read_all("\xEF\xBB\xBFid,submit,duration,gpus,cpu\na,0,1,1,1.5e1\nb,0,1,1,-0\n", false, &rows, &code);
    CHECK_EQ_INT(code, 0);
    CHECK_EQ_INT(rows, 2);
}

static void malformed(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        long rows;
        int code;
        const char *msg = read_all(bad[i].text, false, &rows, &code);
        CHECK_EQ_INT(code, GS_EINPUT);
        CHECK_STR_HAS(msg, "trace '");
        CHECK_STR_HAS(msg, tu_tmp_dir());
        for (int k = 0; k < 3 && bad[i].want[k]; k++)
            CHECK_STR_HAS(msg, bad[i].want[k]);
    }
}

static void directory_named(void)
{
    gs_error err;
    CHECK(wl_trace_open(tu_tmp_dir(), NULL, &err) == NULL);
    CHECK_EQ_INT(err.code, GS_EINPUT);
    CHECK_STR_HAS(err.msg, "is a directory");
}

static void extra_columns_allowed(void)
{
    long rows;
    int code;
    read_all("id,submit,duration,gpus,colour\na,0,1,1,red\nb,1,1,1,blue\n", true, &rows, &code);
    CHECK_EQ_INT(code, 0);
    CHECK_EQ_INT(rows, 2);
}

static void full_row(void)
{
    const char *path = tu_write_tmp(
        "mem_gib,cpu,gpu_model,tenant,checkpoint_gib,preemptible,priority,mig,gpucores,gpumem,kind,gpus,"
        "duration,submit,id\n"
        "64.5,12,H100-SXM5-80GB|A100-SXM4-80GB,team-a,140,1,-3,1g.10gb,30,10240,job,2,3600.25,10.000001,\"x,y\"\n"
        "\n"
        ",,,,,,,,,,,0,0,10.000001,z\n");
    gs_error err;
    wl_trace *t = wl_trace_open(path, NULL, &err);
    CHECK(t != NULL);
    if (!t)
        return;
    wl_row r;
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    CHECK(strcmp(r.id, "x,y") == 0);
    CHECK_EQ_INT(r.submit_us, 10000001);
    CHECK_EQ_INT(r.dur_us, 3600250000LL);
    CHECK_EQ_INT(r.gpus, 2);
    CHECK_EQ_INT(r.gpumem_mib, 10240);
    CHECK_EQ_INT(r.gpucores, 30);
    CHECK(strcmp(r.mig, "1g.10gb") == 0);
    CHECK_EQ_INT(r.priority, -3);
    CHECK_EQ_INT(r.preemptible, 1);
    CHECK_NEAR(r.checkpoint_gib, 140, 0, 0);
    CHECK(strcmp(r.tenant, "team-a") == 0);
    CHECK(strcmp(r.gpu_model, "H100-SXM5-80GB|A100-SXM4-80GB") == 0);
    CHECK_EQ_INT(r.gpu_model_col, 3);
    CHECK_NEAR(r.cpu, 12, 0, 0);
    CHECK_NEAR(r.mem_gib, 64.5, 0, 0);
    CHECK_EQ_INT(r.line, 2);
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    CHECK(strcmp(r.id, "z") == 0);
    CHECK_EQ_INT(r.line, 4);
    CHECK_EQ_INT(r.gpus, 0);
    CHECK(r.checkpoint_gib < 0);
    CHECK_EQ_INT(next_row(t, &r, &err), 0);
    CHECK_EQ_INT(wl_trace_rows(t), 2);
    wl_trace_close(t);
}

/* The multi-node, elastic and imported columns reach the row, each at its
 * "not given" default when empty; names get their per-column numbers. */
static void new_columns(void)
{
    const char *path = tu_write_tmp(
        "id,submit,duration,gpus,gpus_per_node,time_limit,comm,topology,class,tier,observed_start,tenant\n"
        "a,10,3600,1048576,8,7200.5,0.25,block,training,no-spot,12.000001,t1\n"
        "b,11,60,1,,,,,,,,t2\n"
        "c,12,60,2,2,60,0,rack,notebook,any,12,t1\n"
        "d,13,60,1,,,,,training,,,\n");
    gs_error err;
    wl_trace *t = wl_trace_open(path, NULL, &err);
    CHECK(t != NULL);
    if (!t)
        return;
    wl_row r;
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    CHECK_EQ_INT(r.gpus, 1048576);
    CHECK_EQ_INT(r.gpus_per_node, 8);
    CHECK_EQ_INT(r.time_limit_us, 7200500000LL);
    CHECK_EQ_INT(wl_row_time_limit_us(&r), 7200500000LL);
    CHECK_NEAR(r.comm, 0.25, 0, 0);
    CHECK_EQ_INT(r.topology, WL_TOPO_BLOCK);
    CHECK(!strcmp(r.job_class, "training") && r.class_sym == 1);
    CHECK_EQ_INT(r.tier, WL_TIER_NO_SPOT);
    CHECK_EQ_INT(r.observed_start_us, 12000001);
    CHECK_EQ_INT(r.tenant_sym, 1);
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    CHECK(r.gpus_per_node == 0 && r.time_limit_us < 0 && r.comm < 0 && r.topology < 0 && r.tier < 0);
    CHECK(!r.job_class[0] && r.class_sym == 0 && r.observed_start_us < 0);
    CHECK_EQ_INT(wl_row_time_limit_us(&r), 60000000);
    CHECK_EQ_INT(r.tenant_sym, 2);
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    CHECK(r.topology == WL_TOPO_RACK && r.tier == WL_TIER_ANY && r.comm == 0 && r.time_limit_us == 60000000);
    CHECK(!strcmp(r.job_class, "notebook") && r.class_sym == 2 && r.tenant_sym == 1);
    CHECK_EQ_INT(r.observed_start_us, 12000000); /* at its submit: no wait */
    CHECK_EQ_INT(next_row(t, &r, &err), 1);
    CHECK(r.class_sym == 1 && r.tenant_sym == 0); /* a name seen before keeps its number */
    wl_trace_close(t);
    wl_row init;
    wl_row_init(&init); /* a row built by hand: the reader's defaults */
    CHECK(init.gpus_per_node == 0 && init.time_limit_us < 0 && init.comm < 0 && init.topology < 0 && init.tier < 0);
    CHECK(init.observed_start_us < 0 && init.checkpoint_gib < 0 && init.kind == WL_KIND_JOB && init.class_sym == 0);
}

/* A row wider than a job_req holds (64 GPUs) is rejected by the core,
 * never truncated to a width that fits: 300 GPUs would be 44 in a byte. */
static void wide_rows_rejected(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus\nw300,0,10,300\nw65,0,10,65\nfit,0,10,64\n"
                                    "w256,0,10,256\nw2e20,1,10,1048576\n");
    tu_run r;
    CHECK_EQ_INT(tu_run_trace(&r, path, "A100-SXM4-80GB:64", 64, "whole", NULL, NULL, NULL), 0);
    CHECK_EQ_INT(r.s.arrived, 5);
    CHECK_EQ_INT(r.s.rejected, 4);
    CHECK_EQ_INT(r.s.completed, 1);
    tu_run_free(&r);
}

/* The plain-line fast path and libcsv must read a row the same way: each
 * row below appears twice, once plain (fast path) and once with its id
 * quoted (which sends the line through libcsv); spaces and tabs around
 * unquoted fields are trimmed either way, CRLF endings and empty fields too. */
static void fast_path_matches_libcsv(void)
{
    const char *path = tu_write_tmp("id,submit,duration,gpus,tenant,cpu\r\n"
                                    "a , 1.5 ,\t2\t, 3 , team x ,\r\n"
                                    "\"a\", 1.5 ,\t2\t, 3 , team x ,\r\n"
                                    "b,2,0,0,,4\n"
                                    "\"b\",2,0,0,,4\n"
                                    "c,3,1,1,t,");
    gs_error err;
    wl_trace *t = wl_trace_open(path, NULL, &err);
    CHECK(t != NULL);
    if (!t)
        return;
    wl_row r[5];
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(next_row(t, &r[i], &err), 1);
    CHECK_EQ_INT(next_row(t, &r[0], &err), 0); /* r[0] is overwritten only on success */
    wl_trace_close(t);
    for (int i = 0; i < 4; i += 2) {
        CHECK(strcmp(r[i].id, r[i + 1].id) == 0);
        CHECK_EQ_INT(r[i].submit_us, r[i + 1].submit_us);
        CHECK_EQ_INT(r[i].dur_us, r[i + 1].dur_us);
        CHECK_EQ_INT(r[i].gpus, r[i + 1].gpus);
        CHECK(strcmp(r[i].tenant, r[i + 1].tenant) == 0);
        CHECK_NEAR(r[i].cpu, r[i + 1].cpu, 0, 0);
    }
    CHECK(strcmp(r[1].id, "a") == 0 && strcmp(r[1].tenant, "team x") == 0);
    CHECK_EQ_INT(r[1].submit_us, 1500000);
    CHECK_EQ_INT(r[1].dur_us, 2000000);
    CHECK_EQ_INT(r[1].gpus, 3);
    CHECK_NEAR(r[3].cpu, 4, 0, 0);
    CHECK(strcmp(r[4].id, "c") == 0 && r[4].line == 6); /* last line without a newline */
}

/* The second row of header, first and line: its return code, the row and
 * the error message (empty if none). */
static int second_row(const char *header, const char *first, const char *line, wl_row *row, char *msg,
                      size_t cap)
{
    char text[512];
    snprintf(text, sizeof text, "%s\n%s\n%s\n", header, first, line);
    gs_error err = {0};
    wl_trace *t = wl_trace_open(tu_write_tmp(text), &(wl_opts){.allow_extra_columns = true}, &err);
    int rc = -100;
    memset(row, 0, sizeof *row);
    if (t && next_row(t, row, &err) == 1)
        rc = next_row(t, row, &err);
    snprintf(msg, cap, "%s", rc < 0 ? err.msg : "");
    wl_trace_close(t);
    return rc;
}

/* The one-pass row path (a trace of only id, submit, duration and gpus)
 * against the field-by-field one (the same rows with an empty 'tenant'
 * column more, which the one-pass path has no plan for): the same row and
 * the same error, line and column, for every line, plain or not. */
static void one_pass_matches_field_by_field(void)
{
    static char long_id[300], too_long_id[300];
    memset(long_id, 'i', 127);
    snprintf(long_id + 127, sizeof long_id - 127, ",1,1,1");
    memset(too_long_id, 'i', 128);
    snprintf(too_long_id + 128, sizeof too_long_id - 128, ",1,1,1");
    const char *lines[] = {
        "j1,0.5,1,1", "j1,5.0000005,2.1234567,64", "j1,12,3.,00", "j1,1.9999995,0,10", "j1,1,2,7\r",
        "j1, 1,2,3", "j1,1,2,3 ", "\"j1\",1,2,3", "x y,1,2,3", "j1,1,2,65", "j1,1,2,-0", "j1,1,2,",
        "j1,,2,1", ",1,2,1", "j1,1,2,1x", "j1,1e3,2,1", "j1,-1,2,1", "j1,0.1,2,1", "j1,.5,2,1", "j1,1,2,100",
        "j1,99999999999999,1,1", "j1,1,2,3\n\n", "j1,1,2", long_id, too_long_id,
        /* six decimals, read eight bytes at once; and near misses */
        "j1,0.002876,0.458539,1", "j1,1.999999,0.000000,1", "j1,3.123456,1.9,1", "j1,3.12345a,1,1",
        "j1,3.123456a,1,1", "j1,3.1234567,1,1", "j1,3.12345,1,1", "j1,3.123:56,1,1", "j1,3.123/56,1,1",
        "j1,3.909090,9.999999,1", "j1,1,0.123456", "j1,1,0.123456 ,1", "j1,1,0.1234565,1",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        char slow_line[400], ma[300], mb[300];
        size_t n = strcspn(lines[i], "\r\n"); /* the empty column goes before the line end */
        snprintf(slow_line, sizeof slow_line, "%.*s,%s", (int)n, lines[i], lines[i] + n);
        wl_row a, b, c;
        int ra = second_row("id,submit,duration,gpus", "p,0.2,1,1", lines[i], &a, ma, sizeof ma);
        int rb = second_row("id,submit,duration,gpus,tenant", "p,0.2,1,1,", slow_line, &b, mb, sizeof mb);
        CHECK_EQ_INT(ra, rb);
        /* the one-pass path's general loop (an ignored column first: not the
         * generated layout) takes and declines the same lines */
        char other_line[400], mc[300];
        snprintf(other_line, sizeof other_line, "n,%s", lines[i]);
        int rc = second_row("note,id,submit,duration,gpus", "n,p,0.2,1,1", other_line, &c, mc, sizeof mc);
        CHECK_EQ_INT(rc, ra);
        if (rc == 1)
            CHECK(!strcmp(c.id, a.id) && c.submit_us == a.submit_us && c.dur_us == a.dur_us && c.gpus == a.gpus &&
                  c.line == a.line);
        if (ra != 1) {
            if (!strstr(ma, "fields (as in the header)")) /* the files' names differ: from the line on */
                CHECK(strstr(ma, " line ") && strstr(mb, " line ") && !strcmp(strstr(ma, " line "), strstr(mb, " line ")));
            continue;
        }
        CHECK(strcmp(a.id, b.id) == 0);
        CHECK_EQ_INT(a.line, b.line);
        CHECK_EQ_INT(a.kind, b.kind);
        CHECK_EQ_INT(a.submit_us, b.submit_us);
        CHECK_EQ_INT(a.dur_us, b.dur_us);
        CHECK_EQ_INT(a.has_duration, b.has_duration);
        CHECK_EQ_INT(a.gpus, b.gpus);
        CHECK_EQ_INT(a.due_us, b.due_us);
        CHECK_EQ_INT(a.wake, b.wake);
        CHECK_EQ_INT(a.replicas_min, b.replicas_min);
        CHECK(a.tenant[0] == 0 && b.tenant[0] == 0 && a.hash_ids == NULL && b.hash_ids == NULL);
        CHECK_NEAR(a.checkpoint_gib, b.checkpoint_gib, 0, 0);
        CHECK_NEAR(a.mem_bound, b.mem_bound, 0, 0);
    }
}

/* Thousands of six-decimal times (read eight bytes at once on the one-pass
 * path) against the same rows read field by field. */
static void one_pass_six_decimals(void)
{
    enum { ROWS = 4000 };
    size_t cap = (size_t)ROWS * 64 + 64; /* a row is under 64 bytes */
    char *fast = xmalloc(cap), *slow = xmalloc(cap);
    size_t nf = (size_t)snprintf(fast, cap, "id,submit,duration,gpus\n");
    size_t ns = (size_t)snprintf(slow, cap, "id,submit,duration,gpus,tenant\n");
    uint64_t x = 88172645463325252ull; /* xorshift: fractions all over 0..999999 */
    for (long i = 0; i < ROWS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long sub = (long)(x % 1000000), dur = (long)(x / 1000000 % 1000000);
        nf += (size_t)snprintf(fast + nf, cap - nf, "r%ld,%ld.%06ld,%ld.%06ld,1\n", i, i, sub, i % 7, dur);
        ns += (size_t)snprintf(slow + ns, cap - ns, "r%ld,%ld.%06ld,%ld.%06ld,1,\n", i, i, sub, i % 7, dur);
    }
    snprintf(fast + nf, cap - nf, "\n \n"); /* blank lines at the end: the row read last stays */
    gs_error err = {0};
    wl_trace *a = wl_trace_open(tu_write_tmp(fast), NULL, &err), *b = wl_trace_open(tu_write_tmp(slow), NULL, &err);
    CHECK(a && b);
    wl_row ra, rb;
    long same = 0;
    while (a && b && next_row(a, &ra, &err) == 1 && next_row(b, &rb, &err) == 1)
        same += ra.submit_us == rb.submit_us && ra.dur_us == rb.dur_us && ra.line == rb.line;
    CHECK_EQ_INT(same, ROWS);
    CHECK_EQ_INT(ra.submit_us, (ROWS - 1) * 1000000L + (long)(x % 1000000));
    wl_trace_close(a);
    wl_trace_close(b);
    free(fast);
    free(slow);
}

static void missing_file(void)
{
    gs_error err;
    CHECK(wl_trace_open("/nonexistent/x.csv", NULL, &err) == NULL);
    CHECK_EQ_INT(err.code, GS_EINPUT);
    CHECK_STR_HAS(err.msg, "cannot open trace '/nonexistent/x.csv'");
}

/* The reader cuts lines out of 256 KiB blocks: rows that straddle a block
 * boundary, a field longer than a whole block (the block grows), a quoted
 * field spanning lines across a boundary, and a NUL byte found blocks
 * into the file all read as they would from one buffer. */
static void block_boundaries(void)
{
    size_t big = 600 * 1024, cap = 2 * big + 4 * 1024 * 1024;
    char *text = xmalloc(cap);
    size_t n = (size_t)snprintf(text, cap, "id,submit,duration,gpus,note\n");
    long rows = 0;
    for (; n < 700 * 1024; rows++)
        n += (size_t)snprintf(text + n, cap - n, "r%ld,%ld.%06ld,1,1,x\n", rows, rows / 1000, rows % 1000);
    n += (size_t)snprintf(text + n, cap - n, "long,999,1,1,");
    memset(text + n, 'y', big), n += big;
    n += (size_t)snprintf(text + n, cap - n, "\nq,999,1,1,\"two\nlines\"\nlast,999,2.5,3,z");
    long got;
    int code;
    read_all(text, true, &got, &code);
    CHECK_EQ_INT(code, 0);
    CHECK_EQ_INT(got, rows + 3);
    /* the same file with a NUL byte in the last row: named at its line */
    char *nul = strstr(text + n - 20, "last,") + 5;
    *nul = 0;
    const char *path = tu_write_tmp(text); /* text ends at the NUL: write it by hand */
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        *nul = 'Z';
        fwrite(text, 1, n, f);
        fclose(f);
        f = fopen(path, "r+b");
        fseek(f, (long)(nul - text), SEEK_SET);
        fputc(0, f);
        fclose(f);
        gs_error err = {0};
        wl_trace *t = wl_trace_open(path, &(wl_opts){.allow_extra_columns = true}, &err);
        CHECK(t != NULL);
        wl_row r;
        int rc;
        long k = 0;
        while (t && (rc = next_row(t, &r, &err)) == 1)
            k++;
        CHECK_EQ_INT(k, rows + 2);
        CHECK_STR_HAS(err.msg, "NUL byte at byte 6 of the line");
        char want[64];
        snprintf(want, sizeof want, "line %ld, column 2", rows + 5);
        CHECK_STR_HAS(err.msg, want);
        wl_trace_close(t);
    }
    free(text);
}

/* Rows read from n bytes of text handed over through a FIFO by a child
 * process (the reader's block path: a FIFO is not mapped), and the first
 * error message in msg. */
static long read_fifo(const char *text, size_t n, char *msg, size_t msg_len, int *code)
{
    char path[600];
    snprintf(path, sizeof path, "%s/fifo-%ld", tu_tmp_dir(), (long)getpid());
    unlink(path);
    msg[0] = 0;
    *code = 0;
    if (mkfifo(path, 0600) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) { /* the writer, in pieces of odd sizes */
        FILE *f = fopen(path, "wb");
        for (size_t at = 0; f && at < n; at += 77777)
            fwrite(text + at, 1, n - at < 77777 ? n - at : 77777, f), fflush(f);
        if (f)
            fclose(f);
        _exit(0);
    }
    gs_error err = {0};
    wl_trace *t = wl_trace_open(path, &(wl_opts){.allow_extra_columns = true}, &err);
    long k = 0;
    int rc = 0;
    wl_row r;
    while (t && (rc = next_row(t, &r, &err)) == 1)
        k++;
    wl_trace_close(t);
    waitpid(pid, NULL, 0);
    unlink(path);
    *code = t ? (rc < 0 ? rc : 0) : err.code;
    snprintf(msg, msg_len, "%s", err.msg);
    return k;
}

/* A regular file is mapped whole (wl_trace.c, map_file), any other input
 * is read in blocks: the same text gives the same rows and the same error
 * either way, at a file size that is a whole number of pages (the last
 * line without its newline: the zeros after it are the next page) and
 * across the block reader's boundaries. */
static void mapped_matches_blocks(void)
{
    size_t cap = 3 * 1024 * 1024;
    char *text = xmalloc(cap + 1);
    for (int round = 0; round < 4; round++) {
        size_t want = round == 0 ? 4096 : round == 1 ? 8192 : round == 2 ? 700 * 1024 : 2 * 1024 * 1024 + 4096;
        size_t n = (size_t)snprintf(text, cap, "id,submit,duration,gpus,note\n");
        long rows = 0;
        while (n + 40 < want)
            n += (size_t)snprintf(text + n, cap - n, "r%ld,%ld.%06ld,1,1,x\n", rows, rows / 1000, rows % 1000), rows++;
        /* pad the last row's note to end exactly at want bytes, no newline */
        n += (size_t)snprintf(text + n, cap - n, "last,999,1,1,");
        while (n < want)
            text[n++] = 'y';
        text[n] = 0;
        CHECK_EQ_INT((long)strlen(text), (long)want);
        long got, via_fifo;
        int code, fcode;
        char fmsg[300];
        const char *msg = read_all(text, true, &got, &code);
        CHECK_EQ_INT(code, 0);
        CHECK(msg[0] == 0);
        CHECK_EQ_INT(got, rows + 1);
        via_fifo = read_fifo(text, n, fmsg, sizeof fmsg, &fcode);
        CHECK_EQ_INT(via_fifo, rows + 1);
        CHECK_EQ_INT(fcode, 0);
        /* a bad value in the last row: the same message both ways */
        memcpy(strstr(text, "\nlast,999") + 6, "9x9", 3);
        char mmsg[300];
        snprintf(mmsg, sizeof mmsg, "%s", read_all(text, true, &got, &code));
        via_fifo = read_fifo(text, n, fmsg, sizeof fmsg, &fcode);
        CHECK(code != 0);
        CHECK_EQ_INT(fcode, code);
        CHECK_EQ_INT(via_fifo, got);
        /* past the path, which differs */
        const char *fl = strstr(fmsg, "' line "), *ml = strstr(mmsg, "' line ");
        CHECK(fl && ml && strcmp(fl, ml) == 0);
        CHECK_STR_HAS(mmsg, "column 2 ('submit')");
    }
    free(text);
}

const test_case tests_trace[] = {
    {"trace/parse_seconds_exact_microseconds", seconds},
    {"trace/malformed_rows_name_line_and_column", malformed},
    {"trace/extra_columns_allowed_by_option", extra_columns_allowed},
    {"trace/full_row_any_column_order", full_row},
    {"trace/multi_node_elastic_imported_columns", new_columns},
    {"trace/rows_wider_than_a_node_rejected_not_truncated", wide_rows_rejected},
    {"trace/fast_path_matches_libcsv", fast_path_matches_libcsv},
    {"trace/one_pass_matches_field_by_field", one_pass_matches_field_by_field},
    {"trace/one_pass_six_decimals", one_pass_six_decimals},
    {"trace/missing_file", missing_file},
    {"trace/bom_before_header_accepted", bom_accepted},
    {"trace/directory_named", directory_named},
    {"trace/block_boundaries_long_lines_nul", block_boundaries},
    {"trace/mapped_file_matches_block_reader", mapped_matches_blocks},
    {NULL, NULL},
};
