/* cli_import_sacct.c - `gpusim import sacct SACCT.txt --nodes NODES.txt`: a
 * Slurm cluster's accounting and nodes to a trace and a cluster file (see
 * workloads/wl_import_slurm.h; the mapping in workloads/README.md,
 * "Slurm").
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "../workloads/wl_import_slurm.h"
#include "../workloads/wl_value.h"
#include "cli.h"
#include "import_gpu.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpusim import sacct SACCT.txt [--nodes NODES.txt] [--gpu-type TYPE=MODEL ...] [--cpu-jobs]\n"
            "                           [--sort-lines N] [--out-trace T.csv] [--out-cluster C.json]\n"
            "\n"
            "  SACCT.txt: sacct --parsable2 --allocations --format=JobID,Submit,Start,End,State,AllocTRES,NNodes,\n"
            "  Partition,QOS,Priority,Account,Timelimit (the first seven needed, other fields ignored) -> one row\n"
            "  per job: GPUs from AllocTRES gres/gpu (typed gres/gpu:TYPE: gpu_model), NNodes > 1 a gang with\n"
            "  gpus_per_node, Timelimit as time_limit, Priority, Account as tenant, QOS as class, Start as\n"
            "  observed_start, End - Start as duration (running jobs: to the dump, class ':running'). PENDING\n"
            "  jobs and jobs CANCELLED before they started are counted, not replayed.\n"
            "  NODES.txt: scontrol show nodes --oneliner, or sinfo -N -o '%%N|%%c|%%m|%%G|%%P' -> a cluster file\n"
            "  (GRES type -> model; an untyped gpu needs --gpu-type gpu=MODEL); partitions give untyped jobs\n"
            "  their models.\n");
}

typedef struct sacct_cli {
    import_gpu gpus;
    const char *in, *out_cluster;
    wl_slurm *s;
} sacct_cli;

static bool type_opt(const char *opt, const char *v, void *p)
{
    sacct_cli *c = p;
    char why[1200];
    if (!import_gpu_map(&c->gpus, v, why, sizeof why)) {
        fprintf(stderr, "gpusim: error: %s: %s\n", opt, why);
        return false;
    }
    return true;
}

static int emit_trace(FILE *out, void *ud, gs_error *err)
{
    sacct_cli *c = ud;
    return wl_slurm_write_trace(c->s, c->in, out, err);
}

static int emit_cluster(FILE *out, void *ud, gs_error *err)
{
    sacct_cli *c = ud;
    return wl_slurm_write_cluster(c->s, out, err);
}

static void print_counts(const wl_sacct_opts *o, const wl_sacct_counts *n, const char *out_trace,
                         const char *out_cluster)
{
    if (o->nodes)
        fprintf(stderr, "import sacct: %ld nodes read: %ld with GPUs (%ld GPUs), %ld CPU-only, %ld down or draining "
                        "(kept), %ld groups%s%s\n", n->nodes_in, n->nodes_gpu, n->gpus, n->nodes_cpu_only,
                n->nodes_down, n->groups, out_cluster ? ", written to " : "", out_cluster ? out_cluster : "");
    fprintf(stderr, "import sacct: %ld job lines read, %ld converted (%ld completed, %ld failed, %ld timed out, %ld "
                    "cancelled after starting, %ld other ends, %ld running at the dump: duration to it, class "
                    "':running'), %ld skipped%s%s\n", n->rows_in, n->converted, n->completed, n->failed, n->timeout,
            n->cancelled_run, n->other_end, n->running, n->skipped, out_trace ? ", written to " : "",
            out_trace ? out_trace : "");
    for (int i = 0; i < WL_SACCT_NREASONS; i++)
        if (n->skipped_by[i])
            fprintf(stderr, "  skipped: %ld x %s\n", n->skipped_by[i], wl_sacct_reason[i]);
    if (n->cancelled_waits)
        fprintf(stderr, "  cancelled before starting: %ld waited %.0f s on average (not replayed)\n",
                n->cancelled_waits, n->cancelled_wait_s / (double)n->cancelled_waits);
    char t0[32], td[32];
    wl_value_time_format(n->origin_us, t0, sizeof t0);
    wl_value_time_format(n->dump_us, td, sizeof td);
    fprintf(stderr, "  trace time 0 = %s (the first Submit, read as UTC); dump at or after %s; multi-node: %ld; array "
                    "tasks: %ld; heterogeneous components (rows of their own, not co-scheduled): %ld; no time "
                    "limit: %ld; priorities beyond 2e9 clamped: %ld\n", t0, td, n->multi_node, n->array_tasks,
            n->het_components, n->no_time_limit, n->priority_clamped);
}

int cli_import_sacct(int argc, char **argv)
{
    sacct_cli c;
    memset(&c, 0, sizeof c);
    wl_sacct_opts o = {.sort_lines = 65536};
    const cli_iopt opts[] = {
        {"nodes", CLI_IOPT_PATH, 0, 0, 0, &o.nodes, NULL, NULL},
        {"gpu-type", CLI_IOPT_FN, 0, 0, 0, &c, NULL, type_opt},
        {"cpu-jobs", CLI_IOPT_FLAG, 0, 0, 0, &o.cpu_jobs, NULL, NULL},
        {"sort-lines", CLI_IOPT_SIZE, 1, 1e8, 0, &o.sort_lines, NULL, NULL},
        {"out-cluster", CLI_IOPT_PATH, 0, 0, 0, &c.out_cluster, NULL, NULL},
        {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
    };
    gpu_catalog cat;
    gs_error err = {0};
    if (import_gpu_load(&c.gpus, &cat, &err))
        return cli_fail(&err);
    const char *out_trace;
    int rc = cli_import_args(argc, argv, "sacct", "accounting file SACCT.txt", opts, usage, &c.in, &out_trace);
    if (rc < 0 && c.out_cluster && !o.nodes) {
        fprintf(stderr, "gpusim: error: import sacct: --out-cluster needs --nodes NODES.txt\n");
        rc = 2;
    }
    wl_gpu_names names = import_gpu_names(&c.gpus);
    o.names = &names;
    wl_sacct_counts n;
    if (rc < 0 && !(c.s = wl_slurm_new(&o, stderr, &n, &err)))
        rc = cli_fail(&err);
    if (rc < 0) {
        int e = cli_emit(out_trace, emit_trace, &c, &err);
        if (e == 0 && c.out_cluster)
            e = cli_emit(c.out_cluster, emit_cluster, &c, &err);
        rc = e ? cli_fail(&err) : 0;
        if (rc == 0)
            print_counts(&o, &n, out_trace, c.out_cluster);
    }
    wl_slurm_free(c.s);
    gpu_catalog_free(&cat);
    return rc;
}
