/* test_import_k8s.c - `gpusim import k8s` on the fixtures of
 * tests/fixtures/k8s/ (written from the Kubernetes API reference, GPU
 * feature discovery's labels, the GPU operator's MIG resources and HAMi's
 * resource names): one case per mapping rule, checked on the rows and the
 * cluster it writes, and one per refused input, checked on the message
 * (file, line, column, item, field, what was expected).
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/import_gpu.h"
#include "../sim/sim_cluster_file.h"
#include "../workloads/wl_import_k8s.h"
#include "check.h"
#include "testutil.h"

#define FX "tests/fixtures/k8s/"

typedef struct k8s_out {
    char *trace, *cluster, *warn;
    wl_k8s_counts n;
    gs_error err;
    int rc;
} k8s_out;

/* Runs the importer on o (the catalog resolves names); the outputs land in
 * memory. rc: 0, or the failing step's code (err set). */
static void run(k8s_out *r, wl_k8s_opts *o)
{
    memset(r, 0, sizeof *r);
    import_gpu g;
    import_gpu_init(&g, tu_catalog());
    wl_gpu_names names = import_gpu_names(&g);
    o->names = &names;
    size_t wn, tn, cn;
    FILE *warn = open_memstream(&r->warn, &wn);
    wl_k8s *k = wl_k8s_new(o, warn, &r->n, &r->err);
    r->rc = k ? 0 : r->err.code;
    if (k) {
        FILE *t = open_memstream(&r->trace, &tn), *c = open_memstream(&r->cluster, &cn);
        r->rc = wl_k8s_write_trace(k, t, &r->err);
        if (r->rc == 0)
            r->rc = wl_k8s_write_cluster(k, c, &r->err);
        fclose(t);
        fclose(c);
    }
    fclose(warn);
    wl_k8s_free(k);
}

static void out_free(k8s_out *r)
{
    free(r->trace);
    free(r->cluster);
    free(r->warn);
}

/* The fixtures' usual options: both snapshots, classes, quotas, events. */
static wl_k8s_opts full(void)
{
    wl_k8s_opts o = {.nodes = FX "nodes.json", .npods = 2, .priority_classes = FX "priorityclasses.json",
                     .quotas = FX "quotas.json", .nevents = 1};
    o.pods[0] = FX "pods.json";
    o.pods[1] = FX "pods-later.json";
    o.events[0] = FX "events.json";
    return o;
}

/* The value of column col in the row whose id is id ("" when absent; NULL
 * when there is no such row). Static buffer. */
