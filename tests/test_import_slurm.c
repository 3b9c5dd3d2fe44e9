/* test_import_slurm.c - `gpusim import sacct` on tests/fixtures/slurm/
 * (written from sacct(1) --parsable2 and scontrol(1) --oneliner, sinfo(1)
 * -N -o): one case per mapping rule, one per refused input.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/import_gpu.h"
#include "../sim/sim_cluster_file.h"
#include "../workloads/wl_import_slurm.h"
#include "check.h"
#include "testutil.h"

#define FX "tests/fixtures/slurm/"

typedef struct slurm_out {
    char *trace, *cluster, *warn;
    wl_sacct_counts n;
    gs_error err;
    int rc;
} slurm_out;

/* The importer on the accounting at path with the fixture's nodes (h100
 * mapped with --gpu-type, as the site names its GRES). */
static void run(slurm_out *r, const char *path, wl_sacct_opts *o)
{
    memset(r, 0, sizeof *r);
    import_gpu g;
    import_gpu_init(&g, tu_catalog());
    char why[256];
    CHECK(import_gpu_map(&g, "h100=H100-SXM5-80GB", why, sizeof why));
    wl_gpu_names names = import_gpu_names(&g);
    o->names = &names;
    size_t wn, tn, cn;
    FILE *warn = open_memstream(&r->warn, &wn);
    wl_slurm *s = wl_slurm_new(o, warn, &r->n, &r->err);
    r->rc = s ? 0 : r->err.code;
    if (s) {
        FILE *t = open_memstream(&r->trace, &tn), *c = open_memstream(&r->cluster, &cn);
        r->rc = wl_slurm_write_trace(s, path, t, &r->err);
        if (r->rc == 0 && o->nodes)
            r->rc = wl_slurm_write_cluster(s, c, &r->err);
        fclose(t);
        fclose(c);
    }
    fclose(warn);
    wl_slurm_free(s);
}

static void out_free(slurm_out *r)
{
    free(r->trace);
    free(r->cluster);
    free(r->warn);
}

/* The value of column col in the row whose id is id, or NULL. */
static const char *cell(const char *trace, const char *id, const char *col)
{
    static char out[512];
    if (!trace || !*trace)
        return NULL;
    const char *hdr_end = strchr(trace, '\n');
    int want = -1, i = 0;
    for (const char *h = trace; h < hdr_end; i++) {
        const char *e = memchr(h, ',', (size_t)(hdr_end - h));
        e = e ? e : hdr_end;
        if ((size_t)(e - h) == strlen(col) && !strncmp(h, col, (size_t)(e - h)))
            want = i;
        h = e + 1;
    }
    size_t il = strlen(id);
    for (const char *l = hdr_end + 1; want >= 0 && *l; l = strchr(l, '\n') + 1)
        if (!strncmp(l, id, il) && l[il] == ',') {
            const char *f = l;
            for (int k = 0; k < want; k++)
                f = strchr(f, ',') + 1;
            snprintf(out, sizeof out, "%.*s", (int)strcspn(f, ",\n"), f);
            return out;
        }
    return NULL;
}

#define CHECK_CELL(r, id, col, want)                                                                        \
    do {                                                                                                    \
        const char *v_ = cell((r)->trace, (id), (col));                                                     \
        if (!v_ || strcmp(v_, (want))) {                                                                    \
            check_failures++;                                                                               \
            fprintf(stderr, "    %s:%d: %s %s = '%s', expected '%s'\n", __FILE__, __LINE__, (id), (col),     \
                    v_ ? v_ : "(no row)", (want));                                                          \
        }                                                                                                   \
    } while (0)

static void fixture(slurm_out *r)
{
    wl_sacct_opts o = {.nodes = FX "nodes-scontrol.txt"};
    run(r, FX "sacct.txt", &o);
    CHECK_EQ_INT(r->rc, 0);
}

