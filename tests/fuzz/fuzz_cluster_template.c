/* fuzz_cluster_template.c - the cluster template loader
 * (cli/cluster_template.c) on any bytes: refused with a message, or a
 * template whose node counts at N = 1, 7 and 1000 and whose instance at
 * N = 3 are made (and the instance loads as a cluster or is refused with a
 * message).
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/cluster_template.h"
#include "../../sim/sim_cluster_file.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fz_write(data, size, "template.json");
    cluster_template t;
    gs_error err = {0};
    int rc = cluster_template_load(&t, p, &err);
    if (rc) {
        fz_check_err(rc, &err);
        cluster_template_free(&t);
        return 0;
    }
    static const long ns[] = {1, 7, 1000};
    for (int g = 0; g < t.ngroups; g++)
        for (int k = 0; k < 3; k++)
            if (cluster_template_count(&t, g, ns[k]) < 0)
                abort();
    cJSON *inst = cluster_template_instance(&t, 3);
    if (inst) {
        char *text = cJSON_PrintUnformatted(inst);
        const char *ip = fz_write((const uint8_t *)text, strlen(text), "instance.json");
        sim_cluster cl;
        if ((rc = sim_cluster_load(&cl, ip, fz_catalog(), &err)) == 0)
            sim_cluster_free(&cl);
        else
            fz_check_err(rc, &err);
        free(text);
        cJSON_Delete(inst);
    }
    cluster_template_free(&t);
    return 0;
}