static const char *cell(const char *trace, const char *id, const char *col)
{
    static char out[512];
    if (!trace)
        return NULL;
    const char *hdr_end = strchr(trace, '\n');
    int want = -1, i = 0;
    for (const char *h = trace; h < hdr_end; i++) {
        const char *e = memchr(h, ',', (size_t)(hdr_end - h));
        if (!e)
            e = hdr_end;
        if ((size_t)(e - h) == strlen(col) && !strncmp(h, col, (size_t)(e - h)))
            want = i;
        h = e + 1;
    }
    size_t il = strlen(id);
    for (const char *l = hdr_end + 1; *l; l = strchr(l, '\n') + 1) {
        if (!strncmp(l, id, il) && l[il] == ',') {
            const char *f = l;
            for (int k = 0; k < want; k++)
                f = strchr(f, ',') + 1;
            size_t n = strcspn(f, ",\n");
            snprintf(out, sizeof out, "%.*s", (int)n, f);
            return want < 0 ? NULL : out;
        }
        if (!strchr(l, '\n'))
            break;
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

static void gpus_and_requests(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_CELL(&r, "team-a/train-small-0", "gpus", "2");  /* limits nvidia.com/gpu */
    CHECK_CELL(&r, "team-a/train-small-0", "cpu", "8");   /* requests cpu */
    CHECK_CELL(&r, "team-a/train-small-0", "mem_gib", "64");
    CHECK_CELL(&r, "team-a/requests-only", "gpus", "1");  /* only in requests */
    CHECK_CELL(&r, "team-a/requests-only", "cpu", "6");   /* only in limits: the request defaults to it */
    CHECK_CELL(&r, "team-a/requests-only", "mem_gib", "48");
    out_free(&r);
}

static void hami_shares(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_CELL(&r, "team-b/notebook-mem", "gpumem", "3000");
    CHECK_CELL(&r, "team-b/notebook-mem", "gpucores", "30");
    CHECK_CELL(&r, "team-b/notebook-pct", "gpumem_pct", "50");
    CHECK_CELL(&r, "team-b/notebook-pct", "gpus", "2");
    CHECK_CELL(&r, "team-b/notebook-pct-over", "gpumem_pct", "100"); /* 150: HAMi clamps to 100 */
    CHECK(cell(r.trace, "team-b/notebook-cores-over", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_CORES], 1);
    CHECK_STR_HAS(r.warn, "(team-b/notebook-cores-over): nvidia.com/gpucores above 100");
    out_free(&r);
}

static void mig_resources(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_CELL(&r, "inference/mig-small", "mig", "1g.10gb"); /* nvidia.com/mig-1g.10gb: 1 */
    CHECK_CELL(&r, "inference/mig-small", "gpus", "1");
    CHECK_CELL(&r, "inference/mig-two", "mig", "3g.40gb");
    CHECK_CELL(&r, "inference/mig-two", "gpus", "2");
    CHECK_CELL(&r, "inference/single-mig", "mig", "1g.10gb"); /* nvidia.com/gpu on a single-strategy node */
    CHECK(cell(r.trace, "inference/mig-and-gpu", "id") == NULL);
    CHECK(cell(r.trace, "inference/mig-two-profiles", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_MIXED], 2);
    out_free(&r);
}

static void containers(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_CELL(&r, "team-b/two-same", "gpus", "2"); /* two containers of one share: their GPUs add */
    CHECK_CELL(&r, "team-b/two-same", "gpumem", "4000");
    CHECK_CELL(&r, "team-b/two-same", "cpu", "4");
    CHECK_EQ_INT(r.n.merged_containers, 1);
    CHECK(cell(r.trace, "team-b/two-shares", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_SHAPES], 1);
    /* max(4 + 0.5 sidecar, 16 init) + 0.25 overhead; max(32 Gi + 512 Mi, 8 Gi) + 120 Mi */
    CHECK_CELL(&r, "team-a/with-init", "cpu", "16.25");
    CHECK_CELL(&r, "team-a/with-init", "mem_gib", "32.6171875");
    CHECK(cell(r.trace, "team-a/too-big", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_TOO_MANY], 1);
    out_free(&r);
}

static void priorities(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_CELL(&r, "team-a/prio-spec", "priority", "777");             /* spec.priority wins over its class */
    CHECK_CELL(&r, "team-a/train-llama-0", "priority", "1000000");     /* inference-critical's value */
    CHECK_CELL(&r, "team-a/train-small-0", "priority", "100");         /* no class: the globalDefault */
    CHECK_CELL(&r, "kube-system/gpu-critical", "priority", "2000000000"); /* 2000001000 clamped */
    CHECK_EQ_INT(r.n.priority_clamped, 1);
    CHECK_EQ_INT(r.n.preempt_never, 1); /* notebook-mem's class never preempts */
    CHECK_CELL(&r, "team-b/notebook-mem", "priority", "500");
    CHECK(cell(r.trace, "team-a/prio-unknown-class", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_PRIORITY], 1);
    out_free(&r);
    o.priority_classes = NULL; /* without the objects, a named class cannot be resolved */
    run(&r, &o);
    CHECK(cell(r.trace, "team-a/train-llama-0", "id") == NULL);
    CHECK_CELL(&r, "team-a/train-small-0", "priority", "0");
    CHECK_CELL(&r, "team-a/prio-spec", "priority", "777");
    out_free(&r);
}

static void times(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    /* time 0 = the first converted creation, 08:00:00 (llama-...-old) */
    CHECK_CELL(&r, "team-a/train-small-0", "submit", "5400");         /* created 09:30:00 */
    CHECK_CELL(&r, "team-a/train-small-0", "observed_start", "6300"); /* status.startTime 09:45:00 */
    CHECK_CELL(&r, "team-a/train-small-0", "duration", "1800");       /* finishedAt 10:15:00 */
    CHECK_CELL(&r, "team-a/eval-failed-0", "duration", "900");        /* Failed: runs to its end */
    CHECK_EQ_INT(r.n.failed, 1);
    /* running at the last snapshot (13:10:01): duration to it, marked */
    CHECK_CELL(&r, "team-a/pending-0", "class", "Job:running");
    CHECK_CELL(&r, "team-a/pending-0", "duration", "2401");
    CHECK_CELL(&r, "team-a/ended-by-conditions", "duration", "1200"); /* Ready -> False at 10:52:01 */
    CHECK_EQ_INT(r.n.end_from_conditions, 1);
    CHECK(cell(r.trace, "team-a/ended-no-times", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_NO_END], 1);
    CHECK(cell(r.trace, "team-a/lost-0", "id") == NULL);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_PHASE], 1);
    CHECK_CELL(&r, "team-a/skewed", "observed_start", cell(r.trace, "team-a/skewed", "submit")); /* start < creation */
    CHECK_EQ_INT(r.n.clock_skew, 1);
    /* sorted by submit, non-decreasing */
    double last = -1;
    int rows = 0;
    for (const char *l = strchr(r.trace, '\n') + 1; *l; l = strchr(l, '\n') + 1, rows++) {
        const char *c = strchr(l, ',') + 1;
        double s = strtod(c, NULL);
        CHECK(s >= last);
        last = s;
    }
    CHECK_EQ_INT(rows, r.n.converted);
    out_free(&r);
}

