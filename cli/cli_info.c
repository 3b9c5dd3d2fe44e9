/* cli_info.c - `gpusim policies` and `gpusim models`: what is available.
 * Both read the same tables the run uses (the registry, the catalog).
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "../models/gpu/gpu_model.h"
#include "../policies/registry.h"
#include "cli.h"
#include "../sim/sim_preempt.h"

/* "    --set NAME=DEFAULT\t[TYPE RANGE] HELP" (the tab: scripts/check_docs.sh) */
static void print_param(const pol_param *pp)
{
    char type[160];
    gs_param_describe(&pp->spec, type, sizeof type);
    printf("    --set %s=%s\t%s%s%s%s\n", pp->name, pp->def, type[0] ? "[" : "", type, type[0] ? "] " : "", pp->help);
}

int cmd_policies(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stdout, "usage: gpusim policies\n");
        return 0;
    }
    for (const pol_ops *const *p = pol_all(); *p; p++) {
        const char *kind = (*p)->kind == POL_SPACE ? "space" : (*p)->actuator ? "actuator" : "time";
        printf("%-10s %s policy: %s\n", (*p)->name, kind, (*p)->summary);
        for (const pol_param *pp = (*p)->params; pp && pp->name; pp++)
            print_param(pp);
    }
    printf("core (any policy): inference services (svc_*), priorities, tenant quotas (cluster file 'tenants'), "
           "preemption\n");
    for (const pol_param *const *t = sim_core_params(); *t; t++)
        for (const pol_param *pp = *t; pp->name; pp++)
            print_param(pp);
    printf("\nCombine one space policy with time policies as SPACE+TIME (e.g. whole+hibernate); a service "
           "actuator (the service layer's replicas sleep and wake) is named the same way, one per run "
           "(e.g. whole+dualpod).\n");
    return 0;
}

int cmd_models(int argc, char **argv)
{
    char dir[512] = "";
    bool llm = false, validate = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--models") && i + 1 < argc)
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--llm"))
            llm = true;
        else if (!strcmp(argv[i], "--validate"))
            validate = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: gpusim models [--llm | --validate] [--models DIR]\n\n"
                   "  the GPU models known (models/gpu/*.json): memory, speed, links, price, MIG;\n"
                   "  --llm: the LLM catalog (models/llm/); --validate: the performance model against the\n"
                   "  measured profiles; --models DIR: another model directory\n");
            return 0;
        } else {
            fprintf(stderr, "gpusim: error: models: unexpected argument '%s'\nusage: gpusim models "
                            "[--llm | --validate] [--models DIR]\n", argv[i]);
            return 2;
        }
    }
    if (!*dir)
        gpu_catalog_default_dir(dir, sizeof dir);
    if (llm)
        return cli_models_llm(dir);
    gpu_catalog cat;
    gs_error err = {0};
    if (gpu_catalog_load(&cat, dir, &err) != 0)
        return cli_fail(&err);
    if (validate) {
        int rc = cli_models_validate(dir, &cat);
        gpu_catalog_free(&cat);
        return rc;
    }
    printf("%-18s %7s %7s %7s %8s %10s %5s %-11s %8s %6s %4s %10s  %s\n", "model", "tflops", "fp8", "fp4", "mem_GB/s",
           "mem_mib", "sms", "host_link", "GB/s/dir", "nvlink", "net", "usd/gpu-h", "MIG profiles");
    for (int i = 0; i < cat.n; i++) {
        const gpu_model *m = &cat.models[i];
        char price[32], tf[32], f8[32], f4[32], bw[32], nv[32], net[32];
        snprintf(price, sizeof price, m->price_per_hour_usd >= 0 ? "%.3f" : "-", m->price_per_hour_usd);
        snprintf(tf, sizeof tf, m->tensor_tflops >= 0 ? "%.1f" : "-", m->tensor_tflops);
        snprintf(f8, sizeof f8, m->fp8_tflops >= 0 ? "%.0f" : "-", m->fp8_tflops);
        snprintf(f4, sizeof f4, m->fp4_tflops >= 0 ? "%.0f" : "-", m->fp4_tflops);
        snprintf(bw, sizeof bw, m->mem_bw_gbps >= 0 ? "%.0f" : "-", m->mem_bw_gbps);
        snprintf(nv, sizeof nv, m->nvlink_gbps > 0 ? "%.0fx%d" : "-", m->nvlink_gbps, m->nvlink_gpus);
        snprintf(net, sizeof net, m->net_gbps > 0 ? "%.0f" : "-", m->net_gbps);
        printf("%-18s %7s %7s %7s %8s %10lld %5d %-11s %8.0f %6s %4s %10s  %d%s%s\n", m->name, tf, f8, f4, bw,
               (long long)m->memory_mib, m->sms, m->host_link_kind, m->host_link_gbps_per_dir, nv, net, price,
               m->mig ? m->mig->nprofiles : 0, *m->unverified ? "  unverified: " : "", m->unverified);
    }
    printf("\ntflops, fp8, fp4: peak dense tensor TFLOPS (BF16, else FP16; FP8; FP4); mem_GB/s: memory bandwidth "
           "(1e9 B/s);\nnvlink: GB/s per GPU both ways x the GPUs one NVLink domain joins; net: scale-out GB/s per GPU "
           "each way;\nunverified: figures the sources could not confirm (estimates). Sources: each file's "
           "figure_sources.\n'gpusim models --llm' lists the LLM catalog, '--validate' checks the speed model.\n");
    gpu_catalog_free(&cat);
    return 0;
}