static void gpus_and_nodes(void)
{
    slurm_out r;
    fixture(&r);
    CHECK_CELL(&r, "1001", "gpus", "8"); /* gres/gpu=8 */
    CHECK_CELL(&r, "1001", "gpus_per_node", "");
    CHECK_CELL(&r, "1001", "cpu", "64");
    CHECK_CELL(&r, "1001", "mem_gib", "512"); /* mem=512G */
    CHECK_CELL(&r, "1002", "gpus", "32");     /* NNodes 4: one gang row */
    CHECK_CELL(&r, "1002", "gpus_per_node", "8");
    CHECK_CELL(&r, "1002", "cpu", "96");      /* cpu=384 over 4 nodes */
    CHECK_CELL(&r, "1002", "mem_gib", "1024"); /* mem=4T over 4 nodes */
    CHECK_CELL(&r, "1023", "mem_gib", "878.90625"); /* mem=900000M */
    CHECK_EQ_INT(r.n.multi_node, 3);
    CHECK(cell(r.trace, "1012", "id") == NULL); /* 8 GPUs on 3 nodes */
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_UNEVEN], 1);
    CHECK(cell(r.trace, "1020", "id") == NULL); /* 72 on one node */
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_TOO_MANY], 1);
    CHECK(cell(r.trace, "1013", "id") == NULL); /* no GPU */
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_NO_GPU], 2);
    out_free(&r);
    wl_sacct_opts o = {.nodes = FX "nodes-scontrol.txt", .cpu_jobs = true};
    run(&r, FX "sacct.txt", &o);
    CHECK_CELL(&r, "1013", "gpus", "0");
    CHECK_CELL(&r, "1011+1", "cpu", "32");
    out_free(&r);
}

static void models(void)
{
    slurm_out r;
    fixture(&r);
    CHECK_CELL(&r, "1001", "gpu_model", "H100-SXM5-80GB");  /* gres/gpu:h100 (--gpu-type h100=...) */
    CHECK_CELL(&r, "1010_1", "gpu_model", "A100-SXM4-80GB"); /* NVML's nvidia_a100-sxm4-80gb */
    CHECK_CELL(&r, "1017", "gpu_model", "A100-SXM4-80GB");  /* untyped, partition a100 */
    CHECK_CELL(&r, "1017", "ref_gpu", "A100-SXM4-80GB");
    CHECK_CELL(&r, "1018", "gpu_model", "L40S-48GB");
    CHECK(cell(r.trace, "1019", "id") == NULL); /* v100: no node has it */
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_TYPE], 1);
    out_free(&r);
}

static void states_and_times(void)
{
    slurm_out r;
    fixture(&r);
    /* time 0 = the first Submit (1021, 07:30:00), though it is not the first line */
    CHECK_CELL(&r, "1021", "submit", "0");
    CHECK_CELL(&r, "1001", "submit", "1800");
    CHECK_CELL(&r, "1001", "observed_start", "1805");
    CHECK_CELL(&r, "1001", "duration", "7200");
    CHECK_CELL(&r, "1003", "duration", "1800"); /* FAILED: runs to its end */
    CHECK_CELL(&r, "1004", "duration", "7200"); /* TIMEOUT */
    CHECK_CELL(&r, "1005", "duration", "2400"); /* CANCELLED after its start */
    CHECK_CELL(&r, "1009", "class", "high:running"); /* RUNNING: to the dump, 14:40:00 */
    CHECK_CELL(&r, "1009", "duration", "20380");
    CHECK_CELL(&r, "1026", "class", "normal:running"); /* SUSPENDED */
    CHECK(cell(r.trace, "1006", "id") == NULL); /* cancelled while pending */
    CHECK(cell(r.trace, "1007", "id") == NULL); /* cancelled, Start == End, nothing allocated */
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_CANCELLED], 2);
    CHECK_EQ_INT(r.n.cancelled_waits, 2);
    CHECK_NEAR(r.n.cancelled_wait_s, 3600 + 1500, 0, 1e-9);
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_PENDING], 3); /* 1008, the pending array 1010_[4-10%3], 1030 */
    CHECK_EQ_INT(r.n.completed, 13);
    CHECK_EQ_INT(r.n.failed, 4); /* FAILED, OUT_OF_MEMORY, NODE_FAIL, BOOT_FAIL */
    CHECK_EQ_INT(r.n.timeout, 2); /* TIMEOUT, DEADLINE */
    CHECK_EQ_INT(r.n.rows_in, r.n.converted + r.n.skipped);
    CHECK_STR_HAS(r.warn, "accounting 'tests/fixtures/slurm/sacct.txt' line 9 (job 1008): PENDING: never started");
    double last = -1;
    for (const char *l = strchr(r.trace, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        double s = strtod(strchr(l, ',') + 1, NULL);
        CHECK(s >= last);
        last = s;
    }
    out_free(&r);
}