static void owners(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_CELL(&r, "team-a/train-small-0", "class", "Job");
    CHECK_CELL(&r, "inference/llama-7d9f8b6c5-old", "class", "Deployment"); /* ReplicaSet + pod-template-hash */
    CHECK_CELL(&r, "inference/lws-0", "class", "LeaderWorkerSet:running");
    CHECK_CELL(&r, "team-a/jobset-worker-0-0", "class", "JobSet");
    CHECK_CELL(&r, "team-a/pytorchjob-master-0", "class", "PyTorchJob");
    CHECK_CELL(&r, "default/bare", "class", "Pod");
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_DAEMONSET], 1);
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_NO_GPU], 1);
    out_free(&r);
    o.cpu_pods = true;
    run(&r, &o);
    CHECK_CELL(&r, "default/web-5b8d7c9f4-q2w3e", "gpus", "0");
    CHECK_CELL(&r, "default/web-5b8d7c9f4-q2w3e", "class", "Deployment:running");
    CHECK_EQ_INT(r.n.skipped_by[WL_K8S_SKIP_DAEMONSET], 1); /* still: bound to every node */
    out_free(&r);
}

static void models(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_CELL(&r, "team-a/train-llama-0", "gpu_model", "H100-SXM5-80GB"); /* nodeSelector gpu.product */
    CHECK_CELL(&r, "team-a/affinity-a100", "gpu_model", "A100-SXM4-80GB"); /* required affinity In */
    CHECK_CELL(&r, "team-a/affinity-not-h100", "gpu_model", "A100-SXM4-80GB|L4-24GB"); /* NotIn */
    CHECK_CELL(&r, "team-b/hami-type-l4", "gpu_model", "L4-24GB");       /* HAMi use-gputype */
    CHECK_CELL(&r, "team-b/hami-nouse-h100", "gpu_model", "A100-SXM4-80GB"); /* nouse-gputype H100,L4 */
    CHECK_CELL(&r, "team-a/train-small-0", "gpu_model", "");             /* any */
    CHECK_CELL(&r, "team-a/train-small-0", "ref_gpu", "H100-SXM5-80GB"); /* it ran on gpu-h100-1 */
    CHECK_CELL(&r, "team-b/hami-type-l4", "ref_gpu", "L4-24GB");
    CHECK(cell(r.trace, "team-a/wants-h200", "id") == NULL); /* H200: no node has it (and it never started) */
    CHECK_CELL(&r, "team-a/ondemand-0", "tier", "no-spot");
    CHECK_CELL(&r, "team-a/deadline-0", "time_limit", "3600");
    CHECK_CELL(&r, "team-b/notebook-pct", "tenant", "team-b");
    CHECK_CELL(&r, "team-a/train-small-0", "preemptible", "1");
    out_free(&r);
}

static void snapshots(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.n.pods_in, 88);
    CHECK_EQ_INT(r.n.duplicates, 43); /* the copies the later snapshot replaces */
    CHECK_EQ_INT(r.n.pods, 45);
    CHECK_EQ_INT(r.n.pods, r.n.converted + r.n.skipped + r.n.replicas);
    CHECK_CELL(&r, "team-a/finishes-later-0", "class", "Job");        /* ended in the later snapshot */
    CHECK_CELL(&r, "team-a/finishes-later-0", "duration", "3600");
    CHECK_CELL(&r, "team-a/gone-later-0", "class", "Job:running");     /* gone later: cut at the first */
    CHECK_CELL(&r, "team-a/gone-later-0", "duration", "4500");         /* 10:45:05 to 12:00:05 */
    CHECK_CELL(&r, "team-a/new-later-0", "observed_start", "16801");
    out_free(&r);
    o.npods = 1; /* the first alone: pending-0 never started */
    run(&r, &o);
    CHECK(cell(r.trace, "team-a/pending-0", "id") == NULL);
    CHECK_STR_HAS(r.warn, "pod list 'tests/fixtures/k8s/pods.json' items[25] (team-a/pending-0): not started by the "
                          "last snapshot");
    CHECK_EQ_INT(r.n.duplicates, 0);
    out_free(&r);
}

