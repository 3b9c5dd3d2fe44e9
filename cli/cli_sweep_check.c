/* cli_sweep_check.c - `sweep init` checks each run the way `run` would set
 * it up, before any is written: the cluster loads (a file that cannot be
 * read, a template's "count": "N", an unknown GPU model), and the policy
 * with its parameters starts on it over the first trace's first row (an
 * unknown parameter, a bad value, two space policies, a time policy named
 * twice). Otherwise each would surface only when every run failed. One set
 * up per (cluster, policy entry): the seeds and the other traces change
 * neither.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_sweep.h"
#include "../policies/registry.h"
#include "../sim/sim_cluster_file.h"

int sw_check_cluster(const gpu_catalog *cat, const sw_run *r, gs_error *err)
{
    sim_cluster cl;
    cli_cluster_src src = {r->cluster, r->gpus, r->gpus_per_node ? (int)r->gpus_per_node : 8};
    int rc = cli_load_cluster(&cl, &src, cat, err);
    if (rc == 0)
        sim_cluster_free(&cl);
    return rc;
}

int sw_check_run(const gpu_catalog *cat, const sw_run *r, gs_error *err)
{
    sim_cluster cl;
    cli_cluster_src src = {r->cluster, r->gpus, r->gpus_per_node ? (int)r->gpus_per_node : 8};
    int rc = cli_load_cluster(&cl, &src, cat, err);
    if (rc)
        return rc;
    static sim_config cfg; /* large: not on the stack */
    memset(&cfg, 0, sizeof cfg);
    cfg.registry = pol_all();
    cfg.trace_path = r->trace;
    cfg.policy = r->policy;
    cfg.seed = r->seed;
    char *kv[SIM_MAX_SETS] = {0};
    for (int i = 0; i < r->nsets && i < SIM_MAX_SETS; i++) {
        kv[i] = xstrdup(r->sets[i]);
        char *eq = strchr(kv[i], '=');
        if (!eq) {
            rc = gs_err(err, GS_EUSAGE, "parameter '%s': expected KEY=VALUE", r->sets[i]);
            break;
        }
        *eq = 0;
        cfg.sets[cfg.nsets].key = kv[i];
        cfg.sets[cfg.nsets++].value = eq + 1;
    }
    if (rc == 0) {
        sim *s = sim_create();
        rc = sim_init(s, &cfg, cat, &cl, NULL, err);
        sim_destroy(s);
    }
    for (int i = 0; i < SIM_MAX_SETS; i++)
        free(kv[i]);
    sim_cluster_free(&cl);
    return rc;
}