static void fields(void)
{
    slurm_out r;
    fixture(&r);
    CHECK_CELL(&r, "1002", "time_limit", "86400"); /* 1-00:00:00 */
    CHECK_CELL(&r, "1001", "time_limit", "14400"); /* 04:00:00 */
    CHECK_CELL(&r, "1029", "time_limit", "7200");  /* 02:00:00 */
    CHECK_CELL(&r, "1017", "time_limit", "");      /* UNLIMITED */
    CHECK_CELL(&r, "1018", "time_limit", "");      /* Partition_Limit */
    CHECK_EQ_INT(r.n.no_time_limit, 2);
    CHECK_CELL(&r, "1018", "priority", "2000000000"); /* 4294967000 clamped */
    CHECK_EQ_INT(r.n.priority_clamped, 1);
    CHECK_CELL(&r, "1001", "priority", "4294");
    CHECK_CELL(&r, "1001", "tenant", "llm-team"); /* Account */
    CHECK_CELL(&r, "1001", "class", "normal");     /* QOS */
    CHECK_EQ_INT(r.n.array_tasks, 3);
    CHECK_EQ_INT(r.n.het_components, 1);
    out_free(&r);
    /* MM:SS, extra fields anywhere, fields in another order */
    const char *acct = tu_write_tmp("JobName|State|JobID|AllocTRES|NNodes|Submit|Start|End|Timelimit|Elapsed\n"
                                    "a|x|COMPLETED|7|gres/gpu=1|1|2024-05-01T00:00:00|2024-05-01T00:00:00|"
                                    "2024-05-01T00:10:00|30:00|00:10:00\n");
    wl_sacct_opts o = {0};
    run(&r, acct, &o);
    CHECK_EQ_INT(r.rc, GS_EINPUT); /* 11 fields against a header of 10 */
    CHECK_STR_HAS(r.err.msg, "line 2: 11 '|'-separated fields, the header has 10");
    out_free(&r);
    acct = tu_write_tmp("JobName|State|JobID|AllocTRES|NNodes|Submit|Start|End|Timelimit|Elapsed\n"
                        "x|COMPLETED|7|gres/gpu=1|1|2024-05-01T00:00:00|2024-05-01T00:00:00|2024-05-01T00:10:00|"
                        "30:00|00:10:00\n");
    run(&r, acct, &o);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_CELL(&r, "7", "time_limit", "1800");
    CHECK_CELL(&r, "7", "duration", "600");
    CHECK_CELL(&r, "7", "gpu_model", ""); /* no node list: no partition models */
    out_free(&r);
}