static void service_rows(void)
{
    wl_k8s_opts o = full();
    wl_k8s_service sv = {.ns_name = "inference/llama", .ncolumns = 2,
                         .columns = {{"rate", "2"}, {"svc_mean_ms", "800"}}};
    o.services = &sv;
    o.nservices = 1;
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(r.n.services, 1);
    CHECK_EQ_INT(r.n.replicas, 4);
    CHECK(cell(r.trace, "inference/llama-7d9f8b6c5-old", "id") == NULL);
    CHECK_CELL(&r, "inference/llama", "kind", "service");
    CHECK_CELL(&r, "inference/llama", "submit", "0");
    CHECK_CELL(&r, "inference/llama", "replicas_max", "3"); /* 09:00:45 to 09:30: old, a, b at once */
    CHECK_CELL(&r, "inference/llama", "rate", "2");
    CHECK_CELL(&r, "inference/llama", "svc_mean_ms", "800");
    CHECK_CELL(&r, "inference/llama", "class", "Deployment:running");
    CHECK_CELL(&r, "inference/llama", "duration", "18601"); /* to the last snapshot, 13:10:01 */
    CHECK_CELL(&r, "team-a/train-small-0", "kind", "");
    out_free(&r);
    snprintf(sv.ns_name, sizeof sv.ns_name, "inference/lama"); /* a typo: said, not silently nothing */
    run(&r, &o);
    CHECK_EQ_INT(r.n.services_unmatched, 1);
    CHECK_STR_HAS(r.warn, "--service inference/lama: no started pod of this Deployment in the snapshots");
    out_free(&r);
}

static void events(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.n.events_in, 7);
    CHECK_EQ_INT(r.n.waited_events, 2);    /* train-small-0 and pending-0 had FailedScheduling */
    CHECK_EQ_INT(r.n.preempted_events, 1); /* eval-failed-0 */
    CHECK_EQ_INT(r.n.event_pods_missing, 1); /* deleted-before-0 is in no snapshot */
    out_free(&r);
}

/* {==== the cluster ====} */

static const cJSON *group(const cJSON *root, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "nodes"), i);
}

static double num(const cJSON *o, const char *k) { return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k)); }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k)); }

static void cluster_nodes(void)
{
    wl_k8s_opts o = full();
    k8s_out r;
    run(&r, &o);
    cJSON *c = cJSON_Parse(r.cluster);
    CHECK(c != NULL);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "nodes")), 6);
    const cJSON *h = group(c, 0), *mix = group(c, 1), *single = group(c, 2), *l4 = group(c, 3), *hami = group(c, 4),
                *cpu = group(c, 5);
    CHECK(!strcmp(str(h, "model"), "H100-SXM5-80GB")); /* NVIDIA-H100-80GB-HBM3 */
    CHECK_EQ_INT(num(h, "count"), 8);
    CHECK_EQ_INT(num(h, "gpus"), 8);
    CHECK_EQ_INT(num(h, "cpu"), 192);
    CHECK_NEAR(num(h, "mem_gib"), 2113389288.0 / 1048576, 1e-12, 0); /* capacity memory in Ki */
    /* mixed strategy: 3g.40gb x8, 2g.20gb x8, 1g.10gb x16 on 8 cards: one 3g, one 2g, two 1g a card */
    const cJSON *mig = cJSON_GetObjectItemCaseSensitive(mix, "mig");
    CHECK(cJSON_IsArray(mig) && cJSON_GetArraySize(mig) == 4);
    CHECK(!strcmp(str(cJSON_GetArrayItem(mig, 0), "profile"), "3g.40gb"));
    CHECK_EQ_INT(num(mix, "count"), 2);
    /* single strategy: 56 instances of 1g.10gb are 8 cards of seven */
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(single, "mig")), "all-1g.10gb"));
    CHECK_EQ_INT(num(single, "gpus"), 8);
    /* time-slicing: capacity 16 = 4 cards x 4 replicas; "-SHARED" cut from the product */
    CHECK(!strcmp(str(l4, "model"), "L4-24GB"));
    CHECK_EQ_INT(num(l4, "gpus"), 4);
    /* HAMi: no GFD labels; 8 devices registered, capacity 80 vGPUs */
    CHECK(!strcmp(str(hami, "model"), "A100-SXM4-80GB"));
    CHECK_EQ_INT(num(hami, "gpus"), 8);
    CHECK(!cJSON_GetObjectItemCaseSensitive(hami, "mig"));
    CHECK_EQ_INT(num(cpu, "gpus"), 0); /* CPU-only nodes under the most common model */
    CHECK(!strcmp(str(cpu, "model"), "H100-SXM5-80GB"));
    CHECK_EQ_INT(r.n.nodes_control_plane, 1);
    CHECK_EQ_INT(r.n.nodes_cordoned, 1);
    CHECK_EQ_INT(r.n.nodes_shared, 3);
    CHECK_EQ_INT(r.n.gpus, 64 + 16 + 8 + 8 + 8);
    /* quotas: team-a's two quotas, the smaller GPU cap; HAMi's gpumem in MiB */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "tenants");
    CHECK_EQ_INT(cJSON_GetArraySize(t), 2);
    CHECK(!strcmp(str(cJSON_GetArrayItem(t, 0), "name"), "team-a"));
    CHECK_EQ_INT(num(cJSON_GetArrayItem(t, 0), "gpus"), 12);
    CHECK_NEAR(num(cJSON_GetArrayItem(t, 0), "gpu_mem_gib"), 160, 0, 1e-9);
    CHECK_EQ_INT(num(cJSON_GetArrayItem(t, 1), "gpus"), 8);
    CHECK_EQ_INT(r.n.quota_keys_ignored, 4); /* cpu, memory, a scoped quota, a MIG quota */
    cJSON_Delete(c);
    /* the cluster loads as a cluster file, MIG layouts and tenants included */
    sim_cluster cl;
    gs_error err = {0};
    CHECK_EQ_INT(sim_cluster_load(&cl, tu_write_tmp(r.cluster), tu_catalog(), &err), 0);
    if (!err.code)
        sim_cluster_free(&cl);
    else
        fprintf(stderr, "    %s\n", err.msg);
    out_free(&r);
}

/* A node List of n H100 nodes in the given (name, block, rack)
 * domains. */
static const char *domain_nodes(const char *const dom[8][3], int n)
{
    static char text[8192];
    snprintf(text, sizeof text, "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [");
    for (int i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s{\"kind\": \"Node\", \"metadata\": {\"name\": "
                 "\"%s\", \"labels\": {\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", \"block\": \"%s\", "
                 "\"rack\": \"%s\"}}, \"status\": {\"capacity\": {\"nvidia.com/gpu\": \"8\"}}}", i ? ", " : "",
                 dom[i][0], dom[i][1], dom[i][2]);
    strcat(text, "]}");
    return tu_write_tmp(text);
}

static const char one_pod[] =
    "{\"kind\": \"List\", \"items\": [{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"namespace\": \"a\", "
    "\"uid\": \"u1\", \"creationTimestamp\": \"2024-05-01T10:00:00Z\"}, \"spec\": {\"containers\": [{\"name\": "
    "\"m\", \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"8\"}}}]}, \"status\": {\"phase\": \"Succeeded\", "
    "\"startTime\": \"2024-05-01T10:00:01Z\", \"containerStatuses\": [{\"state\": {\"terminated\": "
    "{\"finishedAt\": \"2024-05-01T10:10:01Z\"}}}]}}]}";

static void topology(void)
{
    const char *const regular[8][3] = {{"n4", "b1", "r2"}, {"n1", "b1", "r1"}, {"n3", "b1", "r2"},
                                       {"n2", "b1", "r1"}, {"n5", "b2", "r3"}, {"n6", "b2", "r3"},
                                       {"n7", "b2", "r4"}, {"n8", "b2", "r4"}};
    wl_k8s_opts o = {.nodes = domain_nodes(regular, 8), .npods = 1, .ntopo = 2, .topo = {"block", "rack"},
                     .topo_bw_gbps = {50, 200}};
    o.pods[0] = tu_write_tmp(one_pod);
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.rc, 0);
    cJSON *c = cJSON_Parse(r.cluster);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "topology");
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "sizes"), 0)), 2);
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "sizes"), 1)), 2);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "levels"), 0)), "block"));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "levels"), 1)), "rack"));
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "bw_gbps"), 1)), 200);
    CHECK_EQ_INT(num(group(c, 0), "count"), 8); /* identical nodes in domain order: one group */
    cJSON_Delete(c);
    sim_cluster cl; /* the cluster file's topology reader takes it */
    gs_error err = {0};
    CHECK_EQ_INT(sim_cluster_load(&cl, tu_write_tmp(r.cluster), tu_catalog(), &err), 0);
    if (!err.code)
        sim_cluster_free(&cl);
    else
        fprintf(stderr, "    %s\n", err.msg);
    out_free(&r);
    o.nodes = domain_nodes(regular, 7); /* the last rack holds fewer: allowed */
    run(&r, &o);
    CHECK_EQ_INT(r.rc, 0);
    out_free(&r);
    /* a rack of 3 beside racks of 2: the cluster file's topology cannot say it */
    const char *const irregular[8][3] = {{"n4", "b1", "r2"}, {"n1", "b1", "r1"}, {"n3", "b1", "r2"},
                                         {"n2", "b1", "r1"}, {"n5", "b2", "r3"}, {"n6", "b2", "r3"},
                                         {"n7", "b2", "r4"}, {"n8", "b2", "r3"}};
    o.nodes = domain_nodes(irregular, 8);
    run(&r, &o);
    CHECK_EQ_INT(r.rc, GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, "topology level 'rack': domain 'r3' holds 3 nodes, the first 2");
    out_free(&r);
    const char *const short_rack[8][3] = {{"n1", "b1", "r1"}, {"n2", "b1", "r2"}, {"n3", "b1", "r2"},
                                          {"n4", "b2", "r3"}, {"n5", "b2", "r3"}};
    o.nodes = domain_nodes(short_rack, 5); /* a short rack before the last */
    run(&r, &o);
    CHECK_STR_HAS(r.err.msg, "topology level 'rack': domain 'r2' holds 2 nodes, the first 1");
    out_free(&r);
    o.topo[1] = "zone"; /* a node without the label */
    o.nodes = domain_nodes(regular, 8);
    run(&r, &o);
    CHECK_STR_HAS(r.err.msg, "items[0] (n4): metadata.labels: no topology label 'zone' (--topology-label)");
    out_free(&r);
}