static void cluster(void)
{
    slurm_out a, b;
    fixture(&a);
    wl_sacct_opts o = {.nodes = FX "nodes-sinfo.txt"};
    run(&b, FX "sacct.txt", &o);
    CHECK_EQ_INT(b.rc, 0);
    CHECK(a.cluster && b.cluster && !strcmp(a.cluster, b.cluster)); /* sinfo -N gives the same cluster */
    CHECK(a.trace && b.trace && !strcmp(a.trace, b.trace));         /* and the same partitions */
    cJSON *c = cJSON_Parse(a.cluster);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "nodes");
    CHECK_EQ_INT(cJSON_GetArraySize(g), 4);
    const cJSON *h = cJSON_GetArrayItem(g, 0), *l = cJSON_GetArrayItem(g, 2), *cpu = cJSON_GetArrayItem(g, 3);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "model")), "H100-SXM5-80GB"));
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h, "count")), 8);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h, "cpu")), 96); /* CPUEfctv */
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h, "mem_gib")), 2063000.0 / 1024, 1e-12, 0);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "model")), "L40S-48GB"));
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(l, "gpus")), 4);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cpu, "gpus")), 0);
    CHECK_EQ_INT(a.n.nodes_down, 1); /* DOWN+DRAIN, kept */
    CHECK_EQ_INT(a.n.gpus, 104);
    cJSON_Delete(c);
    sim_cluster cl;
    gs_error err = {0};
    CHECK_EQ_INT(sim_cluster_load(&cl, tu_write_tmp(a.cluster), tu_catalog(), &err), 0);
    if (!err.code)
        sim_cluster_free(&cl);
    out_free(&a);
    out_free(&b);
    /* a small sort budget spills and gives the same bytes */
    o.sort_lines = 3;
    run(&b, FX "sacct.txt", &o);
    fixture(&a);
    CHECK(b.n.runs > 5);
    CHECK(a.trace && b.trace && !strcmp(a.trace, b.trace));
    out_free(&a);
    out_free(&b);
}

/* {==== refused inputs ====} */

static const char hdr[] = "JobID|Submit|Start|End|State|AllocTRES|NNodes|Partition|QOS|Priority|Account|Timelimit\n";

static void refused_acct(const char *line, const char *want)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s\n", hdr, line);
    slurm_out r;
    wl_sacct_opts o = {.nodes = FX "nodes-scontrol.txt"};
    run(&r, tu_write_tmp(text), &o);
    CHECK_EQ_INT(r.rc, GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, want);
    out_free(&r);
}

#define OKJOB "2024-05-01T00:00:00|2024-05-01T00:00:10|2024-05-01T01:00:10"

static void refused_accounting(void)
{
    refused_acct("1|2024-05-01 00:00:00|2024-05-01T00:00:10|2024-05-01T01:00:10|COMPLETED|gres/gpu=1|1|h100|n|1|a|01:00:00",
                 "line 2, field 2 (Submit): expected a time YYYY-MM-DDTHH:MM:SS, Unknown or None, found '2024-05-01 "
                 "00:00:00'");
    refused_acct("1|2024-02-30T00:00:00|Unknown|Unknown|PENDING||1|h100|n|1|a|01:00:00", "field 2 (Submit)");
    refused_acct("1|" OKJOB "|FINISHED|gres/gpu=1|1|h100|n|1|a|01:00:00",
                 "field 5 (State): expected a job state (sacct(1) JOB STATE CODES), found 'FINISHED'");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1|one|h100|n|1|a|01:00:00",
                 "field 7 (NNodes): expected a whole number of nodes, found 'one'");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1.5|1|h100|n|1|a|01:00:00",
                 "field 6 (AllocTRES): expected a whole number of GPUs in gres/gpu");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1,mem=lots|1|h100|n|1|a|01:00:00",
                 "field 6 (AllocTRES): expected memory such as mem=64G");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu|1|h100|n|1|a|01:00:00", "expected KEY=VALUE entries");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1|1|h100|n|1|a|1:61:00",
                 "field 12 (Timelimit): expected [D-]HH:MM:SS with minutes and seconds below 60");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1|1|h100|n|1|a|soon", "field 12 (Timelimit): expected [D-]HH:MM:SS");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1|1|h100|n|-5|a|01:00:00", "field 10 (Priority): expected a whole");
    refused_acct("1|2024-05-01T00:00:00|2024-05-01T02:00:00|2024-05-01T01:00:00|COMPLETED|gres/gpu=1|1|h100|n|1|a|1:00",
                 "field 4 (End): expected an end at or after the Start");
    refused_acct("1,2|" OKJOB "|COMPLETED|gres/gpu=1|1|h100|n|1|a|01:00:00", "field 1 (JobID): expected a job id");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1|1|h100|n|1|my,team|01:00:00", "field 11 (Account)");
    refused_acct("1|" OKJOB "|COMPLETED|gres/gpu=1|1|h100", "line 2: 8 '|'-separated fields, the header has 12");
    refused_acct("1|" OKJOB "|COMPLETED||1|h100|n|1|a|01:00:00", "no job converted (1 lines, 1 skipped)");
    slurm_out r;
    wl_sacct_opts o = {0};
    run(&r, tu_write_tmp("JobID|Submit|Start|State|AllocTRES|NNodes\n"), &o);
    CHECK_STR_HAS(r.err.msg, "line 1: no field 'End' (sacct --parsable2 --allocations --format=");
    out_free(&r);
    run(&r, tu_write_tmp(""), &o);
    CHECK_STR_HAS(r.err.msg, "empty (expected the header sacct prints)");
    out_free(&r);
    /* steps (sacct without --allocations) are counted, not refused */
    char text[1024];
    snprintf(text, sizeof text, "%s1|" OKJOB "|COMPLETED|gres/gpu=1|1|h100|n|1|a|01:00:00\n1.batch|" OKJOB
             "|COMPLETED|cpu=1|1|h100|n|1|a|\n", hdr);
    o.nodes = FX "nodes-scontrol.txt";
    run(&r, tu_write_tmp(text), &o);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(r.n.skipped_by[WL_SACCT_SKIP_STEP], 1);
    out_free(&r);
}