/* HAMi's older register annotation (docs/develop/protocol.md): devices
 * separated by ':', the type fifth, "NVIDIA-" before a name that lacks it. */
static void hami_colon_form(void)
{
    static const char nodes[] =
        "{\"items\": [{\"kind\": \"Node\", \"metadata\": {\"name\": \"t4\", \"annotations\": "
        "{\"hami.io/node-nvidia-register\": \"GPU-a,10,15360,100,NVIDIA-Tesla T4,0,true:GPU-b,10,15360,100,"
        "NVIDIA-Tesla T4,0,true:\"}}, \"status\": {\"capacity\": {\"nvidia.com/gpu\": \"20\"}}}]}";
    wl_k8s_opts o = {.nodes = tu_write_tmp(nodes), .npods = 1};
    o.pods[0] = tu_write_tmp(one_pod);
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_HAS(r.cluster, "\"model\":\t\"T4-16GB\"");
    CHECK_STR_HAS(r.cluster, "\"gpus\":\t2\n");
    CHECK_EQ_INT(r.n.nodes_shared, 1);
    out_free(&r);
}

/* A small sort budget spills runs and gives the same bytes. */
static void spilled_sort(void)
{
    wl_k8s_opts o = full();
    k8s_out a, b;
    run(&a, &o);
    o.sort_lines = 4;
    run(&b, &o);
    CHECK(b.n.runs > 10);
    CHECK(a.trace && b.trace && !strcmp(a.trace, b.trace));
    out_free(&a);
    out_free(&b);
}

/* {==== refused inputs ====} */

static const char good_nodes[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n"
    "  {\"kind\": \"Node\", \"metadata\": {\"name\": \"n1\", \"labels\": {\"nvidia.com/gpu.product\": "
    "\"NVIDIA-H100-80GB-HBM3\", \"nvidia.com/gpu.count\": \"8\"}}, \"status\": {\"capacity\": {\"cpu\": \"96\", "
    "\"memory\": \"1Ti\", \"nvidia.com/gpu\": \"8\"}}}\n]}\n";

/* Runs on the given node and pod texts (NULL: the good ones) and checks the
 * import is refused with a message holding want. */
static void refused(const char *nodes, const char *pods, const char *want)
{
    wl_k8s_opts o = {.nodes = tu_write_tmp(nodes ? nodes : good_nodes), .npods = 1};
    o.pods[0] = tu_write_tmp(pods ? pods : one_pod);
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.rc, GS_EINPUT);
    CHECK_STR_HAS(r.err.msg, want);
    out_free(&r);
}

/* one_pod with the first occurrence of from replaced by to. */
static const char *pod_with(const char *from, const char *to)
{
    static char buf[4096];
    const char *at = strstr(one_pod, from);
    if (!at)
        return "(fixture text not found)";
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - one_pod), one_pod, to, at + strlen(from));
    return buf;
}

static const char *nodes_with(const char *from, const char *to)
{
    static char buf[4096];
    const char *at = strstr(good_nodes, from);
    if (!at)
        return "(fixture text not found)";
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - good_nodes), good_nodes, to, at + strlen(from));
    return buf;
}

static void refused_lists(void)
{
    refused(NULL, "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}",
            "no \"items\" array: expected a List, as `kubectl get ... -o json` prints it");
    refused(NULL, "[1, 2]", "line 1, column 1: unexpected '[': expected a JSON object (a List");
    refused(NULL, "{\"items\": [1]}", "line 1, column 12: items[0]: expected an object");
    refused(NULL, "{\"items\": []} {}", "line 1, column 15: unexpected '{': only one JSON value is allowed");
    refused(NULL, "{\"items\": [], \"items\": []}", "line 1, column 15: duplicate key 'items'");
    refused(NULL, "{\"items\": [{\"a\": 1,}]}", "line 1, column 20: unexpected '}'");
    refused(NULL, "{\"items\": [{\"a\": \"x\"", "unexpected end of input inside the value that starts at line 1, "
                                                "column 12");
    refused(NULL, "{\"items\": [{\"a\": 1, \"a\": 2}]}", "duplicate key 'a'");
    refused(NULL, "{\"kind\": \"NodeList\", \"items\": []}", "kind 'NodeList': expected a List of Pod objects");
}

static void refused_pods(void)
{
    refused(NULL, pod_with("\"kind\": \"Pod\"", "\"kind\": \"Node\""), "items[0]: kind: expected a Pod, found 'Node'");
    refused(NULL, pod_with("\"uid\": \"u1\", ", ""), "items[0] (a/p): metadata.uid: expected the pod's uid");
    refused(NULL, pod_with("\"namespace\": \"a\", ", ""), "items[0] (p): metadata.namespace: expected the pod's");
    refused(NULL, pod_with("2024-05-01T10:00:00Z", "2024-05-01 10:00:00"),
            "items[0] (a/p): metadata.creationTimestamp: expected an RFC 3339 time");
    refused(NULL, pod_with("2024-05-01T10:00:00Z", "2024-02-30T10:00:00Z"), "metadata.creationTimestamp: expected");
    refused(NULL, pod_with("\"creationTimestamp\": \"2024-05-01T10:00:00Z\"", "\"creationTimestamp\": null"),
            "metadata.creationTimestamp: expected the pod's creation time");
    refused(NULL, pod_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"1.5\""),
            "spec.containers[0].resources.limits.nvidia.com/gpu: expected a whole number");
    refused(NULL, pod_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"eight\""),
            "spec.containers[0].resources.limits.nvidia.com/gpu: expected a quantity");
    refused(NULL, pod_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": 8"),
            "limits.nvidia.com/gpu: expected a quantity such as \"1\", \"500m\" or \"16Gi\"");
    refused(NULL, pod_with("\"nvidia.com/gpu\": \"8\"", "\"cpu\": \"-2\""), "limits.cpu: expected a quantity");
    refused(NULL, pod_with("\"phase\": \"Succeeded\"", "\"phase\": \"Done\""),
            "status.phase: expected Pending, Running, Succeeded, Failed or Unknown");
    refused(NULL, pod_with("\"containers\": [", "\"containers\": [7, "), "spec.containers[0]: expected a container");
    refused(NULL, pod_with("\"finishedAt\": \"2024-05-01T10:10:01Z\"", "\"finishedAt\": \"10:10\""),
            "status.containerStatuses[0].state.terminated.finishedAt: expected an RFC 3339 time");
    /* the position is the file's: line 1, the column of the value */
    refused(NULL, pod_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"x\""), "line 1, column 228:");
}

static void refused_nodes(void)
{
    refused(nodes_with("NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-PCIe"),
            NULL, "unknown GPU product 'NVIDIA-H100-PCIe': it is no `gpusim models` name or alias; map it with "
                  "--gpu-product 'NVIDIA-H100-PCIe=MODEL'");
    refused(nodes_with("\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", ", ""), NULL,
            "items[0] (n1): metadata.labels: a node with GPUs needs the label nvidia.com/gpu.product");
    refused(nodes_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"8.5\""), NULL,
            "status.capacity.nvidia.com/gpu: expected a whole number of GPUs");
    refused(nodes_with("\"memory\": \"1Ti\"", "\"memory\": \"lots\""), NULL,
            "status.capacity.memory: expected a quantity");
    refused(nodes_with("\"kind\": \"Node\"", "\"kind\": \"Pod\""), NULL, "kind: expected a Node, found 'Pod'");
    refused(nodes_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"0\""), NULL, "no node with GPUs");
    refused(nodes_with("\"nvidia.com/gpu.count\": \"8\"", "\"nvidia.com/gpu.count\": \"many\""), NULL,
            "must be whole numbers");
    /* MIG, mixed strategy: instances that do not spread evenly, or beside whole GPUs */
    refused(nodes_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"0\", \"nvidia.com/mig-1g.10gb\": \"9\""),
            NULL, "status.capacity.nvidia.com/mig-1g.10gb: 9 instances over 8 MIG cards");
    refused(nodes_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"4\", \"nvidia.com/mig-1g.10gb\": \"28\""),
            NULL, "4 whole GPUs beside MIG devices on 8 cards");
    refused(nodes_with("\"nvidia.com/gpu.count\": \"8\"}}, \"status\": {\"capacity\": {\"cpu\": \"96\", \"memory\": "
                       "\"1Ti\", \"nvidia.com/gpu\": \"8\"",
                       "\"nvidia.com/mig.strategy\": \"mixed\"}}, \"status\": {\"capacity\": {\"cpu\": \"96\", "
                       "\"memory\": \"1Ti\", \"nvidia.com/mig-1g.10gb\": \"56\""),
            NULL, "MIG devices without the label nvidia.com/gpu.count");
    refused(nodes_with("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"0\", \"nvidia.com/mig-4g.40gb\": \"16\""),
            NULL, "the MIG instances of one card (2, 4g.40gb first) do not fit a H100-SXM5-80GB card");
    refused(nodes_with("NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-80GB-HBM3-MIG-9g.99gb"), NULL,
            "MIG profile '9g.99gb' is not one of H100-SXM5-80GB's");
    refused(nodes_with("\"name\": \"n1\"", "\"name\": \"n,1\""), NULL, "metadata.name: expected the node's name");
    char node[1024], twice[2200];
    const char *first = strstr(good_nodes, "{\"kind\""), *last = strstr(good_nodes, "\n]}");
    snprintf(node, sizeof node, "%.*s", (int)(last - first), first);
    snprintf(twice, sizeof twice, "{\"items\": [%s, %s]}", node, node);
    refused(twice, NULL, "node 'n1' is listed twice");
}