static void refused_node(const char *text, const char *want)
{
    slurm_out r;
    wl_sacct_opts o = {.nodes = tu_write_tmp(text)};
    run(&r, FX "sacct.txt", &o);
    CHECK_EQ_INT(r.rc, GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, want);
    out_free(&r);
}

static void refused_nodes(void)
{
    refused_node("NodeName=x1 CPUTot=8 RealMemory=1000 Gres=gpu:v100:4 Partitions=p State=IDLE\n",
                 "line 1 (x1): GPU type 'v100' names no `gpusim models` model or alias; map it with --gpu-type "
                 "'v100=MODEL'");
    refused_node("NodeName=x1 CPUTot=8 RealMemory=1000 Gres=gpu:4 State=IDLE\n", "GPU type 'gpu' names no");
    refused_node("NodeName=x1 CPUTot=eight RealMemory=1000 Gres=gpu:l40s:4\n",
                 "line 1 (x1): CPUs: expected a count, found 'eight'");
    refused_node("NodeName=x1 CPUTot=8 RealMemory=1e3 Gres=gpu:l40s:4\n", "memory: expected MiB (RealMemory)");
    refused_node("NodeName=x1 CPUTot=8 RealMemory=1000 Gres=gpu:l40s:4,gpu:l4:2\n",
                 "Gres 'gpu:l40s:4,gpu:l4:2': expected one GPU entry");
    refused_node("NodeName=x1 CPUTot=8 RealMemory=1000 Gres=gpu:l40s:99\n", "with N <= 64");
    refused_node("gpu001 96 2063000\n", "line 1: expected `scontrol show nodes --oneliner` lines");
    refused_node("NODELIST|CPUS|MEMORY|GRES|PARTITION\nx1|8|1000\n", "line 2: expected 5 '|'-separated fields");
    refused_node("NODELIST|CPUS|MEMORY|GRES|PARTITION\nx1|8|1000|gpu:l40s:4|a\nx1|16|1000|gpu:l40s:4|b\n",
                 "line 3 (x1): the node is listed again with other resources");
    refused_node("NodeName=x1 CPUTot=8 RealMemory=1000 Gres=(null)\n", "no node with GPUs");
}

const test_case tests_import_slurm[] = {
    {"import_sacct_gpus_and_nodes", gpus_and_nodes},
    {"import_sacct_models", models},
    {"import_sacct_states_and_times", states_and_times},
    {"import_sacct_fields", fields},
    {"import_sacct_cluster", cluster},
    {"import_sacct_refused_accounting", refused_accounting},
    {"import_sacct_refused_nodes", refused_nodes},
    {NULL, NULL},
};