static void refused_meta(void)
{
    static const char pc[] = "{\"items\": [{\"kind\": \"PriorityClass\", \"metadata\": {\"name\": \"hi\"}, \"value\": "
                             "\"high\"}]}";
    wl_k8s_opts o = {.nodes = tu_write_tmp(good_nodes), .npods = 1, .priority_classes = tu_write_tmp(pc)};
    o.pods[0] = tu_write_tmp(one_pod);
    k8s_out r;
    run(&r, &o);
    CHECK_STR_HAS(r.err.msg, "PriorityClass list '");
    CHECK_STR_HAS(r.err.msg, "items[0] (hi): value: expected a whole number (int32)");
    out_free(&r);
    static const char rq[] = "{\"items\": [{\"kind\": \"ResourceQuota\", \"metadata\": {\"namespace\": \"a\"}, "
                             "\"spec\": {\"hard\": {\"requests.nvidia.com/gpu\": 4}}}]}";
    o.priority_classes = NULL;
    o.quotas = tu_write_tmp(rq);
    run(&r, &o);
    CHECK_STR_HAS(r.err.msg, "items[0] (a): spec.hard.requests.nvidia.com/gpu: expected a quantity");
    out_free(&r);
    static const char ev[] = "{\"items\": [{\"kind\": \"Event\", \"reason\": \"Scheduled\"}]}";
    o.quotas = NULL;
    o.nevents = 1;
    o.events[0] = tu_write_tmp(ev);
    run(&r, &o);
    CHECK_STR_HAS(r.err.msg, "items[0]: involvedObject: expected the object the event is about");
    out_free(&r);
}

/* Escapes inside strings do not end them: a quote, a backslash, and an
 * escape before an ordinary letter and then the closing quote. */
static void string_escapes(void)
{
    wl_k8s_opts o = {.nodes = tu_write_tmp(good_nodes), .npods = 1};
    o.pods[0] = tu_write_tmp(pod_with("\"metadata\": {", "\"metadata\": {\"annotations\": {\"note\": \"a \\\"}\\\\ "
                                      "\\n\\t]\", \"x\": \"\\u00e9\", \"y\": \"\\n\"}, "));
    k8s_out r;
    run(&r, &o);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(r.n.converted, 1);
    out_free(&r);
}

/* A pod List every pod of which is skipped converts to nothing: refused. */
static void refused_empty(void)
{
    refused(NULL, pod_with("\"nvidia.com/gpu\": \"8\"", "\"cpu\": \"2\""), "no pod converted (1 read, 1 skipped)");
}

const test_case tests_import_k8s[] = {
    {"import_k8s_gpus_and_requests", gpus_and_requests},
    {"import_k8s_hami_shares", hami_shares},
    {"import_k8s_mig_resources", mig_resources},
    {"import_k8s_containers", containers},
    {"import_k8s_priorities", priorities},
    {"import_k8s_times", times},
    {"import_k8s_owners", owners},
    {"import_k8s_models_tenant_tier", models},
    {"import_k8s_snapshots", snapshots},
    {"import_k8s_service_rows", service_rows},
    {"import_k8s_events", events},
    {"import_k8s_cluster_nodes", cluster_nodes},
    {"import_k8s_topology", topology},
    {"import_k8s_spilled_sort", spilled_sort},
    {"import_k8s_hami_colon_form", hami_colon_form},
    {"import_k8s_refused_lists", refused_lists},
    {"import_k8s_refused_pods", refused_pods},
    {"import_k8s_refused_nodes", refused_nodes},
    {"import_k8s_refused_meta", refused_meta},
    {"import_k8s_refused_empty", refused_empty},
    {"import_k8s_string_escapes", string_escapes},
    {NULL, NULL},
};
